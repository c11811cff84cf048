import type { Ids } from '../crypto/random.ts';
import type { Store } from '../store/store.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import { Directory } from './directory.ts';

const GENERATION = 'world.generation';

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

  async #refresh(): Promise<Directory> {
    const generation = await readSetting(this.#store.db, GENERATION, '');
    this.#checkedAt = Date.now();
    if (this.#directory && generation === this.#generation) return this.#directory;
    this.#directory = await this.#load();
    this.#generation = generation;
    return this.#directory;
  }

  /** Call after changing the world (inside or after the writing transaction). */
  async worldChanged(db = this.#store.db): Promise<void> {
    await writeSetting(db, GENERATION, this.#ids.uuid());
    this.#directory = undefined;
    this.#checkedAt = 0;
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
