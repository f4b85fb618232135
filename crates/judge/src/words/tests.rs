use super::*;
use crate::report::TestReport;
use crate::verdict::Verdict;

fn test(case: &str, function: Function, verdict: Verdict, finding: Option<Finding>) -> TestReport {
    TestReport {
        finding,
        ..crate::report::named(case, function, verdict)
    }
}

fn no_write(calls: CallsSeen) -> Finding {
    Finding::NoWrite {
        fact: "solve returned true without writing a single digit on the board it was given \
               ((row 0, col 1) is still empty)"
            .into(),
        calls,
    }
}

fn cx(lang: Option<Lang>, legal: LegalTests, base_case: Option<BaseCase>) -> Context {
    Context {
        lang,
        legal,
        find_empty: LegalTests::Pass,
        base_case,
        find_empty_misses: false,
    }
}

#[test]
fn a_true_on_a_puzzle_without_solution_names_the_base_case() {
    let tests = vec![
        test(
            "open",
            Function::Solve,
            Verdict::Wrong,
            Some(no_write(CallsSeen::Once)),
        ),
        test(
            "dead",
            Function::Solve,
            Verdict::Wrong,
            Some(Finding::SolveTrueUnchanged),
        ),
    ];
    let proof = BaseCase::of(&tests, |c| c == "dead").expect("evidence");
    assert_eq!(proof, BaseCase::TrueOnEmpty("dead".into()));
    let said = message(
        &no_write(CallsSeen::Once),
        Function::Solve,
        "",
        &cx(Some(Lang::Python), LegalTests::Unknown, Some(proof)),
    );
    assert!(
        said.starts_with("solve returned true without writing"),
        "{said}"
    );
    assert!(
        said.contains(": its base case returns True while a cell is empty: on dead"),
        "{said}"
    );
    assert!(!said.contains("copy:"), "{said}");
}

#[test]
fn a_false_on_a_puzzle_without_solution_points_at_the_copy() {
    let tests = vec![
        test(
            "open",
            Function::Solve,
            Verdict::Wrong,
            Some(no_write(CallsSeen::Once)),
        ),
        test("dead", Function::Solve, Verdict::Pass, None),
    ];
    let proof = BaseCase::of(&tests, |c| c == "dead").expect("evidence");
    let said = message(
        &no_write(CallsSeen::Once),
        Function::Solve,
        "",
        &cx(None, LegalTests::Unknown, Some(proof)),
    );
    assert!(
        said.contains(": most likely it solved a copy: on dead"),
        "{said}"
    );
    assert!(!said.contains("or its base case"), "{said}");
    // Without a proof, both causes, as the calls seen allow.
    let both = message(
        &no_write(CallsSeen::Once),
        Function::Solve,
        "",
        &Context::default(),
    );
    assert!(both.contains("either it solved a copy"), "{both}");
    assert!(both.contains("or its base case returns true"), "{both}");
    let recursed = message(
        &no_write(CallsSeen::Recursed),
        Function::Solve,
        "",
        &Context::default(),
    );
    assert!(!recursed.contains("base case"), "{recursed}");
}

#[test]
fn without_a_puzzle_that_has_no_solution_nothing_is_proved() {
    let tests = vec![test(
        "open",
        Function::Solve,
        Verdict::Wrong,
        Some(no_write(CallsSeen::Once)),
    )];
    assert_eq!(BaseCase::of(&tests, |c| c == "dead"), None);
    // Another failure of a no-solution case (a given overwritten) is no
    // proof either way, whatever its words.
    let mut given = test("dead", Function::Solve, Verdict::Wrong, None);
    given.message = "solve returned true, but the board is exactly as it was passed in".into();
    assert_eq!(BaseCase::of(&[given], |c| c == "dead"), None);
}

#[test]
fn an_illegal_write_is_worded_by_legals_own_tests() {
    let fact = "step 2 (depth 2): solve wrote 1 at (row 0, col 1), but the box already held 1 \
                (at (row 1, col 0)): every placement must be legal when it is written";
    let deeper = Finding::IllegalWrite {
        fact: fact.into(),
        fit: IllegalFit::Deeper { depth: 2 },
    };
    let passing = message(
        &deeper,
        Function::Solve,
        "",
        &cx(Some(Lang::Python), LegalTests::Pass, None),
    );
    assert!(
        passing.contains("your legal passes its own tests, so most likely the recursive call"),
        "{passing}"
    );
    assert!(
        passing.contains("solve(board, n), not solve(board)"),
        "{passing}"
    );
    let failing = message(
        &deeper,
        Function::Solve,
        "",
        &cx(None, LegalTests::Fail, None),
    );
    assert!(!failing.contains("recursive call"), "{failing}");
    assert!(
        failing.contains("your legal fails its own tests above"),
        "{failing}"
    );
    assert!(failing.starts_with(fact), "{failing}");
    let unknown = message(&deeper, Function::Solve, "", &Context::default());
    assert!(
        unknown.contains("if your legal passes its own tests"),
        "{unknown}"
    );
    // Write-then-check: with legal passing, the words never point at it.
    let plain = Finding::IllegalWrite {
        fact: fact.into(),
        fit: IllegalFit::Nothing,
    };
    let write_first = message(
        &plain,
        Function::Solve,
        "",
        &cx(Some(Lang::C), LegalTests::Pass, None),
    );
    assert!(write_first.contains("write-then-check"), "{write_first}");
    assert!(
        !write_first.contains("legal answered true here"),
        "{write_first}"
    );
    assert!(!write_first.contains("row first"), "{write_first}");
}

