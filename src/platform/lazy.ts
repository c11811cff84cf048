/**
 * A value built on its first use, once: callers that arrive while it is being built share the
 * one build; a failed build is forgotten, so the next caller tries again.
 *
 * The start-up pattern of every service (docs/operations.md, "Start-up and lazy loading"):
 * routes and their schemas are registered eagerly (Fastify needs them before it listens), and
 * everything a handler needs beyond that (heavy libraries, catalogues, parsers) is imported
 * with `import()` inside a `lazy()` the handlers await:
 *
 *     const engine = lazy(async () => new (await import('./engine.ts')).Engine(deps));
 *     app.get('/v1/things', async (req) => (await engine()).list(req.query));
 */
export function lazy<T>(build: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= build().catch((err) => {
      pending = undefined;
      throw err;
    }));
}
