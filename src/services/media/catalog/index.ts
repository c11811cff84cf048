import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import type { Store } from '../../../platform/store/store.ts';
import { MediaSearch } from '../search/engine.ts';
import * as repo from './repository.ts';
import type { MediaCatalog, MediaSearchEngine } from './types.ts';

export type { MediaCatalog, MediaSearchEngine } from './types.ts';
export { CURATED_TOPICS } from './topics.ts';
export { parseQuery } from '../search/queryParser.ts';
export { applyMediaWorld } from './writer.ts';

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

/** `<data dir>/cloudtwin.media-index` for SQLite in a data directory (none in memory). */
async function snapshotPath(store: Store): Promise<string | undefined> {
  const rows = (await sql<{ name: string; file: string }>`PRAGMA database_list`.execute(store.db)).rows;
  const file = rows.find((r) => r.name === 'main')?.file;
  return file ? join(dirname(file), 'cloudtwin.media-index') : undefined;
}

/**
 * Builds the catalogue (store-backed) and the search engine (an in-memory index built from
 * the store and brought up to date from its change sequence before each search, so changes
 * made by other processes show).
 */
export function createMediaCatalog(store: Store): Media {
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
  // SQLite in a data directory: the index is saved next to the database, so a restart loads it instead of building it (search/snapshot.ts)
  const engine = new MediaSearch(db, { snapshotFile: store.dialect === 'sqlite' ? snapshotPath(store) : undefined });
  // Build the index now, in the background, so the first search does not wait for it (a million
  // videos take tens of seconds); a search that comes earlier waits for this same build.
  const warm = engine.refresh().catch(() => {});
  // close waits for the start-up build and for a snapshot being written (no half-written file left behind)
  return { catalog, engine, close: () => warm.then(() => engine.saved()) };
}
