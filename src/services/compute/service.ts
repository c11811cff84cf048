import { STATUS_CODES } from 'node:http';
import type { Kysely } from 'kysely';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { ProjectRecord } from '../../platform/iam/directory.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine, OperationError, OperationRecord } from '../../platform/operations/engine.ts';
import type { Database } from '../../platform/store/schema.ts';
import type { Store } from '../../platform/store/store.ts';
import { authorizeCompute } from './access.ts';
import { REGIONS } from './catalogue.ts';
import { computeError, fieldErrors, forbidden, invalidParameter, type OperationFailure, operationFailure, resourceNotFound, alreadyExists } from './errors.ts';
import { buildStoredTemplate } from './instanceTemplate/defaults.ts';
import { templateReferences } from './instanceTemplate/references.ts';
import type { OperationErrorEntry } from './instanceTemplate/types.ts';
import { validateInsertBody } from './instanceTemplate/validate.ts';
import { checkRequestedPolicyVersion, policyResource, readSetPolicyRequest, readTestPermissionsRequest } from './policy.ts';
import {
  LINK_BASE,
  OPERATION_PATTERN,
  PROJECT_PATTERN,
  REGION_PATTERN,
  RESOURCE_PATTERN,
  SERVICE,
  GLOBAL,
  type Scope,
  type TemplateOperation,
  computeTimestamp,
  defaultServiceAccount,
  isGlobal,
  operationLink,
  operationName,
  operationPath,
  operationType,
  regionPath,
  scopeKey,
  scopeLink,
  scopePath,
  templateLink,
  templatePath,
} from './names.ts';
import { type ListParams, listPage } from './listPage.ts';
import type { ComputeRepository, ListCursor, ListOrder, OperationIndexRow, TemplateRow } from './repository.ts';
import { type Lookup, REFERENCE_COLLECTION, TemplateResolver, type TemplateScope, findImage, isPublicReference, lookupIn, parseTemplateRef, zonesOf } from './resolution.ts';
import { parseReference, refPath } from './references.ts';
import { type SourceInstance, propertiesFromInstance } from './sourceInstance.ts';
import type { ComputeWorld } from './world.ts';

export { MAX_RESULTS } from './listPage.ts';
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export interface ComputeDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  iam: IamService;
  access: AccessControl;
  operations: OperationEngine;
  repo: ComputeRepository;
  world: ComputeWorld;
  /** How long `operations.wait` blocks at most (real: about 2 minutes). */
  waitTimeoutMs: number;
}

export type { ListParams } from './listPage.ts';

interface OperationPayload {
  type: TemplateOperation;
  opId: string;
  projectId: string;
  projectNumber: string;
  /** The template's scope: a region, or `global`. */
  region: Scope;
  templateName: string;
  templateId: string;
  user: string;
  requestId: string | null;
  /** insert only */
  body?: Record<string, unknown>;
  deferred?: OperationErrorEntry[];
}

interface OperationResult {
  failure?: OperationFailure;
}

type WireOperation = Record<string, unknown>;

/** The member's e-mail, as Compute writes `user`. */
const userOf = (p: Principal) => p.member.replace(/^[a-zA-Z]+:/, '');

function checkPattern(name: string, value: string, pattern: RegExp): void {
  if (!pattern.test(value)) throw invalidParameter(name, value, pattern);
}

function checkScopeParams(project: string, scope: Scope): void {
  checkPattern('project', project, PROJECT_PATTERN);
  if (!isGlobal(scope)) checkPattern('region', scope, REGION_PATTERN);
}

/**
 * The scope a regional path names: its region. No region is called `global` (the catalogue has
 * none): answered as an unknown region, so a regional path never reaches the global collection.
 */
export function regionScope(project: string, region: string): Scope {
  if (isGlobal(region)) throw resourceNotFound(regionPath(project, region));
  return region;
}

/** Where a template's own IAM policy sits below its project: `/global/instanceTemplates/t` (policies are on global templates only). */
const templatePolicyPath = (scope: Scope, template: string) => (isGlobal(scope) ? `/global/instanceTemplates/${template}` : undefined);
const templatePolicyResource = (projectNumber: string, template: string) => `projects/${projectNumber}${templatePolicyPath(GLOBAL, template)}`;

