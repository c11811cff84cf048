import { createHash } from 'node:crypto';
import type { Ids } from '../crypto/random.ts';
import type { Store } from '../store/store.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { type Binding, Directory, type ProjectRecord } from './directory.ts';

const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const PROJECT_NUMBER = /^[1-9][0-9]{0,18}$/;

/**
 * The project a name implies when nothing declares it: named by id, a 12-digit number derived
 * from the id (the same in every process and run; the next derivation when another project
 * already has it); named by number, the id `project-NUMBER`. No organization.
 */
export function impliedProject(idOrNumber: string, dir: Directory): ProjectRecord | undefined {
  if (PROJECT_NUMBER.test(idOrNumber)) return { projectNumber: idOrNumber, projectId: `project-${idOrNumber}`, parent: null };
  if (!PROJECT_ID.test(idOrNumber)) return undefined;
  for (let attempt = 0; ; attempt++) {
    const digest = createHash('sha256').update(attempt ? `${idOrNumber}#${attempt}` : idOrNumber).digest();
    const projectNumber = String(100_000_000_000n + (digest.readBigUInt64BE(0) % 900_000_000_000n));
    if (!dir.project(projectNumber)) return { projectNumber, projectId: idOrNumber, parent: null };
  }
}

const GENERATION = 'world.generation';

/** The etag of a resource that has never had a policy (IAM's empty policy). */
export const EMPTY_POLICY_ETAG = 'ACAB';

/** A resource's own IAM policy (inherited bindings are not in it). */
export interface ResourcePolicy {
  bindings: Binding[];
  /** Standard base64; changes with every write (read-modify-write). */
  etag: string;
}

/**
 * Serves the in-memory `Directory` built from the store. Every change to the world bumps a
 * generation id in the store; each process reloads when it sees a different one (checked at most
 * every `refreshMs`), so N processes on one database converge within that interval.
 */
export class IamService {
  readonly #store: Store;
  readonly #refreshMs: number;
  readonly #ids: Ids;
  #directory: Directory | undefined;
  #generation: string | undefined;
  #checkedAt = 0;
  #loading: Promise<Directory> | undefined;

  constructor(store: Store, ids: Ids, refreshMs = 500) {
    this.#store = store;
    this.#ids = ids;
    this.#refreshMs = refreshMs;
  }

