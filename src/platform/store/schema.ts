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
  service_account_keys: { key_id: string; email: string; public_key_pem: string; created_at: number };
  iam_policies: { resource: string; bindings: string; etag: string };
  custom_roles: { name: string; title: string | null; permissions: string };
  org_policies: { resource: string; constraint_name: string; enforce: number };
  access_tokens: { token_hash: string; principal: string; scopes: string; expires_at: number };
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
  world_sections: { section: string; body: string };
}

export type TableName = keyof Database;
