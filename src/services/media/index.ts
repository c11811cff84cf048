import type { FastifyInstance } from 'fastify';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { Quota } from '../../platform/quota/quota.ts';
import type { Store } from '../../platform/store/store.ts';
import { type CheckKey, MediaAccess } from './access.ts';
import { CURATED_TOPICS, createMediaCatalog, parseQuery } from './catalog/index.ts';
import type { MediaCatalog, MediaSearchEngine } from './catalog/types.ts';
import { DEFAULT_KIND_PREFIX, DEFAULT_PATH_PREFIX, DEFAULT_SERVICE_NAME, type KindPrefix, checkKindPrefix, checkPathPrefix, checkServiceName, kindsFor } from './names.ts';
import { registerMediaRoutes } from './plugin.ts';
import { MediaService } from './service.ts';

export { DEFAULT_KIND_PREFIX, DEFAULT_PATH_PREFIX, DEFAULT_SERVICE_NAME, KIND_PREFIXES, checkKindPrefix, checkPathPrefix, checkServiceName } from './names.ts';

export interface MediaOptions {
  /** Path prefix of the routes (`{prefix}/v3/search`); default `/youtube`; `''` mounts them at `/v3/...`. */
  pathPrefix?: string;
  /** The service name API-key `apiTargets` and error metadata use; default `youtube.googleapis.com`. */
  serviceName?: string;
  /** The prefix of `kind` values: `media` (the service document's, default) or `youtube` (the YouTube Data API's). */
  kindPrefix?: KindPrefix;
}

/** What the media service gives the rest of cloudtwin. */
export interface Media {
  service: MediaService;
  catalog: MediaCatalog;
  engine: MediaSearchEngine;
  serviceName: string;
  pathPrefix: string;
  close(): Promise<void>;
}

/** What the media API is built from. */
export interface MediaDeps {
  store: Store;
  iam: IamService;
  quota: Quota;
  checkKey: CheckKey;
  options?: MediaOptions;
  /** The data directory: where a PostgreSQL store's index snapshot is kept (SQLite keeps it beside its database). */
  snapshotDir?: string;
  /** Engines answering searches (search/searchPool.ts): 1 (default) or 2, the second on a thread of its own. */
  searchThreads?: 1 | 2;
  catalog?: { catalog: MediaCatalog; engine: MediaSearchEngine; close(): Promise<void> };
}

/** Builds the media catalogue, its engine and the HTTP service on `app` (the server builds it at its first use: mount.ts). */
export function createMedia(app: FastifyInstance, d: MediaDeps): Media {
  const pathPrefix = checkPathPrefix(d.options?.pathPrefix ?? DEFAULT_PATH_PREFIX);
  const serviceName = checkServiceName(d.options?.serviceName ?? DEFAULT_SERVICE_NAME);
  const media = d.catalog ?? createMediaCatalog(d.store, { snapshotDir: d.snapshotDir, searchThreads: d.searchThreads });
  const access = new MediaAccess({ checkKey: d.checkKey, iam: d.iam, serviceName });
  const kinds = kindsFor(checkKindPrefix(d.options?.kindPrefix ?? DEFAULT_KIND_PREFIX));
  const service = new MediaService({ access, quota: d.quota, catalog: media.catalog, engine: media.engine, topics: CURATED_TOPICS, parseQuery, kinds });
  registerMediaRoutes({ app, service, prefix: pathPrefix, serviceName });
  return { service, catalog: media.catalog, engine: media.engine, serviceName, pathPrefix, close: () => media.close() };
}
