import type { Kysely, SelectQueryBuilder } from 'kysely';
import { HotQuery } from '../../platform/store/hotQuery.ts';
import type { Database } from '../../platform/store/schema.ts';

export interface TemplateRow {
  id: string;
  projectNumber: string;
  /** Its scope: a region's name, or `global` (see `Scope`). */
  region: string;
  name: string;
  creationMs: number;
  body: Record<string, unknown>;
}

export interface OperationIndexRow {
  name: string;
  id: string;
  projectNumber: string;
  region: string;
  requestId: string | null;
  insertMs: number;
}

/** A position in a list: the sort key of the last item of the previous page. */
export interface ListCursor {
  /** `name` order: the name; `creationTimestamp desc`: the creation time. */
  key: string | number;
  id: string;
}

export type ListOrder = 'name' | 'creationTimestamp desc';

const toTemplate = (r: Database['compute_instance_templates']): TemplateRow => ({
  id: r.id,
  projectNumber: r.project_number,
  region: r.region,
  name: r.name,
  creationMs: Number(r.creation_ms),
  body: JSON.parse(r.body),
});

const toOperation = (r: Database['compute_operations']): OperationIndexRow => ({
  name: r.name,
  id: r.id,
  projectNumber: r.project_number,
  region: r.region,
  requestId: r.request_id,
  insertMs: Number(r.insert_ms),
});

const isDecimalId = (s: string) => /^[0-9]+$/.test(s);

// The insert path's queries, compiled once (see HotQuery).
const INSERT_OPERATION = new HotQuery((db: Kysely<Database>, name: string, id: string, projectNumber: string, region: string, requestId: string | null, insertMs: number) =>
  db.insertInto('compute_operations').values({ name, id, project_number: projectNumber, region, request_id: requestId, insert_ms: insertMs }),
);
const TEMPLATE_NAME_TAKEN = new HotQuery((db: Kysely<Database>, projectNumber: string, region: string, name: string) =>
  db.selectFrom('compute_instance_templates').select('id').where('project_number', '=', projectNumber).where('region', '=', region).where('name', '=', name),
);
const INSERT_TEMPLATE_IF_ABSENT = new HotQuery((db: Kysely<Database>, id: string, projectNumber: string, region: string, name: string, creationMs: number, body: string) =>
  db.insertInto('compute_instance_templates').values({ id, project_number: projectNumber, region, name, creation_ms: creationMs, body }).onConflict((c) => c.doNothing()),
);

/** The Compute service's queries; every method takes the executor so it can join a transaction. */
export class ComputeRepository {
  // ---- templates ---------------------------------------------------------------------------

  /** A template by name or numeric id. */
  async template(db: Kysely<Database>, projectNumber: string, region: string, nameOrId: string): Promise<TemplateRow | undefined> {
    const row = await db
      .selectFrom('compute_instance_templates')
      .selectAll()
      .where('project_number', '=', projectNumber)
      .where('region', '=', region)
      .where(isDecimalId(nameOrId) ? 'id' : 'name', '=', nameOrId)
      .executeTakeFirst();
    return row ? toTemplate(row) : undefined;
  }

  async insertTemplate(db: Kysely<Database>, t: TemplateRow): Promise<void> {
    await db
      .insertInto('compute_instance_templates')
      .values({ id: t.id, project_number: t.projectNumber, region: t.region, name: t.name, creation_ms: t.creationMs, body: JSON.stringify(t.body) })
      .execute();
  }

