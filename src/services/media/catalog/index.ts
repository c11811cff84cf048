import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import type { Store } from '../../../platform/store/store.ts';
import { SearchPool } from '../search/searchPool.ts';
import * as repo from './repository.ts';
import { versionReader } from './versionReader.ts';
import type { MediaCatalog, MediaSearchEngine } from './types.ts';

export type { MediaCatalog, MediaSearchEngine } from './types.ts';
export { CURATED_TOPICS } from './topics.ts';
export { parseQuery } from '../search/queryParser.ts';

/** The catalogue and its search engine over one store (see types.ts). */
export interface Media {
  catalog: MediaCatalog;
  engine: MediaSearchEngine & {
    /** Brings the index up to date with the store now (at start, to build it before the first search). */
    refresh(): Promise<void>;
  };
  /** Waits for the start-up index build; the store stays open (its owner closes it). */
  close(): Promise<void>;
}

export interface MediaCatalogOptions {
  /**
   * Where to keep the index snapshot (search/snapshot.ts) when the store is PostgreSQL: the
   * server's data directory. SQLite keeps it next to its database file whatever this says.
   */
  snapshotDir?: string;
  /** 2: a second engine on a thread of its own answers searches too (search/searchPool.ts); default 1. */
  searchThreads?: 1 | 2;
}

/**
 * Where the index snapshot lives: `<data dir>/cloudtwin.media-index` next to a SQLite database
 * (none in memory); on PostgreSQL `<snapshotDir>/cloudtwin.media-index.pg-<id>`, the id naming
 * the server, database and schema, so data directories shared by cloudtwins of different
 * databases keep one snapshot each. A snapshot is used only for the catalogue it was built from
 * (its random epoch), so another catalogue's file is never mistaken for this one's.
 */
export async function snapshotPath(store: Store, opts: MediaCatalogOptions): Promise<string | undefined> {
  if (store.dialect === 'sqlite') {
    const rows = (await sql<{ name: string; file: string }>`PRAGMA database_list`.execute(store.db)).rows;
    const file = rows.find((r) => r.name === 'main')?.file;
    return file ? join(dirname(file), 'cloudtwin.media-index') : undefined;
  }
  if (!opts.snapshotDir) return undefined;
  const where = (await sql<{ id: string }>`SELECT concat_ws('|', inet_server_addr(), inet_server_port(), current_database(), current_schema()) AS id`.execute(store.db)).rows[0]?.id ?? '';
  return join(opts.snapshotDir, `cloudtwin.media-index.pg-${createHash('sha256').update(where).digest('hex').slice(0, 16)}`);
}

/**
 * Builds the catalogue (store-backed) and the search engine (an in-memory index built from
 * the store and brought up to date from its change sequence before each search, so changes
 * made by other processes show).
 */
export function createMediaCatalog(store: Store, opts: MediaCatalogOptions = {}): Media {
  const db = store.db;
  const catalog: MediaCatalog = {
    videos: (ids) => repo.resourcesById(db, 'video', ids),
    channels: (ids) => repo.resourcesById(db, 'channel', ids),
    playlists: (ids) => repo.resourcesById(db, 'playlist', ids),
    channelsOwnedBy: (member) => repo.channelsOwnedBy(db, member),
    playlistsOfChannel: (channelId, limit) => repo.playlistsOfChannel(db, channelId, limit),
    contentOwner: (id) => repo.contentOwner(db, id),
    channelsOfContentOwner: (id) => repo.channelsOfContentOwner(db, id),
  };
  // The index is saved (next to a SQLite database, in the data directory for PostgreSQL), so a
  // restart loads it and catches up with what changed since, instead of building it (search/snapshot.ts);
  // with `searchThreads: 2` a second engine on a thread of its own answers searches too (search/searchPool.ts).
  const engine = new SearchPool(store, { snapshotFile: snapshotPath(store, opts), versionReader: versionReader(store), threads: opts.searchThreads });
  // Build the index now, in the background, so the first search does not wait for it (a million
  // videos take tens of seconds); a search that comes earlier waits for this same build.
  const warm = engine.refresh().catch(() => {});
  // close waits for the start-up build and for a snapshot being written (no half-written file left behind)
  return { catalog, engine, close: () => warm.then(() => engine.close()) };
}
