import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a completion observer gets: the request, its reply (status final), the route's options and the payload being sent. */
export type CompletionObserver = (request: FastifyRequest, reply: FastifyReply, route: FastifyRequest['routeOptions'], payload: unknown) => void;

const OBSERVERS = new WeakMap<FastifyInstance, CompletionObserver[]>();

/**
 * The one point where a request is complete: its status is final and its answer is being handed
 * to the socket (Fastify's `onSend`). Metrics, the request journal and the access log observe
 * requests here, through one hook, which reads the route's options once for all of them. An
 * `onResponse` hook would make Fastify add 'finish' and 'error' listeners to every response
 * (~1 us a request); the latency seen here is the server's, up to the socket.
 */
export function onRequestCompleted(app: FastifyInstance, observer: CompletionObserver): void {
  let observers = OBSERVERS.get(app);
  if (!observers) {
    const list: CompletionObserver[] = (observers = []);
    OBSERVERS.set(app, list);
    app.addHook('onSend', (request, reply, payload, done) => {
      const route = request.routeOptions;
      for (let i = 0; i < list.length; i++) list[i](request, reply, route, payload);
      done();
    });
  }
  observers.push(observer);
}

