/**
 * The discovery conformance check: every successful Compute answer must validate against the
 * response schema of its method in Google's discovery document (field names, JSON types with
 * int64/uint64 as strings, enum values, RFC 3339 timestamps), through the table
 * `scripts/generate-discovery-tables.ts` makes of it. `startTestTwin` records every Compute
 * answer its `call` gets and fails the suite (at close) on the first answers that do not conform;
 * other suites call `computeAnswerProblems` / `assertComputeConforms` themselves.
 */
import assert from 'node:assert/strict';
import { COMPUTE_SCHEMAS } from '../../src/services/compute/discovery/schema.ts';

const PREFIX = '/compute/v1/';

/** The discovery methods as URL matchers (more literal segments first, so `images/family/{f}` beats `images/{image}/...`). */
const MATCHERS = COMPUTE_SCHEMAS.methods.map((m) => {
  const segments = m.path.split('/');
  const re = new RegExp(`^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
  return { ...m, re, literals: segments.filter((s) => !s.startsWith('{')).length };
}).sort((a, b) => b.literals - a.literals);

/** The discovery method a Compute request calls, if any: `compute.networks.get` and its response schema. */
export function computeMethodOf(verb: string, url: string): { id: string; response: string } | undefined {
  const path = url.split('?')[0];
  if (!path.startsWith(PREFIX)) return undefined;
  const rest = path.slice(PREFIX.length);
  const m = MATCHERS.find((x) => x.verb === verb.toUpperCase() && x.re.test(rest));
  return m && { id: m.id, response: m.response };
}

/** Problems of one answer: [] when it conforms, is not a Compute method's, is an error, or has no body. */
export function computeAnswerProblems(verb: string, url: string, status: number, body: string): string[] {
  if (status < 200 || status >= 300 || !body.trim()) return [];
  const method = computeMethodOf(verb, url);
  if (!method?.response) return [];
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [`${verb} ${url}: the answer is not JSON`];
  }
  return COMPUTE_SCHEMAS.conformanceProblems(method.response, value).map((p) => `${verb} ${url.split('?')[0]} (${method.id} -> ${method.response}) ${p}`);
}

export function assertComputeConforms(verb: string, url: string, status: number, body: string): void {
  const problems = computeAnswerProblems(verb, url, status, body);
  assert.deepEqual(problems, [], problems.slice(0, 20).join('\n'));
}

/** Collects the problems of many answers (a suite's); `check` throws listing the first ones. */
export class ConformanceRecorder {
  readonly problems: string[] = [];
  answers = 0;

  record(verb: string, url: string, status: number, body: string): void {
    if (!url.startsWith(PREFIX)) return;
    this.answers++;
    if (this.problems.length < 100) this.problems.push(...computeAnswerProblems(verb, url, status, body));
  }

  check(): void {
    if (this.problems.length) throw new Error(`Compute answers that do not conform to the discovery document:\n${this.problems.slice(0, 30).join('\n')}`);
  }
}

/**
 * For suites that drive a `cloudtwin serve` process (started with `--journal-bodies`): checks every
 * successful Compute answer the server's request journal kept against its method's response
 * schema, and answers how many were checked (answers the journal kept only as truncated text are
 * skipped). Call it after the suite's commands, e.g. in `after`.
 */
export async function assertJournalConforms(serverUrl: string, adminToken: string): Promise<number> {
  const res = await fetch(`${serverUrl}/_twin/v1/requests?limit=10000`, { headers: { authorization: `Bearer ${adminToken}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { requests?: Record<string, any>[] };
  const responseOf = new Map(COMPUTE_SCHEMAS.methods.map((m) => [m.id, m.response]));
  const problems: string[] = [];
  let checked = 0;
  for (const e of body.requests ?? []) {
    const schema = responseOf.get(e.method);
    if (!schema || e.status < 200 || e.status >= 300 || e.responseBody === null || typeof e.responseBody !== 'object') continue;
    checked++;
    problems.push(...COMPUTE_SCHEMAS.conformanceProblems(schema, e.responseBody).map((p) => `${e.httpMethod} ${e.url} (${e.method} -> ${schema}) ${p}`));
  }
  assert.deepEqual(problems, [], `Compute answers that do not conform to the discovery document:\n${problems.slice(0, 30).join('\n')}`);
  return checked;
}
