// The runner: drives a check as `grader check` does (src/commands/check.rs),
// test by test in the judge's order, each planned and judged by the wasm
// judge and run in the Python worker under a wall-clock limit; then
// shrinks the first failing solve. See checker.mjs for the API.

import { loadJudge } from "./judge.mjs";
import { readText, startWorker } from "./platform.mjs";

/** A test's wall-clock limit is at least this, in ms. */
const LEAST_LIMIT_MS = 5000;
/** After the interrupt, how long the worker has before it is ended. */
const GRACE_MS = 1000;
/** The shrink's budget, as `grader check`'s (runner/shrink.rs). */
const SHRINK_RUNS = 200;
const SHRINK_MS = 10000;

/** See checker.mjs. */
export async function createChecker(options = {}) {
  const baseURL = new URL(options.baseURL ?? "./", typeof location !== "undefined" ? location.href : undefined);
  const progress = options.onProgress ?? (() => {});
  progress({ kind: "loading", what: "judge" });
  const judge = await loadJudge(new URL("engine/judge.wasm", baseURL));
  const files = options.cases ?? (await siteCases(baseURL));
  const cases = judge.call("load_cases", { files });
  const python = new PythonWorker({
    workerURL: new URL("engine/python-worker.mjs", baseURL),
    indexURL: new URL("pyodide/", baseURL),
    harnessURL: new URL("engine/python_harness.py", baseURL),
    Worker: options.Worker,
    progress,
  });
  progress({ kind: "loading", what: "python" });
  await python.start();

  /** Runs one test (a case's function, or solve on a smaller board). */
  async function runTest(which, name, source, extra = {}) {
    const planned = judge.call("request", { ...which, deep_stop: extra.deep_stop ?? false });
    const limitMs = Math.max(LEAST_LIMIT_MS, (options.timeFactor ?? planned.factor) * planned.planned_ms);
    const request = JSON.stringify({
      name,
      source,
      probe: planned.probe,
      trace: planned.trace,
      trace_cap: planned.trace_cap,
      deep_stop: planned.deep_stop ?? false,
      reference_legal: extra.reference_legal ?? false,
    });
    const ran = await python.run(request, limitMs);
    return judge.call("judge", {
      ...which,
      ended: ran.ended,
      messages: ran.messages ?? [],
      output: ran.output ?? "",
      wall_ms: ran.wall_ms ?? 0,
      limit_ms: limitMs,
      why: ran.why ?? "",
    });
  }

  async function check(source, filename = "sudoku.py", { path = filename, verbose = false, failFast = false } = {}) {
    const notes = [];
    if (filename.endsWith(".ipynb")) {
      let program;
      try {
        program = judge.call("notebook", { name: filename, text: source });
      } catch (error) {
        return finish({ path, build_error: error.message, notes });
      }
      source = program.source;
      notes.push(program.note);
    }
    const tests = judge.call("tests", {});
    const reports = [];
    const shrunk = [];
    const firstSteps = [];
    let solveFailed = false;
    for (const [index, test] of tests.entries()) {
      const which = { case: test.case, function: test.function };
      progress({ kind: "test", index, total: tests.length, case: test.case, function: test.function });
      const judged = await runTest(which, filename, source);
      const report = judged.report;
      // The first test that could not even load the code: nothing else can.
      if (!judged.loaded && reports.length === 0 && report.verdict !== "pass" && !report.fault) {
        const message =
          report.verdict === "error" ? report.message : `while loading the library: ${report.verdict}: ${report.message}`;
        return finish({ path, load_error: message, missing_module: judged.missing_module ?? null, notes });
      }
      progress({ kind: "result", index, total: tests.length, test: report });
      // grader check's run with the grader's legal: when is the judge's.
      const rerun = judge.call("swap_after", {
        case: test.case,
        function: test.function,
        verdict: report.verdict,
        faulted: Boolean(report.fault),
        explained_by: judged.failure?.explained_by ?? null,
      });
      if (rerun) {
        const swapped = await runTest({ case: rerun, function: "solve" }, filename, source, { reference_legal: true });
        judge.call("swap_saw", { case: rerun, observed: swapped.legal_swap ?? null });
      }
      const firstSolveFailure =
        test.function === "solve" && (report.verdict === "wrong" || report.verdict === "crash") && !solveFailed;
      if (test.function === "solve" && report.verdict !== "pass") solveFailed = true;
      if (firstSolveFailure && !report.fault) {
        const small = options.noShrink ? null : await shrinkSolve(test.case, judged, filename, source);
        if (small) shrunk.push(small);
        // An endless recursion ran into Python's limit: its run again,
        // stopped before the limit, keeps the trace (as grader check).
        if (report.verdict === "crash" && report.finding?.finding === "recursion_limit") {
          const traced = { case: test.case, function: "solve", ...(small ? { puzzle: small.small_board.rows.flat() } : {}) };
          const step = await runTest(traced, filename, source, { deep_stop: true });
          const found = step.failure;
          if (found?.trace_finding && step.trace_source) {
            firstSteps.push({
              case: test.case,
              on_small_board: small != null,
              source: step.trace_source,
              check: found.explained_by,
              finding: found.finding ?? undefined,
              message: found.message,
              board: found.board,
            });
          }
        }
      }
      reports.push(report);
      // --fail-fast: the tests after the first failure are not run.
      if (failFast && report.verdict !== "pass") break;
    }
    return finish({ path, tests: reports, shrunk, first_steps: firstSteps, notes, verbose });
  }

  /** The smallest board on which solve still fails the same way. */
  async function shrinkSolve(caseName, judged, filename, source) {
    const start = performance.now();
    const verdict = judged.report.verdict;
    const failedCheck = judged.failure?.check ?? null;
    const started = judge.call("shrink_start", { case: caseName });
    let runs = 0;
    let last = null;
    let stoppedEarly = false;
    for (;;) {
      const next = judge.call("shrink_next", {});
      if (!next.puzzle) break;
      if (runs >= SHRINK_RUNS || performance.now() - start >= SHRINK_MS) {
        stoppedEarly = true;
        break;
      }
      runs += 1;
      progress({ kind: "shrink", runs });
      const tried = await runTest({ case: caseName, function: "solve", puzzle: next.puzzle }, filename, source);
      if (tried.report.fault) {
        stoppedEarly = true;
        break;
      }
      const same = tried.report.verdict === verdict && (tried.failure?.check ?? null) === failedCheck;
      judge.call("shrink_keep", { same });
      if (same) last = { next, tried };
    }
    if (!last) return null;
    const failure = last.tried.failure;
    return {
      case: caseName,
      full_board: started.board,
      small_board: last.next.board,
      small_puzzle: last.next.line,
      empty: last.next.empty,
      original_empty: started.empty,
      runs,
      ms: performance.now() - start,
      stopped_early: stoppedEarly,
      check: failure?.check ?? null,
      diagnosis: null,
      verdict,
      message: last.tried.report.message,
      finding: last.tried.report.finding ?? undefined,
      small_after: failure?.board ?? null,
      after_is_step: failure?.trace_finding ?? false,
    };
  }

  function finish(input) {
    const done = judge.call("finish", input);
    const boards = [];
    for (const line of done.view) {
      if (line.line === "board") boards.push({ title: "", ...line.board });
      if (line.line === "boards") {
        boards.push({ title: line.left[0], ...line.left[1] });
        boards.push({ title: line.right[0], ...line.right[1] });
      }
    }
    return { report: done.report, view: done.view, lines: done.lines, boards, exitCode: done.exit_code };
  }

  /** grader check's --case and --function: narrows the cases for good. */
  function select({ case: name = null, function: fn = null } = {}) {
    judge.call("select", { case: name, function: fn });
  }

  return {
    cases,
    check,
    select,
    close: () => python.stop(),
  };
}