/** The permission of an operation method: `compute.globalOperations.get` or `compute.regionOperations.get`. */
const operationPermission = (scope: Scope, verb: 'get' | 'list' | 'delete') => `compute.${isGlobal(scope) ? 'global' : 'region'}Operations.${verb}`;

/** Duplicate-key violations of either store (a concurrent repeat of a requestId). */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(String(e?.message ?? ''));
}

/**
 * Compute v1: instance templates and operations, global and regional (one set of rules, the
 * scope a parameter: a region's name or `global`), images and regions as templates need them.
 * No HTTP here: routes parse and shape, this holds the rules.
 */
export class ComputeService {
  readonly #d: ComputeDeps;

  constructor(deps: ComputeDeps) {
    this.#d = deps;
    deps.operations.register({
      kind: 'compute.templates.insert',
      complete: (trx, p) => this.#completeInsert(trx, p),
      // Once the insert has run, its body is in the template (or the operation's error): rendering needs the rest only.
      finishedPayload: ({ body: _body, deferred: _deferred, ...kept }: OperationPayload) => kept,
    });
    deps.operations.register({ kind: 'compute.templates.delete', complete: (trx, p) => this.#completeDelete(trx, p) });
  }

  // ---- access ------------------------------------------------------------------------------

  /**
   * Checks `permission` on `path` (below `projects/{project}`): an unknown project answers like a
   * denied one (no probing which projects exist); then a regional scope's region must exist.
   */
  async #authorize(principal: Principal, permission: string, project: string, scope: Scope | undefined, path: string, policyPath?: string): Promise<ProjectRecord> {
    const region = scope === undefined || isGlobal(scope) ? undefined : scope;
    return authorizeCompute(this.#d, principal, permission, project, region === undefined ? {} : { region }, path, policyPath);
  }

  // ---- instance templates ------------------------------------------------------------------

  async insertTemplate(principal: Principal, project: string, scope: Scope, requestId: string | undefined, body: unknown): Promise<WireOperation> {
    checkScopeParams(project, scope);
    const named = body && typeof body === 'object' && typeof (body as any).name === 'string' ? (body as any).name : '';
    const p = await this.#authorize(principal, 'compute.instanceTemplates.create', project, scope, named ? templatePath(project, scope, named) : scopePath(project, scope));
    const earlier = await this.#earlierOperation(p, requestId);
    if (earlier) return earlier;
    const v = validateInsertBody(body, { region: isGlobal(scope) ? undefined : scope });
    if (v.errors.length) throw fieldErrors(v.errors);
    // The body as Google's JSON layer reads it (JSON names even for `machine_type`, int64 as strings): stored and resolved.
    const resource = v.resource ?? (body as Record<string, unknown>);
    const name = String(resource.name);
    await this.#checkReferencePermissions(principal, resource, { projectId: p.projectId, projectNumber: p.projectNumber, scope });
    if (await this.#d.repo.templateNameTaken(this.#d.store.db, p.projectNumber, scope, name)) {
      // A concurrent repeat of this requestId may have committed the template since the check above: its operation is the answer.
      const repeated = await this.#earlierOperation(p, requestId);
      if (repeated) return repeated;
      throw alreadyExists(templatePath(p.projectId, scope, name));
    }
    return this.#start(principal, 'insert', p, scope, name, this.#d.ids.decimal(19), requestId ? requestId.toLowerCase() : null, { body: resource, deferred: v.deferred });
  }

  /** Checks a `requestId` (a UUID other than the zero UUID); answers the operation an earlier request with it started, if any. */
  async #earlierOperation(p: ProjectRecord, requestId: string | undefined): Promise<WireOperation | undefined> {
    if (requestId === undefined || requestId === '') return undefined;
    if (!UUID.test(requestId) || requestId === ZERO_UUID) {
      throw computeError(
        'INVALID_ARGUMENT',
        'invalid',
        `Invalid value for field 'requestId': '${requestId}'. The request ID must be a valid UUID with the exception that zero UUID is not supported (${ZERO_UUID}).`,
        { location: 'requestId' },
      );
    }
    const earlier = await this.#d.repo.operationByRequestId(this.#d.store.db, p.projectNumber, requestId.toLowerCase());
    return earlier ? this.#renderByName(earlier.name) : undefined;
  }

  /** The permissions a template's references imply (`compute.networks.get`, ...): 403 naming the first one missing. */
  async #checkReferencePermissions(principal: Principal, body: Record<string, unknown>, scope: TemplateScope): Promise<void> {
    if (principal.superuser) return;
    const dir = await this.#d.iam.directory();
    for (const ref of templateReferences(body)) {
      const spec = REFERENCE_COLLECTION[ref.kind];
      const parsed = spec && parseTemplateRef(ref, scope);
      if (!spec || !parsed || isPublicReference(parsed)) continue;
      const target = dir.project(parsed.project);
      const path = refPath(parsed.scope === 'zones/*' ? { ...parsed, scope: `zones/${zonesOf(scope.scope)[0]}` } : parsed);
      if (!target || !dir.hasPermission(principal.member, `projects/${target.projectNumber}`, spec.permission)) throw forbidden(spec.permission, path);
    }
  }

