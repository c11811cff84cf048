import { AsyncLocalStorage } from 'node:async_hooks';
import type { OperationError } from './engine.ts';

/**
 * A failure a fault rule asks for: the operations that the request being served starts end
 * with it instead of running. The request runs inside `withOperationFailure`; the engine reads
 * it when the operation is submitted (and a group commit carries each work's own).
 */
const injected = new AsyncLocalStorage<OperationError>();

export function withOperationFailure<T>(failure: OperationError, fn: () => T): T {
  return injected.run(failure, fn);
}

/** The failure asked for the request being served, if any. */
export function injectedOperationFailure(): OperationError | undefined {
  return injected.getStore();
}
