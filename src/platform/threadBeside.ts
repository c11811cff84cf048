import type { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` beside the module whose `import.meta.url` is
 * `beside`: `name.ts` in the source tree, `name.js` in the package's dist/ (the extension is the
 * caller's). node:worker_threads is loaded at the first thread, not by importing this.
 */
export function threadBeside(beside: string, name: string, workerData: unknown): Worker {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  return new Worker(new URL(`./${name}${beside.slice(beside.lastIndexOf('.'))}`, beside), { workerData });
}
