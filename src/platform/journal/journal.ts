import { REDACTED, isSecretName, redactUrl, scrubSecrets } from '../http/secrets.ts';

/** What the journal says of an error answer: its canonical status, Google reason and message. */
export interface JournalError {
  status: string;
  reason?: string;
  message: string;
}

/** A fault rule that acted on the call. */
export interface JournalFault {
  rule: string;
  action: string;
}

/** One public API call, as the journal keeps it (never a key string, token or private key). */
export interface JournalEntry {
  /** Position in this process's journal, from 1; `after=` pages on it. */
  seq: number;
  /** When the call arrived (epoch ms, the real clock). */
  timeMs: number;
  /** The discovery method id (`youtube.search.list`). */
  method: string;
  service: string;
  httpMethod: string;
  /**
   * The request URL as received. The ring lives in the server's memory like the request did;
   * whatever reads it out (`readableEntry`) masks every credential in it first.
   */
  url: string;
  principal?: string;
  /** The id of the API key the call carried (its last name segment), never its string. */
  apiKeyId?: string;
  /**
   * The project's id, whichever form the call named it by: a key's name and a key's identity
   * carry the project's number, a client may name either.
   */
  project?: string;
  /** HTTP status; 0 when the connection was reset before any answer. */
  status: number;
  error?: JournalError;
  latencyMs: number;
  /** The server's request id (the `reqId` of its log lines). */
  requestId: string;
  fault?: JournalFault;
  /** The long-running operation the call started or read. */
  operation?: string;
  /** Only with `--journal-bodies`, credentials masked. */
  requestBody?: unknown;
  responseBody?: unknown;
}

/** The filters of `GET /_twin/v1/requests`. */
export interface JournalQuery {
  /** A discovery id, or a pattern with `*` (any run of characters). */
  method?: string;
  principal?: string;
  project?: string;
  /** An HTTP code (`429`), a class (`5xx`), a canonical status (`UNAVAILABLE`) or `error` / `ok`. */
  status?: string;
  /** Entries at or after this time (epoch ms). */
  sinceMs?: number;
  /** Entries after this sequence number (a console polling for new entries). */
  after?: number;
  /** At most this many, newest first. */
  limit?: number;
}

/** A project's id from its id or number, undefined for a project the world does not know (it is then recorded as the call named it). */
export type ProjectIdOf = (idOrNumber: string) => string | undefined;

export const DEFAULT_JOURNAL_SIZE = 10_000;
export const MAX_JOURNAL_LIMIT = 10_000;

/**
 * A `*` pattern (method ids in fault rules and journal filters) as a test: `*` is any run of
 * characters, everything else itself. Matched without a regular expression, in time linear in
 * the id times the pattern whatever the pattern (`*********a` against a long id included): the
 * first and last literal runs anchor the ends, each run between two stars is found at its
 * leftmost place after the previous one (taking the leftmost place never loses a match).
 */
export function methodPattern(pattern: string): (id: string) => boolean {
  if (!pattern.includes('*')) return (id) => id === pattern;
  const runs = pattern.split('*');
  const head = runs[0];
  const tail = runs[runs.length - 1];
  const middle = runs.slice(1, -1).filter((r) => r !== '');
  const least = runs.reduce((n, r) => n + r.length, 0);
  return (id) => {
    if (id.length < least || !id.startsWith(head) || !id.endsWith(tail)) return false;
    let at = head.length;
    const end = id.length - tail.length;
    for (const run of middle) {
      const found = id.indexOf(run, at);
      if (found < 0 || found + run.length > end) return false;
      at = found + run.length;
    }
    return true;
  };
}

function statusTest(status: string): (e: JournalEntry) => boolean {
  if (/^\d{3}$/.test(status)) return (e) => e.status === Number(status);
  if (/^\dxx$/i.test(status)) return (e) => Math.floor(e.status / 100) === Number(status[0]);
  if (status === 'error') return (e) => e.status === 0 || e.status >= 400;
  if (status === 'ok') return (e) => e.status > 0 && e.status < 400;
  return (e) => e.error?.status === status;
}

/**
 * The request journal: the last `capacity` public API calls of this process, in a ring (an
 * array that grows to `capacity`, then is written round; the oldest entry is overwritten).
 * Recording is a few field writes; every filter is applied when the journal is read.
 */
export class Journal {
  readonly capacity: number;
  readonly bodies: boolean;
  /** Grows to `capacity` with the first calls (a server that takes none holds none of it), then is written round. */
  #ring: (JournalEntry | undefined)[] = [];
  readonly #projectId: ProjectIdOf;
  #next = 0;
  #seq = 0;

