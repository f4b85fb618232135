// Opens a grader HTML report in the local Chromium (puppeteer-core) and
// prints what a person sees, as JSON on stdout:
//   height    the page's height in CSS px at a 1280 px wide window (or --width)
//   sideways  how many CSS px the page scrolls sideways (0: none)
//   wide      what sticks out past the window (outside a scrolling box)
//   marks     each board's marked cell: its axis labels and the message
//   rows      matrix rows shown, and students (details) shown, before any filter
//   filters   for each requested [verdict, test] pair: rows and details shown
//   scripted  whether the filter controls were shown (the script ran)
//   columns   the matrix's test columns, left to right
//   errors    what the page's console and script reported as errors
// Usage: node page.mjs URL [--width PX] [--no-script] [--screenshot PNG] [--filter VERDICT TEST]...
// VERDICT is a value of the verdict select ("" any, "fail", "pass", ...),
// TEST the label of a test ("campus-4x4/solve"), or "" for any test.
import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const url = args.shift();
let screenshot = null;
let script = true;
let width = 1280;
const filters = [];
while (args.length) {
  const flag = args.shift();
  if (flag === '--screenshot') screenshot = args.shift();
  else if (flag === '--no-script') script = false;
  else if (flag === '--width') width = Number(args.shift());
  else if (flag === '--filter') filters.push([args.shift(), args.shift()]);
  else throw new Error(`unknown argument ${flag}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(script);
  await page.setViewport({ width, height: 900 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url, { waitUntil: 'load' });
  const shown = () => page.evaluate(() => ({
    rows: [...document.querySelectorAll('table.matrix tbody tr')].filter((r) => !r.hidden).length,
    students: [...document.querySelectorAll('details.student')].filter((d) => !d.hidden).length,
    count: document.getElementById('f-count')?.textContent ?? null,
  }));
  const result = {
    height: await page.evaluate(() => document.documentElement.scrollHeight),
    scripted: await page.evaluate(() => { const f = document.getElementById('filter'); return !!f && !f.hidden; }),
    columns: await page.$$eval('table.matrix th.t', (ths) => ths.map((th) => th.textContent)),
    rows: await shown(),
    sideways: await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    wide: await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((e) => !e.closest('.scroll') && e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)),
    marks: await page.evaluate(() => [...document.querySelectorAll('table.board td.m')].map((td) => {
      const tr = td.parentElement;
      const index = [...tr.children].indexOf(td);
      const header = tr.parentElement.querySelector('tr').children[index];
      const message = td.closest('details.test')?.querySelector('.message')?.textContent ?? '';
      return { row: tr.querySelector('th').textContent, col: header.textContent, title: td.title, message };
    })),
    filters: [],
    errors,
  };
  if (screenshot) await page.screenshot({ path: screenshot });
  for (const [verdict, test] of filters) {
    await page.select('#f-verdict', verdict);
    const value = test === '' ? '' : await page.$eval('#f-test', (select, label) => {
      const option = [...select.options].find((o) => o.textContent === label);
      if (!option) throw new Error(`no test ${label} in the filter`);
      return option.value;
    }, test);
    await page.select('#f-test', value);
    result.filters.push({ verdict, test, ...(await shown()) });
  }
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  await browser.close();
}
