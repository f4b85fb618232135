//! The report model (SPEC 6) and one module per output format.