  async deleteTemplate(db: Kysely<Database>, id: string): Promise<number> {
    const r = await db.deleteFrom('compute_instance_templates').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** A page of templates of a scope (a region or `global`; every scope when `region` is undefined), in the given order. */
  async templatePage(db: Kysely<Database>, q: { projectNumber: string; region?: string; order: ListOrder; after?: ListCursor; limit: number }): Promise<TemplateRow[]> {
    let query = db.selectFrom('compute_instance_templates').selectAll().where('project_number', '=', q.projectNumber);
    if (q.region !== undefined) query = query.where('region', '=', q.region);
    query = keysetPage(query, { name: 'name', time: 'creation_ms', id: 'id' }, q.order, q.after);
    return (await query.limit(q.limit).execute()).map(toTemplate);
  }

  /** Regions of the project that hold templates. */
  async templateRegions(db: Kysely<Database>, projectNumber: string): Promise<string[]> {
    const rows = await db.selectFrom('compute_instance_templates').select('region').distinct().where('project_number', '=', projectNumber).execute();
    return rows.map((r) => r.region);
  }

  // ---- operations --------------------------------------------------------------------------

  async insertOperation(db: Kysely<Database>, o: OperationIndexRow): Promise<void> {
    await INSERT_OPERATION.execute(db, o.name, o.id, o.projectNumber, o.region, o.requestId ?? null, o.insertMs);
  }

  /** Whether a template of this name exists (the insert path's check: no body read). */
  async templateNameTaken(db: Kysely<Database>, projectNumber: string, region: string, name: string): Promise<boolean> {
    return (await TEMPLATE_NAME_TAKEN.rows(db, projectNumber, region, name)).length > 0;
  }

  /** Stores a new template unless its name (or id) is taken; true when stored. */
  async insertTemplateIfAbsent(db: Kysely<Database>, t: { id: string; projectNumber: string; region: string; name: string; creationMs: number; body: string }): Promise<boolean> {
    const r = await INSERT_TEMPLATE_IF_ABSENT.execute(db, t.id, t.projectNumber, t.region, t.name, t.creationMs, t.body);
    return Number(r.numAffectedRows ?? 0n) === 1;
  }

  /** An operation of a scope (a region or `global`) by name or numeric id, if the engine still keeps it. */
  async operation(db: Kysely<Database>, projectNumber: string, region: string, nameOrId: string): Promise<OperationIndexRow | undefined> {
    const row = await keptOperations(db)
      .selectAll('compute_operations')
      .where('compute_operations.project_number', '=', projectNumber)
      .where('compute_operations.region', '=', region)
      .where(isDecimalId(nameOrId) ? 'compute_operations.id' : 'compute_operations.name', '=', nameOrId)
      .executeTakeFirst();
    return row ? toOperation(row) : undefined;
  }

  async operationByRequestId(db: Kysely<Database>, projectNumber: string, requestId: string): Promise<OperationIndexRow | undefined> {
    const row = await keptOperations(db)
      .selectAll('compute_operations')
      .where('compute_operations.project_number', '=', projectNumber)
      .where('compute_operations.request_id', '=', requestId)
      .executeTakeFirst();
    return row ? toOperation(row) : undefined;
  }

  /** Drops index rows whose operation the engine no longer keeps (past retention), so their requestIds are free again. */
  async forgetOperation(db: Kysely<Database>, name: string): Promise<void> {
    await db.deleteFrom('compute_operations').where('name', '=', name).execute();
  }

  async purgeOrphanOperations(db: Kysely<Database>): Promise<number> {
    const r = await db
      .deleteFrom('compute_operations')
      .where('name', 'not in', db.selectFrom('operations').select('name').where('service', '=', 'compute.googleapis.com'))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** A page of operations (newest first by default; `name` order on request). */
  async operationPage(db: Kysely<Database>, q: { projectNumber: string; region?: string; order: ListOrder; after?: ListCursor; limit: number }): Promise<OperationIndexRow[]> {
    let query = keptOperations(db).selectAll('compute_operations').where('compute_operations.project_number', '=', q.projectNumber);
    if (q.region !== undefined) query = query.where('compute_operations.region', '=', q.region);
    query = keysetPage(query, { name: 'compute_operations.name', time: 'compute_operations.insert_ms', id: 'compute_operations.id' }, q.order, q.after);
    return (await query.limit(q.limit).execute()).map(toOperation);
  }

  async operationRegions(db: Kysely<Database>, projectNumber: string): Promise<string[]> {
    const rows = await keptOperations(db)
      .select('compute_operations.region')
      .distinct()
      .where('compute_operations.project_number', '=', projectNumber)
      .execute();
    return rows.map((r) => r.region);
  }
}

/** Compute's operation index rows whose operation the engine still keeps (forgotten ones drop out of every read). */
function keptOperations(db: Kysely<Database>) {
  return db.selectFrom('compute_operations').innerJoin('operations', 'operations.name', 'compute_operations.name');
}

/**
 * Keyset paging of a list: ordered by name (ascending) or by a time column (newest first), ties
 * broken by id in the same direction, starting after the cursor's (key, id).
 */
function keysetPage<Q extends SelectQueryBuilder<any, any, any>>(query: Q, cols: { name: string; time: string; id: string }, order: ListOrder, after: ListCursor | undefined): Q {
  const [col, dir, key] = order === 'name' ? [cols.name, 'asc' as const, String(after?.key)] : [cols.time, 'desc' as const, Number(after?.key)];
  const past = dir === 'asc' ? '>' : '<';
  // Column names are this file's own constants; Kysely's typing cannot follow them through a parameter.
  let q = query as SelectQueryBuilder<any, any, any>;
  if (after) q = q.where((eb) => eb.or([eb(col, past, key), eb.and([eb(col, '=', key), eb(cols.id, past, after.id)])]));
  return q.orderBy(col, dir).orderBy(cols.id, dir) as Q;
}
