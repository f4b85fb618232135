// The browser check's page: the editor (a textarea kept in localStorage),
// opening a .py or .ipynb from disk, the Check button, progress, and the
// result drawn from grader check's own text (board.mjs). The checking
// itself is the engine's (engine/), which runs the code in a Web Worker;
// nothing is sent anywhere.
import { placeBoards, renderLines, resultBoards } from './board.mjs';

const STORE = 'grader-web:code';
const STORE_FILE = 'grader-web:file';
const $ = (id) => document.getElementById(id);
const code = $('code');
const checkButton = $('check');
const status = $('status');
const progress = $('progress');

/** What is checked: the editor's text as sudoku.py, or an opened notebook. */
let notebook = null; // { name, text } while an opened .ipynb is unedited
let checker = null;
let running = false;

function say(text) {
  status.textContent = text;
}

// ---- the start's stages, timed ---------------------------------------------
// Each stage of the page's start is a performance mark ("grader-web:STAGE")
// and an entry { stage, at } in window.__timings, `at` in ms since the Unix
// epoch so that a script (tests/browser/bench.mjs) can lay them beside its
// own clock. A reload to become isolated keeps the first document's stages
// (sessionStorage), so the list covers the whole start.
const TIMINGS = 'grader-web:timings';
const timings = [];
try {
  timings.push(...JSON.parse(sessionStorage.getItem(TIMINGS) ?? '[]'));
  sessionStorage.removeItem(TIMINGS);
} catch {
  // No sessionStorage: this document's stages only.
}
window.__timings = timings;

function mark(stage, detail) {
  performance.mark(`grader-web:${stage}`, detail === undefined ? undefined : { detail });
  timings.push({ stage, at: Math.round(performance.timeOrigin + performance.now()), ...(detail === undefined ? {} : { detail }) });
}
mark('start');

// ---- the editor ----------------------------------------------------------

let escaped = false;
code.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    escaped = true;
    return;
  }
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    runCheck();
    return;
  }
  if (event.key === 'Tab' && !escaped && !event.altKey && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    indent(event.shiftKey);
    return;
  }
  if (event.key === 'Enter' && !event.shiftKey) {
    // Keep the line's indentation, one level more after a colon.
    const { selectionStart: start, value } = code;
    const lineStart = value.lastIndexOf('\n', start - 1) + 1;
    const line = value.slice(lineStart, start);
    let pad = /^[ \t]*/.exec(line)[0];
    if (line.trimEnd().endsWith(':')) pad += '    ';
    event.preventDefault();
    insert(`\n${pad}`);
  }
  escaped = false;
});
code.addEventListener('blur', () => { escaped = false; });

function insert(text) {
  // execCommand keeps the browser's undo history; setRangeText is the fallback.
  if (!document.execCommand || !document.execCommand('insertText', false, text)) {
    code.setRangeText(text, code.selectionStart, code.selectionEnd, 'end');
    code.dispatchEvent(new Event('input'));
  }
}

function indent(out) {
  const { selectionStart: start, selectionEnd: end, value } = code;
  const lineStart = value.lastIndexOf('\n', start - 1) + 1;
  if (!out && start === end) {
    insert(' '.repeat(4 - ((start - lineStart) % 4)));
    return;
  }
  const lineEnd = end > start && value[end - 1] === '\n' ? end - 1 : end;
  const block = value.slice(lineStart, lineEnd);
  const lines = block.split('\n').map((l) => (out ? l.replace(/^ {1,4}/, '') : `    ${l}`));
  code.setSelectionRange(lineStart, lineEnd);
  insert(lines.join('\n'));
  code.setSelectionRange(lineStart, lineStart + lines.join('\n').length);
}

let saveTimer = 0;
code.addEventListener('input', () => {
  if (notebook) {
    notebook = null;
    showSource('sudoku.py', null);
  }
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, 300);
});

// A reload or a closed tab soon after typing: keep the last keystrokes too.
window.addEventListener('pagehide', () => {
  if (saveTimer) {
    clearTimeout(saveTimer);
    save();
  }
});

function save() {
  saveTimer = 0;
  try {
    localStorage.setItem(STORE, code.value);
    if (notebook) localStorage.setItem(STORE_FILE, JSON.stringify(notebook));
    else localStorage.removeItem(STORE_FILE);
  } catch {
    say('Your browser does not let this page keep your code (storage is off or full): save it to a file yourself.');
  }
}

function showSource(name, note) {
  $('code-label').textContent = name;
  const shown = $('source-note');
  shown.hidden = !note;
  shown.textContent = note ?? '';
}

