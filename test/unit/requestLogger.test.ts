import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createHttpApp } from '../../src/platform/http/app.ts';
import { lazyChildLogger } from '../../src/platform/http/requestLogger.ts';
import { appWithCalls } from '../support/callsApp.ts';

function sink(level: string) {
  const lines: Record<string, unknown>[] = [];
  let children = 0;
  const logger = pino({ level, onChild: () => void children++ }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines, children: () => children };
}

describe('lazyChildLogger', () => {
  test('below the level nothing is made; at the level the line carries the bindings', () => {
    const s = sink('warn');
    const log = lazyChildLogger(s.logger as never, { reqId: 'req-1' }, {});
    log.info('not logged');
    log.debug('not logged');
    assert.equal(s.children(), 0);
    log.warn({ x: 1 }, 'logged');
    log.error('again');
    assert.equal(s.children(), 1, 'one child, made on the first enabled line');
    assert.deepEqual(s.lines.map((l) => [l.level, l.reqId, l.msg]), [[40, 'req-1', 'logged'], [50, 'req-1', 'again']]);
    assert.equal(s.lines[0].x, 1);
  });

  test('level, isLevelEnabled, child and bindings behave as pino', () => {
    const s = sink('info');
    const log = lazyChildLogger(s.logger as never, { reqId: 'req-2' }, {}) as unknown as pino.Logger;
    assert.equal(log.level, 'info');
    assert.equal(log.isLevelEnabled('debug'), false);
    assert.deepEqual(log.bindings(), { reqId: 'req-2' });
    log.child({ step: 'a' }).info('nested');
    assert.deepEqual([s.lines[0].reqId, s.lines[0].step, s.lines[0].msg], ['req-2', 'a', 'nested']);
  });

  test('a route log level gets pino child at once', () => {
    const s = sink('warn');
    const log = lazyChildLogger(s.logger as never, { reqId: 'req-3' }, { level: 'debug' });
    assert.equal(s.children(), 1);
    log.debug('route-level debug');
    assert.equal(s.lines[0].msg, 'route-level debug');
  });

  test('an app without a logger answers, errors included (its no-op logger is not pino)', async () => {
    const app = createHttpApp({ logger: false, bodyLimit: 1024 });
    app.get('/boom', async () => {
      throw new Error('internal detail');
    });
    const res = await app.inject({ url: '/boom' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.status, 'INTERNAL');
    await app.close();
  });

  test("the app's request logs keep their request id", async () => {
    const lines: Record<string, unknown>[] = [];
    const app = appWithCalls({ logger: { level: 'info', stream: { write: (s: string) => void lines.push(JSON.parse(s)) } }, bodyLimit: 1024 });
    app.get('/x', async (req) => {
      req.log.warn('inside');
      return {};
    });
    const res = await app.inject({ url: '/x' });
    assert.equal(res.statusCode, 200);
    const ids = new Set(lines.filter((l) => ['inside', 'request completed'].includes(l.msg as string)).map((l) => l.reqId));
    assert.deepEqual(lines.map((l) => l.msg), ['inside', 'request completed']);
    assert.equal(ids.size, 1);
    assert.match(String([...ids][0]), /^req-/);
    await app.close();
  });

  test('at any level a response gets no listener for logging or metrics (the request line is written at the completion point)', async () => {
    const finishListeners = async (level: string | false) => {
      const app = appWithCalls({ logger: level === false ? false : { level, stream: { write: () => {} } }, bodyLimit: 1024 });
      app.get('/x', async (_req, reply) => ({ finish: reply.raw.listenerCount('finish'), error: reply.raw.listenerCount('error') }));
      try {
        return (await app.inject({ url: '/x' })).json();
      } finally {
        await app.close();
      }
    };
    const none = await finishListeners(false);
    assert.deepEqual(await finishListeners('warn'), none);
    assert.deepEqual(await finishListeners('info'), none);
  });

  test("one line per request, at completion: method, masked URL, status, time taken, reqId; app.log is the server's logger", async () => {
    const lines: Record<string, any>[] = [];
    const app = appWithCalls({ logger: { level: 'info', stream: { write: (s: string) => void lines.push(JSON.parse(s)) } }, bodyLimit: 1024 });
    app.get('/x', async (_req, reply) => reply.code(202).send({}));
    const res = await app.inject({ url: '/x?key=AIzaSyD0000000000000000000000000000000&access_token=ya29.secret', headers: { authorization: 'Bearer ya29.other' } });
    assert.equal(res.statusCode, 202);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const [line] = lines;
    assert.equal(line.msg, 'request completed');
    assert.equal(line.level, 30);
    assert.equal(line.method, 'GET');
    assert.equal(line.url, '/x?key=REDACTED&access_token=REDACTED');
    assert.equal(line.status, 202);
    assert.match(line.reqId, /^req-/);
    assert.ok(line.responseTime >= 0 && line.responseTime < 10_000, String(line.responseTime));
    assert.doesNotMatch(JSON.stringify(lines), /ya29|AIza/);
    // Credentials percent-encoded (a name or a value, in the query or the path) are masked too.
    const key = 'AIzaSyD00000000000000000000000000000000';
    const encoded = [...key].map((c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).join('');
    await app.inject({ url: `/x?ke%79=${encoded}&q=${encodeURIComponent('see ' + key)}&${encoded}=1&plain=ok%20here` });
    await app.inject({ url: `/x/${encoded}/y` });
    assert.equal(lines.at(-2)!.url, '/x?ke%79=REDACTED&q=see%20REDACTED&REDACTED=1&plain=ok%20here');
    assert.equal(lines.at(-1)!.url, '/x/REDACTED/y');
    assert.doesNotMatch(JSON.stringify(lines), /AIza|%41%49/);
    lines.length = 1;
    // Errors and unknown URLs are one line each too.
    await app.inject({ url: '/nowhere' });
    assert.equal(lines.length, 2);
    assert.deepEqual([lines[1].status, lines[1].url], [404, '/nowhere']);
    app.log.warn('from the app');
    assert.equal(lines.at(-1)!.msg, 'from the app');
    await app.close();
  });
});
