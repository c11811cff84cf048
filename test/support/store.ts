import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Which store the suite runs on: `CLOUDTWIN_TEST_STORE=postgres` with `CLOUDTWIN_TEST_DATABASE_URL`, else SQLite. */
export const TEST_STORE = process.env.CLOUDTWIN_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  /** undefined for SQLite (each twin then gets its own in-memory or temporary database). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, empty PostgreSQL schema (reached through `search_path`), or nothing for SQLite. */
export async function freshDatabase(): Promise<TestDatabase> {
  if (TEST_STORE !== 'postgres') return { url: undefined, drop: async () => {} };
  const base = process.env.CLOUDTWIN_TEST_DATABASE_URL;
  if (!base) throw new Error('CLOUDTWIN_TEST_STORE=postgres needs CLOUDTWIN_TEST_DATABASE_URL');
  const schema = `ct_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}
