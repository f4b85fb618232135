use super::*;
use crate::words::across::fixed_board_size;

fn test(case: &str, function: Function, verdict: Verdict, message: &str) -> TestReport {
    TestReport {
        time_ms: Some(1.0),
        message: message.into(),
        ..crate::report::named(case, function, verdict)
    }
}

fn run(tests: Vec<TestReport>) -> CheckView {
    CheckView {
        path: "sudoku.c".into(),
        lang: Some(Lang::C),
        status: Status::Ok,
        grader_fault: false,
        message: String::new(),
        hint: None,
        notes: Vec::new(),
        tests,
        shrunk: Vec::new(),
        first_steps: Vec::new(),
        legal_swap: None,
        not_run: 0,
        size_note: None,
        warnings: Vec::new(),
        watching: false,
    }
}

fn text(run: &CheckView, verbose: bool) -> String {
    plain_text(&view(run, verbose))
}

#[test]
fn one_block_per_failing_function_each_standing_alone() {
    let r = run(vec![
        test(
            "a",
            Function::Legal,
            Verdict::Wrong,
            "legal(board, 0, 1, 2) returned true, but 2 is already in row 0: check every cell of the row",
        ),
        test(
            "b",
            Function::Legal,
            Verdict::Wrong,
            "legal(board, 1, 1, 3) returned true: check",
        ),
        test("a", Function::FindEmpty, Verdict::Pass, ""),
        test(
            "a",
            Function::Solve,
            Verdict::Wrong,
            "solve returned true, but 3 appears twice in row 0: every row",
        ),
    ]);
    let shown = text(&r, false);
    assert!(shown.contains("✗ legal      2 of 2 cases fail"), "{shown}");
    assert!(shown.contains("check every cell of the row"), "{shown}");
    assert!(shown.contains("the same on: b"), "{shown}");
    assert!(!shown.contains("legal(board, 1, 1, 3)"), "{shown}");
    assert!(shown.contains("✓ find_empty 1 of 1 cases pass"), "{shown}");
    // solve's block goes under legal's, as what may follow from it.
    let legal_at = shown.find("✗ legal").unwrap();
    let under = shown
        .find("solve asks legal, so these failures of solve may follow from legal's")
        .expect("the lead line");
    let solve_at = shown.find("  ✗ solve").expect("solve nested");
    let find_empty_at = shown.find("✓ find_empty").unwrap();
    assert!(
        legal_at < under && under < solve_at && solve_at < find_empty_at,
        "{shown}"
    );
    // No failure is blamed on another function's without evidence:
    // solve's own message, advice and all, stands.
    assert!(!shown.contains("caused by"), "{shown}");
    assert!(shown.contains("every row"), "{shown}");
    assert!(shown.contains("1 of 4 public tests passed."), "{shown}");
    assert!(shown.contains("hidden tests"), "{shown}");
}