/** The case files the site lists in cases/index.json. */
async function siteCases(baseURL) {
  const names = JSON.parse(await readText(new URL("cases/index.json", baseURL)));
  return Promise.all(names.map(async (name) => ({ name, text: await readText(new URL(`cases/${name}`, baseURL)) })));
}

/**
 * Python in a worker, restarted when a test had to be stopped: one run at
 * a time, each under a wall-clock limit.
 */
class PythonWorker {
  constructor({ workerURL, indexURL, harnessURL, Worker, progress }) {
    this.workerURL = workerURL;
    this.indexURL = indexURL;
    this.harnessURL = harnessURL;
    this.WorkerClass = Worker;
    this.progress = progress;
    this.worker = null;
    this.pending = null;
    this.streamed = [];
    // The interrupt buffer, where SharedArrayBuffer exists (a
    // cross-origin-isolated page, or Node).
    this.interrupt =
      typeof SharedArrayBuffer !== "undefined" && (globalThis.crossOriginIsolated ?? true)
        ? new Uint8Array(new SharedArrayBuffer(1))
        : null;
  }

  async start() {
    // A new worker starts with no interrupt pending (the last may have
    // been set for the worker just ended).
    if (this.interrupt) this.interrupt[0] = 0;
    this.worker = await startWorker(this.workerURL, this.WorkerClass);
    this.worker.onMessage((message) => {
      if (message.type === "line") {
        this.streamed.push(message.line);
        return;
      }
      const pending = this.pending;
      if (pending) {
        this.pending = null;
        pending(message);
      }
    });
    this.worker.onDeath((why) => {
      const pending = this.pending;
      this.worker = null;
      if (pending) {
        this.pending = null;
        pending({ type: "lost", why });
      }
    });
    const ready = await this.ask({
      type: "init",
      indexURL: this.indexURL.href,
      harnessURL: this.harnessURL.href,
      interrupt: this.interrupt ? this.interrupt.buffer : undefined,
    });
    if (ready.type !== "ready") {
      throw new Error(`Python could not be loaded in the worker: ${ready.why}`);
    }
    this.loadMs = ready.ms;
  }

