/**
 * The options of `cloudtwin serve`, which `cloudtwin exec` shares (it starts the same server
 * around a command): each flag with its environment twin, and the check its value passes
 * whichever way it came. A bad value stops the start with one line naming the flag or the
 * variable, the value and what is expected, and exit code 2; `0.0.0.0` and friends are checked
 * when the port is bound, files when they are read (src/start.ts, src/server.ts), and say so the
 * same way. Light on purpose (commander and a few checks): the command that runs imports the server.
 */
import { type Command, Option } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { DEFAULT_PERMISSIVE_PRINCIPAL, isPrincipal } from '../platform/auth/principal.ts';
import { DEFAULT_PATH_PREFIX, DEFAULT_SERVICE_NAME, KIND_PREFIXES, type KindPrefix, isPathPrefix, isServiceName } from '../services/media/names.ts';
import { StartupError } from '../startupErrors.ts';
import { LOG_FORMATS, type LogFormat } from './logFormat.ts';

/** What `serve` and `exec` start from, every value checked. */
export interface ServeSettings {
  host: string;
  port: number;
  /** Absent: in memory (nothing written to disk). */
  dataDir: string | undefined;
  databaseUrl: string | undefined;
  world: string | undefined;
  adminToken: string | undefined;
  auth: 'enforce' | 'permissive';
  permissivePrincipal: string;
  allowedHosts: string[];
  mediaPathPrefix: string;
  mediaServiceName: string;
  mediaKindPrefix: KindPrefix;
  mediaSearchThreads: 1 | 2;
  tls: boolean;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  journalSize: number;
  journalBodies: boolean;
  logLevel: string;
  logFormat: LogFormat;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const AUTH_MODES = ['enforce', 'permissive'] as const;
const MAX_JOURNAL_SIZE = 10_000_000;
const SEARCH_THREADS = ['1', '2'] as const;

/** A value that can never work, found before anything starts: `reason` follows the flag or variable and its value. */
class OptionError extends Error {
  readonly option: string;
  constructor(option: string, reason: string) {
    super(reason);
    this.option = option;
  }
}

/** An option whose help lists `values` (the check is `oneOf`, so a bad value reads like every other). */
function withChoices(option: Option, values: readonly string[]): Option {
  option.argChoices = [...values];
  return option;
}

/**
 * Adds the serve options to `cmd`. `exec` differs in its defaults only: a free port, and (see
 * `readServeSettings`) memory unless a store is named.
 */
export function addServeOptions(cmd: Command, defaults: { port: string; dataDirShown?: string }): Command {
  const options = [
    new Option('--host <host>', 'interface to listen on (0.0.0.0: every interface)').env('CLOUDTWIN_HOST').default('127.0.0.1'),
    new Option('--port <port>', 'port to listen on; 0 picks a free one').env('CLOUDTWIN_PORT').default(defaults.port),
    new Option('--data-dir <dir>', 'data directory (SQLite database, master key, admin token)').env('CLOUDTWIN_DATA_DIR').default('.cloudtwin', defaults.dataDirShown),
    new Option('--in-memory', 'keep everything in memory; nothing is written to disk').env('CLOUDTWIN_IN_MEMORY'),
    new Option('--database-url <url>', 'PostgreSQL connection URL (postgres://...); many processes may share one database').env('CLOUDTWIN_DATABASE_URL'),
    new Option('--world <file>', 'world document (JSON or YAML) to apply at start').env('CLOUDTWIN_WORLD'),
    new Option('--admin-token <token>', 'admin API token (default: generated, kept in the data directory)').env('CLOUDTWIN_ADMIN_TOKEN'),
    withChoices(new Option('--auth <mode>', 'enforce: real credentials; permissive: any bearer token is the permissive principal').env('CLOUDTWIN_AUTH').default('enforce'), AUTH_MODES),
    new Option('--permissive-principal <member>', 'the principal of permissive mode').env('CLOUDTWIN_PERMISSIVE_PRINCIPAL').default(DEFAULT_PERMISSIVE_PRINCIPAL),
    new Option('--allowed-host <name...>', 'another host name the admin API and console answer to (DNS-rebinding guard)').env('CLOUDTWIN_ALLOWED_HOSTS').argParser(collectHosts),
    new Option('--media-path-prefix <prefix>', "path prefix of the media API ({prefix}/v3/search); '' for none").env('CLOUDTWIN_MEDIA_PATH_PREFIX').default(DEFAULT_PATH_PREFIX),
    new Option('--media-service-name <name>', 'service name of the media API in API-key apiTargets and error metadata').env('CLOUDTWIN_MEDIA_SERVICE_NAME').default(DEFAULT_SERVICE_NAME),
    withChoices(
      new Option('--media-kind-prefix <prefix>', "prefix of kind values in media answers: media (media#video, the service document's) or youtube (youtube#video, the YouTube Data API's)").env('CLOUDTWIN_MEDIA_KIND_PREFIX').default('media'),
      KIND_PREFIXES,
    ),
    withChoices(
      new Option('--media-search-threads <n>', 'threads answering media searches: 2 adds one with its own copy of the search index (faster under concurrent searches, that much more memory; needs a data directory or database)').env('CLOUDTWIN_MEDIA_SEARCH_THREADS').default('1'),
      SEARCH_THREADS,
    ),
    new Option('--tls', 'serve HTTPS and gRPC over TLS on the port (a local CA in the data directory issues the certificate unless --tls-cert is given)').env('CLOUDTWIN_TLS'),
    new Option('--tls-cert <file>', 'PEM certificate chain to serve with --tls').env('CLOUDTWIN_TLS_CERT'),
    new Option('--tls-key <file>', 'PEM private key of --tls-cert').env('CLOUDTWIN_TLS_KEY'),
    new Option('--journal-size <n>', 'public API calls the request journal keeps (GET /_twin/v1/requests); 0 turns it off').env('CLOUDTWIN_JOURNAL_SIZE').default('10000'),
    new Option('--journal-bodies', 'journal request and response bodies too (credentials masked)').env('CLOUDTWIN_JOURNAL_BODIES'),
    withChoices(new Option('--log-level <level>', 'how much the server logs').env('CLOUDTWIN_LOG_LEVEL').default('info'), LOG_LEVELS),
    withChoices(new Option('--log-format <format>', 'json: one JSON object per line (for log collectors); pretty: one plain line per record (for people)').env('CLOUDTWIN_LOG_FORMAT').default('json'), LOG_FORMATS),
  ];
  for (const option of options) cmd.addOption(option);
  return cmd;
}

/**
 * The checked settings of `cmd` (after parsing). `memoryUnlessStored`: in memory unless a data
 * directory or database is named (`exec`); otherwise the data directory unless `--in-memory`.
 * Throws an OptionError for the first bad value.
 */
export function readServeSettings(cmd: Command, opts: { memoryUnlessStored: boolean }): ServeSettings {
  const o = cmd.opts();
  const given = (name: string) => ['cli', 'env'].includes(cmd.getOptionValueSource(name) ?? '');
  const check = <T>(name: string, parse: (value: string) => T | OptionReason): T => {
    const result = parse(o[name]);
    if (result instanceof OptionReason) throw new OptionError(name, result.text);
    return result;
  };
  const flag = (name: string) => check(name, () => switchValue(cmd, name));
  const inMemory = flag('inMemory') ?? (opts.memoryUnlessStored && !given('dataDir') && !given('databaseUrl'));
  const databaseUrl = o.databaseUrl === undefined ? undefined : check('databaseUrl', postgresUrl);
  if (inMemory && databaseUrl !== undefined && given('inMemory')) throw new OptionError('inMemory', `cannot be used with ${optionText(cmd, 'databaseUrl')}; choose one store`);
  const tlsCert = o.tlsCert === undefined ? undefined : check('tlsCert', (v) => readableFile(v, 'a PEM certificate chain'));
  const tlsKey = o.tlsKey === undefined ? undefined : check('tlsKey', (v) => readableFile(v, 'a PEM private key'));
  const searchThreads = Number(check('mediaSearchThreads', (v) => oneOf(v, SEARCH_THREADS))) as 1 | 2;
  if (searchThreads === 2 && inMemory) throw new OptionError('mediaSearchThreads', 'needs a data directory or database: the second thread reads the store over a connection of its own, and an in-memory store has none');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    const [has, lacks] = tlsCert === undefined ? ['tlsKey', 'tlsCert'] : ['tlsCert', 'tlsKey'];
    throw new OptionError(has, `needs ${optionText(cmd, lacks, false)} too (the certificate and its private key)`);
  }
  return {
    host: o.host,
    port: check('port', port),
    dataDir: inMemory ? undefined : o.dataDir,
    databaseUrl,
    world: o.world,
    adminToken: o.adminToken === undefined ? undefined : check('adminToken', bearerToken),
    auth: check('auth', (v) => oneOf(v, AUTH_MODES)),
    permissivePrincipal: check('permissivePrincipal', (v) => (isPrincipal(v) ? v : new OptionReason('not a principal; expected an IAM member such as user:alice@example.com or serviceAccount:ci@demo-project.iam.gserviceaccount.com'))),
    allowedHosts: [o.host, ...check('allowedHost', (v: unknown) => hostNames(v as string[] | undefined))],
    mediaPathPrefix: check('mediaPathPrefix', (v) => (isPathPrefix(v) ? v : new OptionReason("not a path prefix; expected '' or /name(/name)* of URL-safe characters, such as /youtube"))),
    mediaServiceName: check('mediaServiceName', (v) => (isServiceName(v) ? v : new OptionReason('not a service name; expected a DNS name such as youtube.googleapis.com'))),
    mediaKindPrefix: check('mediaKindPrefix', (v) => oneOf(v, KIND_PREFIXES)),
    mediaSearchThreads: searchThreads,
    tls: (flag('tls') ?? false) || tlsCert !== undefined,
    tlsCert,
    tlsKey,
    journalSize: check('journalSize', journalSize),
    journalBodies: flag('journalBodies') ?? false,
    logLevel: check('logLevel', (v) => oneOf(v, LOG_LEVELS)),
    logFormat: check('logFormat', (v) => oneOf(v, LOG_FORMATS)),
  };
}

