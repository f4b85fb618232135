// Drives the browser check's page (written by `grader package web`) in the
// local Chromium (puppeteer-core) as a student would, and prints what the
// page showed, as JSON on stdout:
//   isolated   whether the page was cross-origin isolated when it checked
//   isolation  what the page says of it (its footer's note)
//   navigations  how many documents the page's frame loaded (the first
//              visit reloads once to become isolated; in a --frame, never)
//   ready_ms   from navigation to the Check button being enabled
//   controlled whether the site's service worker served the page
//   runs       one per --check/--open: { file, ms, status, statuses (each
//              status shown during the check, once, in order), text (the
//              check's text as the page shows it), lines (the words of
//              the result, board tables apart), boards (each table's
//              caption, size and marked cell with its row and column
//              headers), time_note (the wall-clock note shown) }
//   kept       whether the editor's text survived a reload (--reload)
//   sideways   CSS px the page scrolls sideways at the window's width
//   errors     what the console and scripts reported as errors
// Usage: node checker.mjs URL [--width PX] [--check FILE.py]... [--open FILE]...
//        [--reload] [--screenshot PNG] [--offline] [--timeout MS] [--frame]
// --check types the file into the editor; --open opens it with the page's
// file button (a .py or .ipynb). Runs happen in the order given.
// --frame: URL is a page that embeds the site in an <iframe> (an LMS page,
// `serve.mjs --frame`), and the page in that frame is driven.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const url = args.shift();
let width = 1280;
let screenshot = null;
let reload = false;
let offline = false;
let timeout = 180000;
let inFrame = false;
const steps = [];
while (args.length) {
  const flag = args.shift();
  if (flag === '--width') width = Number(args.shift());
  else if (flag === '--check') steps.push(['check', args.shift()]);
  else if (flag === '--open') steps.push(['open', args.shift()]);
  else if (flag === '--screenshot') screenshot = args.shift();
  else if (flag === '--reload') reload = true;
  else if (flag === '--offline') offline = true;
  else if (flag === '--timeout') timeout = Number(args.shift());
  else if (flag === '--frame') inFrame = true;
  else throw new Error(`unknown argument ${flag}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  headless: true,
  protocolTimeout: timeout + 60000,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const result = { runs: [], errors: [] };
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.setViewport({ width, height: 900 });
  page.on('pageerror', (e) => result.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') result.errors.push(m.text());
    if (process.env.CHECKER_CONSOLE) process.stderr.write(`console.${m.type()}: ${m.text()}\n`);
  });
  // Where the check's page is: the tab, or (--frame) the frame in it.
  let at = page;
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    // A frame out of process first commits an empty document: not a load.
    if (!frame.url().startsWith('http')) return;
    if (inFrame ? frame.parentFrame() === page.mainFrame() : frame === page.mainFrame()) {
      navigations += 1;
      if (process.env.CHECKER_CONSOLE) process.stderr.write(`navigated: ${frame.url()}\n`);
    }
  });
  const open = async (address) => {
    await page.goto(address, { waitUntil: 'load' });
    if (inFrame) {
      at = await page.waitForFrame((frame) => frame.parentFrame() === page.mainFrame());
    }
    await at.waitForFunction(() => !document.getElementById('check').disabled);
  };
  const started = Date.now();
  await open(url);
  result.ready_ms = Date.now() - started;
  if (offline) {
    // Everything again with no network: the service worker's copy.
    await page.setOfflineMode(true);
    await open(page.url());
  }
  result.isolated = await at.evaluate(() => window.crossOriginIsolated);
  result.isolation = await at.$eval('#isolation', (el) => el.textContent);
  result.navigations = navigations;
  result.controlled = await at.evaluate(() => Boolean(navigator.serviceWorker?.controller));
  for (const [how, file] of steps) {
    if (how === 'check') {
      const text = await readFile(file, 'utf8');
      await at.$eval('#code', (el, value) => {
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, text);
    } else {
      const input = await at.$('#file');
      await input.uploadFile(file);
      await at.waitForFunction(
        (name) => document.getElementById('status').textContent.includes(name),
        {},
        basename(file),
      );
    }
    const t0 = Date.now();
    process.stderr.write(`${basename(file)}: checking\n`);
    const before = await at.evaluate(() => {
      // Every status the check shows on its way (e.g. "Restarting Python").
      window.__statuses = [];
      const status = document.getElementById('status');
      window.__statusWatch ??= new MutationObserver(() => window.__statuses.push(status.textContent));
      window.__statusWatch.observe(status, { childList: true, characterData: true, subtree: true });
      return Number(document.body.dataset.checks ?? 0);
    });
    await at.click('#check');
    await at.waitForFunction((n) => Number(document.body.dataset.checks ?? 0) > n, {}, before);
    const ms = Date.now() - t0;
    const seen = await at.evaluate(() => ({
      status: document.getElementById('status').textContent,
      statuses: [...new Set(window.__statuses)],
      text: document.getElementById('text').textContent,
      lines: [...document.querySelectorAll('#report p.line')].map((p) => p.textContent),
      time_note: !document.getElementById('time-note').hidden,
      boards: [...document.querySelectorAll('#report table.board')].map((t) => {
        const mark = t.querySelector('td.mark');
        let marked = null;
        if (mark) {
          const tr = mark.parentElement;
          const index = [...tr.children].indexOf(mark);
          marked = {
            row: tr.querySelector('th').textContent,
            col: t.tHead.rows[0].children[index].textContent,
            value: mark.firstChild?.nodeType === 3 ? mark.firstChild.textContent : '',
            title: mark.title,
          };
        }
        return { caption: t.caption.textContent, rows: t.tBodies[0].rows.length, marked };
      }),
    }));
    result.runs.push({ file: basename(file), ms, ...seen });
    process.stderr.write(`${basename(file)}: ${ms} ms: ${seen.status}\n`);
  }
  result.sideways = await at.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  if (reload) {
    const before = await at.$eval('#code', (el) => el.value);
    await new Promise((r) => setTimeout(r, 500));
    // Opened again, as a student comes back to it (puppeteer's reload()
    // was not served by the service worker here, as a hard reload is not).
    await open(page.url());
    const after = await at.$eval('#code', (el) => el.value);
    result.kept = after === before;
    result.navigations = navigations;
    if (!result.kept) result.kept_diff = { before: before.slice(0, 300), after: after.slice(0, 300) };
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
