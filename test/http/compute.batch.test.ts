/**
 * POST /batch/compute/v1: multipart/mixed of application/http requests, each answered as its own
 * request (the outer request's headers, its Authorization among them, apply to every part; a
 * part's own header wins), in order, in a multipart/mixed answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { MALLORY } from '../support/world.ts';
import { P, VIC, computeWorld } from './compute.helpers.ts';

const BOUNDARY = '===============7330845974216740156==';

/** A batch body as apitools (gcloud) writes it: LF line ends, Content-ID <uuid+N>. */
function batchBody(parts: { method?: string; path?: string; headers?: Record<string, string>; type?: string; raw?: string }[]): string {
  return (
    parts
      .map((p, i) => {
        const head = `--${BOUNDARY}\nContent-Type: ${p.type ?? 'application/http'}\nMIME-Version: 1.0\nContent-Transfer-Encoding: binary\nContent-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+${i + 1}>\n\n`;
        if (p.raw !== undefined) return head + p.raw + '\n';
        const headers = Object.entries({ 'content-type': 'application/json', accept: 'application/json', ...p.headers }).map(([k, v]) => `${k}: ${v}\n`).join('');
        return `${head}${p.method ?? 'GET'} ${p.path} HTTP/1.1\n${headers}Host: compute.googleapis.com\n\n\n`;
      })
      .join('') + `--${BOUNDARY}--\n`
  );
}

interface PartAnswer {
  contentId: string;
  status: number;
  body: any;
}

/** Parses a multipart/mixed answer as apitools does: each part's Content-ID, status line and JSON body. */
function parseAnswer(contentType: string, body: string): PartAnswer[] {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)![2];
  const chunks = body.split(`--${boundary}`).slice(1);
  assert.equal(chunks.at(-1)!.trim(), '--', 'the answer ends with the close delimiter');
  return chunks.slice(0, -1).map((chunk) => {
    const [head, ...rest] = chunk.trim().split(/\r\n\r\n/);
    const http = rest.join('\r\n\r\n');
    const [statusHead, ...bodyParts] = http.split(/\r\n\r\n/);
    const contentId = /Content-ID: (.*)/i.exec(head)![1].trim();
    assert.match(head, /Content-Type: application\/http/i);
    return { contentId, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusHead)![1]), body: JSON.parse(bodyParts.join('\r\n\r\n')) };
  });
}

describe('POST /batch/compute/v1', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());
  const batch = (who: string | null, payload: string, headers: Record<string, string> = {}) =>
    t.call(who, { method: 'POST', url: '/batch/compute/v1', payload, headers: { 'content-type': `multipart/mixed; boundary="${BOUNDARY}"`, ...headers } });

  test('each part is answered as its own request under the outer credential, in order', async () => {
    const res = await batch(
      VIC,
      batchBody([
        { path: `/compute/v1/projects/${P}/global/networks?alt=json&maxResults=500` },
        { path: `/compute/v1/projects/debian-cloud/global/images?alt=json` },
        { path: `/compute/v1/projects/rhel-sap-cloud/global/images?alt=json` },
        { path: `/compute/v1/projects/${P}/zones/us-central1-a` },
        { path: `/compute/v1/projects/${P}/global/networks/nope` },
      ]),
    );
    assert.equal(res.statusCode, 200, res.body);
    const parts = parseAnswer(String(res.headers['content-type']), res.body);
    assert.deepEqual(parts.map((p) => p.status), [200, 200, 200, 200, 404]);
    assert.deepEqual(parts.map((p) => p.contentId), [1, 2, 3, 4, 5].map((n) => `<response-b29c5de2-0db4-490b-b421-6a51b598bd22+${n}>`));
    assert.equal(parts[0].body.kind, 'compute#networkList');
    assert.ok(parts[1].body.items.length > 0);
    assert.equal(parts[2].body.items, undefined, 'a public image project without catalogue images lists none');
    assert.equal(parts[3].body.name, 'us-central1-a');
    assert.equal(parts[4].body.error.errors[0].reason, 'notFound');
    // Each part is the same answer as the request made alone.
    const alone = await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/global/networks` });
    assert.deepEqual(parts[0].body, alone.json());
  });

  test('a bad part is answered 400 in its place; the others are answered', async () => {
    const res = await batch(
      VIC,
      batchBody([
        { path: `/compute/v1/projects/${P}/regions` },
        { type: 'text/plain', raw: 'hello' },
        { raw: 'NOT A REQUEST LINE' },
        { path: '/v2/projects/demo-project/locations/global/keys' },
        { method: 'POST', path: `/compute/v1/projects/${P}/global/images` },
      ]),
    );
    assert.equal(res.statusCode, 200, res.body);
    const parts = parseAnswer(String(res.headers['content-type']), res.body);
    assert.deepEqual(parts.map((p) => p.status), [200, 400, 400, 400, 501]);
    assert.match(parts[1].body.error.message, /application\/http/);
    assert.match(parts[3].body.error.message, /\/compute\/v1/);
  });

  test("a part's own Authorization is used for that part; without any credential each part is 401", async () => {
    const mallory = await t.token(MALLORY);
    const res = await batch(
      VIC,
      batchBody([{ path: `/compute/v1/projects/${P}/global/networks` }, { path: `/compute/v1/projects/${P}/global/networks`, headers: { authorization: `Bearer ${mallory}` } }]),
    );
    const parts = parseAnswer(String(res.headers['content-type']), res.body);
    assert.deepEqual(parts.map((p) => p.status), [200, 403]);
    const anonymous = await batch(null, batchBody([{ path: `/compute/v1/projects/${P}/global/networks` }, { path: `/compute/v1/projects/${P}/zones` }]));
    assert.equal(anonymous.statusCode, 200);
    assert.deepEqual(parseAnswer(String(anonymous.headers['content-type']), anonymous.body).map((p) => p.status), [401, 401]);
  });

  test('a body that is not multipart/mixed with a boundary, or with no parts, is 400', async () => {
    const json = await t.call(VIC, { method: 'POST', url: '/batch/compute/v1', payload: { a: 1 } });
    assert.equal(json.statusCode, 400, json.body);
    assert.equal(json.json().error.errors[0].domain, 'global');
    const empty = await batch(VIC, `--${BOUNDARY}--\n`);
    assert.equal(empty.statusCode, 400, empty.body);
  });
});
