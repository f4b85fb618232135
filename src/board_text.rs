//! The board text format of SPEC 1: parsed and printed.
