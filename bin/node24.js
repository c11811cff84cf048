// Runs a TypeScript entry point on Node >= 24 (which strips types natively). On an older Node it
// re-runs the same command under a Node 24 as a child process and stays its stand-in: SIGTERM,
// SIGINT and SIGHUP sent to this process are passed on to the child, and this process ends the
// way the child ended (its exit code, or killed by the same signal). So the PID a user got from
// `npm start` or `npx cloudtwin serve` is the PID that stops the server.
//
// Which Node 24, first found wins (no registry call when one is on the machine):
//   1. $CLOUDTWIN_NODE (a path to a node binary, used as given);
//   2. the `node` npm package (>= 24) installed in this repository: `.ci/.node` (what .ci/run
//      installs), `node_modules/node`;
//   3. the `node` npm package (>= 24) in npm's npx cache (left by an earlier `npx -p node@24`);
//   4. another `node` on PATH that is >= 24;
//   5. `npx --yes -p node@24` (downloads it from the npm registry once; npx caches it, so 3 finds it next time).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import module from 'node:module';
import { constants, homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveOwnModulesDirectly } from './ownModules.js';
import { useVendoredDeps } from './vendored.js';

const MIN_MAJOR = 24;
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'];
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How the `cloudtwin` command loads its modules, from the sources or from `dist/`: with V8's
 * code cache and the type-stripped sources kept between runs (in the OS temp dir;
 * NODE_COMPILE_CACHE chooses another, NODE_DISABLE_COMPILE_CACHE=1 turns it off: about a third
 * of the start-up time is compiling the same unchanged modules again), its dependencies from
 * their bundles where there are some (scripts/vendor-deps.js: half the modules of a start), and
 * the imports between its own modules without Node's checks on disk (bin/ownModules.js).
 */
export function prepareModuleLoading() {
  module.enableCompileCache?.();
  useVendoredDeps();
  resolveOwnModulesDirectly();
}

export async function runOnNode24(entryUrl, args, opts = {}) {
  if (opts.stopWhenNpmGoesAway) stopWhenNpmGoesAway();
  if (major(process.versions.node) >= MIN_MAJOR) {
    prepareModuleLoading();
    await import(entryUrl);
    return;
  }
  // The child runs this same bin script (so it starts exactly as on Node 24).
  const script = process.argv[1];
  const node = findNode24();
  const [cmd, argv] = node
    ? [node, [script, ...args]]
    : ['npx', ['--yes', '-p', `node@${MIN_MAJOR}`, '--', 'node', script, ...args]];
  if (!node) process.stderr.write(`cloudtwin needs Node >= ${MIN_MAJOR} (this is ${process.version}) and found none on this machine: running it with node@${MIN_MAJOR} from the npm registry\n`);
  runChild(cmd, argv);
}

function major(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]) || 0;
}

/** The `node` npm package (>= 24) installed in `dir` (its node_modules/node): its binary and version, or undefined. */
function packagedNode(dir) {
  const pkg = join(dir, 'node_modules', 'node');
  const bin = join(pkg, 'bin', 'node');
  try {
    const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    return major(version) >= MIN_MAJOR && existsSync(bin) ? { bin, version } : undefined;
  } catch {
    return undefined;
  }
}

function newest(found) {
  const num = (v) => v.split('.').map(Number);
  return found.filter(Boolean).sort((a, b) => {
    const [x, y] = [num(a.version), num(b.version)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (y[i] || 0) - (x[i] || 0);
    return 0;
  })[0]?.bin;
}

export function findNode24(env = process.env) {
  if (env.CLOUDTWIN_NODE) return env.CLOUDTWIN_NODE;
  const local = newest([packagedNode(join(ROOT, '.ci', '.node')), packagedNode(ROOT)]);
  if (local) return local;
  const npxCache = join(env.npm_config_cache || join(homedir(), '.npm'), '_npx');
  let cached = [];
  try {
    cached = readdirSync(npxCache).map((d) => packagedNode(join(npxCache, d)));
  } catch {}
  const fromCache = newest(cached);
  if (fromCache) return fromCache;
  return nodeOnPath(env.PATH || '');
}

/** A `node` on PATH other than this one whose version is >= 24 (asks each candidate once). */
function nodeOnPath(path) {
  const seen = new Set([realpath(process.execPath)]);
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'node');
    const real = realpath(candidate);
    if (!real || seen.has(real)) continue;
    seen.add(real);
    const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && major(r.stdout.trim()) >= MIN_MAJOR) return candidate;
  }
  return undefined;
}

function realpath(p) {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** Runs the child with our stdio, forwards the stop signals, and ends as it ends. */
function runChild(cmd, argv) {
  const child = spawn(cmd, argv, { stdio: 'inherit' });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const s of FORWARDED) process.on(s, forward);
  child.on('error', (err) => {
    process.stderr.write(`cloudtwin: cannot run ${cmd}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) {
      // Die the same way, so our parent sees what the child's parent would have seen;
      // 128 + n if the signal cannot kill us (it is ignored here, say).
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100);
      return;
    }
    process.exit(code ?? 1);
  });
}

/**
 * `npx cloudtwin` (and `npm run`) start this process through `sh -c`, and a SIGTERM sent to npm
 * reaches that shell, which dies without passing it on: the server would be left running with
 * its port and data-directory lock. So, when npm started us (npm sets `npm_command`) and our
 * parent goes away, we send ourselves SIGTERM: the server drains and stops (and on an old Node,
 * this wrapper passes the signal on to it). Outside npm, losing the parent changes nothing
 * (`cloudtwin serve &` in a script that ends keeps serving).
 */
export function stopWhenNpmGoesAway() {
  if (!process.env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  timer.unref();
}