#[test]
fn a_board_size_written_into_the_code_is_named() {
    let size = |case: &str| match case.as_bytes()[0] {
        b'a' => Some(2),
        b'b' => Some(3),
        _ => Some(4),
    };
    let tests = vec![
        test("a1", Function::Legal, Verdict::Crash, "IndexError"),
        test("a2", Function::Legal, Verdict::Pass, ""),
        test("b1", Function::Legal, Verdict::Pass, ""),
        test("c1", Function::FindEmpty, Verdict::Wrong, ""),
        test("c2", Function::Solve, Verdict::Wrong, ""),
    ];
    let note = fixed_board_size(&tests, size, Some(Lang::Python)).expect("a note");
    assert!(
        note.starts_with("your code assumes a 9x9 board (n = 3): every 9x9 test passes"),
        "{note}"
    );
    assert!(
        note.contains("1 of 2 tests on the 4x4s, 2 of 2 tests on the 16x16s"),
        "{note}"
    );
    assert!(note.contains("range(N)"), "{note}");
    // One other size passing, or only one other size: no proof.
    let mut passing = tests.clone();
    passing[3].verdict = Verdict::Pass;
    passing[4].verdict = Verdict::Pass;
    assert_eq!(fixed_board_size(&passing, size, None), None);
    assert_eq!(fixed_board_size(&tests[..3], size, None), None);
    // Only solve failing on a size (a search bug that shows on bigger
    // boards): not what a fixed size predicts.
    let mut solve_only = tests.clone();
    solve_only[0].function = Function::Solve;
    solve_only[3].verdict = Verdict::Pass;
    assert_eq!(fixed_board_size(&solve_only, size, None), None);
    // ...unless it wrote a digit past a smaller board's N: a digit
    // loop to the fixed N.
    solve_only[0].check = Some(Check::SolveRange);
    assert!(fixed_board_size(&solve_only, size, None).is_some());
    // Every size failing: not a size bug.
    let mut all = tests.clone();
    all[2].verdict = Verdict::Wrong;
    assert_eq!(fixed_board_size(&all, size, None), None);
    let mut r = run(tests.clone());
    r.size_note = fixed_board_size(&tests, size, None);
    let shown = text(&r, false);
    assert!(
        shown.starts_with("! your code assumes a 9x9 board"),
        "{shown}"
    );
}

#[test]
fn all_passed_says_hidden_tests_count() {
    let r = run(vec![test("a", Function::Solve, Verdict::Pass, "")]);
    let shown = text(&r, false);
    assert!(shown.contains("All 1 of 1 public tests passed."), "{shown}");
    assert!(shown.contains("also counts hidden tests"), "{shown}");
}

#[test]
fn the_runtimes_noise_is_not_shown_as_printed_and_escapes_are_marked_untrusted() {
    let mut crash = test(
        "a",
        Function::Solve,
        Verdict::Crash,
        "solve crashed with a stack overflow",
    );
    crash.output = "\x1b[2Jhello\nthread '<unknown>' has overflowed its stack\nfatal runtime error: stack overflow, aborting\n".into();
    let lines = view(&run(vec![crash]), false);
    let shown = plain_text(&lines);
    assert!(!shown.contains("overflowed its stack"), "{shown}");
    assert!(!shown.contains("fatal runtime error"), "{shown}");
    let printed = lines
        .iter()
        .find_map(|l| match l {
            Line::Text { spans } => spans.iter().find(|s| s.text == "\x1b[2Jhello"),
            _ => None,
        })
        .expect("the printed line");
    assert!(printed.untrusted, "{printed:?}");
}

#[test]
fn a_rust_panic_shows_what_the_student_printed_without_the_runtime() {
    let mut crash = test(
        "a",
        Function::Solve,
        Verdict::Crash,
        "panic: gave up (at src/lib.rs:25:9)",
    );
    crash.output = "mine\n\nthread '<unnamed>' (43) panicked at src/lib.rs:25:9:\ngave up\n\
        note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\
        thread '<unnamed>' (43) panicked at /rustc/abc/library/core/src/panicking.rs:225:5:\n\
        panic in a function that cannot unwind\nstack backtrace:\n   0:     0x7f1a608c400a - <unknown>\n\
          32:                0x0 - <unknown>\nthread caused non-unwinding panic. aborting.\n"
        .into();
    let shown = text(&run(vec![crash]), false);
    assert!(
        shown.contains("panic: gave up (at src/lib.rs:25:9)"),
        "{shown}"
    );
    assert!(shown.contains("| mine"), "{shown}");
    for noise in [
        "<unknown>",
        "RUST_BACKTRACE",
        "cannot unwind",
        "/rustc/",
        "aborting",
    ] {
        assert!(!shown.contains(noise), "{noise}: {shown}");
    }
    // A panic whose unwind ends at the grader's call (no catch above it).
    let mut ended = test(
        "a",
        Function::Solve,
        Verdict::Crash,
        "panic: gave up (at src/lib.rs:25:9)",
    );
    ended.output = "mine\nthread '<unnamed>' (7) panicked at src/lib.rs:25:9:\ngave up\n\
        fatal runtime error: failed to initiate panic, error 5, aborting\n"
        .into();
    let shown = text(&run(vec![ended]), false);
    assert!(
        shown.contains("| mine") && !shown.contains("fatal runtime"),
        "{shown}"
    );
    let mut quiet = test(
        "a",
        Function::Solve,
        Verdict::Crash,
        "panic: x (at src/lib.rs:1:1)",
    );
    quiet.output = "\nthread 'main' panicked at src/lib.rs:1:1:\nx\n".into();
    let shown = text(&run(vec![quiet]), false);
    assert!(!shown.contains("your code printed"), "{shown}");
}

