import type { FastifyInstance } from 'fastify';
import { routeLabel } from './routes.ts';
import type { Registry } from 'prom-client';
import { lazy } from '../lazy.ts';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export interface RouteStats {
  method: string;
  route: string;
  /** Responses by status code. */
  codes: Map<number, number>;
  /** Latency observations per bucket (cumulative counts are computed at scrape time). */
  buckets: number[];
  sum: number;
  count: number;
}

export type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * Request counts and latencies by route, kept in plain maps on the hot path (a few additions
 * per request) and turned into Prometheus metrics only when `/metrics` is scraped. Calls of
 * every transport are observed here, by the call pipeline (src/platform/calls/pipeline.ts).
 */
export class RequestStats {
  readonly #routes = new Map<string, RouteStats>();
  /** The last stats looked up per route object: the hot path builds and hashes no key. */
  readonly #byRouteKey = new WeakMap<object, RouteStats>();

  /**
   * The stats of one route (made at its first request). `routeKey`, an object that stands for
   * the route across requests (REST's route config, a gRPC method), keeps them at hand.
   */
  route(method: string, route: string, routeKey?: object): RouteStats {
    if (routeKey !== undefined) {
      const cached = this.#byRouteKey.get(routeKey);
      if (cached !== undefined && cached.method === method) return cached;
      const s = this.#lookup(method, route);
      this.#byRouteKey.set(routeKey, s);
      return s;
    }
    return this.#lookup(method, route);
  }

  #lookup(method: string, route: string): RouteStats {
    const key = method + ' ' + route;
    let s = this.#routes.get(key);
    if (!s) {
      // Route patterns name a literal colon `::` (`/v2/keys::lookupKey`); the label shows the path.
      s = { method, route: routeLabel(route), codes: new Map(), buckets: new Array(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.#routes.set(key, s);
    }
    return s;
  }

  /** Counts one response of the route. */
  observe(s: RouteStats, code: number, seconds: number): void {
    s.codes.set(code, (s.codes.get(code) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
    s.buckets[i]++;
    s.sum += seconds;
    s.count++;
  }

  requestsTotal(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const s of this.#routes.values()) for (const [code, n] of s.codes) out.push({ value: n, labels: { method: s.method, route: s.route, code } });
    return out;
  }

  latency(name: string): MetricValue[] {
    const out: MetricValue[] = [];
    for (const s of this.#routes.values()) {
      const labels = { method: s.method, route: s.route };
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        out.push({ metricName: `${name}_bucket`, value: cumulative, labels: { ...labels, le } });
      });
      out.push({ metricName: `${name}_bucket`, value: s.count, labels: { ...labels, le: '+Inf' } });
      out.push({ metricName: `${name}_sum`, value: s.sum, labels });
      out.push({ metricName: `${name}_count`, value: s.count, labels });
    }
    return out;
  }
}

/**
 * Prometheus metrics at GET /metrics: request counts and latencies by route (what the call
 * pipeline observes into `requests`), plus process metrics. prom-client is loaded at the first
 * scrape (a server nobody scrapes never loads it); its process metrics that accumulate (GC,
 * event-loop lag) count from that scrape on.
 */
export function installMetrics(app: FastifyInstance): Metrics {
  const stats = new RequestStats();
  const counters: ExtraCounter[] = [];
  const registry = lazy(() => createRegistry(stats, counters));
  app.get('/metrics', async (_req, reply) => {
    const r = await registry();
    reply.type(r.contentType).serializer((p: unknown) => String(p));
    return r.metrics();
  });
  return { addCounter: (c) => counters.push(c), requests: stats };
}

/** A counter another part of the platform keeps (fault injections), read when /metrics is scraped. */
export interface ExtraCounter {
  name: string;
  help: string;
  values(): MetricValue[];
}

export interface Metrics {
  /** Adds a counter to /metrics (before its first scrape). */
  addCounter(counter: ExtraCounter): void;
  /** The request counts and latencies by route, of every transport. */
  requests: RequestStats;
}

async function createRegistry(stats: RequestStats, counters: ExtraCounter[]): Promise<Registry> {
  const { Registry, collectDefaultMetrics } = await import('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cloudtwin_' });
  const collector = (name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) => ({
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
    reset: () => {},
  });
  registry.registerMetric(collector('cloudtwin_http_requests_total', 'HTTP requests by route and status code.', 'counter', () => stats.requestsTotal()) as any);
  const latencyName = 'cloudtwin_http_request_duration_seconds';
  registry.registerMetric(collector(latencyName, 'HTTP request latency by route.', 'histogram', () => stats.latency(latencyName)) as any);
  for (const c of counters) registry.registerMetric(collector(c.name, c.help, 'counter', c.values) as any);
  return registry;
}
