import { pacificOffsetMinutes } from '../../platform/clock/pacific.ts';

/** Names, links and formats of the Compute v1 service. */
export const SERVICE = 'compute.googleapis.com';
/** Links in stored resources and answers use this base, as the real service writes them. */
export const LINK_BASE = 'https://www.googleapis.com/compute/v1/';
export const BASE_PATH = '/compute/v1';

/** Path parameter patterns, as the discovery document gives them. */
export const PROJECT_PATTERN = /^(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?(?:[0-9]{1,19}|(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?))$/;
export const REGION_PATTERN = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
/** A resource name or a decimal id (`resourceId` in the discovery document). */
export const RESOURCE_PATTERN = /^(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[1-9][0-9]{0,19})$/;
/** `operation-<epochMs>-<13 hex>-<8 hex>-<8 hex>` or a decimal id. */
export const OPERATION_PATTERN = /^(?:[-a-z0-9]{1,63}|[1-9][0-9]{0,19})$/;
export const IMAGE_PATTERN = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

export const defaultServiceAccount = (projectNumber: string) => `${projectNumber}-compute@developer.gserviceaccount.com`;

/** The operation's name: `operation-<epochMs>-<13 hex>-<8 hex>-<8 hex>`. */
export function operationName(nowMs: number, hex: string): string {
  return `operation-${nowMs}-${hex.slice(0, 13)}-${hex.slice(13, 21)}-${hex.slice(21, 29)}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The last timestamp written: an insert writes the same instant up to four times (created, started, ended, its operation's insert time). */
let lastMs = NaN;
let lastText = '';

/** RFC 3339 with milliseconds in Pacific time, as Compute writes its timestamps: `2024-05-01T09:12:03.456-07:00`. */
export function computeTimestamp(ms: number): string {
  if (ms === lastMs) return lastText;
  lastText = formatTimestamp(ms);
  lastMs = ms;
  return lastText;
}

function formatTimestamp(ms: number): string {
  const offsetMin = pacificOffsetMinutes(ms);
  const d = new Date(ms + offsetMin * 60_000);
  const abs = Math.abs(offsetMin);
  const off = `${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}${off}`;
}
