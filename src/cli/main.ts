import { Command, Option } from 'commander';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_PERMISSIVE_PRINCIPAL } from '../platform/auth/principal.ts';
import { registerCatalogCommands } from '../services/media/catalog/cli.ts';
import { StartupError } from '../startupErrors.ts';
import { VERSION } from '../version.ts';

// This module defines the commands and their options only: `cloudtwin --version` and `--help`
// load nothing of the server. A command's action imports what it runs (docs/operations.md,
// "Start-up and lazy loading").

const program = new Command();
program.name('cloudtwin').description('Wire-compatible API Keys v2, Compute v1 instance templates (global and regional) and media search v3').version(VERSION);

const serve = program
  .command('serve')
  .description('start the server (SQLite in ./.cloudtwin by default)')
  .addOption(new Option('--host <host>', 'interface to listen on').env('CLOUDTWIN_HOST').default('127.0.0.1'))
  .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').env('CLOUDTWIN_PORT').default('8080'))
  .addOption(new Option('--data-dir <dir>', 'data directory (SQLite database, master key, admin token)').env('CLOUDTWIN_DATA_DIR').default('.cloudtwin'))
  .addOption(new Option('--in-memory', 'keep everything in memory; nothing is written to disk').env('CLOUDTWIN_IN_MEMORY').conflicts('databaseUrl'))
  .addOption(new Option('--database-url <url>', 'PostgreSQL connection URL (postgres://...); many processes may share one database').env('CLOUDTWIN_DATABASE_URL'))
  .addOption(new Option('--world <file>', 'world document (JSON or YAML) to apply at start').env('CLOUDTWIN_WORLD'))
  .addOption(new Option('--admin-token <token>', 'admin API token (default: generated, kept in the data directory)').env('CLOUDTWIN_ADMIN_TOKEN'))
  .addOption(new Option('--auth <mode>', 'enforce: real credentials; permissive: any bearer token is the permissive principal').choices(['enforce', 'permissive']).env('CLOUDTWIN_AUTH').default('enforce'))
  .addOption(new Option('--permissive-principal <member>', 'the principal of permissive mode').env('CLOUDTWIN_PERMISSIVE_PRINCIPAL').default(DEFAULT_PERMISSIVE_PRINCIPAL))
  .addOption(new Option('--allowed-host <name...>', 'another host name the admin API and console answer to (DNS-rebinding guard)').env('CLOUDTWIN_ALLOWED_HOSTS').argParser(collectHosts))
  .addOption(new Option('--media-path-prefix <prefix>', "path prefix of the media API ({prefix}/v3/search); '' for none").env('CLOUDTWIN_MEDIA_PATH_PREFIX').default('/youtube'))
  .addOption(new Option('--media-service-name <name>', 'service name of the media API in API-key apiTargets and error metadata').env('CLOUDTWIN_MEDIA_SERVICE_NAME').default('youtube.googleapis.com'))
  .addOption(new Option('--media-kind-prefix <prefix>', "prefix of kind values in media answers: media (media#video, the service document's) or youtube (youtube#video, the YouTube Data API's)").choices(['media', 'youtube']).env('CLOUDTWIN_MEDIA_KIND_PREFIX').default('media'))
  .addOption(new Option('--tls', 'serve HTTPS and gRPC over TLS on the port (a local CA in the data directory issues the certificate unless --tls-cert is given)').env('CLOUDTWIN_TLS'))
  .addOption(new Option('--tls-cert <file>', 'PEM certificate chain to serve with --tls').env('CLOUDTWIN_TLS_CERT'))
  .addOption(new Option('--tls-key <file>', 'PEM private key of --tls-cert').env('CLOUDTWIN_TLS_KEY'))
  .addOption(new Option('--journal-size <n>', 'public API calls the request journal keeps (GET /_twin/v1/requests); 0 turns it off').env('CLOUDTWIN_JOURNAL_SIZE').default(10000).argParser(parseJournalSize))
  .addOption(new Option('--journal-bodies', 'journal request and response bodies too (credentials masked)').env('CLOUDTWIN_JOURNAL_BODIES'))
  .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent').env('CLOUDTWIN_LOG_LEVEL').default('info'))
  .action(async (o) => {
    const inMemory = Boolean(o.inMemory) && o.inMemory !== 'false';
    const dataDir = inMemory ? undefined : resolve(o.dataDir);
    const given = (name: string) => ['cli', 'env'].includes(serve.getOptionValueSource(name) ?? '');
    if (o.databaseUrl && dataDir && given('dataDir')) {
      // Not an error: on PostgreSQL the data directory keeps the master key and the admin token (processes may share it).
      process.stderr.write(`cloudtwin: ${optionText('dataDir')}: the store is PostgreSQL (${optionText('databaseUrl')}); this directory keeps only master.key and admin-token\n`);
    }
    const port = parsePort(o.port);
    const tls = await serverTlsMaker(o, inMemory);
    const { startServing } = await import('../start.ts');
    const running = await startServing({
      host: o.host,
      port,
      dataDir,
      databaseUrl: o.databaseUrl,
      worldFile: o.world,
      adminToken: o.adminToken,
      auth: o.auth,
      permissivePrincipal: o.permissivePrincipal,
      mediaPathPrefix: o.mediaPathPrefix,
      mediaServiceName: o.mediaServiceName,
      mediaKindPrefix: o.mediaKindPrefix,
      journalSize: o.journalSize,
      journalBodies: Boolean(o.journalBodies) && o.journalBodies !== 'false',
      allowedHosts: [o.host, ...(o.allowedHost ?? [])],
      // Structured logs go to stderr; stdout carries the admin token line and the ready lines.
      logger: { level: o.logLevel, stream: process.stderr },
      // Made once the port is bound (the local CA writes into the data directory).
      tls,
    });
    const { twin, url, listener } = running;
    const caFile = running.tls?.caFile;
    process.stdout.write(`admin token: ${adminTokenText(twin.adminToken, twin.adminTokenGenerated, dataDir && !o.adminToken ? join(dataDir, 'admin-token') : undefined)}\n`);
    process.stdout.write(`cloudtwin listening on ${url}\n`);
    process.stdout.write(`console at ${url}/console/\n`);
    process.stdout.write(`transports: ${listener.transports.join(', ')} (REST and gRPC on this one port)\n`);
    if (caFile) process.stdout.write(`TLS certificate from the local CA ${caFile} (trust it once: NODE_EXTRA_CA_CERTS=${caFile})\n`);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      twin.app.log.info({ signal }, 'draining');
      await running.stop();
      process.exit(0);
    };
    // SIGHUP too (the terminal went away): drain rather than die with the data-directory lock held.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
  });

