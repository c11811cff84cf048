import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { MIGRATION_SQL } from './migrationSql.ts';

/** The bookkeeping table: the one Kysely's Migrator kept, so stores made by earlier versions read as they are. */
const MIGRATION_TABLE = 'kysely_migration';

/**
 * Applies the migrations a store has not had yet, in name order, all in one transaction with
 * their bookkeeping. A fresh store runs the statements compiled from the steps (migrationSql.ts;
 * no query builder runs at its start); a store an earlier version made runs its pending steps
 * (migrationSteps.ts, loaded then). In one transaction: a migration that fails leaves nothing half-applied, and a first start on
 * SQLite commits (and fsyncs) once instead of once per statement. On PostgreSQL the transaction
 * first takes an advisory lock named after the schema, so processes starting together on one
 * schema migrate one after the other (the later one finds nothing to do).
 *
 * Not Kysely's Migrator: it looks for its tables by introspecting every schema of the database,
 * and on a PostgreSQL database where other schemas are created and dropped meanwhile (other
 * cloudtwins, parallel test suites) that introspection fails now and then with `schema "..."
 * does not exist`, naming a schema being dropped.
 */
export async function migrateToLatest(db: Kysely<any>, opts: { schema?: string; /** Tests: stop after this migration (a store as an earlier version left it). */ through?: string } = {}): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const wanted = (name: string) => opts.through === undefined || name <= opts.through;
  await db.transaction().execute(async (trx) => {
    if (postgres) await sql`SELECT pg_advisory_xact_lock(hashtext(${`cloudtwin.migrations.${opts.schema ?? ''}`}))`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS ${sql.table(MIGRATION_TABLE)} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx);
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)}`.execute(trx);
    const applied = new Set(rows.map((r) => String(r.name)));
    const pending = MIGRATION_SQL.filter((m) => !applied.has(m.name) && wanted(m.name));
    if (pending.length === 0) return;
    // A fresh store runs the compiled statements; a store with rows (an earlier version's) runs
    // the steps themselves, which may move its rows.
    const steps = applied.size === 0 ? undefined : (await import('./migrationSteps.ts')).MIGRATION_STEPS;
    for (const { name, statements } of pending) {
      try {
        if (steps) await steps[name].up(trx);
        else for (const statement of statements) await sql.raw(statement).execute(trx);
      } catch (err) {
        throw new Error(`database migration ${name} failed: ${(err as Error)?.message ?? err}`);
      }
    }
    const timestamp = new Date().toISOString();
    await sql`INSERT INTO ${sql.table(MIGRATION_TABLE)} (name, timestamp) VALUES ${sql.join(pending.map((m) => sql`(${m.name}, ${timestamp})`))}`.execute(trx);
  });
}

/** Tables earlier versions had: a snapshot taken then may name them; restore ignores them. */
export const RETIRED_TABLES: ReadonlySet<string> = new Set(['world_sections', 'compute_world', 'compute_instance_templates']);

/** Every table, in an order that is safe to clear and refill. */
export const ALL_TABLES = [
  'fault_rules',
  'quota_usage',
  'quota_limits',
  'media_resources',
  'media_playlists',
  'media_videos',
  'media_channels',
  'media_content_owners',
  'media_meta',
  'compute_resources',
  'compute_operations',
  'api_keys',
  'operations',
  'access_tokens',
  'org_policies',
  'custom_roles',
  'iam_policies',
  'service_account_keys',
  'service_accounts',
  'projects',
  'folders',
  'organizations',
  'twin_settings',
] as const;
