import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { SecretBox } from '../../platform/crypto/secretBox.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine } from '../../platform/operations/engine.ts';
import type { Store } from '../../platform/store/store.ts';
import { type KeyCheckRequest, KeyChecker, type KeyIdentity } from './checkKey.ts';
import { KeyCache } from './keyCache.ts';
import { registerApiKeysRoutes } from './plugin.ts';
import { registerApiKeysGrpc } from './grpc.ts';
import type { GrpcFront } from '../../platform/grpc/front.ts';
import { ApiKeysRepository } from './repository.ts';
import { ApiKeysService } from './service.ts';

export type { KeyCheckRequest, KeyIdentity };

/** What the API Keys service exports to the rest of cloudtwin: key enforcement for other services. */
export interface ApiKeys {
  service: ApiKeysService;
  /** Validates a key string for a call; resolves to the key's project (and principal, for bound keys) or throws the exact ApiError. */
  checkKey(keyString: string, request: KeyCheckRequest): Promise<KeyIdentity>;
  forgetCachedKeys(): void;
  /** The id and project of the key a string belongs to, without checking its restrictions (fault rules match keys by id). */
  identifyKey(keyString: string): Promise<{ keyId: string; projectNumber: string } | undefined>;
}

export function createApiKeys(
  app: FastifyInstance,
  d: { store: Store; clock: Clock; ids: Ids; secrets: SecretBox; iam: IamService; access: AccessControl; operations: OperationEngine; grpc?: GrpcFront },
): ApiKeys {
  const repo = new ApiKeysRepository(d.store);
  const cache = new KeyCache();
  const service = new ApiKeysService({ ...d, repo, cache });
  const checker = new KeyChecker({ store: d.store, repo, secrets: d.secrets, clock: d.clock, cache, iam: d.iam });
  registerApiKeysRoutes(app, service);
  if (d.grpc) registerApiKeysGrpc(d.grpc, service);
  return { service, checkKey: (k, r) => checker.checkKey(k, r), forgetCachedKeys: () => cache.clear(), identifyKey: (k) => checker.identify(k) };
}
