import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import type { BatchItem } from './bulk.ts';
import { normalizeEntry } from './format.ts';
import { generateCatalog, type GenerateOptions } from './generator.ts';

/**
 * The generator's thread (started by bulk.ts `generatedBatches`): generates the catalogue and
 * normalizes its entries while the parent writes the batches it already sent, so that both
 * cores work. Posts `BatchItem[]` batches of `batchSize` entries (the last one shorter), in the
 * generator's order, then `null`; it is `ahead` batches ahead of the parent at most, and sends
 * one more each time the parent posts that it took one. A thrown error ends the thread and
 * reaches the parent as the worker's 'error' event.
 */
export interface GeneratorThreadData {
  opts: GenerateOptions;
  /** The items carry the resource JSON too (a target that sends entries to a server). */
  json: boolean;
  batchSize: number;
  ahead: number;
}

const { opts, json, batchSize, ahead } = workerData as GeneratorThreadData;
const port = parentPort!;
let credit = ahead;
const more = () => void credit++;
port.on('message', more);

let batch: BatchItem[] = [];
const send = async () => {
  // `more` counts the parent's message too
  while (credit === 0) await once(port, 'message');
  credit--;
  port.postMessage(batch);
  batch = [];
};
for (const input of generateCatalog(opts)) {
  const entry = normalizeEntry(input, undefined, { trusted: true });
  if ('error' in entry) throw new Error(`generator produced an invalid entry: ${entry.error}`);
  batch.push(json ? { json: input, entry } : { entry });
  if (batch.length === batchSize) await send();
}
if (batch.length) await send();
port.postMessage(null);
// nothing more to wait for: the thread ends
port.off('message', more);
