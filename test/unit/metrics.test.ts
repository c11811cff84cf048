import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpApp } from '../../src/platform/http/app.ts';
import { RequestStats } from '../../src/platform/http/metrics.ts';
import { appWithCalls } from '../support/callsApp.ts';

test('latency buckets are cumulative, "le" inclusive, with sum and count', () => {
  const s = new RequestStats();
  for (const seconds of [0.0005, 0.0007, 0.02, 3]) s.observe(s.route('GET', '/a'), 200, seconds);
  const v = s.latency('h');
  const bucket = (le: number | string) => v.find((x) => x.metricName === 'h_bucket' && x.labels.le === le)?.value;
  assert.equal(bucket(0.0005), 1);
  assert.equal(bucket(0.001), 2);
  assert.equal(bucket(0.025), 3);
  assert.equal(bucket(1), 3);
  assert.equal(bucket('+Inf'), 4);
  assert.equal(v.find((x) => x.metricName === 'h_count')?.value, 4);
  assert.ok(Math.abs((v.find((x) => x.metricName === 'h_sum')?.value ?? 0) - 3.0212) < 1e-9);
});

test('GET /metrics serves request counts by route and code in Prometheus text', async () => {
  const app = appWithCalls({ logger: false, bodyLimit: 1024 });
  app.get('/v2/keys::lookupKey', async () => ({}));
  await app.inject({ url: '/v2/keys:lookupKey' });
  await app.inject({ url: '/v2/keys:lookupKey' });
  const res = await app.inject({ url: '/metrics' });
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  assert.match(res.body, /^cloudtwin_http_requests_total\{method="GET",route="\/v2\/keys:lookupKey",code="200"\} 2$/m);
  assert.match(res.body, /^cloudtwin_http_request_duration_seconds_count\{method="GET",route="\/v2\/keys:lookupKey"\} 2$/m);
  assert.match(res.body, /^cloudtwin_process_cpu_seconds_total/m);
  await app.close();
});

test('requests are counted per method and route, a route serving two methods and unmatched URLs included', async () => {
  const app = appWithCalls({ logger: false, bodyLimit: 1024 });
  app.route({ method: ['GET', 'POST'], url: '/both', handler: async () => ({}) });
  app.get('/other', async () => ({}));
  for (const [method, url] of [['GET', '/both'], ['POST', '/both'], ['GET', '/both'], ['GET', '/other'], ['POST', '/none'], ['GET', '/none']] as const) await app.inject({ method, url });
  const body = (await app.inject({ url: '/metrics' })).body;
  const count = (method: string, route: string, code: number) => Number(new RegExp(`^cloudtwin_http_requests_total\\{method="${method}",route="${route}",code="${code}"\\} (\\d+)$`, 'm').exec(body)?.[1] ?? 0);
  assert.equal(count('GET', '/both', 200), 2);
  assert.equal(count('POST', '/both', 200), 1);
  assert.equal(count('GET', '/other', 200), 1);
  assert.equal(count('POST', 'unmatched', 404), 1);
  assert.equal(count('GET', 'unmatched', 404), 1);
  await app.close();
});

test("on the app, latency is counted from the app's first hook and a response gets no listener for it", async () => {
  const app = appWithCalls({ logger: false, bodyLimit: 1024 });
  app.get('/slow', async (_req, reply) => {
    await new Promise((r) => setTimeout(r, 20));
    return { finish: reply.raw.listenerCount('finish') };
  });
  const bare = createHttpApp({ logger: false, bodyLimit: 1024 });
  bare.get('/slow', async (_req, reply) => ({ finish: reply.raw.listenerCount('finish') }));
  const withMetrics = (await app.inject({ url: '/slow' })).json();
  assert.deepEqual(withMetrics, (await bare.inject({ url: '/slow' })).json());
  const text = (await app.inject({ url: '/metrics' })).body;
  const sum = Number(/^cloudtwin_http_request_duration_seconds_sum\{method="GET",route="\/slow"\} (\S+)$/m.exec(text)?.[1]);
  assert.ok(sum >= 0.019 && sum < 5, `latency sum ${sum}`);
  await Promise.all([app.close(), bare.close()]);
});
