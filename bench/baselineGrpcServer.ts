// The gRPC baseline of bench:grpc: a bare node:http2 server that answers every call with one
// small message and `grpc-status: 0` (no routing, no protobuf, no auth), the floor of a unary
// gRPC call on node:http2 as bench/baselineServer.ts is the floor of a REST call on fastify.
import { createServer } from 'node:http2';

const answer = Buffer.from([0, 0, 0, 0, 3, 0x0a, 0x01, 0x61]);
const headers = { ':status': 200, 'content-type': 'application/grpc' };
const trailers = { 'grpc-status': '0' };
const server = createServer({ settings: { maxConcurrentStreams: 1000 } });
server.on('stream', (stream) => {
  stream.on('error', () => {});
  stream.on('data', () => {});
  stream.once('end', () => {
    stream.respond(headers, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(trailers));
    stream.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`grpc baseline listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