  async getTemplate(principal: Principal, project: string, scope: Scope, template: string): Promise<Record<string, unknown>> {
    checkScopeParams(project, scope);
    checkPattern('instanceTemplate', template, RESOURCE_PATTERN);
    const p = await this.#authorize(principal, 'compute.instanceTemplates.get', project, scope, templatePath(project, scope, template), templatePolicyPath(scope, template));
    const t = await this.#d.repo.template(this.#d.store.db, p.projectNumber, scope, template);
    if (!t) throw resourceNotFound(templatePath(project, scope, template));
    return t.body;
  }

  async deleteTemplate(principal: Principal, project: string, scope: Scope, template: string, requestId: string | undefined): Promise<WireOperation> {
    checkScopeParams(project, scope);
    checkPattern('instanceTemplate', template, RESOURCE_PATTERN);
    const p = await this.#authorize(principal, 'compute.instanceTemplates.delete', project, scope, templatePath(project, scope, template), templatePolicyPath(scope, template));
    const earlier = await this.#earlierOperation(p, requestId);
    if (earlier) return earlier;
    const t = await this.#d.repo.template(this.#d.store.db, p.projectNumber, scope, template);
    if (!t) throw resourceNotFound(templatePath(project, scope, template));
    return this.#start(principal, 'delete', p, scope, t.name, t.id, requestId ? requestId.toLowerCase() : null, {});
  }

