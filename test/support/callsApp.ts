import type { FastifyInstance } from 'fastify';
import { CallPipeline } from '../../src/platform/calls/pipeline.ts';
import { type HttpAppOptions, createHttpApp } from '../../src/platform/http/app.ts';
import { installCalls } from '../../src/platform/http/calls.ts';
import { installMetrics } from '../../src/platform/http/metrics.ts';
import { Journal } from '../../src/platform/journal/journal.ts';

/** The HTTP app as the server makes it, with `/metrics` and the call pipeline (metrics and the request log; no journal): install routes after. */
export function appWithCalls(opts: HttpAppOptions): FastifyInstance {
  const app = createHttpApp(opts);
  const metrics = installMetrics(app);
  installCalls(app, new CallPipeline({ journal: new Journal({ capacity: 0 }), stats: metrics.requests, log: app.log }));
  return app;
}
