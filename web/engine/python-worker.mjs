// The Python worker: Pyodide, loaded from the site's own folder (no other
// host), and the grader's Python harness (its web transport). One test at
// a time: the engine posts { type: "run", request } and gets back
// { type: "result", messages, output, wall_ms } — the harness's protocol
// lines, what the student's code printed, the wall-clock time — or
// { type: "lost", why } when Python itself failed; before it,
// { type: "line", line } for the harness's loading and loaded lines as
// they happen. The engine stops a test
// over its time limit by the interrupt buffer it shares, or ends this
// worker.
//
// Messages in: { type: "init", indexURL, harnessURL, interrupt? } first
// (interrupt: a SharedArrayBuffer of one byte, Pyodide's interrupt
// buffer), then runs. Out: { type: "ready", ms } or { type: "lost", why }.

import { isNode, readText } from "./platform.mjs";

/** What a test's output keeps at most (the native harness's pipes cap 64 KiB). */
const OUTPUT_CAP = 64 * 1024;

let pyodide = null;
let runTest = null;
let interrupt = null;
let output = "";

function keep(text) {
  if (output.length < OUTPUT_CAP) {
    output += text.slice(0, OUTPUT_CAP - output.length);
  }
}

async function init(message, reply) {
  const start = performance.now();
  const indexURL = new URL(message.indexURL);
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  pyodide = await loadPyodide({
    indexURL: isNode ? (await import("node:url")).fileURLToPath(indexURL) : indexURL.href,
    stdout: (line) => keep(line + "\n"),
    stderr: (line) => keep(line + "\n"),
  });
  if (message.interrupt) {
    interrupt = new Uint8Array(message.interrupt);
    pyodide.setInterruptBuffer(interrupt);
  }
  const harness = await readText(message.harnessURL);
  pyodide.globals.set("HARNESS_SOURCE", harness);
  // Each test runs the harness afresh (its globals start anew, as in a
  // new process), compiled once; and after each test the interpreter is
  // put back as it was before the first (the modules' attributes, the
  // builtins among them, the modules imported since, the recursion
  // limit), so what a test's code did to it does not reach the next test,
  // as a fresh process gives the native check. The harness runs once
  // before the snapshot, so its own imports are the interpreter's.
  pyodide.runPython(`
import sys
_HARNESS = compile(HARNESS_SOURCE, "python_harness.py", "exec")
del HARNESS_SOURCE
sys.argv = ["python_harness.py", "web"]
exec(_HARNESS, {"__name__": "python_harness"})
_MISSING = object()
# Not __main__: it holds this code's own names.
_SAVED = {name: (module, dict(vars(module))) for name, module in list(sys.modules.items())
          if name != "__main__" and module is not None and hasattr(module, "__dict__")}
_LIMIT = sys.getrecursionlimit()

def _restore():
    for name in [n for n in list(sys.modules) if n not in _SAVED and n != "__main__"]:
        del sys.modules[name]
    for name, (module, saved) in _SAVED.items():
        sys.modules[name] = module
        now = vars(module)
        for key in [k for k in now if k not in saved]:
            del now[key]
        for key, value in saved.items():
            if now.get(key, _MISSING) is not value:
                now[key] = value
    sys.setrecursionlimit(_LIMIT)

def _web_test(request, notify):
    try:
        sys.argv = ["python_harness.py", "web"]
        scope = {"__name__": "python_harness"}
        exec(_HARNESS, scope)
        return scope["web_test"](request, notify)
    finally:
        _restore()
`);
  runTest = pyodide.globals.get("_web_test");
  reply({ type: "ready", ms: performance.now() - start });
}

function run(message, reply) {
  output = "";
  if (interrupt) interrupt[0] = 0;
  const start = performance.now();
  let messages;
  try {
    // loading and loaded as they happen: a test ended from outside still
    // says whether the code loaded.
    const notify = (type) => reply({ type: "line", line: { type } });
    messages = JSON.parse(runTest(message.request, notify));
  } catch (error) {
    const wall_ms = performance.now() - start;
    // An interrupt that landed in the harness's own code, or Python
    // itself failing (a fatal error leaves it unusable).
    const fatal = pyodide._api?.fatal_error_occurred ?? false;
    reply({ type: fatal ? "lost" : "interrupted", why: String(error && error.message || error), output, wall_ms });
    return;
  }
  reply({ type: "result", messages, output, wall_ms: performance.now() - start });
}

async function handle(message, reply) {
  try {
    if (message.type === "init") {
      await init(message, reply);
    } else if (message.type === "run") {
      run(message, reply);
    }
  } catch (error) {
    reply({ type: "lost", why: String(error && error.stack || error), output });
  }
}

if (isNode) {
  const { parentPort } = await import("node:worker_threads");
  parentPort.on("message", (message) => handle(message, (m) => parentPort.postMessage(m)));
} else {
  self.addEventListener("message", (event) => handle(event.data, (m) => self.postMessage(m)));
}
