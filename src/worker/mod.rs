//! The child side of grading: confine this process, load the student's
//! code, ask it the questions of one test, and report on the protocol fd.
