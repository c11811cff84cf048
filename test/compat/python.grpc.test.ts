/**
 * Python's grpcio against `cloudtwin serve` with the README's channel idiom: a channel that
 * carries the token for every call, `grpc.composite_channel_credentials(
 * grpc.local_channel_credentials(), grpc.access_token_call_credentials(T))` (cleartext to
 * loopback), and over TLS with `grpc.ssl_channel_credentials(CA)` in place of the local
 * credentials (a `--tls` server's local CA). The API Keys GAPIC package is not on the registries these machines reach, so the
 * calls are generic unary calls with hand-encoded messages. Skipped where `grpcio` is not installed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pythonWithGrpc } from '../support/python.ts';
import { type ServerProcess, adminOverTls, serverForSuite, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { DEMO, testWorld } from '../support/world.ts';

const PYTHON = pythonWithGrpc();

const SCRIPT = String.raw`
import sys, grpc
addr, token, parent, ca = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
# The README's idiom; with --tls the CA's certificate in place of local credentials.
transport = grpc.local_channel_credentials() if ca == '-' else grpc.ssl_channel_credentials(open(ca, 'rb').read())
channel = grpc.secure_channel(addr, grpc.composite_channel_credentials(transport, grpc.access_token_call_credentials(token)))
def field(n, s):
    b = s.encode()
    return bytes([n << 3 | 2, len(b)]) + b
ident = lambda x: x
list_keys = channel.unary_unary('/google.api.apikeys.v2.ApiKeys/ListKeys', request_serializer=ident, response_deserializer=ident)
list_keys(field(1, parent), timeout=10)
print('list ok')
get_key = channel.unary_unary('/google.api.apikeys.v2.ApiKeys/GetKey', request_serializer=ident, response_deserializer=ident)
try:
    get_key(field(1, parent + '/keys/nope'), timeout=10)
except grpc.RpcError as e:
    md = dict(e.trailing_metadata() or ())
    print('get', e.code().name, e.details(), 'details-bin' if 'grpc-status-details-bin' in md else 'no-details')
bare = grpc.insecure_channel(addr) if ca == '-' else grpc.secure_channel(addr, transport)
try:
    bare.unary_unary('/google.api.apikeys.v2.ApiKeys/ListKeys', request_serializer=ident, response_deserializer=ident)(field(1, parent), timeout=10)
except grpc.RpcError as e:
    md = dict(e.trailing_metadata() or ())
    print('anonymous', e.code().name, 'details-bin' if 'grpc-status-details-bin' in md else 'no-details')
if ca != '-':
    try:
        grpc.insecure_channel(addr).unary_unary('/google.api.apikeys.v2.ApiKeys/ListKeys', request_serializer=ident, response_deserializer=ident)(field(1, parent), timeout=5)
    except grpc.RpcError as e:
        print('cleartext', e.code().name)
`;

/** Runs SCRIPT against `server` (with `ca`: over TLS trusting it) as alice; its output. */
async function runScript(server: ServerProcess, ca = '-'): Promise<string> {
  const token = (await adminOf(server, ca)('POST', '/_twin/v1/tokens', { principal: 'alice@example.com' })).access_token;
  return new Promise<string>((resolve, reject) =>
    execFile(PYTHON!, ['-c', SCRIPT, `127.0.0.1:${server.port}`, token, `projects/${DEMO.projectId}/locations/global`, ca], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );
}

/** The admin API of `server`, over TLS trusting `ca` when one is given. */
function adminOf(server: ServerProcess, ca: string): ServerProcess['admin'] {
  return ca === '-' ? server.admin : (method, path, body) => adminOverTls(server, readFileSync(ca), method, path, body);
}

/** The lines both transports print: the list, a NOT_FOUND without details, UNAUTHENTICATED with its ErrorInfo. */
function assertAnswers(out: string): void {
  assert.match(out, /^list ok$/m);
  assert.match(out, /^get NOT_FOUND Requested entity was not found\. no-details$/m, out);
  // Without the token: UNAUTHENTICATED with its ErrorInfo (CREDENTIALS_MISSING) in grpc-status-details-bin.
  assert.match(out, /^anonymous UNAUTHENTICATED details-bin$/m, out);
}

describe('Python grpcio: the README channel idiom', { skip: PYTHON ? false : 'no python3 with grpcio (pip install grpcio, or apt-get install python3-grpcio)' }, () => {
  const suite = serverForSuite(testWorld);

  it('sends the token on every call through the channel; errors carry their status and details', async () => {
    assertAnswers(await runScript(suite.server));
  });
});

describe('Python grpcio over TLS: ssl_channel_credentials with the local CA', { skip: PYTHON ? false : 'no python3 with grpcio (pip install grpcio, or apt-get install python3-grpcio)' }, () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let ca: string;
  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, args: ['--tls'] });
    ca = join(server.dataDir, 'tls', 'ca.pem');
    await adminOf(server, ca)('POST', '/_twin/v1/world:apply', testWorld);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('answers as over cleartext; an insecure channel to the TLS port is UNAVAILABLE', async () => {
    const out = await runScript(server, ca);
    assertAnswers(out);
    assert.match(out, /^cleartext UNAVAILABLE$/m, out);
  });
});
