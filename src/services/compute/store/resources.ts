import type { Kysely } from 'kysely';
import { HotQuery } from '../../../platform/store/hotQuery.ts';
import type { Database } from '../../../platform/store/schema.ts';
import { type Scope, locationOf, scopeAt } from '../scope.ts';
import { type ListCursor, type ListOrder, isDecimalId, keysetPage } from './keyset.ts';

/**
 * One Compute resource as stored: its kind (`network`, `instanceTemplate`, ...), where it lives and
 * its JSON. What the API wrote is the whole resource as answered; what the world document declared
 * is the entry as given, which the kind renders with its defaults (see ResourceKind.present).
 */
export interface StoredResource {
  kind: string;
  projectNumber: string;
  scope: Scope;
  name: string;
  id: string;
  creationMs: number;
  body: Record<string, any>;
}

type Row = Database['compute_resources'];

const toResource = (r: Row): StoredResource => ({
  kind: r.kind,
  projectNumber: r.project_number,
  scope: scopeAt(r.location),
  name: r.name,
  id: r.id,
  creationMs: Number(r.creation_ms),
  body: JSON.parse(r.body),
});

const toRow = (r: StoredResource, body = JSON.stringify(r.body)): Row => ({
  kind: r.kind,
  project_number: r.projectNumber,
  location: locationOf(r.scope),
  name: r.name,
  id: r.id,
  creation_ms: r.creationMs,
  body,
});

// The insert path's queries, compiled once (see HotQuery).
const NAME_TAKEN = new HotQuery((db: Kysely<Database>, kind: string, projectNumber: string, location: string, name: string) =>
  db.selectFrom('compute_resources').select('id').where('kind', '=', kind).where('project_number', '=', projectNumber).where('location', '=', location).where('name', '=', name),
);
const BY_NAME = new HotQuery((db: Kysely<Database>, kind: string, projectNumber: string, location: string, name: string) =>
  db.selectFrom('compute_resources').selectAll().where('kind', '=', kind).where('project_number', '=', projectNumber).where('location', '=', location).where('name', '=', name),
);
const INSERT_IF_ABSENT = new HotQuery(
  (db: Kysely<Database>, kind: string, projectNumber: string, location: string, name: string, id: string, creationMs: number, body: string) =>
    db.insertInto('compute_resources').values({ kind, project_number: projectNumber, location, name, id, creation_ms: creationMs, body }).onConflict((c) => c.doNothing()),
);

/**
 * Compute's resources of every kind in one table (`compute_resources`, keyed by kind, project,
 * location and name): what the API writes and what the world document declares alike. Every method
 * takes the executor, so it can join a transaction (an operation's completion, world:apply).
 */
export class ResourceStore {
  /** A resource by name or numeric id. */
  async get(db: Kysely<Database>, kind: string, projectNumber: string, scope: Scope, nameOrId: string): Promise<StoredResource | undefined> {
    if (!isDecimalId(nameOrId)) {
      const [row] = await BY_NAME.rows(db, kind, projectNumber, locationOf(scope), nameOrId);
      return row ? toResource(row) : undefined;
    }
    const row = await db
      .selectFrom('compute_resources')
      .selectAll()
      .where('kind', '=', kind)
      .where('project_number', '=', projectNumber)
      .where('location', '=', locationOf(scope))
      .where('id', '=', nameOrId)
      .executeTakeFirst();
    return row ? toResource(row) : undefined;
  }

  /** Whether a resource of this name exists (no body read). */
  async nameTaken(db: Kysely<Database>, kind: string, projectNumber: string, scope: Scope, name: string): Promise<boolean> {
    return (await NAME_TAKEN.rows(db, kind, projectNumber, locationOf(scope), name)).length > 0;
  }

  /** Stores a new resource unless its name is taken; true when stored. `bodyText`: the body already serialised. */
  async insertIfAbsent(db: Kysely<Database>, r: StoredResource, bodyText?: string): Promise<boolean> {
    const row = toRow(r, bodyText);
    const res = await INSERT_IF_ABSENT.execute(db, row.kind, row.project_number, row.location, row.name, row.id, row.creation_ms, row.body);
    return Number(res.numAffectedRows ?? 0n) === 1;
  }

