import type { Kysely } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';

/** One migration set for both dialects: portable column types only. */
const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<any>) {
      await db.schema.createTable('twin_settings').addColumn('name', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
      await db.schema
        .createTable('organizations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('domain', 'text')
        .addColumn('display_name', 'text')
        .execute();
      await db.schema
        .createTable('folders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('parent', 'text', (c) => c.notNull())
        .addColumn('display_name', 'text')
        .execute();
      await db.schema
        .createTable('projects')
        .addColumn('project_number', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().unique())
        .addColumn('parent', 'text')
        .addColumn('display_name', 'text')
        .execute();
      await db.schema
        .createTable('service_accounts')
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('unique_id', 'text', (c) => c.notNull())
        .addColumn('display_name', 'text')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('service_account_keys')
        .addColumn('key_id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('public_key_pem', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('iam_policies')
        .addColumn('resource', 'text', (c) => c.primaryKey())
        .addColumn('bindings', 'text', (c) => c.notNull())
        .addColumn('etag', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('custom_roles')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('title', 'text')
        .addColumn('permissions', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('org_policies')
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('constraint_name', 'text', (c) => c.notNull())
        .addColumn('enforce', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('org_policies_pk', ['resource', 'constraint_name'])
        .execute();
      await db.schema
        .createTable('access_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('operations')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('done', 'integer', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('operations_pending').on('operations').columns(['done', 'due_at']).execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('uid', 'text', (c) => c.primaryKey())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('key_cipher', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('restrictions', 'text', (c) => c.notNull())
        .addColumn('annotations', 'text', (c) => c.notNull())
        .addColumn('service_account_email', 'text')
        .addColumn('etag', 'text', (c) => c.notNull())
        .addColumn('create_time', 'bigint', (c) => c.notNull())
        .addColumn('update_time', 'bigint', (c) => c.notNull())
        .addColumn('delete_time', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_project_key_id').on('api_keys').columns(['project_number', 'key_id']).unique().execute();
      await db.schema.createIndex('api_keys_project_created').on('api_keys').columns(['project_number', 'create_time', 'uid']).execute();
      await db.schema
        .createTable('world_sections')
        .addColumn('section', 'text', (c) => c.primaryKey())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
    },
  },
};

class InCodeMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/**
 * `schema` is where Kysely keeps its migration bookkeeping (on PostgreSQL, the connection's
 * current schema). Without it Kysely looks for its tables in every schema of the database and
 * takes another schema's (another cloudtwin sharing the database) for this one's.
 */
export async function migrateToLatest(db: Kysely<any>, opts: { schema?: string } = {}): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeMigrations(), migrationTableSchema: opts.schema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}

/** Every table, in an order that is safe to clear and refill. */
export const ALL_TABLES = [
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
  'world_sections',
  'twin_settings',
] as const;
