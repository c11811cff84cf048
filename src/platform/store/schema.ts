/**
 * The tables of the store, as Kysely sees them. Times are epoch milliseconds (bigint columns),
 * booleans are 0/1 integers and structured values are JSON text, so that one migration set and
 * one set of queries serve SQLite and PostgreSQL alike.
 */
export interface Database {
  twin_settings: { name: string; value: string };
  organizations: { id: string; domain: string | null; display_name: string | null };
  folders: { id: string; parent: string; display_name: string | null };
  projects: { project_number: string; project_id: string; parent: string | null; display_name: string | null };
  service_accounts: { email: string; project_id: string; unique_id: string; display_name: string | null; disabled: number };
  service_account_keys: { key_id: string; email: string; public_key_pem: string; created_at: number; disabled: number; expires_at: number | null };
  iam_policies: { resource: string; bindings: string; etag: string };
  custom_roles: { name: string; title: string | null; permissions: string };
  org_policies: { resource: string; constraint_name: string; enforce: number };
  access_tokens: { token_hash: string; principal: string; scopes: string; expires_at: number; key_id: string | null };
  operations: {
    name: string;
    service: string;
    kind: string;
    project_number: string;
    payload: string;
    done: number;
    due_at: number;
    result: string | null;
    error: string | null;
    created_at: number;
    updated_at: number;
  };
  api_keys: {
    uid: string;
    project_number: string;
    key_id: string | null;
    display_name: string;
    key_cipher: string;
    key_hash: string;
    restrictions: string;
    annotations: string;
    service_account_email: string | null;
    etag: string;
    create_time: number;
    update_time: number;
    delete_time: number | null;
  };
  quota_limits: { consumer: string; service: string; daily_limit: number };
  quota_usage: { consumer: string; service: string; day: string; used: number };
  /** Compute's resources of every kind (see migration 0008): `location` is `global`, a region's or a zone's name. */
  compute_resources: { kind: string; project_number: string; location: string; name: string; id: string; creation_ms: number; body: string };
  compute_operations: { name: string; id: string; project_number: string; location: string; request_id: string | null; insert_ms: number };
  media_channels: MediaRow & { owner_principal: string | null; content_owner: string | null };
  media_videos: MediaRow;
  media_playlists: MediaRow;
  media_content_owners: { id: string; seq: number; display_name: string; linked_principals: string; resource: string };
  media_meta: { name: string; value: number };
  media_resources: { type: string; id: string; resource: string };
  fault_rules: { id: string; position: number; rule: string; matched: number; injected: number };
}

/** A media catalogue row (see migration 0004_media). */
export interface MediaRow {
  id: string;
  seq: number;
  channel_id: string;
  published_at: number;
  title: string;
  description: string;
  search_text: string;
  attrs: string;
}

export type TableName = keyof Database;