#[test]
fn legal_is_known_to_pass_only_when_every_test_ran_and_passed() {
    let legal = |verdict| test("a", Function::Legal, verdict, None);
    assert_eq!(
        LegalTests::of(&[legal(Verdict::Pass)], true),
        LegalTests::Pass
    );
    assert_eq!(
        LegalTests::of(&[legal(Verdict::Pass)], false),
        LegalTests::Unknown
    );
    assert_eq!(
        LegalTests::of(&[legal(Verdict::Wrong)], false),
        LegalTests::Fail
    );
    assert_eq!(
        LegalTests::of(&[test("a", Function::Solve, Verdict::Wrong, None)], true),
        LegalTests::Unknown
    );
}

#[test]
fn none_is_spelled_in_the_students_language_only() {
    let none = Finding::FindEmptyNone {
        on_test_board: false,
        empty: [2, 3],
    };
    let python = message(
        &none,
        Function::FindEmpty,
        "",
        &cx(Some(Lang::Python), LegalTests::Unknown, None),
    );
    assert_eq!(
        python,
        "find_empty reported none, but (row 2, col 3) is empty: report none (return None) only \
         when no cell is empty"
    );
    let c = message(
        &none,
        Function::FindEmpty,
        "",
        &cx(Some(Lang::C), LegalTests::Unknown, None),
    );
    assert!(c.contains("(return false)"), "{c}");
    assert!(!c.contains("None"), "{c}");
    let full = Finding::FindEmptyFull {
        on_test_board: true,
        returned: [0, 0],
    };
    let rust = message(
        &full,
        Function::FindEmpty,
        "",
        &cx(Some(Lang::Rust), LegalTests::Unknown, None),
    );
    assert!(rust.starts_with("find_empty, on a test board (not the case's puzzle), returned (row 0, col 0) on a full board"), "{rust}");
    assert!(!rust.contains("false in C"), "{rust}");
}

#[test]
fn recursion_and_the_digit_loop_are_told_in_the_labs_words() {
    let overflow = Finding::StackOverflow { during_load: false };
    let said = message(
        &overflow,
        Function::Solve,
        "stack overflow (recursion too deep?), ended by SIGABRT",
        &Context::default(),
    );
    assert!(
        said.starts_with("solve crashed with a stack overflow: it called itself without end"),
        "{said}"
    );
    assert!(
        said.contains("recursed without writing a digit into the cell find_empty returned"),
        "{said}"
    );
    let loading = Finding::StackOverflow { during_load: true };
    assert_eq!(
        message(&loading, Function::Solve, "as said", &Context::default()),
        "as said"
    );
    let harness = "recursed too deep in solve (RecursionError: maximum recursion depth exceeded)";
    let said = message(
        &Finding::RecursionLimit,
        Function::Solve,
        harness,
        &Context::default(),
    );
    assert!(said.starts_with(harness), "{said}");
    assert!(
        said.contains("solve called itself without end (RecursionError)"),
        "{said}"
    );
    let gave_up = Finding::SolveGaveUp {
        side: 4,
        needs_top: Some([2, 2]),
    };
    let rust = message(
        &gave_up,
        Function::Solve,
        "",
        &cx(Some(Lang::Rust), LegalTests::Unknown, None),
    );
    assert!(rust.contains("(for v in 1..=n*n, not 1..n*n)"), "{rust}");
    assert!(!rust.contains("in Python"), "{rust}");
    let any = message(&gave_up, Function::Solve, "", &Context::default());
    assert!(any.contains(crate::check::DIGIT_LOOP_ANY), "{any}");
}

#[test]
fn a_find_empty_that_misses_cells_is_named_before_any_base_case() {
    let misses = test(
        "open",
        Function::FindEmpty,
        Verdict::Wrong,
        Some(Finding::FindEmptyNone {
            on_test_board: false,
            empty: [0, 1],
        }),
    );
    let tests = vec![
        misses,
        test(
            "open",
            Function::Solve,
            Verdict::Wrong,
            Some(no_write(CallsSeen::Once)),
        ),
        test(
            "dead",
            Function::Solve,
            Verdict::Wrong,
            Some(Finding::SolveTrueUnchanged),
        ),
    ];
    let cx = Context::of(&tests, true, Some(Lang::Python), |c| c == "dead");
    assert!(cx.find_empty_misses);
    assert_eq!(cx.base_case, None, "no proof of the base case");
    let said = message(&no_write(CallsSeen::Once), Function::Solve, "", &cx);
    assert!(
        said.contains("your find_empty reports no empty cell"),
        "{said}"
    );
    assert!(said.contains("returns True at once"), "{said}");
    assert!(!said.contains("base case"), "{said}");
}

#[test]
fn a_solve_that_gave_up_at_once_names_the_helpers_unless_their_tests_passed() {
    let at_once = Finding::GaveUpAtOnce {
        empty: [0, 1],
        fits: 2,
        side: 4,
    };
    let helpers = "a legal or find_empty that answered wrong";
    let proven = cx(Some(Lang::Python), LegalTests::Pass, None);
    let said = message(&at_once, Function::Solve, "", &proven);
    assert!(said.contains("a loop that stops before 2"), "{said}");
    assert!(!said.contains(helpers), "{said}");
    for (legal, find_empty) in [
        (LegalTests::Fail, LegalTests::Pass),
        (LegalTests::Pass, LegalTests::Fail),
        (LegalTests::Unknown, LegalTests::Pass),
    ] {
        let unproven = Context {
            find_empty,
            ..cx(Some(Lang::Python), legal, None)
        };
        let said = message(&at_once, Function::Solve, "", &unproven);
        assert!(said.contains(helpers), "{legal:?} {find_empty:?}: {said}");
    }
}
