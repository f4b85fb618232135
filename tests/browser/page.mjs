// Opens a grader HTML report in the local Chromium (puppeteer-core) and
// prints what a person sees, as JSON on stdout:
//   height    the page's height in CSS px at a 1280 px wide window
//   rows      matrix rows shown, and students (details) shown, before any filter
//   filters   for each requested [verdict, test] pair: rows and details shown
//   scripted  whether the filter controls were shown (the script ran)
// Usage: node page.mjs URL [--screenshot PNG] [--filter VERDICT TEST]...
// VERDICT is a value of the verdict select ("" any, "fail", "pass", ...),
// TEST a value of the test select ("" any, "0" the first column, ...).
import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const url = args.shift();
let screenshot = null;
const filters = [];
while (args.length) {
  const flag = args.shift();
  if (flag === '--screenshot') screenshot = args.shift();
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
  await page.setViewport({ width: 1280, height: 900 });
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
    rows: await shown(),
    filters: [],
    errors,
  };
  if (screenshot) await page.screenshot({ path: screenshot });
  for (const [verdict, test] of filters) {
    await page.select('#f-verdict', verdict);
    await page.select('#f-test', test);
    result.filters.push({ verdict, test, ...(await shown()) });
  }
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  await browser.close();
}
