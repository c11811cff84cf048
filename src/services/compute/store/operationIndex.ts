import type { Kysely } from 'kysely';
import { HotQuery } from '../../../platform/store/hotQuery.ts';
import type { Database } from '../../../platform/store/schema.ts';
import { type Scope, locationOf, scopeAt } from '../scope.ts';
import { type ListCursor, type ListOrder, isDecimalId, keysetPage } from './keyset.ts';

/** Compute's index of its operations (the engine keeps the operations themselves): scope, id and requestId. */
export interface OperationIndexRow {
  name: string;
  id: string;
  projectNumber: string;
  scope: Scope;
  requestId: string | null;
  insertMs: number;
}

const toOperation = (r: Database['compute_operations']): OperationIndexRow => ({
  name: r.name,
  id: r.id,
  projectNumber: r.project_number,
  scope: scopeAt(r.location),
  requestId: r.request_id,
  insertMs: Number(r.insert_ms),
});

const INSERT_OPERATION = new HotQuery((db: Kysely<Database>, name: string, id: string, projectNumber: string, location: string, requestId: string | null, insertMs: number) =>
  db.insertInto('compute_operations').values({ name, id, project_number: projectNumber, location, request_id: requestId, insert_ms: insertMs }),
);

/** Compute's operation index rows whose operation the engine still keeps (forgotten ones drop out of every read). */
function keptOperations(db: Kysely<Database>) {
  return db.selectFrom('compute_operations').innerJoin('operations', 'operations.name', 'compute_operations.name');
}

/** The queries of `compute_operations`; every method takes the executor so it can join a transaction. */
export class OperationIndex {
  async insert(db: Kysely<Database>, o: OperationIndexRow): Promise<void> {
    await INSERT_OPERATION.execute(db, o.name, o.id, o.projectNumber, locationOf(o.scope), o.requestId ?? null, o.insertMs);
  }

  /** An operation of a scope by name or numeric id, if the engine still keeps it. */
  async get(db: Kysely<Database>, projectNumber: string, scope: Scope, nameOrId: string): Promise<OperationIndexRow | undefined> {
    const row = await keptOperations(db)
      .selectAll('compute_operations')
      .where('compute_operations.project_number', '=', projectNumber)
      .where('compute_operations.location', '=', locationOf(scope))
      .where(isDecimalId(nameOrId) ? 'compute_operations.id' : 'compute_operations.name', '=', nameOrId)
      .executeTakeFirst();
    return row ? toOperation(row) : undefined;
  }

  async byRequestId(db: Kysely<Database>, projectNumber: string, requestId: string): Promise<OperationIndexRow | undefined> {
    const row = await keptOperations(db)
      .selectAll('compute_operations')
      .where('compute_operations.project_number', '=', projectNumber)
      .where('compute_operations.request_id', '=', requestId)
      .executeTakeFirst();
    return row ? toOperation(row) : undefined;
  }

  async forget(db: Kysely<Database>, name: string): Promise<void> {
    await db.deleteFrom('compute_operations').where('name', '=', name).execute();
  }

  /** Drops index rows whose operation the engine no longer keeps (past retention), so their requestIds are free again. */
  async purgeOrphans(db: Kysely<Database>): Promise<number> {
    const r = await db
      .deleteFrom('compute_operations')
      .where('name', 'not in', db.selectFrom('operations').select('name').where('service', '=', 'compute.googleapis.com'))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** A page of a scope's operations (every scope's when undefined; newest first by default, `name` order on request). */
  async page(db: Kysely<Database>, q: { projectNumber: string; scope?: Scope; order: ListOrder; after?: ListCursor; limit: number }): Promise<OperationIndexRow[]> {
    let query = keptOperations(db).selectAll('compute_operations').where('compute_operations.project_number', '=', q.projectNumber);
    if (q.scope !== undefined) query = query.where('compute_operations.location', '=', locationOf(q.scope));
    query = keysetPage(query, { name: 'compute_operations.name', time: 'compute_operations.insert_ms', id: 'compute_operations.id' }, q.order, q.after);
    return (await query.limit(q.limit).execute()).map(toOperation);
  }
}
