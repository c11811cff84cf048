import type { Kysely } from 'kysely';
import type { CredentialGeneration } from '../platform/auth/credentialGeneration.ts';
import { ServiceAccountKeys } from '../platform/auth/serviceAccountKeys.ts';
import type { Ids } from '../platform/crypto/random.ts';
import { invalidArgument } from '../platform/http/errors.ts';
import type { IamService } from '../platform/iam/iamService.ts';
import { PREDEFINED_ROLES } from '../platform/iam/permissions.ts';
import { setDailyLimit } from '../platform/quota/quota.ts';
import type { Database } from '../platform/store/schema.ts';
import type { Store } from '../platform/store/store.ts';
import type { World } from './worldSchema.ts';

/** A project id or number to its number through `resolve` (undefined when the world has no such project). */
function projectNumberOf(resolve: (resource: string) => string): (id: string) => string | undefined {
  return (id) => resolve(`projects/${id}`).split('/')[1] || undefined;
}

/**
 * The sections' writers, loaded with the first document that has such a section (Compute's
 * resource tables and the media catalogue's writer are not loaded at start-up).
 */
const computeWorld = () => import('../services/compute/world.ts');
/** The document's schema (TypeBox, with Compute's section), built with the first document. */
const worldSchema = () => import('./worldSchema.ts');
const mediaWorld = () => import('../services/media/catalog/writer.ts');

function reject(problems: string[]): never {
  throw invalidArgument(`Invalid world document: ${problems.join('; ')}`, problems.map((p) => ({ field: p.split(':')[0], description: p })));
}

/**
 * Applies world documents: validates the whole document first (schema, then references), then
 * upserts everything in one transaction, so an invalid document changes nothing and applying
 * the same document twice is the same as applying it once.
 */
export class WorldService {
  readonly #store: Store;
  readonly #iam: IamService;
  readonly #ids: Ids;
  readonly #credentials: CredentialGeneration;

  constructor(store: Store, iam: IamService, ids: Ids, credentials: CredentialGeneration) {
    this.#store = store;
    this.#iam = iam;
    this.#ids = ids;
    this.#credentials = credentials;
  }

