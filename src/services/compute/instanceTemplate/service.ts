import type { Kysely } from 'kysely';
import type { Principal } from '../../../platform/auth/principal.ts';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { AccessControl } from '../../../platform/iam/accessControl.ts';
import type { IamService } from '../../../platform/iam/iamService.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { type Completion, type ComputeOperations, type OperationPayload, type WireOperation } from '../operation/service.ts';
import { alreadyExists, computeError, fieldErrors, forbidden, operationFailure, resourceInUse, resourceNotFound } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE, computeTimestamp, defaultServiceAccount } from '../names.ts';
import { checkRequestedPolicyVersion, policyResource, readSetPolicyRequest, readTestPermissionsRequest } from '../policy.ts';
import { parseReference, refPath } from '../references.ts';
import { type Lookup, REFERENCE_COLLECTION, TemplateResolver, type TemplateScope, findImage, isPublicReference, lookupIn, parseTemplateRef, zonesOf } from '../resolution.ts';
import type { ResourceUsage } from '../usage.ts';
import { type Scope, isGlobal, locationLink, scopeAt, scopePath } from '../scope.ts';
import { type SourceInstance, propertiesFromInstance } from '../sourceInstance.ts';
import type { ResourceReader, StoredKind } from '../store/reader.ts';
import type { ResourceStore } from '../store/resources.ts';
import type { ComputeWorld } from '../world.ts';
import { buildStoredTemplate } from './defaults.ts';
import { templateReferences } from './references.ts';
import type { OperationErrorEntry } from './types.ts';
import { validateInsertBody } from './validate.ts';

export const INSTANCE_TEMPLATES: StoredKind = { kind: 'instanceTemplate', collection: 'instanceTemplates', schema: 'InstanceTemplate', aggregatedScopes: ['global', 'region'] };

export const templatePath = (project: string, scope: Scope, name: string) => `${scopePath(project, scope)}/instanceTemplates/${name}`;
export const templateLink = (project: string, scope: Scope, name: string) => LINK_BASE + templatePath(project, scope, name);
/** Where a template's own IAM policy sits below its project: `/global/instanceTemplates/t` (policies are on global templates only). */
export const templatePolicyPath = (scope: Scope, template: string) => (isGlobal(scope) ? `/global/instanceTemplates/${template}` : undefined);
const templatePolicyResource = (projectNumber: string, template: string) => `projects/${projectNumber}/global/instanceTemplates/${template}`;

/**
 * `operationType` of a template operation as Compute answers it: regional ones carry the method's
 * full name; a global insert `compute.instanceTemplates.insert`, a global delete the bare verb
 * (both seen in traffic recorded against the real service).
 */
export const templateOperationType = (scope: Scope, verb: 'insert' | 'delete') =>
  !isGlobal(scope) ? `compute.regionInstanceTemplates.${verb}` : verb === 'insert' ? 'compute.instanceTemplates.insert' : 'delete';

interface InsertData {
  name: string;
  /** The body as Google's JSON layer reads it: gone once the insert has run. */
  body?: Record<string, unknown>;
  /** Errors the insert's validation left to the operation. */
  deferred?: OperationErrorEntry[];
}

interface DeleteData {
  name: string;
}

export interface InstanceTemplateDeps {
  store: Store;
  clock: Clock;
  iam: IamService;
  access: AccessControl;
  resources: ResourceStore;
  reader: ResourceReader;
  operations: ComputeOperations;
  world: ComputeWorld;
  /** Who uses a template (a managed instance group): its delete is refused while one does. */
  usage: ResourceUsage;
}

/**
 * Instance templates, global and regional (one set of rules, the scope a value): insert (its
 * references resolved when its operation runs), get, list, aggregatedList, delete, and the IAM
 * policy of global templates.
 */
export class InstanceTemplates {
  readonly #d: InstanceTemplateDeps;

