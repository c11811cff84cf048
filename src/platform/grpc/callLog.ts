import type { FastifyBaseLogger } from 'fastify';
import type { CompletedCall } from './front.ts';

/**
 * The request log line of a gRPC call, at `info`, as REST's 'request completed' line: method
 * `POST`, the call's path as its URL, the HTTP status REST gives the same outcome, and the gRPC
 * status beside it. Metadata is never logged (it carries credentials).
 */
export function logGrpcCall(log: FastifyBaseLogger, call: CompletedCall): void {
  if ((log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === false) return;
  log.info(
    { req: { method: 'POST', url: call.path, ip: call.remoteAddress }, res: { statusCode: call.httpCode }, grpcStatus: call.grpcCode, responseTime: call.durationMs },
    'request completed',
  );
}
