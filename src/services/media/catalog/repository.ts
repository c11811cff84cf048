import { type Kysely, sql } from 'kysely';
import { HotQuery, HotRows } from '../../../platform/store/hotQuery.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { CatalogRow, EntryRefs, NormalizedEntry } from './format.ts';
import type { CatalogResource, ContentOwner } from './types.ts';

type Db = Kysely<Database>;
export type MediaTable = 'media_channels' | 'media_videos' | 'media_playlists';
export const TABLE_OF = { channel: 'media_channels', video: 'media_videos', playlist: 'media_playlists' } as const;

export interface CatalogVersion {
  epoch: number;
  seq: number;
}

const versionSelect = (db: Db, epoch: 'epoch', seq: 'seq') => db.selectFrom('media_meta').select(['name', 'value']).where('name', 'in', [epoch, seq]);
/** Read before every search: compiled once (see HotQuery), not built by Kysely each time. */
const VERSION = new HotQuery(versionSelect);

/** `readVersion`'s query, its SQL and values (a reader with a connection of its own prepares it: versionReader.ts). */
export const versionQuery = (db: Db) => versionSelect(db, 'epoch', 'seq').compile();

/** The catalogue's change version: `seq` grows with every write; `epoch` changes when the catalogue is wiped and refilled. */
export async function readVersion(db: Db): Promise<CatalogVersion> {
  return versionOf((await VERSION.rows(db, 'epoch', 'seq')).map((r) => [r.name, r.value]));
}

/** The version the `media_meta` rows 'epoch' and 'seq' hold (name, value pairs; 0 for a missing one). */
export function versionOf(rows: Iterable<readonly [string, unknown]>): CatalogVersion {
  const v = { epoch: 0, seq: 0 };
  for (const [name, value] of rows) if (name === 'epoch' || name === 'seq') v[name] = Number(value);
  return v;
}

/**
 * Takes the next change sequence number. The update locks the 'seq' row (PostgreSQL) or the
 * database (SQLite) until the transaction ends, so sequence numbers become visible in order:
 * a reader that saw seq N has seen every row written with a sequence up to N.
 */
export async function nextSeq(trx: Db): Promise<number> {
  const updated = await sql<{ value: number }>`UPDATE media_meta SET value = value + 1 WHERE name = 'seq' RETURNING value`.execute(trx);
  if (updated.rows.length) return Number(updated.rows[0].value);
  const epoch = Math.floor(Math.random() * 2 ** 47) + 1;
  await trx.insertInto('media_meta').values([{ name: 'epoch', value: epoch }, { name: 'seq', value: 1 }]).onConflict((c) => c.column('name').doNothing()).execute();
  return nextSeq(trx);
}

/**
 * Rows per multi-row upsert: the statement of a full chunk is compiled once (HotRows). At most
 * 500 x 10 parameters, far below SQLite's 32,766 and PostgreSQL's 65,535.
 */
const ROWS_PER_INSERT = 500;

/** An upsert of one table: a row whose key is stored already has every other column replaced. */
function upsertOf(table: keyof Database, key: readonly string[], columns: readonly string[]): HotRows {
  const replaced = columns.filter((c) => !key.includes(c));
  return new HotRows(ROWS_PER_INSERT, columns, (db: Db, rows) =>
    db
      .insertInto(table)
      .values(rows as any)
      .onConflict((c) => c.columns(key as any).doUpdateSet((eb) => Object.fromEntries(replaced.map((col) => [col, eb.ref(`excluded.${col}` as any)])) as any)),
  );
}

/** A plain insert of one table (a row whose key is stored already fails it with a unique violation). */
function insertOf(table: keyof Database, columns: readonly string[]): HotRows {
  return new HotRows(ROWS_PER_INSERT, columns, (db: Db, rows) => db.insertInto(table).values(rows as any));
}

