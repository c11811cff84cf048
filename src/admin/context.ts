import type { AccessTokens } from '../platform/auth/accessTokens.ts';
import type { ServiceAccountKeys } from '../platform/auth/serviceAccountKeys.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { IamService } from '../platform/iam/iamService.ts';
import type { OperationEngine } from '../platform/operations/engine.ts';
import type { Quota } from '../platform/quota/quota.ts';
import type { Faults } from '../platform/faults/faults.ts';
import type { Journal } from '../platform/journal/journal.ts';
import type { Store } from '../platform/store/store.ts';
import type { SharedClock } from '../platform/clock/sharedClock.ts';
import type { SnapshotService } from './snapshotService.ts';
import type { WorldService } from './worldService.ts';

/** World documents and snapshots (a media catalogue, thousands of keys) may be far larger than API requests. */
export const ADMIN_BODY_LIMIT = 256 * 1024 * 1024;

/** What the admin routes act on. */
export interface AdminContext {
  adminToken: string;
  version: string;
  store: Store;
  clock: Clock;
  sharedClock: SharedClock;
  iam: IamService;
  world: WorldService;
  snapshots: SnapshotService;
  tokens: AccessTokens;
  serviceAccountKeys: ServiceAccountKeys;
  operations: OperationEngine;
  quota: Quota;
  /** The transports the port speaks (empty until the server listens, or when served through `inject`). */
  serving: { transports: string[] };
  faults: Faults;
  journal: Journal;
}
