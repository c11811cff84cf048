import type { Kysely } from 'kysely';
import { resourceFromTemplateRow, resourceFromWorldRow } from './computeResourcesUpgrade.ts';

/** One step of the schema, applied once per store. */
export interface Migration {
  up(db: Kysely<any>): Promise<void>;
}

/**
 * The schema's steps, in name order, written once for both dialects (portable column types
 * only). A new step goes at the end with the next number; a step, once released, never changes.
 *
 * A fresh store does not run these builders: `node scripts/generate-migration-sql.ts` compiles
 * every step into the statements it makes on a store whose tables are empty (migrationSql.ts,
 * committed; a test checks it is current), and a first start runs those (docs/operations.md,
 * "Start-up and lazy loading"). A store made by an earlier version runs its pending steps here
 * (this module is loaded only then), so a step may move rows too: on a fresh store its reads find
 * nothing and its writes of what they read write nothing.
 */
export const MIGRATION_STEPS: Record<string, Migration> = {
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
  '0002_credentials': {
    async up(db: Kysely<any>) {
      // Revocation: keys can be disabled and expire (wall clock); tokens record the key that minted them.
      await db.schema.alterTable('service_account_keys').addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('service_account_keys').addColumn('expires_at', 'bigint').execute();
      await db.schema.createIndex('service_account_keys_email').on('service_account_keys').columns(['email']).execute();
      await db.schema.alterTable('access_tokens').addColumn('key_id', 'text').execute();
      await db.schema.createIndex('access_tokens_key').on('access_tokens').columns(['key_id']).execute();
    },
  },
  '0003_compute': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('compute_instance_templates')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('region', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('creation_ms', 'bigint', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('compute_templates_name').on('compute_instance_templates').columns(['project_number', 'region', 'name']).unique().execute();
      await db.schema.createIndex('compute_templates_created').on('compute_instance_templates').columns(['project_number', 'region', 'creation_ms', 'id']).execute();
      await db.schema
        .createTable('compute_operations')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('region', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text')
        .addColumn('insert_ms', 'bigint', (c) => c.notNull())
        .execute();
      // One operation per (project, requestId), across processes; NULLs (no requestId) never collide.
      await db.schema.createIndex('compute_operations_request').on('compute_operations').columns(['project_number', 'request_id']).unique().execute();
      await db.schema.createIndex('compute_operations_region').on('compute_operations').columns(['project_number', 'region', 'insert_ms']).execute();
      await db.schema
        .createTable('compute_world')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('compute_world_pk', ['kind', 'project_number', 'location', 'name'])
        .execute();
    },
  },
  '0004_media': {
    async up(db: Kysely<any>) {
      // Media catalogue: the columns the catalogue queries and the search index loads (`attrs`:
      // compact JSON of the filterable attributes); the resource JSON as given is in media_resources.
      // `seq` is the change sequence (media_meta 'seq') of the write that last touched the row.
      for (const table of ['media_channels', 'media_videos', 'media_playlists']) {
        let t = db.schema
          .createTable(table)
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('channel_id', 'text', (c) => c.notNull())
          .addColumn('published_at', 'bigint', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('description', 'text', (c) => c.notNull())
          .addColumn('search_text', 'text', (c) => c.notNull())
          .addColumn('attrs', 'text', (c) => c.notNull());
        if (table === 'media_channels') t = t.addColumn('owner_principal', 'text').addColumn('content_owner', 'text');
        await t.execute();
        await db.schema.createIndex(`${table}_seq`).on(table).columns(['seq', 'id']).execute();
        await db.schema.createIndex(`${table}_channel`).on(table).columns(['channel_id', 'published_at']).execute();
      }
      await db.schema.createIndex('media_channels_owner').on('media_channels').columns(['owner_principal']).execute();
      await db.schema.createIndex('media_channels_content_owner').on('media_channels').columns(['content_owner']).execute();
      await db.schema
        .createTable('media_content_owners')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('linked_principals', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .execute();
      // The resource JSON apart from the rows the search index loads, so loading them reads little.
      await db.schema
        .createTable('media_resources')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('media_resources_pk', ['type', 'id'])
        .execute();
      // 'seq': last change sequence; 'epoch': changes when the catalogue is wiped and started again.
      await db.schema.createTable('media_meta').addColumn('name', 'text', (c) => c.primaryKey()).addColumn('value', 'bigint', (c) => c.notNull()).execute();
    },
  },
  '0005_quota': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('quota_limits')
        .addColumn('consumer', 'text', (c) => c.notNull())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('daily_limit', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_limits_pk', ['consumer', 'service'])
        .execute();
      await db.schema
        .createTable('quota_usage')
        .addColumn('consumer', 'text', (c) => c.notNull())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('used', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_usage_pk', ['consumer', 'service', 'day'])
        .execute();
    },
  },
  '0006_drop_world_sections': {
    async up(db: Kysely<any>) {
      // Never read or written: the world document's sections live in their own tables.
      await db.schema.dropTable('world_sections').ifExists().execute();
    },
  },
  '0007_fault_rules': {
    async up(db: Kysely<any>) {
      // Fault injection rules (platform/faults): `rule` is the rule's JSON; the counters are
      // updated atomically by every process that matches a call, so schedules hold across processes.
      await db.schema
        .createTable('fault_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('position', 'bigint', (c) => c.notNull())
        .addColumn('rule', 'text', (c) => c.notNull())
        .addColumn('matched', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('injected', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0008_compute_resources': {
    async up(db: Kysely<any>) {
      // One table of Compute's resources, whatever their kind (networks, subnetworks, firewalls,
      // instance templates, instances, ...): the world document's entries and what the API writes
      // alike. `location` is `global`, a region's or a zone's name; `body` the resource's JSON.
      await db.schema
        .createTable('compute_resources')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('project_number', 'text', (c) => c.notNull())
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('creation_ms', 'bigint', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('compute_resources_pk', ['kind', 'project_number', 'location', 'name'])
        .execute();
      await db.schema.createIndex('compute_resources_id').on('compute_resources').columns(['kind', 'project_number', 'id']).execute();
      await db.schema.createIndex('compute_resources_created').on('compute_resources').columns(['kind', 'project_number', 'location', 'creation_ms', 'id']).execute();
      const moved = [
        ...(await db.selectFrom('compute_world').selectAll().execute()).map(resourceFromWorldRow),
        ...(await db.selectFrom('compute_instance_templates').selectAll().execute()).map(resourceFromTemplateRow),
      ];
      for (let i = 0; i < moved.length; i += 200) await db.insertInto('compute_resources').values(moved.slice(i, i + 200)).execute();
      await db.schema.dropTable('compute_world').execute();
      await db.schema.dropTable('compute_instance_templates').execute();
      // An operation's scope: `global`, a region's or a zone's name (zone operations).
      await db.schema.alterTable('compute_operations').renameColumn('region', 'location').execute();
    },
  },
};
