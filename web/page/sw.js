// The site's service worker (written by `grader package web`, which puts the
// site's version in place of the marker below). Two jobs:
// - offline: every file of the site (manifest.json) is kept in a cache named
//   after the version, and served from it first;
// - cross-origin isolation on hosts that cannot set headers: the vendored
//   coi-serviceworker adds COOP/COEP to the responses that need them (the
//   page itself and the Python worker's script). It fetches through
//   `self.fetch`, which is replaced here by the cache-first fetch before it
//   loads, so its headers go on cached responses too.
// Every other file of the site (Pyodide, the judge, the modules) is served
// here as the cache holds it, not copied into a new Response as
// coi-serviceworker does: a copy has no link to the cache, so Chromium
// cannot keep the code it compiled from it (V8's code cache), and every
// visit compiled Pyodide's 9.6 MB of WebAssembly afresh.
// Same-origin files need no header to load in an isolated page.
const VERSION = '@VERSION@';
const CACHE = `grader-web-${VERSION}`;
const networkFetch = self.fetch.bind(self);
/** The files on their way into the cache: URL (no query) -> Promise. */
const coming = new Map();

const isSite = (url) => url.origin === self.location.origin;
const keyOf = (request) => {
  const url = new URL(request.url ?? request, self.location.href);
  url.search = '';
  url.hash = '';
  return url.href;
};

/**
 * A file of the site from the network into the cache, once however many
 * ask for it at the same time (the page's fill and the worker's fetch).
 * Resolves to null when kept, else to the network's response (an error).
 */
function keep(cache, request) {
  const key = keyOf(request);
  const pending = coming.get(key);
  if (pending) return pending.then(() => null, () => null);
  const fetched = (async () => {
    const response = await networkFetch(request);
    if (!response.ok) return response;
    await cache.put(request, response);
    return null;
  })().finally(() => coming.delete(key));
  coming.set(key, fetched);
  return fetched;
}

/**
 * Cache first; a same-origin GET fetched from the network is kept, and then
 * served from the cache (so that its compiled code can be kept with it).
 */
async function cachedFetch(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  if (!isSite(new URL(request.url ?? request, self.location.href)) || (request.method ?? 'GET') !== 'GET') {
    return networkFetch(request);
  }
  const failed = await keep(cache, request);
  if (failed) return failed;
  return (await cache.match(request, { ignoreSearch: true })) ?? networkFetch(request);
}

/** The site's files (those under `under`, if given) into the cache, several at a time. */
async function fillCache(under = '') {
  const cache = await caches.open(CACHE);
  const manifest = await (await networkFetch('manifest.json', { cache: 'no-cache' })).json();
  if (manifest.version !== VERSION) return;
  const files = manifest.files.filter((file) => file !== 'sw.js' && file.startsWith(under));
  await Promise.all(files.map(async (file) => {
    if (await cache.match(file)) return;
    const failed = await keep(cache, file);
    if (failed) throw new Error(`${file}: ${failed.status} ${failed.statusText}`);
  }));
}

self.fetch = (input, init) => (init === undefined ? cachedFetch(input) : networkFetch(input, init));

/** Whether a request's response needs COOP/COEP: a page, or a worker's script. */
function needsHeaders(request) {
  return request.mode === 'navigate' || ['document', 'iframe', 'frame', 'worker', 'sharedworker'].includes(request.destination);
}

// Registered before coi-serviceworker's fetch handler, so it comes first;
// what it answers, coi-serviceworker never sees.
self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || !isSite(new URL(request.url)) || needsHeaders(request)) return;
  event.stopImmediatePropagation();
  event.respondWith(cachedFetch(request));
});

self.addEventListener('install', (event) => {
  // The page's own small files first; Pyodide follows after activation.
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(['./', 'index.html', 'page.mjs', 'page.css', 'board.mjs', 'stub.py'])));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(
    keys.filter((k) => k.startsWith('grader-web-') && k !== CACHE).map((k) => caches.delete(k)),
  )));
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'fill-cache') {
    event.waitUntil(fillCache(event.data.under).catch((e) => console.warn('offline copy incomplete:', e)));
  }
});

importScripts('coi-serviceworker.js');
