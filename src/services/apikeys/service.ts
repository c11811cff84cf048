import type { Kysely } from 'kysely';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { SecretBox } from '../../platform/crypto/secretBox.ts';
import { ApiError, type FieldViolation, failedPrecondition, invalidArgument, notFound } from '../../platform/http/errors.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine, OperationRecord } from '../../platform/operations/engine.ts';
import type { Database } from '../../platform/store/schema.ts';
import type { Store } from '../../platform/store/store.ts';
import type { KeyCache } from './keyCache.ts';
import { type ApiKeyRecord, type WireKey, isPurged, toWireKey } from './model.ts';
import { type KeyOperation, KEY_TYPE, SERVICE, keyName, operationName, parentName } from './names.ts';
import type { ApiKeysRepository } from './repository.ts';
import type { Restrictions } from './restrictions/types.ts';
import { validateRestrictions } from './restrictions/validate.ts';
import { validateAnnotations, validateDisplayName, validateKeyId } from './rules.ts';
import { type KeyChanges, type MutableKey, applyChanges, parseUpdateMask } from './updateMask.ts';
import { decodePageToken, encodePageToken } from './pageToken.ts';

export const MAX_KEYS_PER_PROJECT = 300;
export const MAX_PAGE_SIZE = 300;
const BOUND_KEY_CONSTRAINT = 'constraints/iam.managed.disableServiceAccountApiKeyCreation';
const NOT_FOUND_MESSAGE = 'Requested entity was not found.';
/** `operations/akmf.p7-<project number>-<uuid>`: the project an operation name gives. */
const OPERATION_PROJECT = /^operations\/akmf\.p[0-9]{1,4}-([1-9][0-9]{0,18})-[0-9a-f-]{36}$/;

export interface KeyInput {
  displayName?: string;
  restrictions?: Restrictions;
  annotations?: Record<string, string>;
  serviceAccountEmail?: string;
}

/** The wire form of a `google.longrunning.Operation` of this service. */
export interface WireOperation {
  name: string;
  done?: boolean;
  response?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface ApiKeysDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  secrets: SecretBox;
  iam: IamService;
  access: AccessControl;
  operations: OperationEngine;
  repo: ApiKeysRepository;
  cache: KeyCache;
}

interface CreatePayload {
  projectNumber: string;
  keyId: string;
  uid: string;
  displayName: string;
  restrictions: Restrictions;
  annotations: Record<string, string>;
  serviceAccountEmail: string | null;
}

interface KeyRef {
  projectNumber: string;
  keyId: string;
}

/** The key with its key string placed where the real service writes it (after displayName). */
function withKeyString(key: WireKey, keyString: string): WireKey {
  const { name, displayName, ...rest } = key;
  return { name, ...(displayName !== undefined ? { displayName } : {}), keyString, ...rest };
}

function violationError(violations: FieldViolation[]): ApiError {
  return invalidArgument(violations.map((v) => v.description).join('\n'), violations);
}

function rejectViolations(violations: FieldViolation[] | null): void {
  if (violations?.length) throw violationError(violations);
}

/** `global` is the only location of the service, for keys as for their parent. */
function checkLocation(location: string): void {
  if (location !== 'global') throw invalidArgument(`Location '${location}' is not supported. The only supported location is 'global'.`);
}

/** Field paths of the Key message as the request names them (`display_name` -> `key.display_name`). */
function inKey(violations: FieldViolation[] | null): FieldViolation[] {
  return (violations ?? []).map((v) => ({ ...v, field: `key.${v.field}` }));
}

/** What `keys.lookupKey` answers. */
export interface LookupAnswer {
  parent: string;
  name: string;
}

// The state each mutation needs: checked when it is requested, and again when its operation
// completes (in delayed mode the key may have changed in between).
const nameOf = (k: ApiKeyRecord) => keyName(k.projectNumber, k.keyId ?? k.uid);

