import { createWriteStream, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { type Command, Option } from 'commander';
import { Store } from '../../../platform/store/store.ts';
import type { Progress } from './bulk.ts';

/**
 * What the commands run, imported when one runs: `registerCatalogCommands` is called on every
 * `cloudtwin` start, `serve` included, which needs none of it (docs/operations.md, "Start-up and
 * lazy loading").
 */
async function commands() {
  const [{ default: cliProgress }, bulk, { generatedCount }, { countEntries }, { MediaSearch }, { snapshotPath }] = await Promise.all([
    import('cli-progress'),
    import('./bulk.ts'),
    import('./generator.ts'),
    import('./repository.ts'),
    import('../search/engine.ts'),
    import('./index.ts'),
  ]);
  return { cliProgress, ...bulk, generatedCount, countEntries, MediaSearch, snapshotPath };
}

/**
 * `cloudtwin catalog import|export|generate`: work on the catalogue of a data directory (SQLite)
 * or a PostgreSQL database. On SQLite the command opens the store itself and so needs the data
 * directory's lock: while a server runs on that directory the command stops with "in use by
 * process N" and changes nothing (stop the server, or use PostgreSQL, where any number of
 * processes share the database and running servers see the changes on their next search).
 */
export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('media catalogue: import, export and generate (NDJSON of Data API resources; README "Media catalogue")');
  const storeOptions = (c: Command) =>
    c
      .addOption(new Option('--data-dir <dir>', 'data directory (SQLite)').env('CLOUDTWIN_DATA_DIR').default('.cloudtwin'))
      .addOption(new Option('--database-url <url>', 'PostgreSQL connection URL (postgres://...)').env('CLOUDTWIN_DATABASE_URL'))
      .addOption(new Option('--no-progress', 'no progress bar (also when stderr is not a terminal)'));

  storeOptions(catalog.command('import').argument('<file>', 'NDJSON file: one entry per line').description('import catalogue entries (checked whole first; written in resumable batches)')).action(
    async (file: string, o) => {
      const { cliProgress, importNdjson, ImportError } = await commands();
      await withStore(o, async (store) => {
        const bar = progressBar(cliProgress, o, 'bytes');
        try {
          const r = await importNdjson(store, resolve(file), bar.update);
          bar.stop();
          process.stderr.write(`imported ${r.entries} entries${r.resumedAfterLine ? ` (resumed after line ${r.resumedAfterLine})` : ''}\n`);
        } catch (err) {
          bar.stop();
          if (err instanceof ImportError) {
            process.stderr.write(`cloudtwin: ${err.message}\n`);
            process.exitCode = 1;
            return;
          }
          throw err;
        }
      });
    },
  );

  storeOptions(catalog.command('export').description('write the catalogue as NDJSON (content owners, channels, videos, playlists)'))
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (o) => {
      const { exportNdjson } = await commands();
      await withStore(o, async (store) => {
        const out = o.output ? createWriteStream(resolve(o.output), { mode: 0o600 }) : process.stdout;
        const n = await exportNdjson(store, out);
        if (o.output) {
          out.end();
          await finished(out);
        }
        process.stderr.write(`exported ${n} entries\n`);
      });
    });

  storeOptions(catalog.command('generate').description('generate a deterministic, realistic catalogue into the store (or as NDJSON with --output)'))
    .requiredOption('--videos <n>', 'number of videos (channels: n/50, playlists: n/100, content owners: n/50000)', parseCount)
    .option('--seed <s>', 'seed: the same seed and size give the same catalogue', parseCount, 1)
    .option('-o, --output <file>', 'write NDJSON to this file (- for stdout) instead of the store')
    .action(async (o) => {
      const { cliProgress, generatedCount, generateNdjson, generateInto, MediaSearch, countEntries, snapshotPath } = await commands();
      const opts = { videos: o.videos, seed: o.seed };
      const total = generatedCount(o.videos);
      if (o.output) {
        const out = o.output === '-' ? process.stdout : createWriteStream(resolve(o.output), { mode: 0o600 });
        const n = await generateNdjson(opts, out);
        if (out !== process.stdout) {
          out.end();
          await finished(out);
        }
        process.stderr.write(`generated ${n} entries\n`);
        return;
      }
      await withStore(o, async (store) => {
        const started = performance.now();
        const bar = progressBar(cliProgress, o, 'entries');
        await generateInto(store, opts, total, bar.update);
        bar.stop();
        const written = performance.now();
        const indexBar = progressBar(cliProgress, o, 'rows indexed');
        // the index is saved in the data directory too (where `serve` looks for it), so the first `serve` loads it instead of building it
        const snapshotFile = await snapshotPath(store, { snapshotDir: resolve(o.dataDir) });
        const engine = new MediaSearch(store.db, { onProgress: (loaded) => indexBar.update({ phase: 'index', done: loaded, total }), snapshotFile });
        await engine.refresh();
        await engine.saved();
        indexBar.stop();
        const counts = await countEntries(store.db);
        process.stderr.write(
          `generated ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${((written - started) / 1000).toFixed(1)} s; index built in ${((performance.now() - written) / 1000).toFixed(1)} s (${engine.size} searchable documents)\n`,
        );
      });
    });
}

function parseCount(v: string): number {
  const n = Number(v);
  if (!/^[0-9]{1,9}$/.test(v) || !Number.isSafeInteger(n)) throw new Error(`'${v}' is not a whole number (0-999999999)`);
  return n;
}

async function withStore(o: { dataDir: string; databaseUrl?: string }, work: (store: Store) => Promise<void>): Promise<void> {
  const dataDir = o.databaseUrl ? undefined : resolve(o.dataDir);
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await Store.open({ databaseUrl: o.databaseUrl, dataDir });
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

/** A progress bar on stderr with rate and ETA (none when stderr is not a terminal or with --no-progress). */
function progressBar(cliProgress: typeof import('cli-progress'), o: { progress?: boolean }, unit: string): { update: (p: Progress) => void; stop: () => void } {
  if (o.progress === false || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `{phase} [{bar}] {percentage}% | {value}/{total} ${unit} | {speed}/s | ETA {eta_formatted}`, stream: process.stderr, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let phase = '';
  let t0 = performance.now();
  return {
    update: (p) => {
      if (p.phase !== phase) {
        if (started) bar.stop();
        started = false;
        phase = p.phase;
        t0 = performance.now();
      }
      const speed = Math.round(p.done / Math.max(0.001, (performance.now() - t0) / 1000));
      if (!started) {
        bar.start(p.total, p.done, { phase: p.phase, speed });
        started = true;
      } else {
        bar.setTotal(Math.max(p.total, p.done));
        bar.update(p.done, { phase: p.phase, speed });
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
