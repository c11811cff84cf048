import { createWriteStream, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { type Command, Option } from 'commander';
import type { Store } from '../../../platform/store/store.ts';
import type { CatalogTarget } from './bulk.ts';

/**
 * What the commands run, imported when one runs: `registerCatalogCommands` is called on every
 * `cloudtwin` start, `serve` included, which needs none of it (docs/operations.md, "Start-up and
 * lazy loading").
 */
async function commands() {
  const [{ Store }, { default: cliProgress }, bulk, { generatedCount }, { countEntries }, { MediaSearch }, { snapshotPath }, remote, { progressBar }] = await Promise.all([
    import('../../../platform/store/store.ts'),
    import('cli-progress'),
    import('./bulk.ts'),
    import('./generator.ts'),
    import('./repository.ts'),
    import('../search/engine.ts'),
    import('./index.ts'),
    import('./remote.ts'),
    import('./progress.ts'),
  ]);
  return { Store, cliProgress, ...bulk, generatedCount, countEntries, MediaSearch, snapshotPath, ...remote, progressBar };
}

interface TargetOptions {
  url?: string;
  adminToken?: string;
  dataDir: string;
  databaseUrl?: string;
  progress?: boolean;
}

/**
 * `cloudtwin catalog import|export|generate`: work on the catalogue of a running server
 * (`--url`, through its admin API) or of a data directory (SQLite) / PostgreSQL database
 * directly. Opening a SQLite data directory needs its lock, so while a server runs on it use
 * `--url` (or the command stops with "in use by process N" and changes nothing).
 */
export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('media catalogue: import, export and generate (NDJSON of Data API resources; README "Media catalogue")');
  const targetOptions = (c: Command) =>
    c
      .addOption(new Option('--url <url>', "a running server's address (e.g. http://127.0.0.1:8080): work through its admin API").conflicts('databaseUrl'))
      .addOption(new Option('--admin-token <token>', 'admin token for --url (default: the data directory\'s admin-token file)').env('CLOUDTWIN_ADMIN_TOKEN'))
      .addOption(new Option('--data-dir <dir>', 'data directory (SQLite; with --url, where the admin token is kept)').env('CLOUDTWIN_DATA_DIR').default('.cloudtwin'))
      .addOption(new Option('--database-url <url>', 'PostgreSQL connection URL (postgres://...)').env('CLOUDTWIN_DATABASE_URL'))
      .addOption(new Option('--no-progress', 'no progress bar (also when stderr is not a terminal)'));

  targetOptions(catalog.command('import').argument('<file>', 'NDJSON file: one entry per line').description('import catalogue entries (checked whole first; written in resumable batches)')).action(
    async (file: string, o: TargetOptions) => {
      const { cliProgress, importNdjson, checkReadable, progressBar } = await commands();
      const path = resolve(file);
      checkReadable(path);
      await withTarget(o, async (target) => {
        const bar = progressBar(cliProgress, o, 'bytes');
        try {
          const r = await importNdjson(target, path, bar.update);
          bar.stop();
          process.stderr.write(`imported ${r.entries} entries${r.resumedAfterLine ? ` (resumed after line ${r.resumedAfterLine})` : ''}\n`);
        } finally {
          bar.stop();
        }
      });
    },
  );

  targetOptions(catalog.command('export').description('write the catalogue as NDJSON (content owners, channels, videos, playlists)'))
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (o: TargetOptions & { output?: string }) => {
      const { exportNdjson } = await commands();
      await withTarget(o, async (target) => {
        const out = o.output ? createWriteStream(resolve(o.output), { mode: 0o600 }) : process.stdout;
        const n = await exportNdjson(target, out);
        if (o.output) {
          out.end();
          await finished(out);
        }
        process.stderr.write(`exported ${n} entries\n`);
      });
    });

  targetOptions(catalog.command('generate').description('generate a deterministic, realistic catalogue into the store or server (or as NDJSON with --output)'))
    .requiredOption('--videos <n>', 'number of videos (channels: n/50, playlists: n/100, content owners: n/50000)', parseCount)
    .option('--seed <s>', 'seed: the same seed and size give the same catalogue', parseCount, 1)
    .option('-o, --output <file>', 'write NDJSON to this file (- for stdout) instead of the store')
    .action(async (o: TargetOptions & { videos: number; seed: number; output?: string }) => {
      const { cliProgress, generatedCount, generateNdjson, generateInto, MediaSearch, countEntries, snapshotPath, progressBar } = await commands();
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
      await withTarget(o, async (target, store) => {
        const started = performance.now();
        const bar = progressBar(cliProgress, o, 'entries');
        const n = await generateInto(target, opts, total, bar.update);
        bar.stop();
        const written = performance.now();
        if (!store) {
          process.stderr.write(`generated ${n} entries in ${((written - started) / 1000).toFixed(1)} s; the server indexes them on its next search\n`);
          return;
        }
        const counts = await countEntries(store.db);
        const indexed = counts.channels + counts.videos + counts.playlists;
        const indexBar = progressBar(cliProgress, o, 'rows indexed');
        // the index is saved in the data directory too (where `serve` looks for it), so the first `serve` loads it instead of building it
        const snapshotFile = await snapshotPath(store, { snapshotDir: resolve(o.dataDir) });
        let loaded = 0;
        const engine = new MediaSearch(store.db, {
          onProgress: (rows) => {
            loaded = rows;
            indexBar.update({ phase: 'index', done: rows, total: Math.max(indexed, rows) });
          },
          snapshotFile,
        });
        await engine.refresh();
        await engine.saved();
        indexBar.update({ phase: 'index', done: loaded, total: loaded });
        indexBar.stop();
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

/**
 * Runs `work` on the chosen target: a server (`--url`), PostgreSQL, or a SQLite data directory.
 * A command that fails before it wrote anything leaves a data directory as it found it: a
 * directory it made is removed, files it made in an existing one (an empty database) too.
 */
async function withTarget(o: TargetOptions, work: (target: CatalogTarget, store?: Store) => Promise<void>): Promise<void> {
  const { Store, storeTarget, remoteTarget, parseServerUrl, resolveAdminToken, ImportError, UnreadableFileError } = await commands();
  if (o.url) {
    const url = parseServerUrl(o.url);
    await work(remoteTarget(url, resolveAdminToken(o.adminToken, resolve(o.dataDir))));
    return;
  }
  const dataDir = o.databaseUrl ? undefined : resolve(o.dataDir);
  const existed = dataDir ? existsSync(dataDir) : true;
  const before = dataDir && existed ? new Set(readdirSync(dataDir)) : new Set<string>();
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await Store.open({ databaseUrl: o.databaseUrl, dataDir });
  let failedBeforeWriting = false;
  try {
    await work(storeTarget(store), store);
  } catch (err) {
    failedBeforeWriting = (err instanceof ImportError && err.nothingWritten) || err instanceof UnreadableFileError;
    throw err;
  } finally {
    await store.close();
    if (dataDir && failedBeforeWriting) {
      if (!existed) rmSync(dataDir, { recursive: true, force: true });
      else for (const name of readdirSync(dataDir)) if (!before.has(name)) rmSync(join(dataDir, name), { recursive: true, force: true });
    }
  }
}
