import { rfc3339 } from '../../platform/clock/clock.ts';
import type { Database } from '../../platform/store/schema.ts';
import type { Restrictions } from './restrictions/types.ts';
import { keyName } from './names.ts';

/** A stored key: the wire fields plus what the store needs (the sealed key string). */
export interface ApiKeyRecord {
  uid: string;
  projectNumber: string;
  keyId: string | null;
  displayName: string;
  keyCipher: string;
  keyHash: string;
  restrictions: Restrictions;
  annotations: Record<string, string>;
  serviceAccountEmail: string | null;
  etag: string;
  createTime: number;
  updateTime: number;
  deleteTime: number | null;
}

/** The wire form of a Key (`google.api.apikeys.v2.Key`), field order as the real service writes it. */
export interface WireKey {
  name: string;
  displayName?: string;
  keyString?: string;
  createTime: string;
  uid: string;
  updateTime: string;
  deleteTime?: string;
  annotations?: Record<string, string>;
  restrictions?: Restrictions;
  etag: string;
  serviceAccountEmail?: string;
}

export const RESTORE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** A deleted key is purged (gone for good) 30 days after its deletion. */
export function isPurged(k: Pick<ApiKeyRecord, 'deleteTime' | 'keyId'>, nowMs: number): boolean {
  return k.keyId === null || (k.deleteTime !== null && k.deleteTime + RESTORE_WINDOW_MS <= nowMs);
}

export function toWireKey(k: ApiKeyRecord, keyString?: string): WireKey {
  const w: WireKey = { name: keyName(k.projectNumber, k.keyId ?? k.uid) } as WireKey;
  if (k.displayName) w.displayName = k.displayName;
  if (keyString) w.keyString = keyString;
  w.createTime = rfc3339(k.createTime);
  w.uid = k.uid;
  w.updateTime = rfc3339(k.updateTime);
  if (k.deleteTime !== null) w.deleteTime = rfc3339(k.deleteTime);
  if (Object.keys(k.annotations).length) w.annotations = k.annotations;
  if (Object.keys(k.restrictions).length) w.restrictions = k.restrictions;
  w.etag = k.etag;
  if (k.serviceAccountEmail) w.serviceAccountEmail = k.serviceAccountEmail;
  return w;
}

export function fromRow(r: Database['api_keys']): ApiKeyRecord {
  return {
    uid: r.uid,
    projectNumber: r.project_number,
    keyId: r.key_id,
    displayName: r.display_name,
    keyCipher: r.key_cipher,
    keyHash: r.key_hash,
    restrictions: JSON.parse(r.restrictions),
    annotations: JSON.parse(r.annotations),
    serviceAccountEmail: r.service_account_email,
    etag: r.etag,
    createTime: r.create_time,
    updateTime: r.update_time,
    deleteTime: r.delete_time,
  };
}

export function toRow(k: ApiKeyRecord): Database['api_keys'] {
  return {
    uid: k.uid,
    project_number: k.projectNumber,
    key_id: k.keyId,
    display_name: k.displayName,
    key_cipher: k.keyCipher,
    key_hash: k.keyHash,
    restrictions: JSON.stringify(k.restrictions),
    annotations: JSON.stringify(k.annotations),
    service_account_email: k.serviceAccountEmail,
    etag: k.etag,
    create_time: k.createTime,
    update_time: k.updateTime,
    delete_time: k.deleteTime,
  };
}
