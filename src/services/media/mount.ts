import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { type LazyMount, mountLazily } from '../../platform/http/lazyApp.ts';
import type { Store } from '../../platform/store/store.ts';
import type { Media, MediaDeps } from './index.ts';
import { DEFAULT_KIND_PREFIX, DEFAULT_PATH_PREFIX, DEFAULT_SERVICE_NAME, checkKindPrefix, checkPathPrefix, checkServiceName } from './names.ts';

/** The media API as the server holds it: built at its first use. */
export interface MediaMount {
  serviceName: string;
  pathPrefix: string;
  /** The media API's app (its routes, service, catalogue and search engine): built now if nothing has built it yet. */
  surface: LazyMount;
  /** The service, its catalogue and its search engine, built now if nothing has built them yet. */
  media(): Promise<Media>;
  /** Waits for an index build or snapshot in progress; the store stays open. */
  close(): Promise<void>;
}

/**
 * The media API on `app`, built at the first request below `{prefix}/v3/`: its service, the
 * catalogue and the search engine (about forty modules) cost a start nothing while no search
 * comes (docs/operations.md, "Start-up and lazy loading"). A store that already holds a
 * catalogue gets it built at start, in the background, as before: its search index is loaded (or
 * built: a million videos take tens of seconds) before the first search asks for it.
 */
export function mountMedia(app: FastifyInstance, d: MediaDeps & { surfaceApp: () => FastifyInstance }): MediaMount {
  const pathPrefix = checkPathPrefix(d.options?.pathPrefix ?? DEFAULT_PATH_PREFIX);
  const serviceName = checkServiceName(d.options?.serviceName ?? DEFAULT_SERVICE_NAME);
  checkKindPrefix(d.options?.kindPrefix ?? DEFAULT_KIND_PREFIX);
  let media: Media | undefined;
  const surface = mountLazily(app, {
    prefix: `${pathPrefix}/v3/`,
    build: async () => {
      const made = d.surfaceApp();
      const built = (await import('./index.ts')).createMedia(made, d);
      await made.ready();
      media = built;
      return made;
    },
  });
  // The start-up index build of a store that has a catalogue (a failed one is tried again by the first search).
  const warming = hasCatalogue(d.store).then((yes) => (yes ? surface.app() : undefined)).catch(() => undefined);
  return {
    serviceName,
    pathPrefix,
    surface,
    media: async () => {
      await surface.app();
      return media!;
    },
    close: async () => {
      await warming;
      await media?.close();
    },
  };
}

/** Whether the store holds a media catalogue (its change sequence exists once anything was written; a reset removes it). */
async function hasCatalogue(store: Store): Promise<boolean> {
  const { rows } = await sql<{ value: number }>`SELECT value FROM media_meta WHERE name = 'seq'`.execute(store.db);
  return rows.length > 0;
}