  /** The current directory; reloads from the store when another process changed the world. */
  async directory(): Promise<Directory> {
    if (this.#directory && Date.now() - this.#checkedAt < this.#refreshMs) return this.#directory;
    this.#loading ??= this.#refresh().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /** The directory when it is fresh (read less than `refreshMs` ago), without waiting: the hot path's synchronous check. */
  freshDirectory(): Directory | undefined {
    return this.#directory && Date.now() - this.#checkedAt < this.#refreshMs ? this.#directory : undefined;
  }

  /**
   * The directory as last loaded, however long ago (undefined before the first load), without
   * waiting: for what a world change cannot make wrong, like the id of a project known by number.
   */
  loadedDirectory(): Directory | undefined {
    return this.#directory;
  }

  async #refresh(): Promise<Directory> {
    const generation = await readSetting(this.#store.db, GENERATION, '');
    this.#checkedAt = Date.now();
    if (this.#directory && generation === this.#generation) return this.#directory;
    this.#directory = await this.#load();
    this.#generation = generation;
    return this.#directory;
  }

  /**
   * A project the world does not declare, brought into being on first use (permissive mode
   * only: the caller decides): recorded in the store like a declared one (`projects`, so in
   * snapshots and seen by every process), with the number `impliedProject` gives. Processes
   * racing to create the same project agree (the same record; the second insert does nothing).
   * Undefined for a name that cannot be a project id or number.
   */
  async ensureProject(idOrNumber: string): Promise<ProjectRecord | undefined> {
    const dir = await this.directory();
    const existing = dir.project(idOrNumber);
    if (existing) return existing;
    const implied = impliedProject(idOrNumber, dir);
    if (!implied) return undefined;
    await this.#store.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('projects')
        .values({ project_number: implied.projectNumber, project_id: implied.projectId, parent: null, display_name: null })
        .onConflict((c) => c.doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) await this.worldChanged(trx);
    });
    this.#directory = undefined;
    this.#checkedAt = 0;
    return (await this.directory()).project(idOrNumber);
  }

  /** Call after changing the world (inside or after the writing transaction). */
  async worldChanged(db = this.#store.db): Promise<void> {
    await writeSetting(db, GENERATION, this.#ids.uuid());
    this.#directory = undefined;
    this.#checkedAt = 0;
  }

  // ---- resource-level policies (a resource below a project, e.g. `projects/N/global/instanceTemplates/t`) ----
  // Kept with the world's policies (one table, one Directory): a binding on a resource grants on
  // it alone; its ancestors' bindings apply to it as to every resource under them.

  /** A resource's own policy: empty (etag `ACAB`) when it never had one. */
  async resourcePolicy(resource: string, db: Kysely<Database> = this.#store.db): Promise<ResourcePolicy> {
    const row = await db.selectFrom('iam_policies').select(['bindings', 'etag']).where('resource', '=', resource).executeTakeFirst();
    return row ? { bindings: JSON.parse(row.bindings), etag: row.etag } : { bindings: [], etag: EMPTY_POLICY_ETAG };
  }

  /**
   * Replaces a resource's policy when `etag` (if given) is the current one; answers the new policy,
   * or `conflict` when another write came first. Every process sees the change within `refreshMs`.
   */
  async setResourcePolicy(resource: string, bindings: Binding[], etag: string | undefined): Promise<ResourcePolicy | 'conflict'> {
    const next = { bindings: JSON.stringify(bindings), etag: Buffer.from(this.#ids.hex(8), 'hex').toString('base64') };
    const written = await this.#store.db.transaction().execute(async (trx) => {
      const current = await this.resourcePolicy(resource, trx);
      if (etag !== undefined && etag !== current.etag) return false;
      // Conditional on the etag read: a concurrent write in between makes this one a conflict.
      const r =
        current.etag === EMPTY_POLICY_ETAG
          ? await trx.insertInto('iam_policies').values({ resource, ...next }).onConflict((c) => c.column('resource').doNothing()).executeTakeFirst()
          : await trx.updateTable('iam_policies').set(next).where('resource', '=', resource).where('etag', '=', current.etag).executeTakeFirst();
      const changed = Number((r as { numInsertedOrUpdatedRows?: bigint; numUpdatedRows?: bigint }).numInsertedOrUpdatedRows ?? (r as { numUpdatedRows?: bigint }).numUpdatedRows ?? 0n);
      if (changed !== 1) return false;
      await writeSetting(trx, GENERATION, this.#ids.uuid());
      return true;
    });
    if (!written) return 'conflict';
    this.#directory = undefined;
    this.#checkedAt = 0;
    return { bindings, etag: next.etag };
  }

  /** Forgets a resource's policy (the resource is gone: a new one of the same name starts without it). */
  async deleteResourcePolicy(resource: string, db: Kysely<Database> = this.#store.db): Promise<void> {
    const r = await db.deleteFrom('iam_policies').where('resource', '=', resource).executeTakeFirst();
    if (Number(r.numDeletedRows) > 0) await this.worldChanged(db);
  }

  async #load(): Promise<Directory> {
    const db = this.#store.db;
    const [organizations, folders, projects, serviceAccounts, policies, customRoles, orgPolicies] = await Promise.all([
      db.selectFrom('organizations').selectAll().execute(),
      db.selectFrom('folders').selectAll().execute(),
      db.selectFrom('projects').selectAll().execute(),
      db.selectFrom('service_accounts').selectAll().execute(),
      db.selectFrom('iam_policies').selectAll().execute(),
      db.selectFrom('custom_roles').selectAll().execute(),
      db.selectFrom('org_policies').selectAll().execute(),
    ]);
    return new Directory({
      organizations: organizations.map((o) => ({ id: o.id, domain: o.domain })),
      folders: folders.map((f) => ({ id: f.id, parent: f.parent })),
      projects: projects.map((p) => ({ projectNumber: p.project_number, projectId: p.project_id, parent: p.parent })),
      serviceAccounts: serviceAccounts.map((s) => ({ email: s.email, projectId: s.project_id, uniqueId: s.unique_id, disabled: s.disabled === 1 })),
      policies: policies.map((p) => ({ resource: p.resource, bindings: JSON.parse(p.bindings) })),
      customRoles: customRoles.map((r) => ({ name: r.name, permissions: JSON.parse(r.permissions) })),
      orgPolicies: orgPolicies.map((o) => ({ resource: o.resource, constraint: o.constraint_name, enforce: o.enforce === 1 })),
    });
  }
}
