import type { FaultDecision, Faults } from '../faults/faults.ts';
import type { RequestStats } from '../http/metrics.ts';
import { redactUrl } from '../http/secrets.ts';
import { type Journal, type JournalEntry, redactedBody } from '../journal/journal.ts';
import type { CallRecord } from './record.ts';

/** Resolves an API key string to its id and project (the API Keys service provides it). */
export type KeyResolver = (keyString: string) => Promise<{ keyId: string; projectNumber: string } | undefined>;

/** The server's logger, as the pipeline uses it (pino's). */
export interface CallLogger {
  info(fields: object, msg: string): void;
  isLevelEnabled?(level: string): boolean;
}

export interface CallPipelineOptions {
  journal: Journal;
  /** The request counts and latencies by route (`/metrics`). */
  stats: RequestStats;
  /** The server's logger: one `request completed` line per call at `info`. */
  log?: CallLogger;
  faults?: Faults;
  resolveKey?: KeyResolver;
}

/**
 * The one place a call (`CallRecord`, filled in by its transport) becomes what the platform
 * makes of it: the fault decision, once it is authenticated and validated; and, once complete,
 * the metrics, the request log line and the journal entry. REST (src/platform/http/calls.ts)
 * and gRPC (src/platform/grpc/server.ts) hand their calls here at the same steps, so a rule
 * matches a call and the journal records it the same way whatever carried it.
 */
export class CallPipeline {
  readonly #journal: Journal;
  readonly #stats: RequestStats;
  readonly #log: CallLogger | undefined;
  readonly #faults: Faults | undefined;
  readonly #resolveKey: KeyResolver | undefined;

  constructor(opts: CallPipelineOptions) {
    this.#journal = opts.journal;
    this.#stats = opts.stats;
    // The request log is written only when `info` is on (decided once, as the logger's level is).
    this.#log = opts.log?.isLevelEnabled?.('info') ? opts.log : undefined;
    this.#faults = opts.faults;
    this.#resolveKey = opts.resolveKey;
  }

  /** Whether calls should keep their bodies for the journal (`--journal-bodies`). */
  get keepsBodies(): boolean {
    return this.#journal.enabled && this.#journal.bodies;
  }

  /**
   * The fault rule that acts on an authenticated, validated public API call, recorded in it;
   * undefined synchronously when no rule exists (the hot path pays one length check). A rule
   * on `apiKeyId` (or on `project` for a call that names none) resolves the key the call
   * carries, once; so does the journal for a method that does not check keys itself, so that
   * its entry names the key.
   */
  decideFault(call: CallRecord): Promise<FaultDecision | undefined> | undefined {
    const api = call.api;
    if (!api) return undefined;
    const keyString = this.#resolveKey ? call.credentials?.apiKey : undefined;
    const wantsKeyId = keyString !== undefined && this.#journal.enabled && !api.acceptsApiKey && call.apiKeyId === undefined;
    if (!this.#faults?.any && !wantsKeyId) return undefined;
    let resolved: ReturnType<KeyResolver> | undefined;
    const apiKey = keyString === undefined ? undefined : () => (resolved ??= this.#identify(call, keyString));
    return this.#decide(call, apiKey, wantsKeyId);
  }

  async #decide(call: CallRecord, apiKey: (() => ReturnType<KeyResolver>) | undefined, wantsKeyId: boolean): Promise<FaultDecision | undefined> {
    if (wantsKeyId) await apiKey!();
    if (!this.#faults?.any) return undefined;
    const decision = await this.#faults.decide({ method: call.api!.id, principal: call.principal?.member, project: call.project, headers: call.headers, apiKey });
    call.fault = decision;
    return decision;
  }

  async #identify(call: CallRecord, keyString: string): ReturnType<KeyResolver> {
    const key = await this.#resolveKey!(keyString);
    if (key) call.apiKeyId ??= key.keyId;
    return key;
  }

  /** A call is complete (its status final, its answer handed to the transport): metrics, the log line, the journal entry. */
  complete(call: CallRecord): void {
    if (call.completed) return;
    call.completed = true;
    const latencyMs = performance.now() - call.receivedAt;
    const stats = this.#stats;
    stats.observe(stats.route(call.httpMethod, call.route ?? 'unmatched', call.routeKey), call.status, latencyMs / 1000);
    if (this.#log) this.#logLine(this.#log, call, latencyMs);
    if (call.api && this.#journal.enabled) this.#journal.record(this.#entry(call, latencyMs));
  }

  /**
   * The request log line, an access log's: method, masked URL, status, latency in ms from
   * arrival, the principal when authenticated, the remote address and the request id (and the
   * gRPC status of a gRPC call). Headers and messages are never logged (they carry credentials).
   */
  #logLine(log: CallLogger, call: CallRecord, latencyMs: number): void {
    log.info(
      {
        reqId: call.requestId,
        method: call.httpMethod,
        url: redactUrl(call.url),
        status: call.status,
        grpcStatus: call.grpcStatus,
        responseTime: latencyMs,
        principal: call.principal?.member,
        remoteAddress: call.remoteAddress,
      },
      'request completed',
    );
  }

  /** The journal entry of a public API call (the URL as received: the journal masks it when read out; bodies masked now). */
  #entry(call: CallRecord, latencyMs: number): Omit<JournalEntry, 'seq'> {
    const api = call.api!;
    const e = call.error;
    const entry: Omit<JournalEntry, 'seq'> = {
      timeMs: Math.round(Date.now() - latencyMs),
      method: api.id,
      service: api.service,
      httpMethod: call.httpMethod,
      url: call.url,
      principal: call.principal?.member,
      apiKeyId: call.apiKeyId,
      project: call.project,
      status: call.status,
      error: e ? { status: e.status, reason: e.reason ?? e.errors?.[0]?.reason, message: e.message } : undefined,
      latencyMs: Math.round(latencyMs * 1000) / 1000,
      requestId: call.requestId,
      fault: call.fault ? { rule: call.fault.rule, action: call.fault.action.type } : undefined,
      operation: call.operation,
    };
    if (this.#journal.bodies) {
      entry.requestBody = call.requestBody === undefined ? undefined : redactedBody(call.requestBody);
      entry.responseBody = call.responseBody === undefined ? undefined : redactedBody(call.responseBody);
    }
    return entry;
  }
}
