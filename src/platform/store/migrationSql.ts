// Made by scripts/generate-migration-sql.ts from migrationSteps.ts: do not edit. After changing
// a step, run `node scripts/generate-migration-sql.ts` (test/unit/migrations.test.ts checks).

/** A migration step: its name (the bookkeeping key) and the statements it runs, in order (the same text on SQLite and PostgreSQL). */
export interface MigrationSql {
  name: string;
  statements: readonly string[];
}

/** Every step, in name order. */
export const MIGRATION_SQL: readonly MigrationSql[] = [
  {
    name: '0001_initial',
    statements: [
      'create table "twin_settings" ("name" text primary key, "value" text not null)',
      'create table "organizations" ("id" text primary key, "domain" text, "display_name" text)',
      'create table "folders" ("id" text primary key, "parent" text not null, "display_name" text)',
      'create table "projects" ("project_number" text primary key, "project_id" text not null unique, "parent" text, "display_name" text)',
      'create table "service_accounts" ("email" text primary key, "project_id" text not null, "unique_id" text not null, "display_name" text, "disabled" integer default 0 not null)',
      'create table "service_account_keys" ("key_id" text primary key, "email" text not null, "public_key_pem" text not null, "created_at" bigint not null)',
      'create table "iam_policies" ("resource" text primary key, "bindings" text not null, "etag" text not null)',
      'create table "custom_roles" ("name" text primary key, "title" text, "permissions" text not null)',
      'create table "org_policies" ("resource" text not null, "constraint_name" text not null, "enforce" integer not null, constraint "org_policies_pk" primary key ("resource", "constraint_name"))',
      'create table "access_tokens" ("token_hash" text primary key, "principal" text not null, "scopes" text not null, "expires_at" bigint not null)',
      'create table "operations" ("name" text primary key, "service" text not null, "kind" text not null, "project_number" text not null, "payload" text not null, "done" integer not null, "due_at" bigint not null, "result" text, "error" text, "created_at" bigint not null, "updated_at" bigint not null)',
      'create index "operations_pending" on "operations" ("done", "due_at")',
      'create table "api_keys" ("uid" text primary key, "project_number" text not null, "key_id" text, "display_name" text not null, "key_cipher" text not null, "key_hash" text not null unique, "restrictions" text not null, "annotations" text not null, "service_account_email" text, "etag" text not null, "create_time" bigint not null, "update_time" bigint not null, "delete_time" bigint)',
      'create unique index "api_keys_project_key_id" on "api_keys" ("project_number", "key_id")',
      'create index "api_keys_project_created" on "api_keys" ("project_number", "create_time", "uid")',
      'create table "world_sections" ("section" text primary key, "body" text not null)',
    ],
  },
  {
    name: '0002_credentials',
    statements: [
      'alter table "service_account_keys" add column "disabled" integer default 0 not null',
      'alter table "service_account_keys" add column "expires_at" bigint',
      'create index "service_account_keys_email" on "service_account_keys" ("email")',
      'alter table "access_tokens" add column "key_id" text',
      'create index "access_tokens_key" on "access_tokens" ("key_id")',
    ],
  },
  {
    name: '0003_compute',
    statements: [
      'create table "compute_instance_templates" ("id" text primary key, "project_number" text not null, "region" text not null, "name" text not null, "creation_ms" bigint not null, "body" text not null)',
      'create unique index "compute_templates_name" on "compute_instance_templates" ("project_number", "region", "name")',
      'create index "compute_templates_created" on "compute_instance_templates" ("project_number", "region", "creation_ms", "id")',
      'create table "compute_operations" ("name" text primary key, "id" text not null unique, "project_number" text not null, "region" text not null, "request_id" text, "insert_ms" bigint not null)',
      'create unique index "compute_operations_request" on "compute_operations" ("project_number", "request_id")',
      'create index "compute_operations_region" on "compute_operations" ("project_number", "region", "insert_ms")',
      'create table "compute_world" ("kind" text not null, "project_number" text not null, "location" text not null, "name" text not null, "body" text not null, constraint "compute_world_pk" primary key ("kind", "project_number", "location", "name"))',
    ],
  },
  {
    name: '0004_media',
    statements: [
      'create table "media_channels" ("id" text primary key, "seq" bigint not null, "channel_id" text not null, "published_at" bigint not null, "title" text not null, "description" text not null, "search_text" text not null, "attrs" text not null, "owner_principal" text, "content_owner" text)',
      'create index "media_channels_seq" on "media_channels" ("seq", "id")',
      'create index "media_channels_channel" on "media_channels" ("channel_id", "published_at")',
      'create table "media_videos" ("id" text primary key, "seq" bigint not null, "channel_id" text not null, "published_at" bigint not null, "title" text not null, "description" text not null, "search_text" text not null, "attrs" text not null)',
      'create index "media_videos_seq" on "media_videos" ("seq", "id")',
      'create index "media_videos_channel" on "media_videos" ("channel_id", "published_at")',
      'create table "media_playlists" ("id" text primary key, "seq" bigint not null, "channel_id" text not null, "published_at" bigint not null, "title" text not null, "description" text not null, "search_text" text not null, "attrs" text not null)',
      'create index "media_playlists_seq" on "media_playlists" ("seq", "id")',
      'create index "media_playlists_channel" on "media_playlists" ("channel_id", "published_at")',
      'create index "media_channels_owner" on "media_channels" ("owner_principal")',
      'create index "media_channels_content_owner" on "media_channels" ("content_owner")',
      'create table "media_content_owners" ("id" text primary key, "seq" bigint not null, "display_name" text not null, "linked_principals" text not null, "resource" text not null)',
      'create table "media_resources" ("type" text not null, "id" text not null, "resource" text not null, constraint "media_resources_pk" primary key ("type", "id"))',
      'create table "media_meta" ("name" text primary key, "value" bigint not null)',
    ],
  },
  {
    name: '0005_quota',
    statements: [
      'create table "quota_limits" ("consumer" text not null, "service" text not null, "daily_limit" bigint not null, constraint "quota_limits_pk" primary key ("consumer", "service"))',
      'create table "quota_usage" ("consumer" text not null, "service" text not null, "day" text not null, "used" bigint not null, constraint "quota_usage_pk" primary key ("consumer", "service", "day"))',
    ],
  },
  {
    name: '0006_drop_world_sections',
    statements: [
      'drop table if exists "world_sections"',
    ],
  },
  {
    name: '0007_fault_rules',
    statements: [
      'create table "fault_rules" ("id" text primary key, "position" bigint not null, "rule" text not null, "matched" bigint default 0 not null, "injected" bigint default 0 not null)',
    ],
  },
  {
    name: '0008_compute_resources',
    statements: [
      'create table "compute_resources" ("kind" text not null, "project_number" text not null, "location" text not null, "name" text not null, "id" text not null, "creation_ms" bigint not null, "body" text not null, constraint "compute_resources_pk" primary key ("kind", "project_number", "location", "name"))',
      'create index "compute_resources_id" on "compute_resources" ("kind", "project_number", "id")',
      'create index "compute_resources_created" on "compute_resources" ("kind", "project_number", "location", "creation_ms", "id")',
      'drop table "compute_world"',
      'drop table "compute_instance_templates"',
      'alter table "compute_operations" rename column "region" to "location"',
    ],
  },
];
