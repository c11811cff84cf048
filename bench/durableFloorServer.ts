// The floor of a durable insert, for bench:compute: a bare fastify POST that parses the body
// and stores it as one row of one SQLite table (no index, no validation, no auth, no operation
// record) with the store's own durability (WAL, synchronous=FULL, group commit filled as the
// operation engine fills it: up to the largest recent group, for at most 1 ms; each answer sent
// after its commit), then answers a constant. What any server that acknowledges a write only
// once it is on disk pays at least, on this machine and this store.
// Run as a child process in a temporary directory (its only argument), like the baseline.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Fastify from 'fastify';

const db = new DatabaseSync(join(process.argv[2], 'floor.db'));
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = FULL');
db.exec('CREATE TABLE bodies (body TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO bodies (body) VALUES (?)');

let group: { body: string; answer: () => void }[] = [];
let largestGroup = 1;
function fillGroup(since: number): void {
  setImmediate(() => (group.length < largestGroup && performance.now() - since < 1 ? fillGroup(since) : commitGroup()));
}
function commitGroup(): void {
  const g = group;
  group = [];
  largestGroup = Math.max(largestGroup, g.length);
  db.exec('BEGIN');
  for (const w of g) insert.run(w.body);
  db.exec('COMMIT');
  for (const w of g) w.answer();
}

const app = Fastify({ logger: false });
const constant = { ok: true };
app.post('/durable', (req, reply) => {
  if (group.length === 0) fillGroup(performance.now());
  group.push({ body: JSON.stringify(req.body), answer: () => void reply.send(constant) });
});

await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
process.stdout.write(`durable floor listening on http://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
