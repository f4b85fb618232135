//! How the words spell code in the submission's own language: a Rust
//! student is told `1..=n*n`, a Python student `range(1, n*n + 1)`, a C
//! student `v <= n*n`; `None` or `false` for "no cell". Without a language
//! (a report that does not know it) the words spell all three.

use crate::finding::Lang;

/// The digit loop that tries every digit from 1 to N, as the lab's
/// listing writes it in `lang`.
pub fn digit_loop(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => "for v in 1..=n*n, not 1..n*n",
        Lang::Python => "for v in range(1, n*n + 1), not range(1, n*n)",
        Lang::C => "loop while v <= n*n, not v < n*n",
    }
}

/// `true` and `false` as `lang` writes them.
pub fn booleans(lang: Option<Lang>) -> (&'static str, &'static str) {
    match lang {
        Some(Lang::Python) => ("True", "False"),
        _ => ("true", "false"),
    }
}

/// What `find_empty` returns for "no empty cell" in `lang`.
pub fn none(lang: Option<Lang>) -> &'static str {
    match lang {
        Some(Lang::Python) => "return None",
        Some(Lang::Rust) => "return None",
        Some(Lang::C) => "return false",
        None => "None in Python and Rust, false in C",
    }
}

/// How a recursive call passes on what `solve` got.
pub fn recursive_call(lang: Option<Lang>) -> &'static str {
    match lang {
        Some(Lang::Python) => "solve(board, n), not solve(board), which takes the default n",
        _ => "the same n it was given",
    }
}

/// The loops a board size written into the code should use instead.
pub fn sized_loops(lang: Option<Lang>) -> &'static str {
    match lang {
        Some(Lang::Python) => "range(N), n * (r // n)",
        Some(Lang::Rust) => "0..board.side(), board.n() * (r / board.n())",
        _ => "i < N, n * (r / n)",
    }
}

/// The digit loop in all three languages, for a message that does not know
/// which one the student wrote ([`digit_loop`] spells one).
pub const DIGIT_LOOP_ANY: &str = "1..=n*n in Rust, range(1, n*n + 1) in Python, v <= n*n in C";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_gets_its_own_spelling() {
        assert_eq!(digit_loop(Lang::Rust), "for v in 1..=n*n, not 1..n*n");
        assert_eq!(
            digit_loop(Lang::Python),
            "for v in range(1, n*n + 1), not range(1, n*n)"
        );
        assert_eq!(digit_loop(Lang::C), "loop while v <= n*n, not v < n*n");
        assert_eq!(none(Some(Lang::Python)), "return None");
        assert_eq!(none(Some(Lang::C)), "return false");
        assert_eq!(booleans(Some(Lang::Python)), ("True", "False"));
    }
}
