/**
 * Drives the real Google Cloud CLI (`gcloud` from PATH) against a cloudtwin server, the way a
 * user points it there: `api_endpoint_overrides/apikeys` and `api_endpoint_overrides/compute`
 * on the server, and `auth/access_token_file` holding a token minted by the admin API
 * (`POST /_twin/v1/tokens`). Every command runs with a configuration directory
 * (`CLOUDSDK_CONFIG`) of its own, so commands run in parallel without sharing gcloud's state
 * (gcloud takes about half a second to a second per command), with no prompts, no usage
 * reporting and no update checks.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, test } from 'node:test';
import { adminCall, type ServerProcess, serverForSuite } from './server.ts';

/** The absolute path of `gcloud` on PATH, or undefined. */
export function findGcloud(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, 'gcloud');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * Whether a suite that needs gcloud can run. When gcloud is absent: in CI (`CI=true`) this
 * registers one failing test whose whole message is one clear line; elsewhere it prints one
 * line saying the suite is skipped. Use as `if (gcloudAvailable('suite')) describe(...)`.
 */
export function gcloudAvailable(suite: string): boolean {
  if (findGcloud()) return true;
  const line = `${suite}: gcloud (the Google Cloud CLI) is not on PATH`;
  if (process.env.CI === 'true') {
    test(`${line}: CI needs it`, () => {
      const e = new Error(`${line}; CI needs it (the machine image has it at /usr/bin/gcloud)`);
      e.stack = e.message;
      throw e;
    });
  } else {
    console.log(`${line}: skipped`);
  }
  return false;
}

export interface GcloudResult {
  /** Exit status (0: success). */
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when the command ran with `--format=json` and printed something. */
  json: any;
  /** The command line, for assertion messages. */
  command: string;
}

export interface GcloudOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The admin token, to mint access tokens. */
  adminToken: string;
  /** The default project (`core/project`). */
  project?: string;
  /** Extra properties for every command, as `section/name` -> value. */
  properties?: Record<string, string>;
}

export interface RunOptions {
  /** Acts as this principal (an access token is minted once per principal). Default: the session's. */
  as?: string;
  /** Adds `--format=json` and parses stdout. Default true. */
  json?: boolean;
  /** Extra properties for this command. */
  properties?: Record<string, string>;
  /** Files to write into the command's own directory first (e.g. a `--flags-file`); `{dir}` in args is replaced by it. */
  files?: Record<string, string>;
  timeoutMs?: number;
}

/** One gcloud user of one cloudtwin server. */
export class Gcloud {
  readonly #opts: GcloudOptions;
  readonly #principal: string;
  readonly #root: string;
  readonly #tokens = new Map<string, Promise<string>>();
  #seq = 0;

  constructor(opts: GcloudOptions, principal: string) {
    this.#opts = opts;
    this.#principal = principal;
    this.#root = mkdtempSync(join(tmpdir(), 'cloudtwin-gcloud-'));
  }

  /** The base properties of every command: the endpoint overrides and quiet operation. */
  baseProperties(): Record<string, string> {
    const base = this.#opts.url.replace(/\/+$/, '');
    return {
      'api_endpoint_overrides/apikeys': `${base}/`,
      'api_endpoint_overrides/compute': `${base}/compute/v1/`,
      'core/disable_usage_reporting': 'true',
      'core/disable_prompts': 'true',
      'component_manager/disable_update_check': 'true',
      ...(this.#opts.project ? { 'core/project': this.#opts.project } : {}),
      ...this.#opts.properties,
    };
  }

  /** The path of a file holding an access token of `principal` (minted through the admin API once). */
  tokenFile(principal: string = this.#principal): Promise<string> {
    let p = this.#tokens.get(principal);
    if (!p) {
      // The file name is fixed now, before the await: tokens minted concurrently never share a file.
      const file = join(this.#root, `token-${this.#tokens.size}`);
      p = (async () => {
        const t = await adminCall(this.#opts.url, this.#opts.adminToken, 'POST', '/_twin/v1/tokens', { principal });
        writeFileSync(file, t.access_token, { mode: 0o600 });
        return file;
      })();
      this.#tokens.set(principal, p);
    }
    return p;
  }

  /** Runs `gcloud ARGS` with a configuration directory of its own; never throws on a non-zero exit. */
  async run(args: string[], o: RunOptions = {}): Promise<GcloudResult> {
    const dir = join(this.#root, `cmd-${++this.#seq}`);
    const config = join(dir, 'config');
    mkdirSync(join(config, 'configurations'), { recursive: true });
    const props = { ...this.baseProperties(), 'auth/access_token_file': await this.tokenFile(o.as), ...o.properties };
    writeFileSync(join(config, 'active_config'), 'default');
    writeFileSync(join(config, 'configurations', 'config_default'), toIni(props));
    for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(dir, name), text);
    const argv = args.map((a) => a.replaceAll('{dir}', dir));
    if (o.json !== false) argv.push('--format=json');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CLOUDSDK_CONFIG: config,
      CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
      CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true',
      CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true',
    };
    const command = `gcloud ${argv.join(' ')}`;
    const result = await new Promise<GcloudResult>((resolve) => {
      execFile(findGcloud() ?? 'gcloud', argv, { env, timeout: o.timeoutMs ?? 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0;
        let json: any;
        if (o.json !== false && stdout.trim()) {
          try {
            json = JSON.parse(stdout);
          } catch {
            json = undefined;
          }
        }
        // A command killed at its timeout says so (a loaded machine, not an answer of the server).
        const killed = (err as any)?.killed ? `\n(killed after ${o.timeoutMs ?? 60_000} ms)` : '';
        resolve({ code, stdout, stderr: stderr + killed, json, command });
      });
    });
    rmSync(dir, { recursive: true, force: true });
    return result;
  }

  /** Removes every temporary file (token files, configuration directories). */
  cleanup(): void {
    rmSync(this.#root, { recursive: true, force: true });
  }
}

/** `section/name` properties as the INI text of a gcloud configuration file. */
function toIni(props: Record<string, string>): string {
  const sections = new Map<string, string[]>();
  for (const [key, value] of Object.entries(props)) {
    const [section, name] = key.split('/', 2);
    if (!sections.has(section)) sections.set(section, []);
    sections.get(section)!.push(`${name} = ${value}`);
  }
  return [...sections].map(([s, lines]) => `[${s}]\n${lines.join('\n')}\n`).join('');
}

/**
 * Suite hooks: a `cloudtwin serve` process on the suite's store (with `args`), `world` applied,
 * and a Gcloud acting as `principal` in `project`, started before the suite's tests and stopped
 * (and its database dropped) after them. Read `server` and `g` inside the tests.
 */
export function gcloudServerHooks(opts: { world: unknown; principal: string; project: string; args?: string[] }): { readonly server: ServerProcess; readonly g: Gcloud } {
  const suite = serverForSuite(opts.world, { args: opts.args });
  let g: Gcloud | undefined;
  before(() => {
    g = new Gcloud({ url: suite.server.url, adminToken: suite.server.adminToken, project: opts.project }, opts.principal);
  });
  after(() => g?.cleanup());
  return {
    get server() {
      return suite.server;
    },
    get g() {
      if (!g) throw new Error('gcloud is set up in the suite\'s before hook');
      return g;
    },
  };
}
