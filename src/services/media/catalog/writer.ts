import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/store/schema.ts';
import { type EntryRefs, type EntryType, type NormalizedEntry, normalizeEntry } from './format.ts';
import { missingRefs, nextSeq, writeEntries } from './repository.ts';

type Db = Kysely<Database>;

/** A batch of entries checked as a whole: every entry valid and every reference satisfied (by the batch or the store). */
export interface CheckedBatch {
  entries: NormalizedEntry[];
  problems: string[];
}

/**
 * Checks entries (`where(i)` names entry i in messages, e.g. `media.videos[3]` or `line 17`).
 * `expect` limits an entry to one type (the world document's sections).
 */
export async function checkEntries(db: Db, inputs: unknown[], where: (i: number) => string, expect?: (i: number) => EntryType | undefined, maxProblems = 50): Promise<CheckedBatch> {
  const entries: NormalizedEntry[] = [];
  const problems: string[] = [];
  const refs: (EntryRefs & { at: string })[] = [];
  const defined = { channels: new Set<string>(), contentOwners: new Set<string>() };
  inputs.forEach((input, i) => {
    if (problems.length >= maxProblems) return;
    const r: EntryRefs = {};
    const e = normalizeEntry(input, r);
    if ('error' in e) return void problems.push(`${where(i)}: ${e.error}`);
    const want = expect?.(i);
    if (want && want !== e.type) return void problems.push(`${where(i)}: a ${e.type} entry in the ${want} section`);
    entries.push(e);
    refs.push({ ...r, at: where(i) });
    if (e.type === 'channel') defined.channels.add(e.row.id);
    if (e.type === 'contentOwner') defined.contentOwners.add(e.row.id);
  });
  if (!problems.length) {
    const missing = await missingRefs(db, refs, defined);
    for (const r of refs) {
      if (problems.length >= maxProblems) break;
      if (r.channelId && missing.channels.has(r.channelId)) problems.push(`${r.at}: snippet.channelId: channel '${r.channelId}' does not exist`);
      if (r.contentOwnerId && missing.contentOwners.has(r.contentOwnerId)) problems.push(`${r.at}: contentOwnerDetails.contentOwner: content owner '${r.contentOwnerId}' does not exist`);
    }
  }
  return { entries, problems };
}

/** Writes checked entries with one change sequence number (in the caller's transaction); `fresh`: none is stored yet (see writeEntries). */
export async function writeChecked(trx: Db, entries: NormalizedEntry[], fresh = false): Promise<void> {
  if (!entries.length) return;
  await writeEntries(trx, entries, await nextSeq(trx), fresh);
}

const SECTIONS = new Map<string, EntryType>([
  ['contentOwners', 'contentOwner'],
  ['channels', 'channel'],
  ['videos', 'video'],
  ['playlists', 'playlist'],
]);

/**
 * The world document's `media` section ({contentOwners, channels, videos, playlists}: catalogue
 * entries): checked whole, then written in the caller's transaction. Returns the problems (nothing is written when there are any).
 */
export async function applyMediaWorld(trx: Db, media: Record<string, Record<string, unknown>[]>): Promise<string[]> {
  const problems: string[] = [];
  const inputs: unknown[] = [];
  const names: string[] = [];
  const types: EntryType[] = [];
  for (const [section, list] of Object.entries(media)) {
    const type = SECTIONS.get(section);
    if (!type) {
      problems.push(`media.${section}: is not a known section (known: ${[...SECTIONS.keys()].join(', ')})`);
      continue;
    }
    list.forEach((entry, i) => {
      inputs.push(entry);
      names.push(`media.${section}[${i}]`);
      types.push(type);
    });
  }
  if (problems.length) return problems;
  const checked = await checkEntries(trx, inputs, (i) => names[i], (i) => types[i]);
  if (checked.problems.length) return checked.problems;
  await writeChecked(trx, checked.entries);
  return [];
}

/**
 * The mark of an import in progress (`media_meta` row `import:<id>`, id = sha256 of the file):
 * the last line written. Written in the transaction of each batch, so an interrupted import,
 * run again on the same file, resumes after the last committed batch.
 */
export interface ImportMark {
  id: string;
  afterLine: number;
}

const markName = (id: string) => `import:${id}`;

/** Writes checked entries and, with `mark`, the import's progress, in one transaction; `fresh`: none is stored yet (see writeEntries). */
export async function writeImportBatch(db: Db, entries: NormalizedEntry[], mark?: ImportMark, fresh = false): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await writeChecked(trx, entries, fresh);
    if (mark) {
      const name = markName(mark.id);
      await trx.insertInto('media_meta').values({ name, value: mark.afterLine }).onConflict((c) => c.column('name').doUpdateSet({ value: mark.afterLine })).execute();
    }
  });
}

/** The line after which an import of this file resumes (0: from the start). */
export async function importResumePoint(db: Db, id: string): Promise<number> {
  return Number((await db.selectFrom('media_meta').select('value').where('name', '=', markName(id)).executeTakeFirst())?.value ?? 0);
}

/** A finished import forgets its mark. */
export async function finishImport(db: Db, id: string): Promise<void> {
  await db.deleteFrom('media_meta').where('name', '=', markName(id)).execute();
}
