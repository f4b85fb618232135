//! A stand-in.
