import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { urlNotFound } from '../platform/http/errors.ts';
import { sendError } from '../platform/http/envelope.ts';

/** Where `npm run build:console` (run by `npm ci` through `prepare`) puts the console. */
export const CONSOLE_DIST = new URL('../../console/dist/', import.meta.url);
export const CONSOLE_PATH = '/console/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The page may talk to this server only; thumbnails may come from anywhere over https (or be generated). */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/**
 * node:zlib, loaded with the first file the console compresses at request time (about 0.5 MiB
 * resident): only for a build without the `.br` / `.gz` files console/vite.config.js writes.
 */
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');

/** The build's compressed copies (`<file>.br`, `<file>.gz`): served as the encodings of their file, not by their own names. */
const PRECOMPRESSED = /\.(br|gz)$/;

interface ConsoleFile {
  type: string;
  raw: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  /** Content-hashed build assets never change under their name. */
  immutable: boolean;
}

/**
 * Serves the built console at `/console/`: the SPA's files, compressed (brotli or gzip: the copies
 * the build wrote next to them, else computed once per file) and with cache headers (hashed
 * assets for a year, the rest revalidated).
 */
export function registerConsole(app: FastifyInstance, distDir: string = new URL(CONSOLE_DIST).pathname): void {
  const files = new Map<string, ConsoleFile>();
  const root = normalize(distDir);

  const load = (rel: string): ConsoleFile | undefined => {
    const cached = files.get(rel);
    if (cached) return cached;
    const full = normalize(join(root, rel));
    if (!full.startsWith(root.endsWith(sep) ? root : root + sep) || PRECOMPRESSED.test(full) || !existsSync(full) || !statSync(full).isFile()) return undefined;
    const type = TYPES[extname(full)] ?? 'application/octet-stream';
    const file: ConsoleFile = { type, raw: readFileSync(full), immutable: rel.startsWith('assets/') };
    // Compressed at build time (console/vite.config.js), sent as they are.
    if (existsSync(`${full}.br`)) file.br = readFileSync(`${full}.br`);
    if (existsSync(`${full}.gz`)) file.gzip = readFileSync(`${full}.gz`);
    files.set(rel, file);
    return file;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, file: ConsoleFile) => {
    const accept = String(request.headers['accept-encoding'] ?? '');
    const compressible = file.br !== undefined || file.gzip !== undefined || (/^(text|application\/json|image\/svg)/.test(file.type) && file.raw.length > 512);
    let body = file.raw;
    if (compressible && /\bbr\b/.test(accept)) {
      file.br ??= zlib().brotliCompressSync(file.raw, { params: { [zlib().constants.BROTLI_PARAM_QUALITY]: 9 } });
      body = file.br;
      reply.header('content-encoding', 'br');
    } else if (compressible && /\bgzip\b/.test(accept)) {
      file.gzip ??= zlib().gzipSync(file.raw, { level: 9 });
      body = file.gzip;
      reply.header('content-encoding', 'gzip');
    }
    if (compressible) reply.header('vary', 'Accept-Encoding');
    reply
      .headers(SECURITY_HEADERS)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(file.type)
      .send(body);
  };

  app.get('/console', (_request, reply) => {
    reply.redirect(CONSOLE_PATH, 308);
  });
  // The server's root: a browser (it asks for HTML) is sent to the console; any other client
  // gets the 404 every unknown URL gets, in Google's envelope.
  app.get('/', (request, reply) => {
    if (acceptsHtml(request.headers.accept)) {
      reply.header('vary', 'Accept').redirect(CONSOLE_PATH, 302);
      return;
    }
    sendError(reply.header('vary', 'Accept'), urlNotFound(request.url), 'modern');
  });
  app.get(`${CONSOLE_PATH}*`, (request, reply) => {
    const rel = (request.params as { '*': string })['*'] || 'index.html';
    const file = load(rel);
    if (file) return send(request, reply, file);
    if (rel === 'index.html') {
      reply.code(503).type('text/plain; charset=utf-8').send('The console is not built. Run `npm run build:console` (npm ci does it).\n');
      return;
    }
    sendError(reply, urlNotFound(request.url), 'modern');
  });
}

/** True when an `Accept` header lists `text/html` with a non-zero quality (what a browser's navigation sends). */
export function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    if (type !== 'text/html') return false;
    const q = params.find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}