/** Why a value is refused: the text after `FLAG VALUE: `. */
class OptionReason {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * A switch (`--in-memory`, `--tls`, `--journal-bodies`): true when the flag is given; from its
 * variable, true or false as the value says; undefined when neither. Commander keeps no value
 * for a switch's variable, so it is read here.
 */
function switchValue(cmd: Command, name: string): boolean | undefined | OptionReason {
  const source = cmd.getOptionValueSource(name);
  if (source === 'cli') return true;
  if (source !== 'env') return undefined;
  const option = cmd.options.find((opt) => opt.attributeName() === name)!;
  const value = (process.env[option.envVar!] ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  return new OptionReason('not a switch value; expected true or false (or 1/0, yes/no, on/off)');
}

function oneOf<T extends string>(value: string, values: readonly T[]): T | OptionReason {
  return values.find((v) => v === value) ?? new OptionReason(`expected one of ${values.join(', ')}`);
}

function port(value: string): number | OptionReason {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : new OptionReason('not a port; expected a whole number from 0 to 65535 (0 picks a free port)');
}

function journalSize(value: string): number | OptionReason {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n <= MAX_JOURNAL_SIZE ? n : new OptionReason(`not a journal size; expected a whole number from 0 to ${MAX_JOURNAL_SIZE} (0 turns the journal off)`);
}

function postgresUrl(value: string): string | OptionReason {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '') return value;
  return new OptionReason('not a PostgreSQL URL; expected postgres://USER@HOST:PORT/DATABASE');
}

/** RFC 6750's token characters: what a client can send after `Bearer ` unchanged. */
function bearerToken(value: string): string | OptionReason {
  return /^[A-Za-z0-9._~+/-]+=*$/.test(value) && value.length <= 1024 ? value : new OptionReason('not a bearer token; expected 1 to 1024 letters, digits and - . _ ~ + / (as RFC 6750 allows), such as ctadm_local-admin');
}

function readableFile(value: string, what: string): string | OptionReason {
  if (!existsSync(value)) return new OptionReason(`no such file; expected ${what}`);
  if (!statSync(value).isFile()) return new OptionReason(`not a file; expected ${what}`);
  return value;
}

/** `--allowed-host a --allowed-host b`, or `CLOUDTWIN_ALLOWED_HOSTS=a,b`. */
function collectHosts(v: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...v.split(',').map((h) => h.trim()).filter(Boolean)];
}

