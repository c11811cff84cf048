import type { FastifyBaseLogger } from 'fastify';
import type { Journal } from '../journal/journal.ts';
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

let grpcCalls = 0;

/** A gRPC call in the request journal, as a REST call is (`url` is the call's path; metadata and messages are never kept). */
export function recordGrpcCall(journal: Journal, call: CompletedCall): void {
  if (!call.api) return;
  const e = call.error;
  journal.record({
    timeMs: Math.round(Date.now() - call.durationMs),
    method: call.api.id,
    service: call.api.service,
    httpMethod: 'POST',
    url: call.path,
    principal: call.principal?.member,
    apiKeyId: undefined,
    project: call.project,
    status: call.httpCode,
    error: e ? { status: e.status, reason: e.reason ?? e.errors?.[0]?.reason, message: e.message } : undefined,
    latencyMs: Math.round(call.durationMs * 1000) / 1000,
    requestId: `grpc-${(++grpcCalls).toString(36)}`,
    fault: call.fault ? { rule: call.fault.rule, action: call.fault.action.type } : undefined,
    operation: call.operation,
  });
}