  async listTemplates(principal: Principal, project: string, scope: Scope, q: ListParams): Promise<Record<string, unknown>> {
    checkScopeParams(project, scope);
    const p = await this.#authorize(principal, 'compute.instanceTemplates.list', project, scope, scopePath(project, scope));
    const page = await this.#page(q, `templates/${p.projectNumber}/${scope}`, (order, after, limit) =>
      this.#d.repo.templatePage(this.#d.store.db, { projectNumber: p.projectNumber, region: scope, order, after, limit }).then((rows) => rows.map((r) => this.#templateItem(r))),
    );
    return {
      kind: 'compute#instanceTemplateList',
      id: `${scopePath(p.projectId, scope)}/instanceTemplates`,
      ...(page.items.length ? { items: page.items.map((i) => i.resource) } : {}),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      selfLink: `${scopeLink(p.projectId, scope)}/instanceTemplates`,
    };
  }

  // ---- template IAM (global templates: instanceTemplates.getIamPolicy / setIamPolicy / testIamPermissions) ----

  /** The template's own policy: its bindings (those inherited from the project and above are not in it). */
  async getTemplateIamPolicy(principal: Principal, project: string, template: string, requestedVersion: number | undefined): Promise<Record<string, unknown>> {
    checkRequestedPolicyVersion(requestedVersion);
    const { p } = await this.#templateForPolicy(principal, 'compute.instanceTemplates.getIamPolicy', project, template);
    return policyResource(await this.#d.iam.resourcePolicy(templatePolicyResource(p.projectNumber, template)));
  }

  /** Replaces the template's policy (read-modify-write: a stale `etag` is 409). */
  async setTemplateIamPolicy(principal: Principal, project: string, template: string, body: unknown): Promise<Record<string, unknown>> {
    const { p } = await this.#templateForPolicy(principal, 'compute.instanceTemplates.setIamPolicy', project, template);
    const request = readSetPolicyRequest(body, await this.#d.iam.directory());
    const set = await this.#d.iam.setResourcePolicy(templatePolicyResource(p.projectNumber, template), request.bindings, request.etag);
    if (set === 'conflict') {
      throw computeError('ABORTED', 'conflict', 'There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.', { httpCode: 409 });
    }
    return policyResource(set);
  }

  /**
   * The permissions of the request the caller holds on the template (through its policy or an
   * ancestor's). Needs no permission itself; a template that does not exist is 404 only to a caller
   * who may see the project's templates (others get the empty answer either way).
   */
  async testTemplateIamPermissions(principal: Principal, project: string, template: string, body: unknown): Promise<Record<string, unknown>> {
    checkScopeParams(project, GLOBAL);
    checkPattern('resource', template, RESOURCE_PATTERN);
    const asked = readTestPermissionsRequest(body);
    const dir = await this.#d.iam.directory();
    const p = dir.project(project);
    if (!p) return {};
    const policyPath = templatePolicyPath(GLOBAL, template);
    if (!(await this.#d.repo.template(this.#d.store.db, p.projectNumber, GLOBAL, template))) {
      if (await this.#d.access.holds(principal, 'compute.instanceTemplates.get', p.projectNumber)) throw resourceNotFound(templatePath(project, GLOBAL, template));
      return {};
    }
    const held: string[] = [];
    for (const permission of asked) {
      if (permission.startsWith('compute.instanceTemplates.') && (await this.#d.access.holds(principal, permission, p.projectNumber, policyPath))) held.push(permission);
    }
    return held.length ? { permissions: held } : {};
  }

  /** A global template a policy method names: the permission on it (or above), then its existence. */
  async #templateForPolicy(principal: Principal, permission: string, project: string, template: string): Promise<{ p: ProjectRecord }> {
    checkScopeParams(project, GLOBAL);
    checkPattern('resource', template, RESOURCE_PATTERN);
    const path = templatePath(project, GLOBAL, template);
    const p = await this.#authorize(principal, permission, project, GLOBAL, path, templatePolicyPath(GLOBAL, template));
    if (!(await this.#d.repo.template(this.#d.store.db, p.projectNumber, GLOBAL, template))) throw resourceNotFound(path);
    return { p };
  }

  #templateItem(r: TemplateRow) {
    return { resource: r.body, cursor: { name: { key: r.name, id: r.id }, creation: { key: r.creationMs, id: r.id } } };
  }

  // ---- operations --------------------------------------------------------------------------

  async getOperation(principal: Principal, project: string, scope: Scope, operation: string): Promise<WireOperation> {
    const { row } = await this.#operationRef(principal, 'get', project, scope, operation);
    return this.#renderByName(row.name, project, scope, operation);
  }

  async deleteOperation(principal: Principal, project: string, scope: Scope, operation: string): Promise<void> {
    const { row } = await this.#operationRef(principal, 'delete', project, scope, operation);
    await this.#d.operations.delete(row.name);
    await this.#d.repo.forgetOperation(this.#d.store.db, row.name);
  }

  /** Blocks until the operation is DONE or the wait deadline passes; answers it as it then stands. */
  async waitOperation(principal: Principal, project: string, scope: Scope, operation: string, signal?: AbortSignal): Promise<WireOperation> {
    const { row } = await this.#operationRef(principal, 'get', project, scope, operation);
    const deadline = Date.now() + this.#d.waitTimeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const op = await this.#d.operations.get(row.name);
      if (!op) throw resourceNotFound(operationPath(project, scope, operation));
      if (op.done || Date.now() >= deadline || signal?.aborted) return this.render(op);
      const due = op.dueAt - this.#d.clock.nowMs();
      await new Promise((r) => setTimeout(r, Math.max(1, Math.min(pause, due > 0 ? due : pause, deadline - Date.now()))));
    }
  }

  async listOperations(principal: Principal, project: string, scope: Scope, q: ListParams): Promise<Record<string, unknown>> {
    checkScopeParams(project, scope);
    const p = await this.#authorize(principal, operationPermission(scope, 'list'), project, scope, scopePath(project, scope));
    const page = await this.#page(q, `operations/${p.projectNumber}/${scope}`, (order, after, limit) => this.#operationPage(p.projectNumber, scope, order, after, limit));
    return {
      kind: 'compute#operationList',
      id: `${scopePath(p.projectId, scope)}/operations`,
      ...(page.items.length ? { items: page.items.map((i) => i.resource) } : {}),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      selfLink: `${scopeLink(p.projectId, scope)}/operations`,
    };
  }

  async #operationPage(projectNumber: string, region: Scope | undefined, order: ListOrder, after: ListCursor | undefined, limit: number) {
    const rows = await this.#d.repo.operationPage(this.#d.store.db, { projectNumber, region, order, after, limit });
    const out = [];
    for (const r of rows) {
      const op = await this.#d.operations.get(r.name);
      if (op) out.push({ resource: this.render(op), scope: r.region, cursor: { name: { key: r.name, id: r.id }, creation: { key: r.insertMs, id: r.id } } });
    }
    return out;
  }

  async #operationRef(principal: Principal, verb: 'get' | 'delete', project: string, scope: Scope, operation: string): Promise<{ p: ProjectRecord; row: OperationIndexRow }> {
    checkScopeParams(project, scope);
    checkPattern('operation', operation, OPERATION_PATTERN);
    const path = operationPath(project, scope, operation);
    const p = await this.#authorize(principal, operationPermission(scope, verb), project, scope, path);
    const row = await this.#d.repo.operation(this.#d.store.db, p.projectNumber, scope, operation);
    if (!row) throw resourceNotFound(path);
    return { p, row };
  }

  async #renderByName(name: string, project?: string, scope?: Scope, asked?: string): Promise<WireOperation> {
    const op = await this.#d.operations.get(name);
    if (!op) throw resourceNotFound(operationPath(project ?? '-', scope ?? '-', asked ?? name));
    return this.render(op);
  }

  /** The compute wire shape of an operation; PENDING, RUNNING and DONE follow each other in time. */
  render(op: OperationRecord): WireOperation {
    const p = op.payload as OperationPayload;
    const result = (op.result ?? {}) as OperationResult;
    const now = this.#d.clock.nowMs();
    const span = Math.max(0, op.dueAt - op.createdAt);
    const startMs = op.createdAt + Math.floor(span / 2);
    let status: 'PENDING' | 'RUNNING' | 'DONE';
    let progress: number;
    if (op.done) {
      status = 'DONE';
      progress = 100;
    } else if (now < startMs) {
      status = 'PENDING';
      progress = 0;
    } else {
      status = 'RUNNING';
      progress = Math.min(99, Math.max(1, Math.floor(((now - startMs) / Math.max(1, op.dueAt - startMs)) * 100)));
    }
    const out: WireOperation = {
      kind: 'compute#operation',
      id: p.opId,
      name: op.name,
      ...(p.requestId ? { clientOperationId: p.requestId } : {}),
      operationType: operationType(p.region, p.type),
      targetLink: templateLink(p.projectId, p.region, p.templateName),
      targetId: p.templateId,
      status,
      user: p.user,
      progress,
      insertTime: computeTimestamp(op.createdAt),
    };
    if (status !== 'PENDING') out.startTime = computeTimestamp(op.done ? Math.min(startMs, op.updatedAt) : startMs);
    if (op.done) {
      out.endTime = computeTimestamp(op.updatedAt);
      const failure = result.failure ?? (op.error ? errorFailure(op.error) : undefined);
      if (failure) {
        out.error = { errors: failure.errors };
        out.httpErrorStatusCode = failure.httpErrorStatusCode;
        out.httpErrorMessage = failure.httpErrorMessage;
      }
    }
    out.selfLink = operationLink(p.projectId, p.region, op.name);
    if (!isGlobal(p.region)) out.region = scopeLink(p.projectId, p.region);
    return out;
  }

  async #start(
    principal: Principal,
    type: TemplateOperation,
    p: ProjectRecord,
    region: Scope,
    templateName: string,
    templateId: string,
    requestId: string | null,
    extra: Pick<OperationPayload, 'body' | 'deferred'>,
  ): Promise<WireOperation> {
    const now = this.#d.clock.nowMs();
    const name = operationName(now, this.#d.ids.hex(16));
    const payload: OperationPayload = {
      type,
      opId: this.#d.ids.decimal(19),
      projectId: p.projectId,
      projectNumber: p.projectNumber,
      region,
      templateName,
      templateId,
      user: userOf(principal),
      requestId,
      ...extra,
    };
    // One savepoint of a group commit: the operation's index row, the operation and, in instant
    // mode, its completion; concurrent starts share the commit (each answered once it is durable).
    let done: OperationRecord | undefined;
    try {
      done = await this.#d.operations.grouped(async (trx) => {
        await this.#d.repo.insertOperation(trx, { name, id: payload.opId, projectNumber: p.projectNumber, region, requestId, insertMs: now });
        return this.#d.operations.submitAndComplete(trx, { name, service: SERVICE, kind: `compute.templates.${type}`, projectNumber: p.projectNumber, payload });
      });
    } catch (err) {
      // A concurrent repeat of the same requestId (this or another process) won the race: answer its operation.
      if (requestId && isUniqueViolation(err)) {
        const earlier = await this.#d.repo.operationByRequestId(this.#d.store.db, p.projectNumber, requestId);
        if (earlier) return this.#renderByName(earlier.name);
      }
      throw err;
    }
    return done ? this.render(done) : this.#renderByName(name);
  }

  // ---- operation completion (inside the completing transaction) -----------------------------

  async #completeInsert(trx: Kysely<Database>, p: OperationPayload): Promise<OperationResult> {
    if (p.deferred?.length) return { failure: operationFailure(p.deferred) };
    let body = p.body!;
    // Lookups go through the completing transaction: on SQLite a second connection would wait for it forever.
    const scope = { projectId: p.projectId, projectNumber: p.projectNumber, scope: p.region };
    const dir = lookupIn(trx);
    const resolver = new TemplateResolver(this.#d.world, trx, dir, scope);
    const { errors, links } = await resolver.resolve(body as Record<string, any>, templateReferences(body));
    if (errors.length) return { failure: operationFailure(errors) };
    if (resolver.sourceInstance) {
      const made = await this.#propertiesFromInstance(trx, dir, resolver.sourceInstance, body, p.projectId);
      if (!made.properties) return { failure: operationFailure(made.errors) };
      body = { ...body, properties: made.properties };
    }
    const now = this.#d.clock.nowMs();
    const stored = buildStoredTemplate(body, {
      id: p.templateId,
      creationTimestamp: computeTimestamp(now),
      selfLink: templateLink(p.projectId, p.region, p.templateName),
      region: isGlobal(p.region) ? undefined : scopeLink(p.projectId, p.region),
      resolvedLinks: links,
      defaultServiceAccount: defaultServiceAccount(p.projectNumber),
    });
    const inserted = await this.#d.repo.insertTemplateIfAbsent(trx, { id: p.templateId, projectNumber: p.projectNumber, region: p.region, name: p.templateName, creationMs: now, body: JSON.stringify(stored) });
    if (!inserted) {
      return { failure: operationFailure([{ code: 'RESOURCE_ALREADY_EXISTS', message: `The resource '${templatePath(p.projectId, p.region, p.templateName)}' already exists` }]) };
    }
    return {};
  }

  /** The properties of a template made from an instance (see sourceInstance.ts), read through the completing transaction. */
  #propertiesFromInstance(trx: Kysely<Database>, dir: Lookup, source: SourceInstance, body: Record<string, unknown>, projectId: string) {
    const configs = ((body.sourceInstanceParams as { diskConfigs?: Record<string, unknown>[] } | undefined)?.diskConfigs ?? []) as Record<string, unknown>[];
    const customImageLink = (i: number) => {
      const ref = parseReference(String(configs[i]?.customImage ?? ''), 'images', { project: projectId, scope: 'global' });
      return ref ? LINK_BASE + refPath(ref) : undefined;
    };
    return propertiesFromInstance(source, configs, body.properties as Record<string, unknown> | undefined, customImageLink, {
      disk: (projectNumber, zone, name) => this.#d.world.get('disk', projectNumber, zone, name, trx),
      image: (project, name) => findImage(this.#d.world, dir, project, name, false, trx),
    });
  }

  async #completeDelete(trx: Kysely<Database>, p: OperationPayload): Promise<OperationResult> {
    if ((await this.#d.repo.deleteTemplate(trx, p.templateId)) === 0) {
      return { failure: operationFailure([{ code: 'RESOURCE_NOT_FOUND', message: `The resource '${templatePath(p.projectId, p.region, p.templateName)}' was not found` }]) };
    }
    // Its policy goes with it: a new template of the same name starts with none.
    if (isGlobal(p.region)) await this.#d.iam.deleteResourcePolicy(templatePolicyResource(p.projectNumber, p.templateName), trx);
    return {};
  }

  // ---- lists -------------------------------------------------------------------------------

  /** One page of a list (see `listPage`). */
  #page<T extends { resource: unknown; cursor: { name: ListCursor; creation: ListCursor } }>(
    q: ListParams,
    listId: string,
    fetch: (order: ListOrder, after: ListCursor | undefined, limit: number) => Promise<T[]>,
  ): Promise<{ items: T[]; nextPageToken?: string }> {
    return listPage(q, listId, fetch);
  }

  // ---- aggregated lists --------------------------------------------------------------------

  async aggregatedTemplates(principal: Principal, project: string, q: ListParams & { includeAllScopes?: boolean }): Promise<Record<string, unknown>> {
    checkPattern('project', project, PROJECT_PATTERN);
    const p = await this.#authorize(principal, 'compute.instanceTemplates.list', project, undefined, `projects/${project}`);
    return this.#aggregated(q, p, 'instanceTemplates', 'compute#instanceTemplateAggregatedList', async (order, after, limit) =>
      (await this.#d.repo.templatePage(this.#d.store.db, { projectNumber: p.projectNumber, order, after, limit })).map((r) => ({ ...this.#templateItem(r), scope: r.region })),
    );
  }

  async aggregatedOperations(principal: Principal, project: string, q: ListParams & { includeAllScopes?: boolean }): Promise<Record<string, unknown>> {
    checkPattern('project', project, PROJECT_PATTERN);
    const p = await this.#authorize(principal, 'compute.globalOperations.list', project, undefined, `projects/${project}`);
    return this.#aggregated(q, p, 'operations', 'compute#operationAggregatedList', (order, after, limit) => this.#operationPage(p.projectNumber, undefined, order, after, limit));
  }

  /** The aggregatedList shape: `items` keyed `global` and `regions/R`, each with its items or a warning. */
  async #aggregated<T extends { resource: unknown; scope: Scope; cursor: { name: ListCursor; creation: ListCursor } }>(
    q: ListParams,
    p: ProjectRecord,
    field: string,
    kind: string,
    fetch: (order: ListOrder, after: ListCursor | undefined, limit: number) => Promise<T[]>,
  ): Promise<Record<string, unknown>> {
    const page = await this.#page(q, `aggregated/${field}/${p.projectNumber}`, fetch);
    const byScope = new Map<string, unknown[]>();
    for (const i of page.items) {
      const key = scopeKey(i.scope);
      if (!byScope.has(key)) byScope.set(key, []);
      byScope.get(key)!.push(i.resource);
    }
    const items: Record<string, unknown> = {};
    for (const scope of ['global', ...[...REGIONS.keys()].map((r) => `regions/${r}`)]) {
      const list = byScope.get(scope);
      items[scope] = list
        ? { [field]: list }
        : { warning: { code: 'NO_RESULTS_ON_PAGE', message: `There are no results for scope '${scope}' on this page.`, data: [{ key: 'scope', value: scope }] } };
    }
    return {
      kind,
      id: `projects/${p.projectId}/aggregated/${field}`,
      items,
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      selfLink: `https://www.googleapis.com/compute/v1/projects/${p.projectId}/aggregated/${field}`,
    };
  }
}

/** An operation that ended with an engine error (its kind failed unexpectedly, or a fault rule's): Compute's `error.errors[]`. */
function errorFailure(error: OperationError): OperationFailure {
  const failure = operationFailure([{ code: error.reason ?? 'INTERNAL_ERROR', message: error.message }]);
  return error.httpCode ? { ...failure, httpErrorStatusCode: error.httpCode, httpErrorMessage: STATUS_CODES[error.httpCode]?.toUpperCase() ?? failure.httpErrorMessage } : failure;
}