  ask(message) {
    return new Promise((resolve) => {
      this.pending = resolve;
      this.worker.post(message);
    });
  }

  /** Ends the worker and starts another. */
  async restart(why) {
    this.progress({ kind: "reload", why });
    const old = this.worker;
    this.worker = null;
    this.pending = null;
    if (old) await old.terminate();
    await this.start();
  }

  /**
   * Runs one harness request within `limitMs` of wall-clock time:
   * { ended: "returned" | "timeout" | "lost", messages, output, wall_ms, why }.
   */
  async run(request, limitMs) {
    if (!this.worker) await this.start();
    this.streamed = [];
    const started = performance.now();
    let interrupted = false;
    let timer = null;
    const answer = this.ask({ type: "run", request });
    const stopped = new Promise((resolve) => {
      timer = setTimeout(() => {
        interrupted = true;
        if (this.interrupt) this.interrupt[0] = 2; // SIGINT: KeyboardInterrupt in Python
        timer = setTimeout(() => resolve({ type: "stopped" }), GRACE_MS);
      }, limitMs);
    });
    const message = await Promise.race([answer, stopped]);
    clearTimeout(timer);
    const wall_ms = performance.now() - started;
    if (message.type === "stopped") {
      // The interrupt did not end it (swallowed, or no buffer): a new
      // worker, always.
      const streamed = this.streamed;
      await this.restart("a test ran past its time limit");
      return { ended: "timeout", messages: streamed, output: "", wall_ms };
    }
    if (message.type === "lost") {
      const streamed = this.streamed;
      await this.restart("Python stopped");
      return { ended: interrupted ? "timeout" : "lost", messages: streamed, output: message.output ?? "", wall_ms, why: message.why };
    }
    if (interrupted) {
      return { ended: "timeout", messages: message.messages ?? [], output: message.output ?? "", wall_ms };
    }
    if (message.type === "interrupted") {
      // An exception escaped the harness itself without an interrupt:
      // Python is in an unknown state.
      const streamed = this.streamed;
      await this.restart("Python stopped");
      return { ended: "lost", messages: streamed, output: message.output ?? "", wall_ms, why: message.why };
    }
    return { ended: "returned", messages: message.messages, output: message.output, wall_ms: message.wall_ms };
  }

  async stop() {
    const old = this.worker;
    this.worker = null;
    if (old) await old.terminate();
  }
}
