import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { sql } from 'kysely';
import type { Store } from '../../../platform/store/store.ts';
import { type EntryRefs, type NormalizedEntry, normalizeEntry } from './format.ts';
import { generateCatalog, type GenerateOptions } from './generator.ts';
import { exportEntries, missingRefs } from './repository.ts';
import { writeChecked } from './writer.ts';

/**
 * Bulk catalogue work for the CLI: NDJSON import and export, and generation into the store.
 *
 * Import is two passes over the file. Pass 1 checks every line (JSON, entry format, references
 * to channels and content owners defined anywhere in the file or already stored) and writes
 * nothing; any bad line fails the import with its line number and reason. Pass 2 writes the
 * entries in batches (one transaction each) and records in the same transaction how far it got
 * (`media_meta` row `import:<sha256 of the file>`), so an interrupted import, run again on the
 * same file, resumes after the last committed batch; a finished import removes the mark.
 */

export const IMPORT_BATCH = 2000;
const MAX_LINE = 1_000_000;
const MAX_REPORTED = 20;

export interface Progress {
  /** Pass name: 'check', 'write', 'generate'. */
  phase: string;
  done: number;
  total: number;
}

export class ImportError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`import failed, nothing was written:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

async function* lines(file: string): AsyncGenerator<{ line: string; number: number; bytes: number }> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  let bytes = 0;
  for await (const line of rl) {
    number++;
    bytes += Buffer.byteLength(line) + 1;
    yield { line, number, bytes };
  }
}

function parseLine(line: string, refs: EntryRefs): NormalizedEntry | { error: string } | undefined {
  if (!line.trim()) return undefined;
  if (line.length > MAX_LINE) return { error: `line longer than ${MAX_LINE} characters` };
  if (line.includes('\uFFFD')) return { error: 'not valid UTF-8' };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return { error: `not JSON (${(err as Error).message})` };
  }
  return normalizeEntry(json, refs);
}

export async function importNdjson(store: Store, file: string, onProgress: (p: Progress) => void = () => {}): Promise<{ entries: number; resumedAfterLine: number }> {
  const total = statSync(file).size;
  // Pass 1: check everything, write nothing.
  const problems: string[] = [];
  const hash = createHash('sha256');
  const defined = { channels: new Set<string>(), contentOwners: new Set<string>() };
  const firstUse = new Map<string, number>();
  const used: EntryRefs[] = [];
  let entries = 0;
  for await (const { line, number, bytes } of lines(file)) {
    hash.update(line).update('\n');
    const refs: EntryRefs = {};
    const e = parseLine(line, refs);
    if (e && 'error' in e) {
      if (problems.length < MAX_REPORTED) problems.push(`line ${number}: ${e.error}`);
    } else if (e) {
      entries++;
      if (e.type === 'channel') defined.channels.add(e.row.id);
      if (e.type === 'contentOwner') defined.contentOwners.add(e.row.id);
      for (const key of [refs.channelId && `c:${refs.channelId}`, refs.contentOwnerId && `o:${refs.contentOwnerId}`]) {
        if (key && !firstUse.has(key)) {
          firstUse.set(key, number);
          used.push(key.startsWith('c:') ? { channelId: key.slice(2) } : { contentOwnerId: key.slice(2) });
        }
      }
    }
    if (number % 5000 === 0) onProgress({ phase: 'check', done: bytes, total });
  }
  const missing = await missingRefs(store.db, used, defined);
  for (const c of missing.channels) problems.push(`line ${firstUse.get(`c:${c}`)}: snippet.channelId: channel '${c}' is neither in the file nor stored`);
  for (const o of missing.contentOwners) problems.push(`line ${firstUse.get(`o:${o}`)}: contentOwnerDetails.contentOwner: content owner '${o}' is neither in the file nor stored`);
  onProgress({ phase: 'check', done: total, total });
  if (problems.length) throw new ImportError(problems.sort((a, b) => lineOf(a) - lineOf(b)).slice(0, MAX_REPORTED));

  // Pass 2: write in batches, with the resume mark in the same transaction.
  if (store.dialect === 'sqlite') await sql`PRAGMA cache_size = -262144`.execute(store.db);
  const mark = `import:${hash.digest('hex')}`;
  const resumeAfter = Number((await store.db.selectFrom('media_meta').select('value').where('name', '=', mark).executeTakeFirst())?.value ?? 0);
  let batch: NormalizedEntry[] = [];
  let lastLine = 0;
  const flush = async () => {
    const entries = batch;
    batch = [];
    const upTo = lastLine;
    await store.db.transaction().execute(async (trx) => {
      await writeChecked(trx, entries);
      await trx.insertInto('media_meta').values({ name: mark, value: upTo }).onConflict((c) => c.column('name').doUpdateSet({ value: upTo })).execute();
    });
  };
  for await (const { line, number, bytes } of lines(file)) {
    if (number <= resumeAfter) continue;
    const e = parseLine(line, {});
    if (e && 'error' in e) throw new ImportError([`line ${number}: ${e.error} (the file changed while importing)`]);
    if (e) batch.push(e);
    lastLine = number;
    if (batch.length >= IMPORT_BATCH) {
      await flush();
      onProgress({ phase: 'write', done: bytes, total });
    }
  }
  if (batch.length) await flush();
  await store.db.deleteFrom('media_meta').where('name', '=', mark).execute();
  if (store.dialect === 'sqlite') await sql`PRAGMA cache_size = -2000`.execute(store.db);
  onProgress({ phase: 'write', done: total, total });
  return { entries, resumedAfterLine: resumeAfter };
}

function lineOf(problem: string): number {
  return Number(/^line (\d+)/.exec(problem)?.[1] ?? 0);
}

/** Every entry as NDJSON, in import order (content owners, channels, videos, playlists). */
export async function exportNdjson(store: Store, out: Writable): Promise<number> {
  let n = 0;
  for await (const resource of exportEntries(store.db)) {
    n++;
    if (!out.write(`${resource}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
  return n;
}

