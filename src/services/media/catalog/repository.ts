import { type Kysely, sql } from 'kysely';
import { HotQuery } from '../../../platform/store/hotQuery.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { EntryRefs, NormalizedEntry } from './format.ts';
import type { CatalogResource, ContentOwner } from './types.ts';

type Db = Kysely<Database>;
export type MediaTable = 'media_channels' | 'media_videos' | 'media_playlists';
export const TABLE_OF = { channel: 'media_channels', video: 'media_videos', playlist: 'media_playlists' } as const;

export interface CatalogVersion {
  epoch: number;
  seq: number;
}

/** Read before every search: compiled once (see HotQuery), not built by Kysely each time. */
const VERSION = new HotQuery((db: Db, epoch: 'epoch', seq: 'seq') => db.selectFrom('media_meta').select(['name', 'value']).where('name', 'in', [epoch, seq]));

/** The catalogue's change version: `seq` grows with every write; `epoch` changes when the catalogue is wiped and refilled. */
export async function readVersion(db: Db): Promise<CatalogVersion> {
  const rows = await VERSION.rows(db, 'epoch', 'seq');
  const v = { epoch: 0, seq: 0 };
  for (const r of rows) if (r.name === 'epoch' || r.name === 'seq') v[r.name] = Number(r.value);
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

const ROWS_PER_INSERT = 500;

/** Upserts normalized entries (any mix of types) with one change sequence number. */
export async function writeEntries(trx: Db, entries: NormalizedEntry[], seq: number): Promise<void> {
  const owners = [];
  const byTable = { media_channels: [] as any[], media_videos: [] as any[], media_playlists: [] as any[] };
  const bodies: { type: string; id: string; resource: string }[] = [];
  for (const e of entries) {
    if (e.type === 'contentOwner') owners.push({ ...e.row, seq });
    else {
      const { resource, ...row } = e.row;
      byTable[TABLE_OF[e.type]].push({ ...row, seq });
      bodies.push({ type: e.type, id: row.id, resource });
    }
  }
  for (let i = 0; i < bodies.length; i += ROWS_PER_INSERT) {
    const chunk = new Map(bodies.slice(i, i + ROWS_PER_INSERT).map((b) => [`${b.type}:${b.id}`, b]));
    await trx
      .insertInto('media_resources')
      .values([...chunk.values()])
      .onConflict((c) => c.columns(['type', 'id']).doUpdateSet((eb) => ({ resource: eb.ref('excluded.resource') })))
      .execute();
  }
  for (let i = 0; i < owners.length; i += ROWS_PER_INSERT) {
    await trx
      .insertInto('media_content_owners')
      .values(dedupe(owners.slice(i, i + ROWS_PER_INSERT)))
      .onConflict((c) =>
        c.column('id').doUpdateSet((eb) => ({
          seq: eb.ref('excluded.seq'),
          display_name: eb.ref('excluded.display_name'),
          linked_principals: eb.ref('excluded.linked_principals'),
          resource: eb.ref('excluded.resource'),
        })),
      )
      .execute();
  }
  for (const table of ['media_channels', 'media_videos', 'media_playlists'] as const) {
    const rows = byTable[table];
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      await trx
        .insertInto(table)
        .values(dedupe(rows.slice(i, i + ROWS_PER_INSERT)))
        .onConflict((c) =>
          c.column('id').doUpdateSet((eb) => {
            const set: Record<string, unknown> = {
              seq: eb.ref('excluded.seq'),
              channel_id: eb.ref('excluded.channel_id'),
              published_at: eb.ref('excluded.published_at'),
              title: eb.ref('excluded.title'),
              description: eb.ref('excluded.description'),
              search_text: eb.ref('excluded.search_text'),
              attrs: eb.ref('excluded.attrs'),
            };
            if (table === 'media_channels') {
              set.owner_principal = eb.ref('excluded.owner_principal' as any);
              set.content_owner = eb.ref('excluded.content_owner' as any);
            }
            return set as any;
          }),
        )
        .execute();
    }
  }
}

/** A multi-row upsert may not name one id twice (PostgreSQL): the last entry for an id wins. */
function dedupe<T extends { id: string }>(rows: T[]): T[] {
  const byId = new Map<string, T>();
  for (const r of rows) byId.set(r.id, r);
  return byId.size === rows.length ? rows : [...byId.values()];
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