  constructor(opts: { capacity?: number; bodies?: boolean; projectId?: ProjectIdOf } = {}) {
    this.capacity = opts.capacity ?? DEFAULT_JOURNAL_SIZE;
    if (!Number.isInteger(this.capacity) || this.capacity < 0) throw new Error(`journal size must be a whole number >= 0, not ${opts.capacity}`);
    this.bodies = opts.bodies ?? false;
    this.#projectId = opts.projectId ?? (() => undefined);
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  /** How many entries the ring holds now. */
  get size(): number {
    return Math.min(this.#seq - this.#cleared, this.capacity);
  }

  #cleared = 0;

  /** Records one call (`seq` is assigned here; a project named by its number is recorded by its id). */
  record(entry: Omit<JournalEntry, 'seq'>): void {
    if (this.capacity === 0) return;
    const e = entry as JournalEntry;
    e.seq = ++this.#seq;
    if (e.project !== undefined) e.project = this.#projectId(e.project) ?? e.project;
    this.#ring[this.#next] = e;
    this.#next = this.#next + 1 === this.capacity ? 0 : this.#next + 1;
  }

  /** Matching entries, newest first. */
  query(q: JournalQuery = {}): JournalEntry[] {
    const limit = Math.min(q.limit ?? 100, MAX_JOURNAL_LIMIT);
    const tests: ((e: JournalEntry) => boolean)[] = [];
    if (q.method) {
      const m = methodPattern(q.method);
      tests.push((e) => m(e.method));
    }
    if (q.principal) tests.push((e) => e.principal === q.principal || e.principal?.replace(/^[a-zA-Z]+:/, '') === q.principal);
    if (q.project) tests.push((e) => e.project === q.project);
    if (q.status) tests.push(statusTest(q.status));
    if (q.sinceMs !== undefined) tests.push((e) => e.timeMs >= q.sinceMs!);
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.size && out.length < limit; i++) {
      const e = this.#ring[(this.#next - i + this.capacity) % this.capacity]!;
      if (q.after !== undefined && e.seq <= q.after) break;
      if (tests.every((t) => t(e))) out.push(e);
    }
    return out;
  }

  clear(): void {
    this.#ring = [];
    this.#cleared = this.#seq;
    this.#next = 0;
  }

  /** The last sequence number given out (0 before the first call). */
  get lastSeq(): number {
    return this.#seq;
  }
}

/** A body as the journal keeps it: a copy with secret-named fields and credential-shaped text masked. */
export function redactedBody(body: unknown): unknown {
  if (body === undefined || body === null) return body;
  if (typeof body === 'string') {
    try {
      return redactedBody(JSON.parse(body));
    } catch {
      return scrubSecrets(body.length > 65536 ? body.slice(0, 65536) + '...' : body);
    }
  }
  return redactValue(body, 0);
}

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return scrubSecrets(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth > 64) return '...';
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSecretName(k) && x !== null && x !== undefined && x !== '' ? REDACTED : redactValue(x, depth + 1);
  return out;
}

/** A journal entry as the admin API gives it (the console reads this shape). */
export type ReadableJournalEntry = Omit<JournalEntry, 'timeMs' | 'url'> & { time: string; url: string; query: Record<string, string> };

/** An entry as it leaves the server: its URL masked (`query` is its masked parameters, decoded), its time as RFC 3339. */
export function readableEntry(e: JournalEntry): ReadableJournalEntry {
  const { timeMs, url: raw, ...rest } = e;
  return { ...rest, ...readableUrl(raw), time: new Date(timeMs).toISOString() };
}

/**
 * A URL with every credential masked: secret-named parameters (`redactUrl`), and anything
 * credential-shaped once percent-decoding is undone (a PEM key in `q=` arrives as `%20`s).
 */
function readableUrl(raw: string): { url: string; query: Record<string, string> } {
  let url = redactUrl(raw);
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query: Record<string, string> = {};
  let changed = false;
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : url.slice(q + 1))) {
    const masked = scrubSecrets(v);
    changed ||= masked !== v;
    query[scrubSecrets(k)] = masked;
  }
  let decodedPath = path;
  try {
    decodedPath = decodeURIComponent(path);
  } catch {
    // not percent-encoded text: as it is
  }
  const maskedPath = scrubSecrets(decodedPath);
  if (changed || maskedPath !== decodedPath) url = (maskedPath !== decodedPath ? encodeURI(maskedPath) : path) + (q < 0 ? '' : '?' + new URLSearchParams(query).toString());
  return { url, query };
}
