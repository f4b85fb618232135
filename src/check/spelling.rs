//! How a hint spells code in the submission's own language: a Rust student
//! is told `1..=n*n`, a Python student `range(1, n*n + 1)`, a C student
//! `v <= n*n`. The end-state checks do not know the language (the same
//! judge serves every kind), so their messages spell all three; the
//! student view and the trace, which know it, spell one.

use crate::submission::discover::SubmissionKind;

/// The digit loop that tries every digit from 1 to N, as the lab's
/// listing writes it in `kind`'s language.
pub fn digit_loop(kind: SubmissionKind) -> &'static str {
    match kind {
        SubmissionKind::Rust => "for v in 1..=n*n, not 1..n*n",
        SubmissionKind::Python => "for v in range(1, n*n + 1), not range(1, n*n)",
        SubmissionKind::C | SubmissionKind::Library => "loop while v <= n*n, not v < n*n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_gets_its_own_spelling() {
        assert!(digit_loop(SubmissionKind::Rust).contains("1..=n*n"));
        assert!(digit_loop(SubmissionKind::Python).contains("range(1, n*n + 1)"));
        assert!(digit_loop(SubmissionKind::C).contains("v <= n*n"));
    }
}