  constructor(deps: InstanceTemplateDeps) {
    this.#d = deps;
    deps.operations.register<InsertData>('compute.templates.insert', (trx, p) => this.#completeInsert(trx, p), ({ name }) => ({ name }));
    deps.operations.register<DeleteData>('compute.templates.delete', (trx, p) => this.#completeDelete(trx, p));
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const { project: p, scope, body } = call;
    const v = validateInsertBody(body, { region: isGlobal(scope) ? undefined : scope.name });
    if (v.errors.length) throw fieldErrors(v.errors);
    // The body as Google's JSON layer reads it (JSON names even for `machine_type`, int64 as strings): stored and resolved.
    const resource = v.resource ?? (body as Record<string, unknown>);
    const name = String(resource.name);
    await this.#checkReferencePermissions(call.principal, resource, { projectId: p.projectId, projectNumber: p.projectNumber, scope });
    if (await this.#d.resources.nameTaken(this.#d.store.db, INSTANCE_TEMPLATES.kind, p.projectNumber, scope, name)) {
      // A concurrent repeat of this requestId may have committed the template since the check above: its operation is the answer.
      const repeated = await this.#d.operations.repeated(call);
      if (repeated) return repeated;
      throw alreadyExists(templatePath(p.projectId, scope, name));
    }
    return this.#d.operations.start<InsertData>(call, {
      kind: 'compute.templates.insert',
      scope,
      operationType: templateOperationType(scope, 'insert'),
      targetLink: templateLink(p.projectId, scope, name),
      targetId: this.#d.operations.newId(),
      data: { name, body: resource, ...(v.deferred.length ? { deferred: v.deferred } : {}) },
    });
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

  get(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.get(call, INSTANCE_TEMPLATES, 'instanceTemplate');
  }

  list(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.list(call, INSTANCE_TEMPLATES);
  }

  aggregatedList(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.aggregatedList(call, INSTANCE_TEMPLATES);
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    const { project: p, scope } = call;
    const t = await this.#d.reader.find(call, INSTANCE_TEMPLATES, 'instanceTemplate');
    const path = `${scopePath(p.projectId, scope)}/instanceTemplates/${t.name}`;
    const user = await this.#d.usage.userOf(this.#d.store.db, p, path);
    if (user) throw resourceInUse('instance template', path, user);
    return this.#d.operations.start<DeleteData>(call, {
      kind: 'compute.templates.delete',
      scope,
      operationType: templateOperationType(scope, 'delete'),
      targetLink: templateLink(p.projectId, scope, t.name),
      targetId: t.id,
      data: { name: t.name },
    });
  }

  // ---- template IAM (global templates: instanceTemplates.getIamPolicy / setIamPolicy / testIamPermissions) ----

  /** The template's own policy: its bindings (those inherited from the project and above are not in it). */
  async getIamPolicy(call: ComputeCall): Promise<Record<string, unknown>> {
    checkRequestedPolicyVersion(call.query.optionsRequestedPolicyVersion);
    await this.#d.reader.find(call, INSTANCE_TEMPLATES, 'resource');
    return policyResource(await this.#d.iam.resourcePolicy(templatePolicyResource(call.project.projectNumber, call.params.resource)));
  }

  /** Replaces the template's policy (read-modify-write: a stale `etag` is 409). */
  async setIamPolicy(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.reader.find(call, INSTANCE_TEMPLATES, 'resource');
    const request = readSetPolicyRequest(call.body, await this.#d.iam.directory());
    const set = await this.#d.iam.setResourcePolicy(templatePolicyResource(call.project.projectNumber, call.params.resource), request.bindings, request.etag);
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
  async testIamPermissions(call: ComputeCall): Promise<Record<string, unknown>> {
    const template = call.params.resource;
    const asked = readTestPermissionsRequest(call.body);
    const dir = await this.#d.iam.directory();
    const p = dir.project(call.projectParam);
    if (!p) return {};
    const policyPath = templatePolicyPath(call.scope, template);
    if (!(await this.#d.resources.get(this.#d.store.db, INSTANCE_TEMPLATES.kind, p.projectNumber, call.scope, template))) {
      if (await this.#d.access.holds(call.principal, 'compute.instanceTemplates.get', p.projectNumber)) throw resourceNotFound(call.path);
      return {};
    }
    const held: string[] = [];
    for (const permission of asked) {
      if (permission.startsWith('compute.instanceTemplates.') && (await this.#d.access.holds(call.principal, permission, p.projectNumber, policyPath))) held.push(permission);
    }
    return held.length ? { permissions: held } : {};
  }

  // ---- operation completion (inside the completing transaction) -----------------------------

  async #completeInsert(trx: Kysely<Database>, p: OperationPayload<InsertData>): Promise<Completion> {
    if (p.data.deferred?.length) return operationFailure(p.data.deferred);
    const scope = scopeAt(p.location);
    let body = p.data.body!;
    // Lookups go through the completing transaction: on SQLite a second connection would wait for it forever.
    const dir = lookupIn(trx);
    const resolver = new TemplateResolver(this.#d.world, trx, dir, { projectId: p.projectId, projectNumber: p.projectNumber, scope });
    const { errors, links } = await resolver.resolve(body as Record<string, any>, templateReferences(body));
    if (errors.length) return operationFailure(errors);
    if (resolver.sourceInstance) {
      const made = await this.#propertiesFromInstance(trx, dir, resolver.sourceInstance, body, p.projectId);
      if (!made.properties) return operationFailure(made.errors);
      body = { ...body, properties: made.properties };
    }
    const now = this.#d.clock.nowMs();
    const stored = buildStoredTemplate(body, {
      id: p.targetId,
      creationTimestamp: computeTimestamp(now),
      selfLink: p.targetLink,
      region: locationLink(p.projectId, scope),
      resolvedLinks: links,
      defaultServiceAccount: defaultServiceAccount(p.projectNumber),
    });
    const resource = { kind: INSTANCE_TEMPLATES.kind, projectNumber: p.projectNumber, scope, name: p.data.name, id: p.targetId, creationMs: now, body: stored };
    if (!(await this.#d.resources.insertIfAbsent(trx, resource, JSON.stringify(stored)))) {
      return operationFailure([{ code: 'RESOURCE_ALREADY_EXISTS', message: `The resource '${templatePath(p.projectId, scope, p.data.name)}' already exists` }]);
    }
    return undefined;
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

  async #completeDelete(trx: Kysely<Database>, p: OperationPayload<DeleteData>): Promise<Completion> {
    const scope = scopeAt(p.location);
    if (!(await this.#d.resources.delete(trx, INSTANCE_TEMPLATES.kind, p.projectNumber, scope, p.targetId))) {
      return operationFailure([{ code: 'RESOURCE_NOT_FOUND', message: `The resource '${templatePath(p.projectId, scope, p.data.name)}' was not found` }]);
    }
    // Its policy goes with it: a new template of the same name starts with none.
    if (isGlobal(scope)) await this.#d.iam.deleteResourcePolicy(templatePolicyResource(p.projectNumber, p.data.name), trx);
    return undefined;
  }
}