/**
 * How to make the certificate `--tls` serves (called once the port is bound): `--tls-cert`/
 * `--tls-key`, or one from the local CA in the data directory; undefined without `--tls`.
 */
async function serverTlsMaker(o: { tls?: boolean | string; tlsCert?: string; tlsKey?: string; dataDir: string; host: string; allowedHost?: string[] }, inMemory: boolean) {
  const on = (o.tls !== undefined && o.tls !== false && o.tls !== 'false') || o.tlsCert !== undefined;
  if (!on) return undefined;
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw new Error('--tls-cert and --tls-key go together');
  const { tlsCert, tlsKey } = o;
  if (tlsCert !== undefined && tlsKey !== undefined) return () => ({ cert: readFileSync(tlsCert), key: readFileSync(tlsKey), caFile: undefined });
  // The local CA (X.509 making) is loaded only for a start that serves TLS.
  const { localServerTls } = await import('../platform/transport/localCa.ts');
  // In memory nothing is kept: the CA lives in a fresh temporary directory, trusted for this run only.
  return () => localServerTls(inMemory ? mkdtempSync(join(tmpdir(), 'cloudtwin-tls-')) : resolve(o.dataDir, 'tls'), [o.host, ...(o.allowedHost ?? [])]);
}

/** What the admin-token line says: the token itself only when it was generated now; else where it is kept or where it came from. */
function adminTokenText(token: string, generated: boolean, file: string | undefined): string {
  if (generated) return file ? `${token} (kept in ${file})` : `${token} (in memory: a new one every start)`;
  return file ? `kept in ${file}` : `as given by ${optionText('adminToken', false)}`;
}

/** How the user gave an option, for a message: `--port abc`, `CLOUDTWIN_PORT=abc (from the environment)`, or the flag alone. */
function optionText(name: string, withValue = true): string {
  const option = serve.options.find((opt) => opt.attributeName() === name);
  if (!option) return name;
  const value = serve.getOptionValue(name);
  const shown = name === 'databaseUrl' ? maskUrlPassword(String(value)) : String(value);
  if (serve.getOptionValueSource(name) === 'env' && option.envVar) return withValue ? `${option.envVar}=${shown} (from the environment)` : `${option.envVar} (from the environment)`;
  const flag = option.long ?? option.flags;
  return withValue && value !== undefined ? `${flag} ${shown}` : flag;
}

function maskUrlPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '****';
    return u.href;
  } catch {
    return url;
  }
}

/** `--allowed-host a --allowed-host b`, or `CLOUDTWIN_ALLOWED_HOSTS=a,b`. */
function collectHosts(v: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...v.split(',').map((h) => h.trim()).filter(Boolean)];
}

function parseJournalSize(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 10_000_000) throw new Error(`invalid journal size '${v}' (a whole number from 0 to 10000000)`);
  return n;
}

function parsePort(v: string): number {
  const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new StartupError('not a port; expected a whole number from 0 to 65535 (0 picks a free port)', { option: 'port', exitCode: 2 });
  return n;
}

registerCatalogCommands(program);

// Usage errors (an unknown flag, a missing value, a value not among the choices) exit with 2.
program.exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));
for (const command of program.commands) command.exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

program.parseAsync(process.argv).catch((err) => {
  if (err instanceof StartupError) {
    const subject = err.option === undefined ? '' : `${optionText(err.option)}: `;
    process.stderr.write(`cloudtwin: ${subject}${err.message}\n`);
    process.exit(err.exitCode);
  }
  process.stderr.write(`cloudtwin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
