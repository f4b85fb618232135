// Drives the browser check's page (written by `grader package web`) in the
// local Chromium (puppeteer-core) as a student would, and prints what the
// page showed, as JSON on stdout:
//   isolated   whether the page was cross-origin isolated when it checked
//   ready_ms   from navigation to the Check button being enabled
//   runs       one per --check/--open: { file, ms, status, text (the
//              check's text as the page shows it), lines (the words of
//              the result, board tables apart), boards (each table's
//              caption, size and marked cell with its row and column
//              headers), time_note (the wall-clock note shown) }
//   kept       whether the editor's text survived a reload (--reload)
//   sideways   CSS px the page scrolls sideways at the window's width
//   errors     what the console and scripts reported as errors
// Usage: node checker.mjs URL [--width PX] [--check FILE.py]... [--open FILE]...
//        [--reload] [--screenshot PNG] [--offline] [--timeout MS]
// --check types the file into the editor; --open opens it with the page's
// file button (a .py or .ipynb). Runs happen in the order given.
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
  const ready = () => page.waitForFunction(() => !document.getElementById('check').disabled);
  const started = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  await ready();
  result.ready_ms = Date.now() - started;
  if (offline) {
    // Everything again with no network: the service worker's copy.
    await page.setOfflineMode(true);
    await page.goto(page.url(), { waitUntil: 'load' });
    await ready();
  }
  result.isolated = await page.evaluate(() => window.crossOriginIsolated);
  for (const [how, file] of steps) {
    if (how === 'check') {
      const text = await readFile(file, 'utf8');
      await page.$eval('#code', (el, value) => {
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, text);
    } else {
      const input = await page.$('#file');
      await input.uploadFile(file);
      await page.waitForFunction(
        (name) => document.getElementById('status').textContent.includes(name),
        {},
        basename(file),
      );
    }
    const t0 = Date.now();
    process.stderr.write(`${basename(file)}: checking\n`);
    const before = await page.evaluate(() => Number(document.body.dataset.checks ?? 0));
    await page.click('#check');
    await page.waitForFunction((n) => Number(document.body.dataset.checks ?? 0) > n, {}, before);
    const ms = Date.now() - t0;
    const seen = await page.evaluate(() => ({
      status: document.getElementById('status').textContent,
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
  result.sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  if (reload) {
    const before = await page.$eval('#code', (el) => el.value);
    await new Promise((r) => setTimeout(r, 500));
    // Opened again, as a student comes back to it (puppeteer's reload()
    // was not served by the service worker here, as a hard reload is not).
    await page.goto(page.url(), { waitUntil: 'load' });
    await ready();
    const after = await page.$eval('#code', (el) => el.value);
    result.kept = after === before;
    if (!result.kept) result.kept_diff = { before: before.slice(0, 300), after: after.slice(0, 300) };
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