#[test]
fn a_test_board_is_labelled_by_the_finding_not_the_words() {
    let board = crate::board_view::BoardView {
        n: 2,
        rows: vec![vec![1, 2, 3, 4]; 4],
        mark: Some([0, 1]),
    };
    let mut asked = test(
        "a",
        Function::FindEmpty,
        Verdict::Wrong,
        "find_empty returned (row 0, col 1) on a full board",
    );
    asked.board = Some(board.clone());
    asked.finding = Some(Finding::FindEmptyFull {
        on_test_board: true,
        returned: [0, 1],
    });
    let shown = text(&run(vec![asked.clone()]), false);
    assert!(
        shown.contains("the test board it was asked about (not the case's puzzle):"),
        "{shown}"
    );
    assert!(shown.contains("  0  1[2]| 3 4"), "{shown}");
    // The same words on the puzzle itself: no label.
    asked.finding = Some(Finding::FindEmptyFull {
        on_test_board: false,
        returned: [0, 1],
    });
    let shown = text(&run(vec![asked]), false);
    assert!(!shown.contains("the test board"), "{shown}");
}

#[test]
fn a_solve_that_gave_up_after_failing_helpers_is_told_the_fact_only() {
    let mut gave_up = test(
        "a",
        Function::Solve,
        Verdict::Wrong,
        "solve returned false and left the board as it was passed in, but this puzzle has a \
         solution: return false only after every digit failed",
    );
    gave_up.finding = Some(Finding::SolveGaveUp {
        side: 4,
        needs_top: None,
    });
    let legal = test(
        "a",
        Function::Legal,
        Verdict::Wrong,
        "legal(board, 0, 1, 2) returned true",
    );
    let shown = text(&run(vec![legal.clone(), gave_up.clone()]), false);
    assert!(
        shown.contains("your legal or find_empty fails its own tests above"),
        "{shown}"
    );
    assert!(!shown.contains("return false only after"), "{shown}");
    // The same words without the finding decide nothing.
    gave_up.finding = None;
    let shown = text(&run(vec![legal, gave_up]), false);
    assert!(!shown.contains("fails its own tests above"), "{shown}");
}

