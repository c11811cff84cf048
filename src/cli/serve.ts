/**
 * `cloudtwin serve`: starts the server from its checked settings (src/cli/serveOptions.ts),
 * prints the admin token line and the ready lines on stdout (the log goes to stderr), and drains
 * on SIGTERM, SIGINT and SIGHUP. Imported only when `serve` (or `exec`, which starts the same
 * server) runs.
 */
import type { Command } from 'commander';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { reachableHost } from '../platform/transport/listener.ts';
import { type RunningCloudtwin, startServing } from '../start.ts';
import { type LogSink, logSink } from './logFormat.ts';
import { type ServeSettings, optionText, readServeSettings, startFailure } from './serveOptions.ts';

/** Starts the server `settings` describe, its log written to `log` in the chosen format. */
export async function startFromSettings(settings: ServeSettings, log: LogSink): Promise<RunningCloudtwin> {
  const dataDir = settings.dataDir === undefined ? undefined : resolve(settings.dataDir);
  const tls = await serverTlsMaker(settings, dataDir);
  return startServing({
    host: settings.host,
    port: settings.port,
    dataDir,
    databaseUrl: settings.databaseUrl,
    worldFile: settings.world,
    adminToken: settings.adminToken,
    auth: settings.auth,
    permissivePrincipal: settings.permissivePrincipal,
    mediaPathPrefix: settings.mediaPathPrefix,
    mediaServiceName: settings.mediaServiceName,
    mediaKindPrefix: settings.mediaKindPrefix,
    mediaSearchThreads: settings.mediaSearchThreads,
    journalSize: settings.journalSize,
    journalBodies: settings.journalBodies,
    allowedHosts: settings.allowedHosts,
    logger: { level: settings.logLevel, stream: logSink(settings.logFormat, log) },
    // Made once the port is bound (the local CA writes into the data directory).
    tls,
  });
}

/**
 * How to make the certificate `--tls` serves (called once the port is bound): `--tls-cert`/
 * `--tls-key`, or one from the local CA in the data directory; undefined without `--tls`.
 */
async function serverTlsMaker(settings: ServeSettings, dataDir: string | undefined) {
  if (!settings.tls) return undefined;
  const { tlsCert, tlsKey } = settings;
  if (tlsCert !== undefined && tlsKey !== undefined) return () => ({ cert: readFileSync(tlsCert), key: readFileSync(tlsKey), caFile: undefined });
  // The local CA (X.509 making) is loaded only for a start that serves TLS.
  const { localServerTls } = await import('../platform/transport/localCa.ts');
  if (dataDir !== undefined) return () => localServerTls(join(dataDir, 'tls'), settings.allowedHosts);
  // In memory nothing is kept: a CA for this run only, its keys in memory, its certificate (for
  // clients to trust) in a temporary directory removed when the process exits.
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudtwin-tls-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return localServerTls(dir, settings.allowedHosts, { keys: 'memory' });
  };
}

/** The `serve` command's action. */
export async function runServe(cmd: Command): Promise<void> {
  let running: RunningCloudtwin;
  try {
    const settings = readServeSettings(cmd, { memoryUnlessStored: false });
    if (settings.databaseUrl && settings.dataDir && ['cli', 'env'].includes(cmd.getOptionValueSource('dataDir') ?? '')) {
      // Not an error: on PostgreSQL the data directory keeps the master key and the admin token (processes may share it).
      process.stderr.write(`cloudtwin: ${optionText(cmd, 'dataDir')}: the store is PostgreSQL (${optionText(cmd, 'databaseUrl')}); this directory keeps only master.key and admin-token\n`);
    }
    // Structured logs go to stderr; stdout carries the admin token line and the ready lines.
    running = await startFromSettings(settings, process.stderr);
    const { twin, url, listener, tls } = running;
    const tokenFile = settings.dataDir !== undefined && settings.adminToken === undefined ? join(resolve(settings.dataDir), 'admin-token') : undefined;
    process.stdout.write(`admin token: ${adminTokenText(cmd, twin.adminToken, twin.adminTokenGenerated, tokenFile)}\n`);
    process.stdout.write(`cloudtwin listening on ${url}${wildcardNote(settings.host)}\n`);
    process.stdout.write(`console at ${url}/console/\n`);
    process.stdout.write(`transports: ${listener.transports.join(', ')} (REST and gRPC on this one port)\n`);
    if (tls?.caFile) process.stdout.write(`TLS certificate from the local CA ${tls.caFile} (trust it once: NODE_EXTRA_CA_CERTS=${tls.caFile})\n`);
  } catch (err) {
    const failure = startFailure(cmd, err);
    process.stderr.write(`${failure.line}\n`);
    process.exit(failure.exitCode);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.twin.app.log.info({ signal }, 'draining');
    await running.stop();
    process.exit(0);
  };
  // SIGHUP too (the terminal went away): drain rather than die with the data-directory lock held.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
}

/** After the ready line's address, for a wildcard host: that every interface listens (the address shown is this machine's loopback one). */
export function wildcardNote(host: string): string {
  return reachableHost(host) === host ? '' : ` (all interfaces: ${host})`;
}

/** What the admin-token line says: the token itself only when it was generated now; else where it is kept or where it came from. */
function adminTokenText(cmd: Command, token: string, generated: boolean, file: string | undefined): string {
  if (generated) return file ? `${token} (kept in ${file})` : `${token} (in memory: a new one every start)`;
  return file ? `kept in ${file}` : `as given by ${optionText(cmd, 'adminToken', false)}`;
}