/** A notebook's code cells, for reading in the editor (the check takes the notebook itself). */
function notebookCode(text) {
  const nb = JSON.parse(text);
  return (nb.cells ?? [])
    .filter((cell) => cell.cell_type === 'code')
    .map((cell) => (Array.isArray(cell.source) ? cell.source.join('') : String(cell.source ?? '')))
    .join('\n\n');
}

function openNotebook(name, text) {
  let shown;
  try {
    shown = notebookCode(text);
  } catch {
    shown = '';
  }
  notebook = { name, text };
  code.value = shown;
  showSource(name, `${name} is checked as the notebook it is (its code cells, as grader check takes them). Editing here switches to checking the editor's text as sudoku.py.`);
  save();
}

$('open').addEventListener('click', () => $('file').click());
$('file').addEventListener('change', async () => {
  const file = $('file').files[0];
  if (!file) return;
  const text = await file.text();
  if (file.name.toLowerCase().endsWith('.ipynb')) {
    openNotebook(file.name, text);
  } else {
    notebook = null;
    code.value = text;
    showSource('sudoku.py', `Opened ${file.name}; it is checked as sudoku.py.`);
    save();
  }
  $('file').value = '';
  say(`Opened ${file.name}. Press Check.`);
  code.focus();
});

$('reset').addEventListener('click', async () => {
  if (code.value.trim() && !window.confirm('Replace your code with the lab\'s stubs? Your code here is lost unless you saved it to a file.')) return;
  notebook = null;
  code.value = await (await fetch('stub.py')).text();
  showSource('sudoku.py', null);
  save();
  code.focus();
});

async function restore() {
  let saved = null;
  let file = null;
  try {
    saved = localStorage.getItem(STORE);
    file = JSON.parse(localStorage.getItem(STORE_FILE) ?? 'null');
  } catch (error) {
    console.warn('cannot read the kept code:', error);
    saved = null;
  }
  if (file && file.name && file.text) {
    openNotebook(file.name, file.text);
  } else if (saved !== null) {
    code.value = saved;
  } else {
    code.value = await (await fetch('stub.py')).text();
  }
}

// ---- checking ------------------------------------------------------------

async function caseFiles() {
  const index = await (await fetch('cases/index.json')).json();
  return Promise.all(index.map(async (name) => ({
    name,
    text: await (await fetch(`cases/${name}`)).text(),
  })));
}

/**
 * The browser's Worker, marked: when the Python worker starts, is asked to
 * load Python, and says it is ready (with its own time for that).
 */
class TimedWorker extends Worker {
  constructor(url, options) {
    mark('worker-created');
    super(url, options);
    this.addEventListener('message', (event) => {
      if (event.data?.type === 'ready') mark('python-ready', { worker_ms: Math.round(event.data.ms) });
    });
  }

  postMessage(message, ...rest) {
    if (message?.type === 'init') mark('worker-init');
    super.postMessage(message, ...rest);
  }
}

async function startEngine() {
  // The engine's modules and the cases at the same time.
  const [{ createChecker }, cases] = await Promise.all([
    import('./engine/checker.mjs').then((engine) => { mark('engine-imported'); return engine; }),
    caseFiles().then((files) => { mark('cases-fetched'); return files; }),
  ]);
  checker = await createChecker({
    baseURL: new URL('./', document.baseURI).href,
    cases,
    onProgress: showProgress,
    Worker: TimedWorker,
  });
}

/** The engine's progress (see engine/checker.mjs) in words and the bar. */
function showProgress(p) {
  if (!p) return;
  if (p.kind === 'loading') mark(`loading-${p.what}`);
  if (p.kind === 'loading' && !running) {
    say(`Loading ${p.what}…`);
    return;
  }
  if (!running) return;
  if (p.total) {
    progress.max = p.total;
    progress.value = p.kind === 'result' ? p.index + 1 : p.index;
  }
  if (p.kind === 'test') say(`Checking ${p.case}/${p.function} (test ${p.index + 1} of ${p.total})…`);
  else if (p.kind === 'shrink') say(`Looking for the smallest board that still fails (${p.runs} runs)…`);
  else if (p.kind === 'reload') say(`Restarting Python: ${p.why}…`);
}

async function runCheck() {
  if (running || !checker) return;
  running = true;
  checkButton.disabled = true;
  progress.hidden = false;
  progress.value = 0;
  say('Checking…');
  const started = performance.now();
  try {
    const source = notebook ? notebook.text : code.value;
    const filename = notebook ? notebook.name : 'sudoku.py';
    const result = await checker.check(source, filename);
    showResult(result, performance.now() - started);
  } catch (error) {
    say(`The check could not run: ${error?.message ?? error}. Reload the page and press Check again.`);
  } finally {
    running = false;
    checkButton.disabled = false;
    progress.hidden = true;
    // How many checks ended (for scripts that drive the page).
    document.body.dataset.checks = String(Number(document.body.dataset.checks ?? 0) + 1);
  }
}
checkButton.addEventListener('click', runCheck);

