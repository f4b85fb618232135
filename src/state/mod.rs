//! What the grader keeps between runs, and trusts when it reads it back:
//! the results folder of `grade --results DIR` (`results_dir.rs`: one
//! file per student, so that a killed run resumes) and the one way such
//! state is opened (`trusted_dir.rs`: refused when another user could
//! have planted it). The listing's timing cache
//! (`crate::runner::listing_cache`) keeps its file through the same
//! `TrustedDir`.

pub(crate) mod results_dir;
pub(crate) mod trusted_dir;
