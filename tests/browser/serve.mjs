// A static server for a site written by `grader package web`, on
// 127.0.0.1 and a free port (printed as the first line: "port N").
//   node serve.mjs DIR            as GitHub Pages serves: no COOP/COEP
//   node serve.mjs DIR --isolate  with COOP/COEP, as a host that sets headers
//   node serve.mjs --frame URL    a page that embeds URL in an <iframe>, as
//                                 an LMS page does (serve it on another
//                                 port than URL's: another origin)
// Runs until killed.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const [dir, flag] = process.argv.slice(2);
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.py': 'text/plain; charset=utf-8',
  '.toml': 'text/plain; charset=utf-8',
};

/** The LMS page: a heading and the site in a frame, nothing else. */
function framePage(url) {
  const src = new URL(url).href.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Course page</title><link rel="icon" href="data:,"></head>
<body>
<h1>Lab 3: Sudoku</h1>
<iframe src="${src}" title="Check your Sudoku lab" width="1200" height="800"></iframe>
</body>
</html>
`;
}

/** The site's files, with COOP/COEP when `isolate`. */
function siteHandler(root, isolate) {
  return async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' };
      if (isolate) {
        headers['Cross-Origin-Opener-Policy'] = 'same-origin';
        headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      }
      res.writeHead(200, headers).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  };
}

const handler = dir === '--frame'
  ? (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/') {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache' }).end(framePage(flag));
  }
  : siteHandler(resolve(dir), flag === '--isolate');
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