function requireActive(k: ApiKeyRecord): void {
  if (k.deleteTime !== null) throw failedPrecondition(`The key ${nameOf(k)} is deleted; undelete it before updating it.`);
}

function requireDeletable(k: ApiKeyRecord, etag: string | null | undefined): void {
  if (etag && etag !== k.etag) throw new ApiError({ status: 'ABORTED', message: `The etag '${etag}' does not match the current etag of the key.` });
  if (k.deleteTime !== null) throw failedPrecondition(`The key ${nameOf(k)} is already deleted.`);
}

function requireDeleted(k: ApiKeyRecord): void {
  if (k.deleteTime === null) throw failedPrecondition(`The key ${nameOf(k)} is not deleted.`);
}

/**
 * The API Keys v2 service: every method's rules, independent of HTTP. Mutations are
 * long-running operations whose effect is applied when the operation completes.
 */
export class ApiKeysService {
  readonly #d: ApiKeysDeps;

  constructor(deps: ApiKeysDeps) {
    this.#d = deps;
    const kinds: Record<string, (trx: Kysely<Database>, payload: any) => Promise<WireKey>> = {
      'apikeys.create': (trx, p) => this.#completeCreate(trx, p),
      'apikeys.update': (trx, p) => this.#completeUpdate(trx, p),
      'apikeys.delete': (trx, p) => this.#completeDelete(trx, p),
      'apikeys.undelete': (trx, p) => this.#completeUndelete(trx, p),
    };
    for (const [kind, complete] of Object.entries(kinds)) deps.operations.register({ kind, complete });
  }

  // ---- parents and names -------------------------------------------------------------------

