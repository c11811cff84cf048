import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics at GET /metrics: request counts and latencies by route, plus process metrics. */
export function installMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cloudtwin_' });
  const requests = new Counter({ name: 'cloudtwin_http_requests_total', help: 'HTTP requests by route and status code.', labelNames: ['method', 'route', 'code'], registers: [registry] });
  const latency = new Histogram({
    name: 'cloudtwin_http_request_duration_seconds',
    help: 'HTTP request latency by route.',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, code: reply.statusCode });
    latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', async (_req, reply) => {
    reply.type(registry.contentType).serializer((p: unknown) => String(p));
    return registry.metrics();
  });
  return registry;
}