const MEDIA_COLUMNS = ['id', 'seq', 'channel_id', 'published_at', 'title', 'description', 'search_text', 'attrs'] as const;
/** Each table's key and columns, in the order `writeEntries` lays out a row's values. */
const TABLES = {
  media_resources: { key: ['type', 'id'], columns: ['type', 'id', 'resource'] },
  media_content_owners: { key: ['id'], columns: ['id', 'seq', 'display_name', 'linked_principals', 'resource'] },
  media_channels: { key: ['id'], columns: [...MEDIA_COLUMNS, 'owner_principal', 'content_owner'] },
  media_videos: { key: ['id'], columns: MEDIA_COLUMNS },
  media_playlists: { key: ['id'], columns: MEDIA_COLUMNS },
} as const satisfies Record<string, { key: readonly string[]; columns: readonly string[] }>;
type Writes = Record<keyof typeof TABLES, HotRows>;
const tableWrites = (make: (table: keyof typeof TABLES, t: (typeof TABLES)[keyof typeof TABLES]) => HotRows) =>
  Object.fromEntries(Object.entries(TABLES).map(([table, t]) => [table, make(table as keyof typeof TABLES, t)])) as Writes;
const UPSERT = tableWrites((table, t) => upsertOf(table, t.key, t.columns));
const INSERT = tableWrites((table, t) => insertOf(table, t.columns));

/**
 * Writes entries' rows into one table (`write`: its upsert or insert), ROWS_PER_INSERT at a time,
 * their values laid out flat straight from the entries (`value(entry)` pushes one row's, in the
 * table's column order).
 */
async function writeRows(trx: Db, write: HotRows, entries: NormalizedEntry[], value: (e: NormalizedEntry, out: unknown[]) => void): Promise<void> {
  for (let i = 0; i < entries.length; i += write.rows) {
    const values: unknown[] = [];
    for (let k = i; k < Math.min(entries.length, i + write.rows); k++) value(entries[k], values);
    await write.execute(trx, values);
  }
}

/**
 * Upserts normalized entries (any mix of types) with one change sequence number. `fresh`: none
 * of them is stored yet, so plain inserts do (one that is fails the write with a unique
 * violation, see isUniqueViolation): an upsert looks each key up before inserting it, a quarter
 * of PostgreSQL's time when a generated catalogue is written.
 */
export async function writeEntries(trx: Db, entries: NormalizedEntry[], seq: number, fresh = false): Promise<void> {
  const write = fresh ? INSERT : UPSERT;
  const owners: NormalizedEntry[] = [];
  const withResource: NormalizedEntry[] = [];
  const byTable = { media_channels: [] as NormalizedEntry[], media_videos: [] as NormalizedEntry[], media_playlists: [] as NormalizedEntry[] };
  for (const e of lastOfEach(entries)) {
    if (e.type === 'contentOwner') owners.push(e);
    else {
      byTable[TABLE_OF[e.type]].push(e);
      withResource.push(e);
    }
  }
  await writeRows(trx, write.media_resources, withResource, (e, out) => void out.push(e.type, e.row.id, e.row.resource));
  await writeRows(trx, write.media_content_owners, owners, (e, out) => {
    const r = e.row as Extract<NormalizedEntry, { type: 'contentOwner' }>['row'];
    out.push(r.id, seq, r.display_name, r.linked_principals, r.resource);
  });
  const media = (e: NormalizedEntry, out: unknown[]) => {
    const r = e.row as CatalogRow;
    out.push(r.id, seq, r.channel_id, r.published_at, r.title, r.description, r.search_text, r.attrs);
  };
  await writeRows(trx, write.media_channels, byTable.media_channels, (e, out) => {
    media(e, out);
    const r = e.row as Extract<NormalizedEntry, { type: 'channel' }>['row'];
    out.push(r.owner_principal, r.content_owner);
  });
  await writeRows(trx, write.media_videos, byTable.media_videos, media);
  await writeRows(trx, write.media_playlists, byTable.media_playlists, media);
}

/**
 * The last entry of each type and id, in the order their first appeared: a multi-row upsert may
 * not name one row twice (PostgreSQL), and the last entry for an id wins.
 */
function lastOfEach(entries: NormalizedEntry[]): NormalizedEntry[] {
  const byKey = new Map<string, NormalizedEntry>();
  for (const e of entries) byKey.set(`${e.type}:${e.row.id}`, e);
  return byKey.size === entries.length ? entries : [...byKey.values()];
}

