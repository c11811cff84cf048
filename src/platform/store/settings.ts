import type { Kysely } from 'kysely';
import { HotQuery } from './hotQuery.ts';
import type { Database } from './schema.ts';

/** Read on every worker tick (PostgreSQL): compiled once, not rebuilt by Kysely each time. */
const READ = new HotQuery((db: Kysely<Database>, name: string) => db.selectFrom('twin_settings').select('value').where('name', '=', name));

/** Small shared values (clock offset, operation mode) that every process on one store sees. */
export async function readSetting<T>(db: Kysely<Database>, name: string, fallback: T): Promise<T> {
  const [row] = await READ.rows(db, name);
  return row ? (JSON.parse(row.value) as T) : fallback;
}

export async function writeSetting(db: Kysely<Database>, name: string, value: unknown): Promise<void> {
  const v = JSON.stringify(value);
  await db
    .insertInto('twin_settings')
    .values({ name, value: v })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: v }))
    .execute();
}
