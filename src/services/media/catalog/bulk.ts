import { createHash } from 'node:crypto';
import { on } from 'node:events';
import { accessSync, constants, createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { type ControlledTransaction, sql } from 'kysely';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { threadBeside } from '../../../platform/threadBeside.ts';
import { isUniqueViolation } from '../../../platform/store/uniqueViolation.ts';
import { type EntryRefs, type NormalizedEntry, normalizeEntry } from './format.ts';
import { generateCatalog, type GenerateOptions } from './generator.ts';
import type { GeneratorThreadData } from './generatorThread.ts';
import { exportEntries, missingRefs } from './repository.ts';
import { finishImport, type ImportMark, importResumePoint, writeChecked, writeImportBatch } from './writer.ts';

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
  /** False when batches were written before the problem (running the command again resumes). */
  readonly nothingWritten: boolean;
  constructor(problems: string[], nothingWritten = true) {
    super(
      nothingWritten
        ? `import failed, nothing was written:\n  ${problems.join('\n  ')}`
        : `import stopped; what was written stays, and the same command resumes after it:\n  ${problems.join('\n  ')}`,
    );
    this.problems = problems;
    this.nothingWritten = nothingWritten;
  }
}

/**
 * One entry on its way to the catalogue: the resource as read (from the generator only for a
 * target that `writesJson`), and as the store keeps it.
 */
export interface BatchItem {
  json?: unknown;
  entry: NormalizedEntry;
}

/**
 * Where the catalogue commands read and write: the store itself (`storeTarget`), or a running
 * server through its admin API (remote.ts). The import's two passes, batches, resume marks and
 * progress are the same either way.
 */
export interface CatalogTarget {
  /** Which of these channel and content-owner ids are not stored. */
  notStored(ids: { channels: string[]; contentOwners: string[] }): Promise<{ channels: Set<string>; contentOwners: Set<string> }>;
  /** The line after which an interrupted import of this file resumes (0: from the start). */
  resumePoint(importId: string): Promise<number>;
  /** Writes a batch and, with `mark`, the import's progress, in one transaction. */
  write(batch: BatchItem[], mark?: ImportMark): Promise<void>;
  /** `write` sends each item's `json` (a server checks the entries again); else it writes their `entry`. */
  readonly writesJson?: boolean;
  /** A finished import forgets its mark. */
  finishImport(importId: string): Promise<void>;
  /** Every entry as NDJSON lines, in import order. */
  exportLines(): AsyncIterable<string>;
  /** Bulk writing starts (`true`) and ends: a chance to trade durability per batch for speed (SQLite). */
  bulk?(on: boolean, opts: { durable: boolean }): Promise<void>;
}

/**
 * Entries per SQLite transaction while generating (`bulk` without `durable`). A commit writes
 * every page the transaction changed to the WAL, and the ids (hence the index keys) of a batch
 * land all over the id indexes: with a commit per batch (4,000 entries) each commit rewrote most
 * of those indexes' leaf pages, a cost that grows with the catalogue (at 300k videos the commits
 * took a third of the time). Several batches per transaction write each page once per group
 * (300k videos: 25 s -> 19 s of CPU; a bigger group saved little more, and the WAL holds a group).
 */
const SQLITE_BULK_GROUP = 50_000;