function hostNames(names: string[] | undefined): string[] | OptionReason {
  const bad = (names ?? []).find((h) => isIP(h.replace(/^\[(.*)\]$/, '$1')) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(h));
  return bad === undefined ? (names ?? []) : new OptionReason(`'${bad}' is not a host name; expected DNS names or IP addresses, comma-separated in the variable (no scheme, no port)`);
}

/** How the user gave an option, for a message: `--port abc`, `CLOUDTWIN_PORT=abc (from the environment)`, or the flag alone. */
export function optionText(cmd: Command, name: string, withValue = true): string {
  const option = cmd.options.find((opt) => opt.attributeName() === name);
  if (!option) return name;
  const source = cmd.getOptionValueSource(name);
  const raw = source === 'env' && option.envVar ? process.env[option.envVar] : cmd.getOptionValue(name);
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const shown = name === 'databaseUrl' ? maskUrlPassword(String(value)) : name === 'adminToken' && value ? '****' : String(value);
  if (source === 'env' && option.envVar) return withValue ? `${option.envVar}=${shown} (from the environment)` : `${option.envVar} (from the environment)`;
  const flag = option.long ?? option.flags;
  return withValue && value !== undefined && !option.isBoolean() ? `${flag} ${shown}` : flag;
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

/**
 * The one line a start that cannot go on prints (`cloudtwin: FLAG VALUE: reason`), and its exit
 * code: 2 for a value that can never work, 1 otherwise (a port in use, a database that does not answer).
 */
export function startFailure(cmd: Command, err: unknown): { line: string; exitCode: number } {
  if (err instanceof OptionError) return { line: `cloudtwin: ${optionText(cmd, err.option)}: ${err.message}`, exitCode: 2 };
  if (err instanceof StartupError) {
    const subject = err.option === undefined ? '' : `${optionText(cmd, err.option)}: `;
    return { line: `cloudtwin: ${subject}${err.message}`, exitCode: err.exitCode };
  }
  return { line: `cloudtwin: ${err instanceof Error ? err.message : String(err)}`, exitCode: 1 };
}
