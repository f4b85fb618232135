// The browser check's engine: `grader check` for a Python submission, in a
// web page (a Web Worker) or in Node (`worker_threads`), with nothing
// installed. The same three steps as the native check (ARCHITECTURE.md):
//
//   plan    the judge compiled to WebAssembly (crates/judge-web, judge.wasm)
//           builds each test's probe: the boards and the questions;
//   execute Pyodide in a worker runs the grader's own Python harness
//           (src/worker/python_harness.py, its web transport) on it;
//   judge   the same wasm judges the answers and the write trace, words
//           the result, shrinks a failing solve.
//
// THE API (one function):
//
//   import { createChecker } from "./engine/checker.mjs";
//   const checker = await createChecker({ baseURL, cases, onProgress });
//   const { report, view, lines, boards, exitCode } = await checker.check(source, filename);
//   checker.close();
//
// createChecker(options) -> Promise<Checker>
//   baseURL     URL (string or URL, ending in "/") of the site folder laid
//               out as below; in Node a file: URL.
//   cases       optional: the case files as [{ name, text }] (grader.toml
//               and the *.toml case files). Default: fetched from
//               baseURL + "cases/index.json" (a JSON list of file names)
//               and each file from baseURL + "cases/". A hidden case is
//               refused (the promise rejects), as `grader check` does.
//   onProgress  optional callback, called with one object at a time:
//               { kind: "loading", what }            loading the judge / Python
//               { kind: "test", index, total, case, function }   a test starts
//               { kind: "result", index, total, test }  its report (as in the JSON)
//               { kind: "shrink", runs }             shrinking a failing solve
//               { kind: "reload", why }              Python restarted after a timeout
//   timeFactor  optional: the multiple of a test's planned time given as
//               wall-clock time (default: grader.toml's time_limit_factor,
//               20 unless the cases say otherwise; see "time limits").
//   noShrink    optional: true to skip shrinking a failing solve
//               (`grader check --no-shrink`).
//   Worker      optional: the Worker class to use (default: the browser's
//               Worker, or worker_threads' in Node).
//
// checker.select({ case, function }) narrows the cases for good, as
//   `grader check --case NAME --function F` (function: "legal",
//   "find_empty" or "solve"); throws, saying why, when none is left.
//
// checker.check(source, filename, { path, verbose, failFast }?) -> Promise<Result>
//   source      the student's file as text: Python, or a notebook's JSON
//               when filename ends in ".ipynb" (its code cells are taken as
//               `grader check` takes them).
//   filename    its name, e.g. "sudoku.py": Python's messages name it.
//   path        optional: the file as the lines name it (default filename).
//   verbose     optional: every failing test in full, as `grader check -v`.
//   failFast    optional: stop at the first failing test, as `grader check
//               --fail-fast` (the rest count as not run).
//   Result.report    the shape of `grader check --json` (version, path,
//                    exit_code, submission { tests [...] }, shrunk, ...).
//   Result.view      the student's view as `grader check` draws it, from
//                    the judge (grader_judge::words::student::view): a list
//                    of { line: "text", spans: [{ text, style: { colour:
//                    "green"|"red"|"yellow"|null, bold, dim }, untrusted }] }
//                    (untrusted: the student's own text, escape it),
//                    { line: "board", indent, board }, and { line: "boards",
//                    indent, left: [title, board], right: [title, board] };
//                    a board is { n, rows: [[digit, ...], ...] (0 empty),
//                    mark?: [row, col] }.
//   Result.lines     the same view as the plain lines `grader check` prints.
//   Result.boards    every board the view draws, in order: [{ title, n, rows, mark? }]
//   Result.exitCode  `grader check`'s exit code: 0 all pass, 1 a test
//                    failed, 2 the checker failed, 3 did not load.
// checker.close()    ends the Python worker.
//
// THE SITE FOLDER (what `grader package web` writes; baseURL points here):
//
//   engine/checker.mjs ...   this folder (web/engine/), as it is
//   engine/judge.wasm        crates/judge-web built for wasm32-unknown-unknown
//   engine/python_harness.py src/worker/python_harness.py, as it is
//   pyodide/                 the npm package `pyodide` (pinned in
//                            web/package-lock.json), its files as shipped
//   cases/index.json         ["grader.toml", "campus.toml", ...]: public cases only
//   cases/*.toml
//   check.mjs                the Node runner (web/check.mjs)
//
// TIME LIMITS are wall-clock and advisory in a browser: a worker has no CPU
// clock. Each test gets timeFactor times its planned time (what the lab's
// listing needs in Pyodide, from its writes; or the case's pinned limit),
// at least 5 s: the same multiple as the native check's CPU limits.
// At the limit the engine sets Pyodide's interrupt buffer (when
// SharedArrayBuffer exists: a cross-origin-isolated page, or Node); after a
// grace period it terminates the worker and loads Python again, always. The
// verdict says the limit was wall-clock and advisory.

export { createChecker } from "./runner.mjs";