function showResult(result, ms) {
  const box = $('report');
  box.replaceChildren();
  const lines = result.lines ?? [];
  renderLines(lines, box);
  if (!box.querySelector('table.board')) {
    try {
      placeBoards(resultBoards(result), box);
    } catch (error) {
      console.warn('boards not drawn:', error);
    }
  }
  $('text').textContent = lines.join('\n');
  const tests = result.report?.submission?.tests ?? [];
  $('time-note').hidden = !tests.some((t) => t.verdict === 'timeout');
  const section = $('result');
  section.hidden = false;
  const passed = tests.filter((t) => t.verdict === 'pass').length;
  const seconds = (ms / 1000).toFixed(1);
  if (result.exitCode === 3 || result.report?.submission?.status === 'load_error') {
    say(`Checked in ${seconds} s: your code did not load, so no test ran; the result below says why.`);
  } else say(tests.length
    ? `Checked in ${seconds} s: ${passed} of ${tests.length} public tests passed.`
    : `Checked in ${seconds} s: see the result below.`);
  section.focus({ preventScroll: false });
}

// ---- service worker: offline, and isolation where headers cannot be set ----

const RELOADED = 'grader-web:reloaded';

/**
 * Whether this visit reloads once to become cross-origin isolated: the
 * service worker adds COOP/COEP to a page it serves, which lets the check
 * stop an endless loop without restarting Python. Not in a frame (an LMS
 * page: a frame cannot be isolated unless the page around it is), and only
 * once per tab session, so a browser that will not isolate never loops.
 */
function reloadComing() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext || window.crossOriginIsolated || window.top !== window) {
    return false;
  }
  try {
    return !sessionStorage.getItem(RELOADED);
  } catch {
    return false; // No sessionStorage: no way to know a reload was done.
  }
}

/** Registers the service worker; reloads when `reload` (see reloadComing). */
async function serviceWorker(reload) {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  try {
    await navigator.serviceWorker.register('sw.js');
    mark('sw-registered');
    const registration = await navigator.serviceWorker.ready;
    mark('sw-ready');
    if (!reload) return;
    // Pyodide on its way into the offline copy while the page reloads: the
    // fetches are the service worker's, so the reload does not stop them,
    // and the reloaded page's Python worker waits on them, not on its own.
    registration.active?.postMessage({ type: 'fill-cache', under: 'pyodide/' });
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => {
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true });
        setTimeout(resolve, 3000);
      });
    }
    mark('sw-controls', { controls: Boolean(navigator.serviceWorker.controller) });
    if (navigator.serviceWorker.controller) {
      sessionStorage.setItem(RELOADED, '1');
      mark('reload');
      try {
        sessionStorage.setItem(TIMINGS, JSON.stringify(timings));
      } catch {
        // The stages before the reload are lost; the check is not.
      }
      window.location.reload();
      // Should the reload not come (a browser that defers it), the page
      // goes on unisolated: the check then restarts Python on a timeout.
      await new Promise((resolve) => { setTimeout(resolve, 3000); });
    }
  } catch (error) {
    console.warn('no offline copy:', error);
  }
}

/** Every file of the site into the service worker's cache, for offline use. */
function fillOfflineCopy() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.ready
    .then((registration) => registration.active?.postMessage({ type: 'fill-cache' }))
    .catch((error) => console.warn('no offline copy:', error));
}

async function main() {
  const reload = reloadComing();
  // The service worker's registration and the kept code at the same time.
  const registered = serviceWorker(reload);
  await restore();
  mark('code-restored');
  // Python waits for the reload (a worker started now would be lost in
  // it); otherwise it starts at once, beside the registration.
  if (reload) await registered;
  mark('engine-start', { isolated: window.crossOriginIsolated });
  $('isolation').textContent = window.crossOriginIsolated
    ? 'An endless loop is stopped within a moment.'
    : 'This page is not cross-origin isolated (e.g. inside an LMS frame): an endless loop is stopped by restarting Python, which takes a few seconds.';
  try {
    await startEngine();
    checkButton.disabled = false;
    mark('ready');
    say('Ready: write or open your code, then press Check.');
    fillOfflineCopy();
  } catch (error) {
    say(`Python could not load: ${error?.message ?? error}. Check the connection and reload; if this page was opened as a file, open it through its web address instead.`);
  }
}

main();
