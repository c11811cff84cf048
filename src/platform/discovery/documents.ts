import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.ts';

/**
 * Google's discovery documents of the APIs cloudtwin serves (API Keys v2, Compute v1), as the
 * Discovery service serves them (`GET https://www.googleapis.com/discovery/v1/apis/{api}/{version}/rest`),
 * at the same path here: `GET /discovery/v1/apis/apikeys/v2/rest`. Discovery-based clients (the
 * Python, PHP and Ruby API clients; `googleapis` with a fetched document) read the service's
 * address from the document, so each is answered with this server's own address in `rootUrl`,
 * `mtlsRootUrl` and `baseUrl` (the scheme and `Host` of the request), the rest as Google
 * publishes it: point the client's discovery URL at cloudtwin and it calls cloudtwin. No
 * credential is needed, as for Google's.
 *
 * The documents are Google's published ones, gzipped in `documents/` (`gzip -9n` of
 * `apikeys.v2.json` revision 20260818 and `compute.v1.json` revision 20260922). Read and parsed on
 * the first request for each (lean start) and kept as text cut where the address goes.
 */
const DOCUMENTS: Record<string, string> = { 'apikeys/v2': 'apikeys.v2.json.gz', 'compute/v1': 'compute.v1.json.gz' };
/** Stands for this server's address in a document's text until a request gives it. */
const ADDRESS = '\u0000cloudtwin\u0000';

/** A document's JSON text cut where the address goes: joined with the address (JSON-escaped) per request. */
async function loadDocument(file: string): Promise<string[]> {
  const { gunzipSync } = await import('node:zlib');
  const doc = JSON.parse(gunzipSync(await readFile(new URL(`./documents/${file}`, import.meta.url))).toString('utf8'));
  const text = JSON.stringify({ ...doc, rootUrl: `${ADDRESS}/`, mtlsRootUrl: `${ADDRESS}/`, baseUrl: `${ADDRESS}/${doc.servicePath ?? ''}` });
  return text.split(JSON.stringify(ADDRESS).slice(1, -1));
}

export function registerDiscoveryDocuments(app: FastifyInstance): void {
  const loaded = new Map<string, Promise<string[]>>();
  app.get<{ Params: { api: string; version: string } }>('/discovery/v1/apis/:api/:version/rest', async (req, reply) => {
    const key = `${req.params.api}/${req.params.version}`;
    const file = Object.hasOwn(DOCUMENTS, key) ? DOCUMENTS[key] : undefined;
    if (!file) throw new ApiError({ status: 'NOT_FOUND', message: `Requested entity was not found. This server describes ${Object.keys(DOCUMENTS).join(' and ')}.` });
    if (!loaded.has(key)) loaded.set(key, loadDocument(file));
    const parts = await loaded.get(key)!;
    const origin = JSON.stringify(`${req.protocol}://${req.host}`).slice(1, -1);
    return reply.type('application/json; charset=UTF-8').send(parts.join(origin));
  });
}
