import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { freshDatabase, type TestDatabase } from '../support/store.ts';
import { startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';
import type { RouteInfo } from '../../src/platform/http/routes.ts';
import { appRoutes, fillPath } from './routes.ts';

/**
 * A real key string (and a real access token) sent in every place a request can carry one, to
 * every route of every service (read from the app's route table, so later services are covered):
 * no answer and no line of the server's whole log (at trace level) may repeat it.
 */
describe('secrets are never repeated in answers or logs', () => {
  let srv: ServerProcess;
  let db: TestDatabase;
  let routes: RouteInfo[];
  let keyString: string;
  let token: string;
  let keyId: string;
  const hits: string[] = [];
  let requests = 0;

  before(async () => {
    const t = await startTestTwin();
    routes = await appRoutes(t.twin.app);
    await t.close();
    db = await freshDatabase();
    srv = await startServer({ databaseUrl: db.url, args: ['--log-level', 'trace'] });
    await srv.admin('POST', '/_twin/v1/world:apply', testWorld);
    token = (await srv.admin('POST', '/_twin/v1/tokens', { principal: ALICE })).access_token;
    const res = await fetch(`${srv.url}/v2/projects/${DEMO.projectId}/locations/global/keys?keyId=scan-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const op = await res.json();
    keyString = op.response.keyString;
    keyId = 'scan-key';
    assert.match(keyString, /^AIza[0-9A-Za-z_-]{35}$/);
  });
  after(async () => {
    await srv?.stop();
    srv?.cleanup();
    await db?.drop();
  });

  async function send(route: RouteInfo, what: string, path: string, init: { query?: string; headers?: Record<string, string>; body?: string; type?: string; anonymous?: boolean } = {}): Promise<void> {
    const headers: Record<string, string> = { ...(init.anonymous ? {} : { authorization: `Bearer ${token}` }), ...init.headers };
    if (init.type) headers['content-type'] = init.type;
    const hasBody = init.body !== undefined && route.method !== 'GET';
    const res = await fetch(`${srv.url}${path}${init.query ? `?${init.query}` : ''}`, { method: route.method, headers, body: hasBody ? init.body : undefined, redirect: 'manual' });
    const text = await res.text();
    requests++;
    // The places a key string is meant to be answered: getKeyString of the caller's own key, and the
    // deletion of that key, whose operation answers the deleted Key as the real service does (REFERENCE.md).
    const legit = res.ok && (/\/keyString$/.test(route.url) || (route.method === 'DELETE' && route.url.startsWith('/v2/projects/')));
    const answer = JSON.stringify([...res.headers]) + text;
    if (!legit && answer.includes(keyString)) hits.push(`${route.method} ${route.url} ${what}: ${res.status} ${text.slice(0, 300)}`);
    if (answer.includes(token)) hits.push(`${route.method} ${route.url} ${what}: token in answer ${text.slice(0, 300)}`);
  }

  test('every route, every place', async () => {
    const K = keyString;
    const enc = encodeURIComponent(K);
    const extra = new Map([['key', keyId]]);
    for (const route of routes) {
      const path = fillPath(route, extra);
      const cases: [string, Parameters<typeof send>[3]][] = [
        ['query once', { query: `keyString=${enc}` }],
        ['key= once', { query: `key=${enc}` }],
        ['query twice', { query: `keyString=${enc}&keyString=${enc}` }],
        ['key= twice', { query: `key=${enc}&key=${enc}` }],
        ['mixed with bad values', { query: `keyString=bad&keyString=${enc}&pageSize=abc&showDeleted=maybe&maxResults=-5` }],
        ['proto and JSON names', { query: `key_string=${enc}&keyString=${enc}` }],
        ['percent-encoded name', { query: `key%53tring=${enc}&ke%79=${enc}` }],
        ['as access_token', { query: `access_token=${enc}` }],
        ['as a parameter name', { query: `${enc}=1` }],
        ['as a fields selector', { query: `fields=${enc}` }],
        ['as every kind of value', { query: ['pageToken', 'filter', 'q', 'etag', 'updateMask', 'keyId', 'orderBy', 'part', 'id'].map((n) => `${n}=${enc}`).join('&') }],
        ['X-Goog-Api-Key', { headers: { 'x-goog-api-key': K } }],
        // With no token, an API key is the credential (media): key checks and their errors run.
        ['key= alone', { query: `key=${enc}`, anonymous: true }],
        ['key= alone, with bad values', { query: `key=${enc}&part=${enc}&q=${enc}&maxResults=${enc}&type=${enc}`, anonymous: true }],
        ['X-Goog-Api-Key alone', { headers: { 'x-goog-api-key': K }, anonymous: true }],
        ['key= alone, twice', { query: `key=${enc}&key=${enc}`, anonymous: true }],
        ['Authorization', { headers: { authorization: `Bearer ${K}` } }],
        ['Authorization, not bearer', { headers: { authorization: K } }],
        ['body of the wrong type', { body: JSON.stringify({ keyString: [K], displayName: { x: K }, key: 5 }), type: 'application/json' }],
        ['body: a string', { body: JSON.stringify(K), type: 'application/json' }],
        ['body: a list', { body: JSON.stringify([K]), type: 'application/json' }],
        ['body: a field name', { body: JSON.stringify({ [K]: 1 }), type: 'application/json' }],
        ['body: malformed JSON', { body: `{"keyString": "${K}"`, type: 'application/json' }],
        ['body: form', { body: `keyString=${enc}&assertion=${enc}&grant_type=${enc}`, type: 'application/x-www-form-urlencoded' }],
        ['body: YAML', { body: `keyString: [${K}`, type: 'application/yaml' }],
      ];
      // A route's cases are independent of each other: sent eight at a time (the whole walk is 9,000 requests).
      for (let i = 0; i < cases.length; i += 8) await Promise.all(cases.slice(i, i + 8).map(([what, init]) => send(route, what, path, init)));
      // In the path: every variable of the route in turn.
      for (const name of route.url.match(/:([A-Za-z_][A-Za-z0-9_]*)/g) ?? []) {
        await send(route, `in the path as ${name}`, fillPath(route, extra, (n) => (`:${n}` === name ? K : undefined)));
      }
    }
    assert.deepEqual(hits, [], `${hits.length} of ${requests} answers repeat a secret`);
    assert.ok(requests > routes.length * 20);
  });

  test("the server's whole log never repeats the key string or the token", async () => {
    await srv.stop();
    const log = srv.output();
    assert.ok(log.split('\n').length > requests, `the log has ${log.split('\n').length} lines for ${requests} requests: trace logging is on`);
    const lines = log.split('\n').filter((l) => l.includes(keyString) || l.includes(token));
    assert.deepEqual(lines.map((l) => l.slice(0, 400)), []);
  });
});
