/**
 * What the Compute client suites share: a `cloudtwin serve` process (its own store, Compute
 * answers journaled with their bodies, the Compute world applied), the options of an
 * `@google-cloud/compute` REST client for a principal, an OAuth2Client for `googleapis`, and the
 * library's documented way to wait on an operation.
 */
import assert from 'node:assert/strict';
import { GlobalOperationsClient, RegionOperationsClient, ZoneOperationsClient } from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { CAROL } from '../support/world.ts';
import { P, computeWorld } from '../http/compute.helpers.ts';

export interface Closable {
  close(): Promise<void>;
}

/** The options of an `@google-cloud/compute` client over REST against the server. */
export type ComputeClientOptions = {
  apiEndpoint: string;
  port: number;
  protocol: 'http';
  fallback: true;
  authClient: OAuth2Client;
};

export interface ComputeClientsServer {
  server: ServerProcess;
  /** An OAuth2Client holding a cloud-platform token of `principal`, one of those the server was started for (what googleapis takes as `auth`). */
  auth(principal: string): OAuth2Client;
  /** REST client options authenticated as `principal`. */
  clientOptions(principal: string): ComputeClientOptions;
  /** Closes `client` with the server. */
  keep<C extends Closable>(client: C): C;
  /**
   * Waits on the operation a call starts the way the library documents: its zone, region or
   * global operations' `wait` until DONE (as CAROL); asserts it ended without error and answers it.
   */
  finished(call: Promise<[unknown, ...unknown[]]>): Promise<any>;
  /** Closes the clients, stops the server and drops its store. */
  close(): Promise<void>;
}

/**
 * Starts the server and mints a token for each of `principals` (CAROL always) before any client
 * is made: making a Compute client loads its protos, which can hold the event loop past the
 * server's keep-alive timeout under load, and a token fetched right after would reuse the closed
 * connection (`other side closed`).
 */
export async function startComputeClientsServer(principals: readonly string[] = []): Promise<ComputeClientsServer> {
  const db: TestDatabase = await freshDatabase();
  const server = await startServer({ databaseUrl: db.url, args: ['--journal-bodies'] });
  try {
    await server.admin('POST', '/_twin/v1/world:apply', computeWorld);
  } catch (err) {
    throw new Error(`world:apply failed: ${(err as Error).message}; the server's output:\n${server.output()}`, { cause: err });
  }
  const auths = new Map<string, OAuth2Client>();
  for (const principal of new Set([CAROL, ...principals])) {
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
    const client = new OAuth2Client();
    client.setCredentials({ access_token });
    auths.set(principal, client);
  }
  const auth = (principal: string): OAuth2Client => {
    const client = auths.get(principal);
    if (!client) throw new Error(`no token was minted for ${principal}: pass it to startComputeClientsServer`);
    return client;
  };
  const clientOptions = (principal: string): ComputeClientOptions => ({ apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, authClient: auth(principal) });
  const clients: Closable[] = [];
  const keep = <C extends Closable>(client: C): C => (clients.push(client), client);
  const carol = clientOptions(CAROL);
  const zoneOperations = keep(new ZoneOperationsClient(carol));
  const regionOperations = keep(new RegionOperationsClient(carol));
  const globalOperations = keep(new GlobalOperationsClient(carol));
  return {
    server,
    auth,
    clientOptions,
    keep,
    async finished(call) {
      const [lro] = await call;
      let op = (lro as any).latestResponse;
      while (op.status !== 'DONE') {
        if (op.zone) [op] = await zoneOperations.wait({ project: P, zone: op.zone.split('/').pop(), operation: op.name });
        else if (op.region) [op] = await regionOperations.wait({ project: P, region: op.region.split('/').pop(), operation: op.name });
        else [op] = await globalOperations.wait({ project: P, operation: op.name });
      }
      assert.ok(!op.error, JSON.stringify(op.error));
      return op;
    },
    async close() {
      for (const c of clients) await c.close();
      await server.stop();
      server.cleanup();
      await db.drop();
    },
  };
}