/** Generates a catalogue straight into the store (batches of one transaction each). */
export async function generateInto(store: Store, opts: GenerateOptions, total: number, onProgress: (p: Progress) => void = () => {}): Promise<number> {
  let batch: NormalizedEntry[] = [];
  let n = 0;
  // Bulk writes on SQLite: a page cache big enough for the indexes of a million rows (random ids
  // land all over the B-trees), and no fsync per batch (the generator can always be run again).
  if (store.dialect === 'sqlite') {
    await sql`PRAGMA synchronous = NORMAL`.execute(store.db);
    await sql`PRAGMA cache_size = -262144`.execute(store.db);
  }
  try {
    for (const entry of generateCatalog(opts)) {
      const e = normalizeEntry(entry);
      if ('error' in e) throw new Error(`generator produced an invalid entry: ${e.error}`);
      batch.push(e);
      n++;
      if (batch.length >= IMPORT_BATCH * 2) {
        const entries = batch;
        batch = [];
        await store.db.transaction().execute((trx) => writeChecked(trx, entries));
        onProgress({ phase: 'generate', done: n, total });
      }
    }
    if (batch.length) await store.db.transaction().execute((trx) => writeChecked(trx, batch));
  } finally {
    if (store.dialect === 'sqlite') {
      await sql`PRAGMA synchronous = FULL`.execute(store.db);
      await sql`PRAGMA cache_size = -2000`.execute(store.db);
    }
  }
  onProgress({ phase: 'generate', done: n, total });
  return n;
}

/** The generated catalogue as NDJSON (what `generateInto` would store). */
export async function generateNdjson(opts: GenerateOptions, out: Writable): Promise<number> {
  let n = 0;
  for (const entry of generateCatalog(opts)) {
    n++;
    if (!out.write(`${JSON.stringify(entry)}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
  return n;
}
