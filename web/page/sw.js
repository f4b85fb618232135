// The site's service worker (written by `grader package web`, which puts the
// site's version in place of the marker below). Two jobs:
// - offline: every file of the site (manifest.json) is kept in a cache named
//   after the version, and served from it first;
// - cross-origin isolation on hosts that cannot set headers: the vendored
//   coi-serviceworker adds COOP/COEP to every response. It fetches through
//   `self.fetch`, which is replaced here by the cache-first fetch before it
//   loads, so its headers go on cached responses too.
const VERSION = '@VERSION@';
const CACHE = `grader-web-${VERSION}`;
const networkFetch = self.fetch.bind(self);

/** Cache first; a same-origin GET fetched from the network is kept. */
async function cachedFetch(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  const response = await networkFetch(request);
  const url = new URL(request.url ?? request, self.location.href);
  if (response.ok && url.origin === self.location.origin && (request.method ?? 'GET') === 'GET') {
    await cache.put(request, response.clone());
  }
  return response;
}

/** Every file of the site into the cache (the big ones from the HTTP cache, mostly). */
async function fillCache() {
  const cache = await caches.open(CACHE);
  const manifest = await (await networkFetch('manifest.json', { cache: 'no-cache' })).json();
  if (manifest.version !== VERSION) return;
  for (const file of manifest.files) {
    if (file === 'sw.js') continue;
    if (!(await cache.match(file))) await cache.add(file);
  }
}

self.fetch = (input, init) => (init === undefined ? cachedFetch(input) : networkFetch(input, init));

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
    event.waitUntil(fillCache().catch((e) => console.warn('offline copy incomplete:', e)));
  }
});

importScripts('coi-serviceworker.js');
