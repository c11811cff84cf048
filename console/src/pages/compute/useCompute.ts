import { useCallback, useEffect, useState } from 'react';
import { type Scoped, aggregatedListAll, mutate } from '../../compute.ts';

/**
 * The project's resources of one collection in every scope (its aggregatedList), with the error
 * that stands in place of the list when it cannot be read; `reload` after a change.
 */
export function useAggregatedList<T>(project: string, collection: string) {
  const [rows, setRows] = useState<Scoped<T>[]>();
  const [error, setError] = useState<unknown>();
  const reload = useCallback(async () => {
    try {
      const list = await aggregatedListAll<T>(project, collection);
      setError(undefined);
      setRows(list);
    } catch (err) {
      setRows(undefined);
      setError(err);
    }
  }, [project, collection]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { rows, error, reload };
}

/**
 * Reloads every `ms` while `unsettled` holds (a group updating, an instance on its way), so that a
 * change made on the twin's clock in delayed mode is followed to its end without a Refresh.
 */
export function useReloadWhile(unsettled: boolean, reload: () => Promise<void>, ms = 1500) {
  useEffect(() => {
    if (!unsettled) return;
    const timer = setInterval(() => void reload(), ms);
    return () => clearInterval(timer);
  }, [unsettled, reload, ms]);
}

/**
 * The mutations of a Compute page (delete, resize, ...): the running one's operation, then the
 * list reloaded and a status line saying what was done, or the API's error on the page. What was
 * done, or failed, in another project is not said in this one.
 */
export function useMutations(project: string, reload: () => Promise<void>) {
  const [op, setOp] = useState<any>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  useEffect(() => {
    setOp(undefined);
    setError(undefined);
    setDone(undefined);
  }, [project]);

  /** Runs one mutation; `said` is the status line once it succeeded and the list shows what it did. */
  const run = async (said: string, method: 'POST' | 'DELETE' | 'PATCH', path: string, opts: { body?: unknown; query?: Record<string, string | number> } = {}) => {
    // The last mutation's operation goes too: a call refused before it had one must not read "Done".
    setOp(undefined);
    setError(undefined);
    setDone(undefined);
    let ok = false;
    try {
      await mutate(project, method, path, { ...opts, onProgress: setOp });
      ok = true;
    } catch (err) {
      setError(err);
    }
    await reload();
    if (ok) setDone(said);
  };
  /** A mutation made elsewhere (a dialog with its own errors) that succeeded: the list reloaded, and said. */
  const succeeded = async (said: string, finished: any) => {
    setError(undefined);
    setOp(finished);
    await reload();
    setDone(said);
  };
  return { op, error, done, run, succeeded };
}