#[test]
fn the_view_is_data_a_page_can_read() {
    let r = run(vec![test("a", Function::Solve, Verdict::Pass, "")]);
    let json = serde_json::to_string(&view(&r, false)).expect("serialisable");
    assert!(json.contains(r#""line":"text""#), "{json}");
    let back: CheckView =
        serde_json::from_str(&serde_json::to_string(&r).expect("serialisable")).expect("read back");
    assert_eq!(back, r);
}

#[test]
fn each_diagnosis_is_told_once_with_the_cases_it_covers() {
    let wrong = |case: &str, check: Check, message: &str| TestReport {
        check: Some(check),
        ..test(case, Function::Solve, Verdict::Wrong, message)
    };
    let r = run(vec![
        wrong(
            "a",
            Check::SolveLeftover,
            "solve returned false, but (row 0, col 1) still holds 2: a fake given",
        ),
        wrong(
            "b",
            Check::SolveLeftover,
            "solve returned false, but (row 1, col 1) still holds 3: a fake given",
        ),
        wrong(
            "c",
            Check::SolveResult,
            "solve returned true, but this puzzle has no solution: advice",
        ),
        wrong(
            "d",
            Check::SolveLeftover,
            "solve returned false, but (row 2, col 1) still holds 1: a fake given",
        ),
    ]);
    let shown = text(&r, false);
    assert_eq!(shown.matches("still holds").count(), 1, "{shown}");
    assert!(shown.contains("the same on: b, d"), "{shown}");
    assert!(
        shown.contains(
            "also fails: c (wrong): solve returned true, but this puzzle has no solution"
        ),
        "{shown}"
    );
    // -v: every failure in full.
    let all = text(&r, true);
    assert_eq!(all.matches("still holds").count(), 3, "{all}");
}

#[test]
fn the_cases_end_and_the_small_boards_never_interleave() {
    let board = |cells: [u8; 4]| crate::board_view::BoardView {
        n: 1,
        rows: vec![cells.to_vec()],
        mark: None,
    };
    let mut failing = test(
        "a",
        Function::Solve,
        Verdict::Wrong,
        "solve returned false and left the board as it was passed in, but it needs 4 at (row 2, col 2): advice",
    );
    failing.finding = Some(Finding::SolveGaveUp {
        side: 4,
        needs_top: Some([2, 2]),
    });
    let mut r = run(vec![failing]);
    r.shrunk.push(ShrunkView {
        case: "a".into(),
        full_board: board([1, 0, 0, 4]),
        small_board: board([1, 2, 3, 0]),
        small_puzzle: "123.".into(),
        empty: 1,
        original_empty: 2,
        runs: 3,
        ms: 1.0,
        stopped_early: false,
        check: None,
        diagnosis: None,
        verdict: Verdict::Wrong,
        message: "on the small board it needs 4 at (row 0, col 3)".into(),
        finding: None,
        small_after: None,
        after_is_step: false,
    });
    r.first_steps.push(FirstStepView {
        case: "a".into(),
        on_small_board: true,
        source: Recorder::WriteWatch,
        check: Check::SolveTraceUntried,
        finding: None,
        message: "at (row 0, col 3) the search tried 1, 2, 3 and gave the cell up".into(),
        board: Some(board([1, 2, 3, 0])),
    });
    let shown = text(&r, false);
    let at = |needle: &str| {
        shown
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not in:\n{shown}"))
    };
    // The diagnosis first, then the small board whole, then the case's end.
    assert!(at("the search tried 1, 2, 3") < at("your solve fails the same way even here"));
    assert!(at("the small board as text") < at("the board at that step:"));
    assert!(at("the board at that step:") < at("in the end, on a itself:"));
    assert!(
        !shown.contains("advice"),
        "the case's end is its fact: {shown}"
    );
}

#[test]
fn the_compilers_warnings_go_beside_the_first_failure_of_their_function() {
    let mut r = run(vec![
        test(
            "a",
            Function::Legal,
            Verdict::Wrong,
            "legal(board, 0, 1, 2) returned true: check",
        ),
        test("a", Function::FindEmpty, Verdict::Pass, ""),
    ]);
    r.warnings = vec![
        Warning {
            function: Some(Function::Legal),
            text: "sudoku.c:9:13: unused variable 'bc'".into(),
        },
        Warning {
            function: Some(Function::Solve),
            text: "sudoku.c:30:5: unused variable 'x'".into(),
        },
    ];
    let shown = text(&r, false);
    assert!(
        shown.contains("the compiler warned in your legal (one may name the bug):"),
        "{shown}"
    );
    assert!(
        shown.contains("sudoku.c:9:13: unused variable 'bc'"),
        "{shown}"
    );
    assert!(!shown.contains("'x'"), "solve passed its tests: {shown}");
}