  async apply(doc: unknown): Promise<{ applied: Record<string, number> }> {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) reject(['(document): must be an object']);
    const { WorldSchema, schemaErrors } = await worldSchema();
    const errors = schemaErrors(WorldSchema, doc);
    if (errors.length) reject(errors);
    const world = doc as World;
    await this.#store.db.transaction().execute(async (trx) => {
      const resolve = await this.#checkReferences(trx, world);
      await this.#write(trx, world, resolve);
      await this.#iam.worldChanged(trx);
      // A key the document disables stops working in every process (see CredentialGeneration).
      if (world.serviceAccountKeys?.length) await this.#credentials.bumpIn(trx);
    });
    if (world.serviceAccountKeys?.length) this.#credentials.changed();
    // The document's own names, as own properties whatever they are (the schema allows only known ones).
    const applied: Record<string, number> = Object.fromEntries(Object.entries(world).map(([k, v]) => [k, Array.isArray(v) ? v.length : Object.keys(v ?? {}).length]));
    return { applied };
  }

  /** Checks every reference (against the document and what is stored); returns a resolver of `projects/ID` to `projects/NUMBER`. */
  async #checkReferences(trx: Kysely<Database>, w: World): Promise<(resource: string) => string> {
    const problems: string[] = [];
    const orgs = new Set((await trx.selectFrom('organizations').select('id').execute()).map((r) => `organizations/${r.id}`));
    const folders = new Set((await trx.selectFrom('folders').select('id').execute()).map((r) => `folders/${r.id}`));
    const byId = new Map<string, string>();
    const byNumber = new Map<string, string>();
    for (const p of await trx.selectFrom('projects').selectAll().execute()) {
      byId.set(p.project_id, p.project_number);
      byNumber.set(p.project_number, p.project_id);
    }
    for (const o of w.organizations ?? []) orgs.add(`organizations/${o.id}`);
    for (const f of w.folders ?? []) folders.add(`folders/${f.id}`);
    (w.projects ?? []).forEach((p, i) => {
      const otherNumber = byId.get(p.projectId);
      const otherId = byNumber.get(p.projectNumber);
      if (otherNumber && otherNumber !== p.projectNumber) problems.push(`projects[${i}].projectId: '${p.projectId}' already has project number ${otherNumber}`);
      if (otherId && otherId !== p.projectId) problems.push(`projects[${i}].projectNumber: '${p.projectNumber}' already belongs to project '${otherId}'`);
      byId.set(p.projectId, p.projectNumber);
      byNumber.set(p.projectNumber, p.projectId);
    });
    const exists = (r: string) => orgs.has(r) || folders.has(r);
    (w.folders ?? []).forEach((f, i) => {
      if (!exists(f.parent)) problems.push(`folders[${i}].parent: '${f.parent}' does not exist`);
    });
    (w.projects ?? []).forEach((p, i) => {
      if (p.parent && !exists(p.parent)) problems.push(`projects[${i}].parent: '${p.parent}' does not exist`);
    });
    (w.serviceAccounts ?? []).forEach((sa, i) => {
      const project = sa.email.split('@')[1].split('.')[0];
      if (!byId.has(project)) problems.push(`serviceAccounts[${i}].email: project '${project}' does not exist`);
    });
    const accounts = new Set((await trx.selectFrom('service_accounts').select('email').execute()).map((r) => r.email));
    for (const sa of w.serviceAccounts ?? []) accounts.add(sa.email);
    (w.serviceAccountKeys ?? []).forEach((k, i) => {
      if (!accounts.has(k.serviceAccount)) problems.push(`serviceAccountKeys[${i}].serviceAccount: '${k.serviceAccount}' is not a service account of the world`);
    });
    const customRoles = new Set((await trx.selectFrom('custom_roles').select('name').execute()).map((r) => r.name));
    for (const r of w.roles ?? []) customRoles.add(r.name);
    const resolve = (resource: string): string => {
      const [kind, id] = resource.split('/');
      if (kind !== 'projects') return resource;
      return byNumber.has(id) ? resource : byId.has(id) ? `projects/${byId.get(id)}` : '';
    };
    const checkResource = (resource: string, where: string) => {
      const r = resolve(resource);
      if (!r || (!r.startsWith('projects/') && !exists(r))) problems.push(`${where}.resource: '${resource}' does not exist`);
    };
    (w.iamPolicies ?? []).forEach((pol, i) => {
      checkResource(pol.resource, `iamPolicies[${i}]`);
      pol.bindings.forEach((b, j) => {
        if (!Object.hasOwn(PREDEFINED_ROLES, b.role) && !customRoles.has(b.role)) problems.push(`iamPolicies[${i}].bindings[${j}].role: unknown role '${b.role}'`);
      });
    });
    (w.orgPolicies ?? []).forEach((op, i) => checkResource(op.resource, `orgPolicies[${i}]`));
    (w.quotas ?? []).forEach((q, i) => {
      if (!resolve(`projects/${q.project}`)) problems.push(`quotas[${i}].project: '${q.project}' does not exist`);
    });
    if (w.compute) problems.push(...(await (await computeWorld()).checkComputeSection(trx, w.compute, projectNumberOf(resolve))));
    if (problems.length) reject(problems);
    return resolve;
  }

  async #write(trx: Kysely<Database>, w: World, resolve: (r: string) => string): Promise<void> {
    for (const o of w.organizations ?? []) {
      const row = { id: o.id, domain: o.domain ?? null, display_name: o.displayName ?? null };
      await trx.insertInto('organizations').values(row).onConflict((c) => c.column('id').doUpdateSet({ domain: row.domain, display_name: row.display_name })).execute();
    }
    for (const f of w.folders ?? []) {
      const row = { id: f.id, parent: f.parent, display_name: f.displayName ?? null };
      await trx.insertInto('folders').values(row).onConflict((c) => c.column('id').doUpdateSet({ parent: row.parent, display_name: row.display_name })).execute();
    }
    for (const p of w.projects ?? []) {
      const row = { project_number: p.projectNumber, project_id: p.projectId, parent: p.parent ?? null, display_name: p.displayName ?? null };
      await trx.insertInto('projects').values(row).onConflict((c) => c.column('project_number').doUpdateSet({ parent: row.parent, display_name: row.display_name })).execute();
    }
    for (const sa of w.serviceAccounts ?? []) {
      const existing = await trx.selectFrom('service_accounts').select('unique_id').where('email', '=', sa.email).executeTakeFirst();
      const row = {
        email: sa.email,
        project_id: sa.email.split('@')[1].split('.')[0],
        unique_id: sa.uniqueId ?? existing?.unique_id ?? this.#ids.decimal(21),
        display_name: sa.displayName ?? null,
        disabled: sa.disabled ? 1 : 0,
      };
      await trx
        .insertInto('service_accounts')
        .values(row)
        .onConflict((c) => c.column('email').doUpdateSet({ unique_id: row.unique_id, display_name: row.display_name, disabled: row.disabled }))
        .execute();
    }
    const keyProblems: string[] = [];
    for (const [i, k] of (w.serviceAccountKeys ?? []).entries()) {
      const problem = await ServiceAccountKeys.applyWorldEntry(trx, k, Date.now());
      if (problem) keyProblems.push(`serviceAccountKeys[${i}]: ${problem}`);
    }
    if (keyProblems.length) reject(keyProblems); // rolls the whole document back
    for (const r of w.roles ?? []) {
      const row = { name: r.name, title: r.title ?? null, permissions: JSON.stringify(r.includedPermissions) };
      await trx.insertInto('custom_roles').values(row).onConflict((c) => c.column('name').doUpdateSet({ title: row.title, permissions: row.permissions })).execute();
    }
    for (const pol of w.iamPolicies ?? []) {
      const row = { resource: resolve(pol.resource), bindings: JSON.stringify(pol.bindings), etag: this.#ids.base64url(8) };
      // The etag changes only when the bindings do, so applying the same document twice changes nothing.
      await trx
        .insertInto('iam_policies')
        .values(row)
        .onConflict((c) => c.column('resource').doUpdateSet({ bindings: row.bindings, etag: row.etag }).where('iam_policies.bindings', '<>', row.bindings))
        .execute();
    }
    for (const q of w.quotas ?? []) await setDailyLimit(trx, resolve(`projects/${q.project}`), q.service, q.dailyLimit);
    for (const op of w.orgPolicies ?? []) {
      const row = { resource: resolve(op.resource), constraint_name: op.constraint, enforce: op.enforce ? 1 : 0 };
      await trx
        .insertInto('org_policies')
        .values(row)
        .onConflict((c) => c.columns(['resource', 'constraint_name']).doUpdateSet({ enforce: row.enforce }))
        .execute();
    }
    if (w.compute) await (await computeWorld()).writeComputeSection(trx, w.compute, projectNumberOf(resolve));
    if (w.media) {
      const problems = await (await mediaWorld()).applyMediaWorld(trx, w.media);
      if (problems.length) reject(problems);
    }
  }
}