  /** Stores resources whose names are not taken (the others are left as they are). */
  async insertManyIfAbsent(db: Kysely<Database>, rs: readonly StoredResource[]): Promise<void> {
    for (let i = 0; i < rs.length; i += 100) {
      await db
        .insertInto('compute_resources')
        .values(rs.slice(i, i + 100).map((r) => toRow(r)))
        .onConflict((c) => c.doNothing())
        .execute();
    }
  }

  /** Stores a resource, replacing one of the same key (world:apply: applying twice is applying once). */
  async upsert(db: Kysely<Database>, r: StoredResource): Promise<void> {
    const row = toRow(r);
    await db
      .insertInto('compute_resources')
      .values(row)
      .onConflict((c) => c.columns(['kind', 'project_number', 'location', 'name']).doUpdateSet({ body: row.body }))
      .execute();
  }

  /** Replaces the body of the resource with this id; true when it was there. */
  async update(db: Kysely<Database>, r: StoredResource): Promise<boolean> {
    const res = await db
      .updateTable('compute_resources')
      .set({ body: JSON.stringify(r.body) })
      .where('kind', '=', r.kind)
      .where('project_number', '=', r.projectNumber)
      .where('location', '=', locationOf(r.scope))
      .where('id', '=', r.id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Deletes the resource with this id (an operation's target: not another made since with the same name); true when it was there. */
  async delete(db: Kysely<Database>, kind: string, projectNumber: string, scope: Scope, id: string): Promise<boolean> {
    const res = await db
      .deleteFrom('compute_resources')
      .where('kind', '=', kind)
      .where('project_number', '=', projectNumber)
      .where('location', '=', locationOf(scope))
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }

  /** A page of a kind's resources in a scope (every scope when `scope` is undefined), in the given order. */
  async page(db: Kysely<Database>, q: { kind: string; projectNumber: string; scope?: Scope; order: ListOrder; after?: ListCursor; limit: number }): Promise<StoredResource[]> {
    let query = db.selectFrom('compute_resources').selectAll().where('kind', '=', q.kind).where('project_number', '=', q.projectNumber);
    if (q.scope !== undefined) query = query.where('location', '=', locationOf(q.scope));
    query = keysetPage(query, { name: 'name', time: 'creation_ms', id: 'id' }, q.order, q.after);
    return (await query.limit(q.limit).execute()).map(toResource);
  }

  /** Every resource of a kind in a project (in some scopes, when given), by name. */
  async all(db: Kysely<Database>, kind: string, projectNumber: string, scopes?: readonly Scope[]): Promise<StoredResource[]> {
    let q = db.selectFrom('compute_resources').selectAll().where('kind', '=', kind).where('project_number', '=', projectNumber);
    if (scopes) q = q.where('location', 'in', scopes.length ? scopes.map(locationOf) : ['']);
    return (await q.orderBy('name').orderBy('location').execute()).map(toResource);
  }

  /** Whether the project has any resource of these kinds. */
  async any(db: Kysely<Database>, kinds: readonly string[], projectNumber: string): Promise<boolean> {
    const row = await db.selectFrom('compute_resources').select('name').where('kind', 'in', [...kinds]).where('project_number', '=', projectNumber).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Resources of these kinds in the project whose JSON mentions `text` (a resource's path, as
   * references end): the candidates of an in-use check, which the caller confirms on each body.
   */
  async mentioning(db: Kysely<Database>, kinds: readonly string[], projectNumber: string, text: string): Promise<StoredResource[]> {
    // A wildcard in `text` (no name or path has `%`; `_` matches itself too) only widens the candidates.
    const pattern = `%${text}%`;
    const rows = await db
      .selectFrom('compute_resources')
      .selectAll()
      .where('kind', 'in', [...kinds])
      .where('project_number', '=', projectNumber)
      .where((eb) => eb('body', 'like', pattern))
      .orderBy('kind')
      .orderBy('name')
      .execute();
    return rows.map(toResource);
  }
}
