/** Helpers of the media compatibility suites (spawned servers). */
import assert from 'node:assert/strict';
import type { ServerProcess } from '../support/server.ts';
import { ALICE, DEMO } from '../support/world.ts';

/** Creates a key through the API Keys REST API (as ALICE) and returns its key string. */
export async function issueKey(server: ServerProcess, restrictions?: Record<string, unknown>): Promise<string> {
  const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
  const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
  let op: any = await (await fetch(`${server.url}/v2/projects/${DEMO.projectId}/locations/global/keys`, { method: 'POST', headers, body: JSON.stringify(restrictions ? { restrictions } : {}) })).json();
  for (let i = 0; !op.done && i < 200; i++) {
    await new Promise((r) => setTimeout(r, 25));
    op = await (await fetch(`${server.url}/v2/${op.name}`, { headers })).json();
  }
  assert.equal(op.done, true, JSON.stringify(op));
  return op.response.keyString;
}
