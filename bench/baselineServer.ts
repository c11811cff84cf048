// The baseline of every benchmark: a bare fastify app, no plugins, answering a constant.
// Run as a child process (see lib.ts startBaseline) so it gets its own core, like cloudtwin.
// BASELINE_LOG_LEVEL=info: Fastify's own logger at that level, writing its request lines
// ('incoming request', 'request completed') to stderr, as cloudtwin writes its one line there.
import Fastify from 'fastify';

const level = process.env.BASELINE_LOG_LEVEL;
const app = Fastify({ logger: level ? { level, stream: process.stderr } : false });
const constant = { ok: true };
app.get('/baseline', async () => constant);
app.post('/baseline', async () => constant);

await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
