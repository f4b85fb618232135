// What differs between a browser and Node, in one place: reading a file of
// the site (fetch, or the file system for a file: URL in Node) and
// starting a worker (a module Web Worker, or a worker_threads Worker).

export const isNode =
  typeof process !== "undefined" && process.versions != null && process.versions.node != null;

/** The bytes at `url` (a URL or string). */
export async function readBytes(url) {
  const where = new URL(url);
  if (isNode && where.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return new Uint8Array(await readFile(where));
  }
  const response = await fetch(where);
  if (!response.ok) {
    throw new Error(`cannot load ${where}: ${response.status} ${response.statusText}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** The text at `url`. */
export async function readText(url) {
  return new TextDecoder().decode(await readBytes(url));
}

/**
 * Starts the module worker at `url` and returns
 * { post(message), onMessage(f), onDeath(f), terminate() -> Promise }.
 * onDeath is called once if the worker fails or ends by itself.
 */
export async function startWorker(url, WorkerClass) {
  if (isNode && !WorkerClass) {
    const { Worker } = await import("node:worker_threads");
    // Worker threads' memory: Pyodide needs more than the default young
    // generation to load quickly; its wasm memory is apart from this.
    const worker = new Worker(new URL(url));
    let dead = null;
    return {
      post: (message) => worker.postMessage(message),
      onMessage: (f) => worker.on("message", f),
      onDeath: (f) => {
        dead = f;
        worker.on("error", (error) => dead && dead(String(error && error.stack || error)));
        worker.on("exit", (code) => dead && dead(`the Python worker ended (exit code ${code})`));
      },
      terminate: async () => {
        dead = null;
        await worker.terminate();
      },
    };
  }
  const Class = WorkerClass ?? globalThis.Worker;
  const worker = new Class(url, { type: "module" });
  let dead = null;
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (f) => worker.addEventListener("message", (event) => f(event.data)),
    onDeath: (f) => {
      dead = f;
      worker.addEventListener("error", (event) => {
        event.preventDefault?.();
        if (dead) dead(String(event.message || "the Python worker failed"));
      });
    },
    terminate: async () => {
      dead = null;
      worker.terminate();
    },
  };
}
