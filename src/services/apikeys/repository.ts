import type { Kysely } from 'kysely';
import type { Database } from '../../platform/store/schema.ts';
import type { Store } from '../../platform/store/store.ts';
import { type ApiKeyRecord, RESTORE_WINDOW_MS, fromRow, toRow } from './model.ts';

/** The API Keys service's queries; every method takes the executor so it can join a transaction. */
export class ApiKeysRepository {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async byId(db: Kysely<Database>, projectNumber: string, keyId: string, opts: { lock?: boolean } = {}): Promise<ApiKeyRecord | undefined> {
    let q = db.selectFrom('api_keys').selectAll().where('project_number', '=', projectNumber).where('key_id', '=', keyId);
    if (opts.lock) q = this.#store.forUpdate(q);
    const row = await q.executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async byUid(db: Kysely<Database>, uid: string): Promise<ApiKeyRecord | undefined> {
    const row = await db.selectFrom('api_keys').selectAll().where('uid', '=', uid).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async byHash(db: Kysely<Database>, keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /** Keys of a project that still hold their id (active or deleted within the restore window). */
  async countHeld(db: Kysely<Database>, projectNumber: string, nowMs: number): Promise<number> {
    const r = await db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_number', '=', projectNumber)
      .where('key_id', 'is not', null)
      .where((eb) => eb.or([eb('delete_time', 'is', null), eb('delete_time', '>', nowMs - RESTORE_WINDOW_MS)]))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** A page of keys, newest first; `after` is the last (createTime, uid) of the previous page. */
  async page(
    db: Kysely<Database>,
    q: { projectNumber: string; nowMs: number; showDeleted: boolean; limit: number; after?: { createTime: number; uid: string } },
  ): Promise<ApiKeyRecord[]> {
    let query = db
      .selectFrom('api_keys')
      .selectAll()
      .where('project_number', '=', q.projectNumber)
      .where('key_id', 'is not', null)
      .where((eb) => eb.or([eb('delete_time', 'is', null), eb('delete_time', '>', q.nowMs - RESTORE_WINDOW_MS)]));
    if (!q.showDeleted) query = query.where('delete_time', 'is', null);
    if (q.after) {
      const { createTime, uid } = q.after;
      query = query.where((eb) => eb.or([eb('create_time', '<', createTime), eb.and([eb('create_time', '=', createTime), eb('uid', '<', uid)])]));
    }
    const rows = await query.orderBy('create_time', 'desc').orderBy('uid', 'desc').limit(q.limit).execute();
    return rows.map(fromRow);
  }

  async insert(db: Kysely<Database>, k: ApiKeyRecord): Promise<void> {
    await db.insertInto('api_keys').values(toRow(k)).execute();
  }

  async save(db: Kysely<Database>, k: ApiKeyRecord): Promise<void> {
    const { uid, ...rest } = toRow(k);
    await db.updateTable('api_keys').set(rest).where('uid', '=', uid).execute();
  }

  /** Frees the id of a purged key so it can be used again; the row stays as a tombstone for lookupKey. */
  async releaseId(db: Kysely<Database>, uid: string): Promise<void> {
    await db.updateTable('api_keys').set({ key_id: null }).where('uid', '=', uid).execute();
  }

  /** Locks the project row so concurrent creates in it serialise (the 300-key limit). */
  async lockProject(db: Kysely<Database>, projectNumber: string): Promise<void> {
    await this.#store.forUpdate(db.selectFrom('projects').select('project_number').where('project_number', '=', projectNumber)).execute();
  }
}
