// Times the browser check's page in headless Chromium (for
// docs/guide/performance.md; a measurement, not a test):
//   cold    a new browser profile: navigation to the Check button enabled
//           (the page, Pyodide, the judge, all from the network)
//   cached  the same profile again (service worker and HTTP cache)
//   check   pressing Check on FILE in the cached page, to the result
//   later   the same profile once more, after that check (Chromium keeps
//           more of Pyodide's compiled code the longer it has run)
// Each visit's start is broken down by stage, in ms from the navigation:
// the page's own marks (window.__timings, see web/page/page.mjs: the
// service worker, its reload, the engine, the judge, the Python worker)
// and, inside the Python worker, when each file it fetched arrived
// (Resource Timing: pyodide.mjs, pyodide.asm.wasm, python_stdlib.zip, ...;
// the harness is fetched once loadPyodide has returned).
// Prints one JSON line per run, then the medians.
// Usage: node bench.mjs URL FILE [--runs N] [--quiet-stages]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const url = args.shift();
const file = args.shift();
let runs = 5;
let quiet = false;
while (args.length) {
  const flag = args.shift();
  if (flag === '--runs') runs = Number(args.shift());
  else if (flag === '--quiet-stages') quiet = true;
  else throw new Error(`unknown argument ${flag}`);
}
const source = await readFile(file, 'utf8');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const all = { cold: [], cached: [], check: [], later: [] };
const stageRuns = { cold: {}, cached: {}, later: {} };

/**
 * The Python worker's fetches: file name -> ms from `t0` (epoch ms) to its
 * last byte. The newest worker's, should an ended one still be listed.
 */
async function workerFetches(page, t0) {
  const found = {};
  let seen = null;
  for (const worker of page.workers()) {
    try {
      const its = await worker.evaluate(() => ({
        origin: performance.timeOrigin,
        entries: performance.getEntriesByType('resource').map((e) => ({
          name: e.name,
          start: e.startTime,
          end: e.responseEnd,
        })),
      }));
      if (!seen || its.origin > seen.origin) seen = its;
    } catch {
      // a worker already ended
    }
  }
  if (seen) {
    for (const e of seen.entries) {
      const name = new URL(e.name).pathname.split('/').pop();
      if (name === 'python_harness.py') found['worker: loadPyodide returned (harness fetched)'] = Math.round(seen.origin + e.start - t0);
      else found[`worker: ${name} arrived`] = Math.round(seen.origin + e.end - t0);
    }
  }
  return found;
}

/** The page's stages (and the worker's fetches) in ms from `t0`. */
async function stages(page, t0) {
  const marks = await page.evaluate(() => window.__timings ?? []);
  const out = {};
  let documents = 0;
  for (const { stage, at, detail } of marks) {
    if (stage === 'start') documents += 1;
    const key = documents > 1 ? `${stage} (after reload)` : stage;
    out[key] = at - t0;
    // The worker's own time from taking the init message to ready: when it took it.
    if (detail?.worker_ms !== undefined) out['worker: init taken'] = at - detail.worker_ms - t0;
  }
  Object.assign(out, await workerFetches(page, t0));
  return Object.fromEntries(Object.entries(out).sort((a, b) => a[1] - b[1]));
}

for (let i = 0; i < runs; i += 1) {
  const profile = await mkdtemp(join(tmpdir(), 'bench-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
    protocolTimeout: 600000,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(300000);
    const ready = () => page.waitForFunction(() => !document.getElementById('check').disabled);
    let t = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await ready();
    const cold = Date.now() - t;
    const coldStages = await stages(page, t);
    // Let the service worker finish its copy before the cached visit.
    await new Promise((r) => setTimeout(r, 3000));
    t = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await ready();
    const cached = Date.now() - t;
    const cachedStages = await stages(page, t);
    await page.$eval('#code', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, source);
    t = Date.now();
    await page.click('#check');
    await page.waitForFunction(() => Number(document.body.dataset.checks ?? 0) > 0);
    const check = Date.now() - t;
    const status = await page.$eval('#status', (el) => el.textContent);
    const isolated = await page.evaluate(() => window.crossOriginIsolated);
    await new Promise((r) => setTimeout(r, 3000));
    t = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await ready();
    const later = Date.now() - t;
    const laterStages = await stages(page, t);
    const line = { run: i + 1, cold, cached, check, later, isolated, status };
    if (!quiet) Object.assign(line, { cold_stages: coldStages, cached_stages: cachedStages, later_stages: laterStages });
    console.log(JSON.stringify(line));
    all.cold.push(cold);
    all.cached.push(cached);
    all.check.push(check);
    all.later.push(later);
    for (const [visit, seen] of [['cold', coldStages], ['cached', cachedStages], ['later', laterStages]]) {
      for (const [stage, ms] of Object.entries(seen)) (stageRuns[visit][stage] ??= []).push(ms);
    }
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}
// The median of each stage over the runs that had it, in order.
const stageMedians = Object.fromEntries(Object.entries(stageRuns).map(([visit, seen]) => [
  visit,
  Object.fromEntries(Object.entries(seen).map(([s, xs]) => [s, median(xs)]).sort((a, b) => a[1] - b[1])),
]));
console.log(JSON.stringify({ median: Object.fromEntries(Object.entries(all).map(([k, xs]) => [k, median(xs)])), runs }));
console.log(JSON.stringify({ median_stages: stageMedians }, null, 1));
