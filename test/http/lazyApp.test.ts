/**
 * mountLazily (src/platform/http/lazyApp.ts): a surface built at its first request answers every
 * request below its prefix exactly as its own app does (bodies read by it, its validation, its
 * limits, its 404s), through inject and over a socket; built once, retried after a failed build,
 * closed with the main app.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../../src/platform/http/app.ts';
import { type LazyMount, mountLazily } from '../../src/platform/http/lazyApp.ts';

const BODY_LIMIT = 1024;

function surfaceApp(closed: { n: number }): FastifyInstance {
  const app = createHttpApp({ logger: false, bodyLimit: BODY_LIMIT });
  app.get('/s/v1/things/:id', async (req) => ({ id: (req.params as { id: string }).id, query: req.query }));
  app.post('/s/v1/things', { schema: { body: Type.Object({ name: Type.String({ maxLength: 10 }) }) } }, async (req) => ({ created: (req.body as { name: string }).name }));
  app.addHook('onClose', async () => {
    closed.n++;
  });
  return app;
}

describe('mountLazily', () => {
  let main: FastifyInstance;
  let mount: LazyMount;
  let builds = 0;
  let failNext = false;
  const closed = { n: 0 };

  before(async () => {
    main = createHttpApp({ logger: false, bodyLimit: BODY_LIMIT });
    main.get('/other', async () => ({ other: true }));
    mount = mountLazily(main, {
      prefix: '/s/v1/',
      build: async () => {
        builds++;
        if (failNext) {
          failNext = false;
          throw new Error('no surface this time');
        }
        await new Promise((r) => setTimeout(r, 20));
        const app = surfaceApp(closed);
        await app.ready();
        return app;
      },
    });
    await main.ready();
  });

  after(async () => {
    await main.close();
  });

  it('builds nothing until a request below its prefix comes; then once, for concurrent requests', async () => {
    assert.equal((await main.inject('/other')).statusCode, 200);
    assert.equal(mount.built, false);
    assert.equal(builds, 0);
    const answers = await Promise.all([1, 2, 3].map((i) => main.inject(`/s/v1/things/t${i}?a=${i}`)));
    assert.deepEqual(
      answers.map((r) => [r.statusCode, r.json()]),
      [1, 2, 3].map((i) => [200, { id: `t${i}`, query: { a: String(i) } }]),
    );
    assert.equal(builds, 1);
    assert.equal(mount.built, true);
  });

  it('the surface reads the body, validates it, and answers its own errors', async () => {
    const ok = await main.inject({ method: 'POST', url: '/s/v1/things', headers: { 'content-type': 'application/json' }, payload: '{"name":"n1"}' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { created: 'n1' });
    const invalid = await main.inject({ method: 'POST', url: '/s/v1/things', headers: { 'content-type': 'application/json' }, payload: '{"name":"much too long a name"}' });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().error.status, 'INVALID_ARGUMENT');
    const tooLarge = await main.inject({ method: 'POST', url: '/s/v1/things', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x'.repeat(2 * BODY_LIMIT) }) });
    assert.equal(tooLarge.statusCode, 413);
    const notFound = await main.inject('/s/v1/nothing/here');
    assert.equal(notFound.statusCode, 404);
    assert.deepEqual(notFound.json(), { error: { code: 404, message: 'The requested URL /s/v1/nothing/here was not found on this server.', status: 'NOT_FOUND' } }, 'the 404 every app answers');
    const head = await main.inject({ method: 'HEAD', url: '/s/v1/things/t1' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('over a socket: a JSON body and a GET', async () => {
    const url = await main.listen({ host: '127.0.0.1', port: 0 });
    const posted = await fetch(`${url}/s/v1/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"n2"}' });
    assert.equal(posted.status, 200);
    assert.deepEqual(await posted.json(), { created: 'n2' });
    const got = await fetch(`${url}/s/v1/things/t9`);
    assert.deepEqual(await got.json(), { id: 't9', query: {} });
  });

  it('a build that fails answers 500 in the envelope, and the next request builds again', async () => {
    const main2 = createHttpApp({ logger: false, bodyLimit: BODY_LIMIT });
    let n = 0;
    mountLazily(main2, {
      prefix: '/s/v1/',
      build: async () => {
        if (n++ === 0) throw new Error('no surface this time');
        const app = surfaceApp({ n: 0 });
        await app.ready();
        return app;
      },
    });
    try {
      const failed = await main2.inject('/s/v1/things/a');
      assert.equal(failed.statusCode, 500);
      assert.equal(failed.json().error.status, 'INTERNAL');
      const retried = await main2.inject('/s/v1/things/a');
      assert.equal(retried.statusCode, 200);
    } finally {
      await main2.close();
    }
  });

  it('closing the main app closes the surface', async () => {
    const before = closed.n;
    const main3 = createHttpApp({ logger: false, bodyLimit: BODY_LIMIT });
    const m = mountLazily(main3, {
      prefix: '/s/v1/',
      build: async () => {
        const app = surfaceApp(closed);
        await app.ready();
        return app;
      },
    });
    await m.app();
    await main3.close();
    assert.equal(closed.n, before + 1);
  });
});
