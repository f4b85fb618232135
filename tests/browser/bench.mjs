// Times the browser check's page in headless Chromium (for
// docs/guide/performance.md; a measurement, not a test):
//   cold    a new browser profile: navigation to the Check button enabled
//           (the page, Pyodide, the judge, all from the network)
//   cached  the same profile again (service worker and HTTP cache)
//   check   pressing Check on FILE in the cached page, to the result
// Prints one JSON line per run, then the medians.
// Usage: node bench.mjs URL FILE [--runs N]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

const [url, file, flag, value] = process.argv.slice(2);
const runs = flag === '--runs' ? Number(value) : 5;
const source = await readFile(file, 'utf8');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const all = { cold: [], cached: [], check: [] };

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
    // Let the service worker finish its copy before the cached visit.
    await new Promise((r) => setTimeout(r, 3000));
    t = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await ready();
    const cached = Date.now() - t;
    await page.$eval('#code', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, source);
    t = Date.now();
    await page.click('#check');
    await page.waitForFunction(() => Number(document.body.dataset.checks ?? 0) > 0);
    const check = Date.now() - t;
    const status = await page.$eval('#status', (el) => el.textContent);
    console.log(JSON.stringify({ run: i + 1, cold, cached, check, status }));
    all.cold.push(cold);
    all.cached.push(cached);
    all.check.push(check);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ median: { cold: median(all.cold), cached: median(all.cached), check: median(all.check) }, runs }));