/** The store as a catalogue target (the CLI with --data-dir or --database-url). */
export function storeTarget(store: Store): CatalogTarget {
  /** While bulk writing without `durable` on SQLite: the transaction several batches share, and how many entries it holds. */
  let group: { trx: ControlledTransaction<Database>; entries: number } | undefined;
  let grouping = false;
  const commitGroup = async () => {
    const open = group;
    group = undefined;
    await open?.trx.commit().execute();
  };
  /**
   * While bulk writing on PostgreSQL: a batch is first written as new rows (plain inserts, see
   * writeEntries `fresh`); when one of them is stored already, its transaction is rolled back and
   * it is written again as upserts, and so are the batches after it (the catalogue holds some).
   */
  let insertsFirst = false;
  const writeBatch = async (entries: NormalizedEntry[], mark: ImportMark | undefined) => {
    if (insertsFirst) {
      try {
        return await writeImportBatch(store.db, entries, mark, true);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        insertsFirst = false;
      }
    }
    return writeImportBatch(store.db, entries, mark);
  };
  return {
    async notStored(ids) {
      const refs: EntryRefs[] = [...ids.channels.map((channelId) => ({ channelId })), ...ids.contentOwners.map((contentOwnerId) => ({ contentOwnerId }))];
      return missingRefs(store.db, refs, { channels: new Set(), contentOwners: new Set() });
    },
    resumePoint: (id) => importResumePoint(store.db, id),
    async write(batch, mark) {
      const entries = batch.map((b) => b.entry);
      if (!grouping || mark) return writeBatch(entries, mark);
      group ??= { trx: await store.db.startTransaction().execute(), entries: 0 };
      try {
        await writeChecked(group.trx, entries);
      } catch (err) {
        // the group's batches are dropped whole, never half a batch kept (generating again writes them)
        const failed = group;
        group = undefined;
        await failed.trx.rollback().execute();
        throw err;
      }
      group.entries += entries.length;
      if (group.entries >= SQLITE_BULK_GROUP) await commitGroup();
    },
    finishImport: (id) => finishImport(store.db, id),
    exportLines: () => exportEntries(store.db),
    async bulk(on, { durable }) {
      if (store.dialect !== 'sqlite') {
        insertsFirst = on;
        return;
      }
      // the open group holds whole batches: committed as each batch was before, even after a failure (generating again writes the same entries)
      if (!on) await commitGroup();
      grouping = on && !durable;
      // A page cache big enough for the indexes of a million rows (random ids land all over the
      // B-trees); without `durable`, no fsync per batch (the generator can always be run again).
      if (!durable) await sql.raw(`PRAGMA synchronous = ${on ? 'NORMAL' : 'FULL'}`).execute(store.db);
      await sql.raw(`PRAGMA cache_size = ${on ? -262144 : -2000}`).execute(store.db);
    },
  };
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

interface ParsedLine {
  json: unknown;
  entry: NormalizedEntry;
  refs: EntryRefs;
}

function parseLine(line: string): ParsedLine | { error: string } | undefined {
  if (!line.trim()) return undefined;
  if (line.length > MAX_LINE) return { error: `line longer than ${MAX_LINE} characters` };
  if (line.includes('\uFFFD')) return { error: 'not valid UTF-8' };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return { error: jsonSyntaxProblem((err as Error).message) };
  }
  const refs: EntryRefs = {};
  const entry = normalizeEntry(json, refs);
  return 'error' in entry ? entry : { json, entry, refs };
}

/**
 * A JSON.parse message as one reason with one place: `column 199: not JSON: Expected ',' or '}'
 * after property value` (an NDJSON line is one line, so the parser's own "line 1" and the byte
 * position it also gives say nothing the column does not).
 */
export function jsonSyntaxProblem(message: string): string {
  const at = / (?:in JSON )?at position (\d+)(?: \(line \d+ column (\d+)\))?$/.exec(message);
  if (at) return `column ${at[2] ?? Number(at[1]) + 1}: not JSON: ${message.slice(0, at.index)}`;
  return `not JSON: ${message.replace(/, ".*is not valid JSON$/s, '')}`;
}

/** `line N: problem`, or `line N, column C: problem` for a JSON syntax error. */
function atLine(number: number, error: string): string {
  return error.startsWith('column ') ? `line ${number}, ${error}` : `line ${number}: ${error}`;
}

/** Every problem names its line first; sorts them by it. */
function lineOf(problem: string): number {
  return Number(/^line (\d+)/.exec(problem)?.[1] ?? 0);
}

/** A file the import cannot read: one line saying which and why. */
export class UnreadableFileError extends Error {}