/** The references of a batch that neither the batch nor the store satisfies. */
export async function missingRefs(db: Db, refs: EntryRefs[], inBatch: { channels: Set<string>; contentOwners: Set<string> }): Promise<{ channels: Set<string>; contentOwners: Set<string> }> {
  const channels = new Set<string>();
  const owners = new Set<string>();
  for (const r of refs) {
    if (r.channelId && !inBatch.channels.has(r.channelId)) channels.add(r.channelId);
    if (r.contentOwnerId && !inBatch.contentOwners.has(r.contentOwnerId)) owners.add(r.contentOwnerId);
  }
  const found = async (table: 'media_channels' | 'media_content_owners', ids: Set<string>) => {
    const list = [...ids];
    for (let i = 0; i < list.length; i += 500) {
      for (const row of await db.selectFrom(table).select('id').where('id', 'in', list.slice(i, i + 500)).execute()) ids.delete(row.id);
    }
  };
  if (channels.size) await found('media_channels', channels);
  if (owners.size) await found('media_content_owners', owners);
  return { channels, contentOwners: owners };
}

function resources(rows: { id: string; resource: string }[], ids: string[]): CatalogResource[] {
  const byId = new Map(rows.map((r) => [r.id, r.resource]));
  const out: CatalogResource[] = [];
  for (const id of ids) {
    const body = byId.get(id);
    if (body !== undefined) out.push(JSON.parse(body));
  }
  return out;
}

export async function resourcesById(db: Db, type: 'channel' | 'video' | 'playlist', ids: string[]): Promise<CatalogResource[]> {
  const wanted = [...new Set(ids.filter((id) => typeof id === 'string'))].slice(0, 1000);
  if (!wanted.length) return [];
  return resources(await db.selectFrom('media_resources').select(['id', 'resource']).where('type', '=', type).where('id', 'in', wanted).execute(), ids);
}

export async function channelsOwnedBy(db: Db, member: string): Promise<string[]> {
  return (await db.selectFrom('media_channels').select('id').where('owner_principal', '=', member).orderBy('id').limit(1000).execute()).map((r) => r.id);
}

export async function channelsOfContentOwner(db: Db, owner: string): Promise<string[]> {
  return (await db.selectFrom('media_channels').select('id').where('content_owner', '=', owner).orderBy('id').limit(10_000).execute()).map((r) => r.id);
}

export async function playlistsOfChannel(db: Db, channelId: string, limit: number): Promise<CatalogResource[]> {
  const rows = await db
    .selectFrom('media_playlists')
    .select('id')
    .where('channel_id', '=', channelId)
    .orderBy('published_at', 'desc')
    .orderBy('id')
    .limit(Math.max(0, Math.min(1000, Math.floor(limit) || 0)))
    .execute();
  return resourcesById(db, 'playlist', rows.map((r) => r.id));
}

export async function contentOwner(db: Db, id: string): Promise<ContentOwner | undefined> {
  const row = await db.selectFrom('media_content_owners').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, displayName: row.display_name, linkedPrincipals: JSON.parse(row.linked_principals) } : undefined;
}

/** Every entry in import order (content owners, channels, videos, playlists), as resource JSON text, by id pages. */
export async function* exportEntries(db: Db, pageSize = 2000): AsyncGenerator<string> {
  for (const type of ['contentOwner', 'channel', 'video', 'playlist'] as const) {
    let after = '';
    for (;;) {
      const rows =
        type === 'contentOwner'
          ? await db.selectFrom('media_content_owners').select(['id', 'resource']).where('id', '>', after).orderBy('id').limit(pageSize).execute()
          : await db.selectFrom('media_resources').select(['id', 'resource']).where('type', '=', type).where('id', '>', after).orderBy('id').limit(pageSize).execute();
      for (const r of rows) yield r.resource;
      if (rows.length < pageSize) break;
      after = rows[rows.length - 1].id;
    }
  }
}

export async function countEntries(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['media_content_owners', 'media_channels', 'media_videos', 'media_playlists'] as const) {
    const r = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    out[table.replace('media_', '')] = Number(r?.n ?? 0);
  }
  return out;
}
