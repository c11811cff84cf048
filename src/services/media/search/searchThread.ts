import { parentPort, workerData } from 'node:worker_threads';
import { Store } from '../../../platform/store/store.ts';
import { versionReader } from '../catalog/versionReader.ts';
import { MediaSearch } from './engine.ts';
import { resultMessage } from './resultMessage.ts';
import type { SearchThreadData, ToSearchThread } from './searchPool.ts';

/**
 * The search pool's thread (searchPool.ts): an engine of its own (engine.ts) on a `secondary`
 * connection to the pool's store, loading the index from the snapshot the first engine saved and
 * catching up from the store as every engine does, so that it shows whatever any process wrote
 * before a search came. It never saves the snapshot. Posts `{ready}` once its index is loaded,
 * then answers each search with `{id, result}` (resultMessage.ts), or `{id, failed}` (the pool makes that search
 * again on its own thread, where the error is the caller's). `{close}` ends it.
 */
const data = workerData as SearchThreadData;
const port = parentPort!;
const store = await Store.open(data.store);
const engine = new MediaSearch(store.db, { snapshotFile: data.snapshotFile, saveSnapshots: false, versionReader: versionReader(store) });
engine.tune(data.tuning);
port.on('message', (m: ToSearchThread) => {
  if ('close' in m) {
    port.close();
    void engine.close().finally(() => store.close());
  } else if ('tune' in m) engine.tune(m.tune);
  else {
    engine.search(m.q).then(
      (result) => {
        const message = resultMessage(result);
        port.postMessage({ id: m.id, result: message }, [message.text]);
      },
      () => port.postMessage({ id: m.id, failed: true }),
    );
  }
});
await engine.refresh();
port.postMessage({ ready: true });
