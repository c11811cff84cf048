/**
 * The request log through the whole server: exactly one line per request, written at its
 * completion, with method, masked URL, status, latency, principal and reqId (docs/operations.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

describe('request log: one line per request', () => {
  const lines: Record<string, any>[] = [];
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ logger: { level: 'info', stream: { write: (s: string) => void lines.push(JSON.parse(s)) } } });
  });
  after(() => t?.close());

  it('each request of a mix (API, admin, errors, unknown URLs) is exactly one line, with its own reqId', async () => {
    const token = await t.token(ALICE);
    lines.length = 0;
    const requests = [
      { method: 'GET' as const, url: `/v2/projects/${DEMO.projectId}/locations/global/keys`, headers: { authorization: `Bearer ${token}` } },
      { method: 'POST' as const, url: `/v2/projects/${DEMO.projectId}/locations/global/keys?keyId=logged`, headers: { authorization: `Bearer ${token}` }, payload: {} },
      { method: 'GET' as const, url: `/v2/projects/${DEMO.projectId}/locations/global/keys`, headers: { authorization: 'Bearer not-a-token' } },
      { method: 'GET' as const, url: '/no/such/path' },
      { method: 'GET' as const, url: '/_twin/v1/health' },
    ];
    for (const r of requests) await t.twin.app.inject(r);
    const requestLines = lines.filter((l) => l.reqId !== undefined);
    assert.equal(requestLines.length, requests.length, JSON.stringify(lines, null, 1));
    assert.equal(new Set(requestLines.map((l) => l.reqId)).size, requests.length);
    assert.deepEqual(requestLines.map((l) => [l.method, l.status]), [['GET', 200], ['POST', 200], ['GET', 401], ['GET', 404], ['GET', 200]]);
    assert.equal(requestLines[0].principal, ALICE, 'the authenticated principal');
    assert.equal(requestLines[2].principal, undefined, 'no principal for a refused credential');
    for (const l of requestLines) {
      assert.equal(l.msg, 'request completed');
      assert.equal(typeof l.responseTime, 'number');
    }
  });

  it('key strings in the URL are masked', async () => {
    const token = await t.token(ALICE);
    lines.length = 0;
    await t.twin.app.inject({ url: '/v2/keys:lookupKey?keyString=AIzaSyD0000000000000000000000000000000', headers: { authorization: `Bearer ${token}` } });
    assert.equal(lines.length, 1);
    assert.equal(lines[0].url, '/v2/keys:lookupKey?keyString=REDACTED');
  });

  it('an admin token or a JWT under any parameter name is masked', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJjaUBleGFtcGxlLmNvbSJ9.c2lnbmF0dXJl';
    lines.length = 0;
    await t.twin.app.inject({ url: `/_twin/v1/health?debug=ctadm_0123456789abcdefghijklmnopqrstuv&note=${jwt}&adminToken=plain-secret` });
    assert.equal(lines.length, 1);
    assert.equal(lines[0].url, '/_twin/v1/health?debug=REDACTED&note=REDACTED&adminToken=REDACTED');
  });
});