  /** Checks the permission on `projects/{project}/locations/{location}` and that location is global. */
  async #authorizeParent(principal: Principal, permission: string, project: string, location: string) {
    const p = await this.#d.access.require(principal, permission, { project, service: SERVICE, suffix: `/locations/${location}` });
    checkLocation(location);
    return p;
  }

  async #findKey(db: Kysely<Database>, ref: KeyRef, lock = false): Promise<ApiKeyRecord> {
    const k = await this.#d.repo.byId(db, ref.projectNumber, ref.keyId, { lock });
    if (!k || isPurged(k, this.#d.clock.nowMs())) throw notFound(NOT_FOUND_MESSAGE);
    return k;
  }

  // ---- methods -----------------------------------------------------------------------------

  async createKey(principal: Principal, project: string, location: string, keyId: string | undefined, input: KeyInput): Promise<WireOperation> {
    const p = await this.#authorizeParent(principal, 'apikeys.keys.create', project, location);
    if (keyId !== undefined && keyId !== '') rejectViolations(validateKeyId(keyId));
    rejectViolations([...inKey(validateDisplayName(input.displayName ?? '')), ...inKey(validateAnnotations(input.annotations ?? {}))]);
    const bound = input.serviceAccountEmail ? input.serviceAccountEmail.trim() : '';
    if (bound) await this.#checkBinding(p.projectNumber, bound);
    const restrictions = this.#validRestrictions(input.restrictions, Boolean(bound));
    const uid = this.#d.ids.uuid();
    const payload: CreatePayload = {
      projectNumber: p.projectNumber,
      keyId: keyId || uid,
      uid,
      displayName: input.displayName ?? '',
      restrictions,
      annotations: input.annotations ?? {},
      serviceAccountEmail: bound || null,
    };
    return this.#startOperation('create', 'apikeys.create', p.projectNumber, payload);
  }

  async listKeys(principal: Principal, project: string, location: string, q: { pageSize?: number; pageToken?: string; showDeleted?: boolean }) {
    const p = await this.#authorizeParent(principal, 'apikeys.keys.list', project, location);
    if (q.pageSize !== undefined && q.pageSize < 0) throw invalidArgument('The page size must not be negative.');
    const limit = !q.pageSize ? MAX_PAGE_SIZE : Math.min(q.pageSize, MAX_PAGE_SIZE);
    const showDeleted = q.showDeleted === true;
    const after = q.pageToken ? decodePageToken(q.pageToken, { projectNumber: p.projectNumber, showDeleted }) : undefined;
    const rows = await this.#d.repo.page(this.#d.store.db, { projectNumber: p.projectNumber, nowMs: this.#d.clock.nowMs(), showDeleted, limit: limit + 1, after });
    const out: { keys?: WireKey[]; nextPageToken?: string } = {};
    const page = rows.slice(0, limit);
    if (page.length) out.keys = page.map((k) => toWireKey(k));
    if (rows.length > limit) {
      const last = page[page.length - 1];
      out.nextPageToken = encodePageToken({ projectNumber: p.projectNumber, showDeleted, createTime: last.createTime, uid: last.uid });
    }
    return out;
  }

  async getKey(principal: Principal, project: string, location: string, keyId: string): Promise<WireKey> {
    const ref = await this.#keyRef(principal, 'apikeys.keys.get', project, location, keyId);
    return toWireKey(await this.#findKey(this.#d.store.db, ref));
  }

  async getKeyString(principal: Principal, project: string, location: string, keyId: string): Promise<{ keyString: string }> {
    const ref = await this.#keyRef(principal, 'apikeys.keys.getKeyString', project, location, keyId);
    const k = await this.#findKey(this.#d.store.db, ref);
    return { keyString: this.#d.secrets.decrypt(k.keyCipher, k.uid) };
  }

  async updateKey(principal: Principal, project: string, location: string, keyId: string, updateMask: string | undefined, input: KeyInput): Promise<WireOperation> {
    const ref = await this.#keyRef(principal, 'apikeys.keys.update', project, location, keyId);
    const changes = parseUpdateMask(updateMask, input as Record<string, unknown>);
    const k = await this.#findKey(this.#d.store.db, ref);
    this.#updated(k, changes);
    requireActive(k);
    return this.#startOperation('update', 'apikeys.update', ref.projectNumber, { ...ref, changes });
  }

  async deleteKey(principal: Principal, project: string, location: string, keyId: string, etag: string | undefined): Promise<WireOperation> {
    const ref = await this.#keyRef(principal, 'apikeys.keys.delete', project, location, keyId);
    const k = await this.#findKey(this.#d.store.db, ref);
    requireDeletable(k, etag);
    return this.#startOperation('delete', 'apikeys.delete', ref.projectNumber, { ...ref, etag: etag || null });
  }

  async undeleteKey(principal: Principal, project: string, location: string, keyId: string): Promise<WireOperation> {
    const ref = await this.#keyRef(principal, 'apikeys.keys.undelete', project, location, keyId);
    const k = await this.#findKey(this.#d.store.db, ref);
    requireDeleted(k);
    return this.#startOperation('undelete', 'apikeys.undelete', ref.projectNumber, ref);
  }

  /**
   * Through the key cache checkKey uses (changes made here drop the entry; other processes' show
   * within its TTL). A cached key under a fresh IAM directory is answered synchronously, with no
   * promise on the way (bench:lookup); anything else is read first.
   */
  lookupKey(principal: Principal, keyString: string): LookupAnswer | Promise<LookupAnswer> {
    const hash = keyString ? this.#d.secrets.lookupHash(keyString) : undefined;
    const cached = hash ? this.#d.cache.get(hash) : undefined;
    if (cached || !hash) {
      // An unknown key string and a key of a project the caller may not see answer alike, naming nothing.
      const k = this.#d.access.requireFoundNow(principal, 'apikeys.keys.lookup', cached?.record ?? undefined, SERVICE);
      if (k) return this.#lookupAnswer(k);
    }
    return this.#lookupKeyRead(principal, hash);
  }

  async #lookupKeyRead(principal: Principal, hash: string | undefined): Promise<LookupAnswer> {
    const found = hash ? (await this.#d.cache.fetch(hash, (h) => this.#d.repo.byHash(this.#d.store.db, h))).record : undefined;
    return this.#lookupAnswer(await this.#d.access.requireFound(principal, 'apikeys.keys.lookup', found ?? undefined, SERVICE));
  }

  #lookupAnswer(k: ApiKeyRecord): LookupAnswer {
    return { parent: parentName(k.projectNumber), name: isPurged(k, this.#d.clock.nowMs()) ? '' : keyName(k.projectNumber, k.keyId!) };
  }

  async getOperation(principal: Principal, name: string): Promise<WireOperation> {
    // The permission is checked on the project the name gives before the operation is read, so a
    // caller without it gets the same 403 whether or not the operation exists. A name that gives
    // no project never exists: 404 to everyone.
    const projectNumber = OPERATION_PROJECT.exec(name)?.[1];
    if (!projectNumber) throw notFound(`Operation '${name}' not found.`);
    // operations.get needs serviceusage.operations.get (API Keys access control): API Keys admins have it, viewers do not.
    await this.#d.access.require(principal, 'serviceusage.operations.get', { project: projectNumber, service: SERVICE, name });
    const op = await this.#d.operations.get(name);
    if (!op || op.service !== SERVICE || op.projectNumber !== projectNumber) throw notFound(`Operation '${name}' not found.`);
    return this.renderOperation(op);
  }

  /** The wire shape of an operation; a finished create or delete carries the key's string. */
  async renderOperation(op: OperationRecord): Promise<WireOperation> {
    const out: WireOperation = { name: op.name };
    if (!op.done) return out;
    out.done = true;
    if (op.error) {
      out.error = { code: op.error.code, message: op.error.message };
      return out;
    }
    let key = op.result as WireKey;
    // A create answers the new key with its string; so does a delete, the deleted key (as recorded from the real service).
    if (op.kind === 'apikeys.create' || op.kind === 'apikeys.delete') {
      const stored = await this.#d.repo.byUid(this.#d.store.db, key.uid);
      if (stored) key = withKeyString(key, this.#d.secrets.decrypt(stored.keyCipher, stored.uid));
    }
    out.response = { '@type': KEY_TYPE, ...key };
    return out;
  }

  // ---- helpers -----------------------------------------------------------------------------

  async #keyRef(principal: Principal, permission: string, project: string, location: string, keyId: string): Promise<KeyRef> {
    const p = await this.#d.access.require(principal, permission, { project, service: SERVICE, suffix: `/locations/${location}/keys/${keyId}` });
    checkLocation(location);
    return { projectNumber: p.projectNumber, keyId };
  }

  /**
   * The key's mutable fields with `changes` applied (sub-paths of restrictions merged into the
   * key's), every rule checked on the merged key: at request time and again at completion, since
   * in delayed mode the key may change in between.
   */
  #updated(k: ApiKeyRecord, changes: KeyChanges): MutableKey {
    const m = applyChanges(k, changes);
    if (changes.displayName !== undefined) rejectViolations(inKey(validateDisplayName(m.displayName)));
    if (changes.annotations !== undefined) rejectViolations(inKey(validateAnnotations(m.annotations)));
    if (changes.restrictions !== undefined || changes.restrictionParts?.length) m.restrictions = this.#validRestrictions(m.restrictions, Boolean(k.serviceAccountEmail));
    return m;
  }

  #validRestrictions(r: Restrictions | undefined, bound: boolean): Restrictions {
    const v = validateRestrictions(r, { boundToServiceAccount: bound });
    if (!v.ok) throw violationError(inKey(v.violations));
    return v.value;
  }

  async #checkBinding(projectNumber: string, email: string): Promise<void> {
    const dir = await this.#d.iam.directory();
    if (!dir.organizationOf(projectNumber)) {
      throw failedPrecondition(`Keys bound to a service account are not supported for projects without an organization (project ${projectNumber}).`);
    }
    if (dir.isConstraintEnforced(BOUND_KEY_CONSTRAINT, projectNumber)) {
      throw new ApiError({
        status: 'FAILED_PRECONDITION',
        message: `Binding API keys to service accounts is disabled by the organization policy constraint ${BOUND_KEY_CONSTRAINT}.`,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.PreconditionFailure',
            violations: [{ type: BOUND_KEY_CONSTRAINT, subject: `projects/${projectNumber}`, description: 'Binding API keys to service accounts is disabled by an organization policy.' }],
          },
        ],
      });
    }
    if (!dir.serviceAccount(email)) throw invalidArgument(`Service account ${email} does not exist.`);
  }

  async #startOperation(op: KeyOperation, kind: string, projectNumber: string, payload: object): Promise<WireOperation> {
    const name = operationName(op, projectNumber, this.#d.ids.uuid());
    await this.#d.store.db.transaction().execute((trx) => this.#d.operations.submit(trx, { name, service: SERVICE, kind, projectNumber, payload }));
    return this.renderOperation((await this.#d.operations.get(name))!);
  }

  // ---- operation completion (inside the completing transaction) -----------------------------

  async #completeCreate(trx: Kysely<Database>, p: CreatePayload): Promise<WireKey> {
    const now = this.#d.clock.nowMs();
    await this.#d.repo.lockProject(trx, p.projectNumber);
    const existing = await this.#d.repo.byId(trx, p.projectNumber, p.keyId);
    if (existing) {
      if (!isPurged(existing, now)) throw new ApiError({ status: 'ALREADY_EXISTS', message: 'A key with this id already exists.' });
      await this.#d.repo.releaseId(trx, existing.uid);
    }
    if ((await this.#d.repo.countHeld(trx, p.projectNumber, now)) >= MAX_KEYS_PER_PROJECT) {
      throw new ApiError({
        status: 'RESOURCE_EXHAUSTED',
        message: `The project ${p.projectNumber} has reached the limit of ${MAX_KEYS_PER_PROJECT} API keys (deleted keys count until they are purged).`,
      });
    }
    const keyString = this.#d.ids.apiKeyString();
    const k: ApiKeyRecord = {
      uid: p.uid,
      projectNumber: p.projectNumber,
      keyId: p.keyId,
      displayName: p.displayName,
      keyCipher: this.#d.secrets.encrypt(keyString, p.uid),
      keyHash: this.#d.secrets.lookupHash(keyString),
      restrictions: p.restrictions,
      annotations: p.annotations,
      serviceAccountEmail: p.serviceAccountEmail,
      etag: this.#etag(),
      createTime: now,
      updateTime: now,
      deleteTime: null,
    };
    await this.#d.repo.insert(trx, k);
    return toWireKey(k);
  }

  async #completeUpdate(trx: Kysely<Database>, p: KeyRef & { changes: KeyChanges }): Promise<WireKey> {
    const k = await this.#findKey(trx, p, true);
    requireActive(k);
    Object.assign(k, this.#updated(k, p.changes));
    k.updateTime = this.#d.clock.nowMs();
    k.etag = this.#etag();
    await this.#d.repo.save(trx, k);
    this.#d.cache.forget(k.keyHash);
    return toWireKey(k);
  }

  async #completeDelete(trx: Kysely<Database>, p: KeyRef & { etag: string | null }): Promise<WireKey> {
    const k = await this.#findKey(trx, p, true);
    requireDeletable(k, p.etag);
    const now = this.#d.clock.nowMs();
    k.deleteTime = now;
    k.updateTime = now;
    await this.#d.repo.save(trx, k);
    this.#d.cache.forget(k.keyHash);
    return toWireKey(k);
  }

  async #completeUndelete(trx: Kysely<Database>, p: KeyRef): Promise<WireKey> {
    const k = await this.#findKey(trx, p, true);
    requireDeleted(k);
    k.deleteTime = null;
    k.updateTime = this.#d.clock.nowMs();
    k.etag = this.#etag();
    await this.#d.repo.save(trx, k);
    this.#d.cache.forget(k.keyHash);
    return toWireKey(k);
  }

  #etag(): string {
    return `W/"${this.#d.ids.random.bytes(16).toString('base64')}"`;
  }
}
