/**
 * HTTP reason phrases by status code (node:http's `STATUS_CODES`).
 *
 * Taken through `process.getBuiltinModule`, never `import ... from 'node:http'`: an ES-module
 * import of node:http reads every export to build its namespace, and node:http's `WebSocket`,
 * `MessageEvent` and `CloseEvent` exports are getters that load undici and the web streams
 * (about 40 ms and 12 MiB at start-up) for nothing a request needs. Fastify requires node:http
 * the CommonJS way, which reads no getter.
 */
export const STATUS_CODES: Readonly<Record<number, string | undefined>> = process.getBuiltinModule('node:http').STATUS_CODES;