/** The file's size, or an UnreadableFileError (missing, a directory, no permission). */
export function checkReadable(file: string): number {
  let st;
  try {
    st = statSync(file);
    accessSync(file, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UnreadableFileError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
  if (!st.isFile()) throw new UnreadableFileError(`cannot read ${file}: not a file`);
  return st.size;
}

export async function importNdjson(target: CatalogTarget, file: string, onProgress: (p: Progress) => void = () => {}): Promise<{ entries: number; resumedAfterLine: number }> {
  const total = checkReadable(file);
  // Pass 1: check everything, write nothing.
  const problems: string[] = [];
  const hash = createHash('sha256');
  /** The line defining each channel and content owner of the file (`c:ID`, `o:ID`). */
  const definedAt = new Map<string, number>();
  const firstUse = new Map<string, number>();
  let entries = 0;
  for await (const { line, number, bytes } of lines(file)) {
    hash.update(line).update('\n');
    const e = parseLine(line);
    if (e && 'error' in e) {
      if (problems.length < MAX_REPORTED) problems.push(atLine(number, e.error));
    } else if (e) {
      entries++;
      const key = definedKey(e.entry);
      if (key && !definedAt.has(key)) definedAt.set(key, number);
      for (const key of refKeys(e.refs)) if (!firstUse.has(key)) firstUse.set(key, number);
    }
    if (number % 5000 === 0) onProgress({ phase: 'check', done: bytes, total });
  }
  const used = { channels: [] as string[], contentOwners: [] as string[] };
  for (const key of firstUse.keys()) (key.startsWith('c:') ? used.channels : used.contentOwners).push(key.slice(2));
  const notStored = await target.notStored(used);
  for (const c of notStored.channels) if (!definedAt.has(`c:${c}`)) problems.push(`line ${firstUse.get(`c:${c}`)}: snippet.channelId: channel '${c}' is neither in the file nor stored`);
  for (const o of notStored.contentOwners) if (!definedAt.has(`o:${o}`)) problems.push(`line ${firstUse.get(`o:${o}`)}: contentOwnerDetails.contentOwner: content owner '${o}' is neither in the file nor stored`);
  onProgress({ phase: 'check', done: total, total });
  if (problems.length) throw new ImportError(problems.sort((a, b) => lineOf(a) - lineOf(b)).slice(0, MAX_REPORTED));

  // Pass 2: write in batches, with the resume mark in the same transaction. An entry whose
  // channel or content owner comes later in the file waits until that one is written (a server
  // checks every batch's references against what it stores).
  const importId = hash.digest('hex');
  const resumeAfter = await target.resumePoint(importId);
  // references to wait for: not stored, and defined by a line this run writes (a resumed run's earlier lines were written)
  const waitingFor = new Set<string>([...[...notStored.channels].map((c) => `c:${c}`), ...[...notStored.contentOwners].map((o) => `o:${o}`)].filter((k) => (definedAt.get(k) ?? 0) > resumeAfter));
  const deferred: (BatchItem & { line: number; refs: EntryRefs })[] = [];
  const ready = (refs: EntryRefs) => refKeys(refs).every((k) => !waitingFor.has(k));
  const batch: (BatchItem & { line: number })[] = [];
  let lastLine = resumeAfter;
  // an entry in the batch satisfies the references of those after it (a batch is checked whole)
  const add = (item: BatchItem & { line: number }) => {
    batch.push(item);
    const key = definedKey(item.entry);
    if (!key || !waitingFor.delete(key)) return;
    for (let i = 0; i < deferred.length; ) {
      if (ready(deferred[i].refs)) add(deferred.splice(i, 1)[0]);
      else i++;
    }
  };
  const flush = async () => {
    while (batch.length) {
      const items = batch.splice(0, IMPORT_BATCH);
      // resuming must not skip an entry still waiting or not yet written: the mark stays before the first of them
      let firstPending = deferred.length ? deferred[0].line : Infinity;
      for (const item of batch) firstPending = Math.min(firstPending, item.line);
      await target.write(items, { id: importId, afterLine: Number.isFinite(firstPending) ? firstPending - 1 : lastLine });
    }
  };
  await target.bulk?.(true, { durable: true });
  try {
    for await (const { line, number, bytes } of lines(file)) {
      if (number <= resumeAfter) continue;
      const e = parseLine(line);
      if (e && 'error' in e) throw new ImportError([`${atLine(number, e.error)} (the file changed while importing)`], false);
      lastLine = number;
      if (e) {
        if (ready(e.refs)) add({ json: e.json, entry: e.entry, line: number });
        else deferred.push({ json: e.json, entry: e.entry, line: number, refs: e.refs });
      }
      if (batch.length >= IMPORT_BATCH) {
        await flush();
        onProgress({ phase: 'write', done: bytes, total });
      }
    }
    if (batch.length) await flush();
    if (deferred.length) throw new ImportError([`line ${deferred[0].line}: its channel or content owner was not written (the file changed while importing)`], false);
  } finally {
    await target.bulk?.(false, { durable: true });
  }
  await target.finishImport(importId);
  onProgress({ phase: 'write', done: total, total });
  return { entries, resumedAfterLine: resumeAfter };
}

/** `c:ID` for a channel, `o:ID` for a content owner: what other entries refer to. */
function definedKey(entry: NormalizedEntry): string | undefined {
  return entry.type === 'channel' ? `c:${entry.row.id}` : entry.type === 'contentOwner' ? `o:${entry.row.id}` : undefined;
}

function refKeys(refs: EntryRefs): string[] {
  const out: string[] = [];
  if (refs.channelId) out.push(`c:${refs.channelId}`);
  if (refs.contentOwnerId) out.push(`o:${refs.contentOwnerId}`);
  return out;
}

/** Every entry as NDJSON, in import order (content owners, channels, videos, playlists). */
export async function exportNdjson(target: CatalogTarget, out: Writable): Promise<number> {
  let n = 0;
  for await (const resource of target.exportLines()) {
    n++;
    if (!out.write(`${resource}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
  return n;
}

/** Entries per batch the generator's thread sends (and per write of the target). */
const GENERATE_BATCH = IMPORT_BATCH * 2;
/** Batches the generator's thread may be ahead of the writes: one being written, the next ones ready. */
const GENERATE_AHEAD = 3;

/**
 * The generated catalogue's entries, normalized, in batches: made by a thread of their own
 * (generatorThread.ts) while the caller writes the batches it has, so generating takes one core
 * and the writes another (a store in this process, SQLite, writes on this thread). The thread
 * stops when the caller does.
 */
export async function* generatedBatches(opts: GenerateOptions, { json }: { json: boolean }): AsyncGenerator<BatchItem[]> {
  const data: GeneratorThreadData = { opts: { videos: opts.videos, seed: opts.seed, now: opts.now }, json, batchSize: GENERATE_BATCH, ahead: GENERATE_AHEAD };
  const thread = threadBeside(import.meta.url, 'generatorThread', data);
  try {
    // its batches as they come ('error' throws here; 'exit' ends the loop, which is early without its last `null`)
    for await (const [batch] of on(thread, 'message', { close: ['exit'] }) as AsyncIterable<[BatchItem[] | null]>) {
      if (batch === null) return;
      thread.postMessage('more');
      yield batch;
    }
    throw new Error("the catalogue generator's thread ended before its last entry");
  } finally {
    await thread.terminate();
  }
}

/**
 * Generates a catalogue into a target, a batch per write (one write at a time, in order), the
 * generator's thread making the next batches meanwhile (`generatedBatches`).
 */
export async function generateInto(target: CatalogTarget, opts: GenerateOptions, total: number, onProgress: (p: Progress) => void = () => {}): Promise<number> {
  let n = 0;
  await target.bulk?.(true, { durable: false });
  try {
    for await (const batch of generatedBatches(opts, { json: target.writesJson === true })) {
      await target.write(batch);
      n += batch.length;
      onProgress({ phase: 'generate', done: n, total });
    }
  } finally {
    await target.bulk?.(false, { durable: false });
  }
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
