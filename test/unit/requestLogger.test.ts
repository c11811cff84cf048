import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createHttpApp } from '../../src/platform/http/app.ts';
import { lazyChildLogger } from '../../src/platform/http/requestLogger.ts';

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
    const app = createHttpApp({ logger: { level: 'info', stream: { write: (s: string) => void lines.push(JSON.parse(s)) } }, bodyLimit: 1024 });
    app.get('/x', async (req) => {
      req.log.warn('inside');
      return {};
    });
    const res = await app.inject({ url: '/x' });
    assert.equal(res.statusCode, 200);
    const ids = new Set(lines.filter((l) => ['incoming request', 'inside', 'request completed'].includes(l.msg as string)).map((l) => l.reqId));
    assert.equal(ids.size, 1);
    assert.match(String([...ids][0]), /^req-/);
    await app.close();
  });
});
