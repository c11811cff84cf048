/**
 * `npm run image:build`: builds the container image `cloudtwin:dev` from the root Dockerfile with
 * podman (or docker), on an official Node 24 slim base:
 *
 *   1. the base: `$CLOUDTWIN_IMAGE_BASE` if set; else `node:24-bookworm-slim` if the engine has it
 *      or can pull it; else a local one made the same way (Debian bookworm by debootstrap from the
 *      machine's Debian mirror, Node 24 and npm from the npm registry into /usr/local, imported as
 *      `localhost/cloudtwin-base:node24-bookworm-slim`), made once and kept;
 *   2. `build --build-arg BASE=... -t cloudtwin:dev .` (podman with `--format docker`, which keeps
 *      the HEALTHCHECK), labelled with a hash of the build's sources (`dev.cloudtwin.source`, so
 *      that the container tests see whether an image is current) and its base (`dev.cloudtwin.base`);
 *   3. prints the image's size beside its base's.
 *
 *   npm run image:build                  (CLOUDTWIN_IMAGE=other:tag to tag another name)
 *
 * Making the local base needs root (debootstrap) and the `debootstrap` package.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IMAGE = process.env.CLOUDTWIN_IMAGE ?? 'cloudtwin:dev';
export const OFFICIAL_BASE = 'docker.io/library/node:24-bookworm-slim';
export const LOCAL_BASE = 'localhost/cloudtwin-base:node24-bookworm-slim';
export const SOURCE_LABEL = 'dev.cloudtwin.source';
export const BASE_LABEL = 'dev.cloudtwin.base';
const DEBIAN_MIRROR = process.env.CLOUDTWIN_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

/** The container engine on PATH: `$CLOUDTWIN_CONTAINER_ENGINE`, else podman, else docker; undefined when there is none. */
export function containerEngine(): string | undefined {
  const candidates = process.env.CLOUDTWIN_CONTAINER_ENGINE ? [process.env.CLOUDTWIN_CONTAINER_ENGINE] : ['podman', 'docker'];
  return candidates.find((engine) => spawnSync(engine, ['version'], { stdio: 'ignore' }).status === 0);
}

/** Runs a command; its output passes through unless `quiet`. Throws when it fails. */
function run(cmd: string, args: string[], opts: { quiet?: boolean; input?: string } = {}): string {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', input: opts.input, stdio: [opts.input === undefined ? 'ignore' : 'pipe', opts.quiet ? 'pipe' : 'inherit', opts.quiet ? 'pipe' : 'inherit'], maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})${opts.quiet ? `: ${r.stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}`);
  return r.stdout ?? '';
}

export function imageExists(engine: string, image: string): boolean {
  return spawnSync(engine, ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;
}

/** An image's size in bytes, as the engine reports it (the unpacked layers). */
export function imageSize(engine: string, image: string): number {
  return Number(run(engine, ['image', 'inspect', '--format', '{{.Size}}', image], { quiet: true }).trim());
}

/** An image's label, or undefined (no such image or label). */
export function imageLabel(engine: string, image: string, label: string): string | undefined {
  if (!imageExists(engine, image)) return undefined;
  const value = run(engine, ['image', 'inspect', '--format', `{{ index .Config.Labels "${label}" }}`, image], { quiet: true }).trim();
  return value && value !== '<no value>' ? value : undefined;
}

/**
 * A hash of what the build reads: every file git tracks or would track (tracked, or untracked and
 * not ignored), but those under a path .dockerignore names, with its path and content.
 */
export function sourceHash(): string {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { quiet: true })
    .split('\0')
    .filter((f) => f && !ignored.some((p) => f === p || f.startsWith(`${p}/`)) && existsSync(join(ROOT, f)))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(ROOT, file))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The base to build on: given, official (present or pulled), or the local one (made now if missing). */
function chooseBase(engine: string): string {
  if (process.env.CLOUDTWIN_IMAGE_BASE) return process.env.CLOUDTWIN_IMAGE_BASE;
  if (imageExists(engine, OFFICIAL_BASE)) return OFFICIAL_BASE;
  if (spawnSync(engine, ['pull', '--quiet', OFFICIAL_BASE], { stdio: 'ignore', timeout: 120_000 }).status === 0) return OFFICIAL_BASE;
  console.log(`image-build: ${OFFICIAL_BASE} cannot be pulled (no registry reachable)`);
  if (imageExists(engine, LOCAL_BASE)) {
    console.log(`image-build: using the local base ${LOCAL_BASE} made earlier`);
    return LOCAL_BASE;
  }
  makeLocalBase(engine);
  return LOCAL_BASE;
}

/**
 * Makes `LOCAL_BASE` as the official slim image is made: a minimal Debian bookworm (debootstrap,
 * with the slim images' exclusions: no apt lists, docs, man pages or locales), Node 24 in
 * /usr/local/bin and npm in /usr/local/lib/node_modules (both from the npm registry: the `node`
 * package's Linux build, as .ci/run installs Node 24, and `npm`), imported as one layer.
 */
function makeLocalBase(engine: string): void {
  if (process.getuid?.() !== 0) throw new Error('making the local base needs root (debootstrap); or set CLOUDTWIN_IMAGE_BASE to a Node 24 image');
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'cloudtwin-base-'));
  const rootfs = join(work, 'rootfs');
  try {
    console.log(`image-build: making ${LOCAL_BASE}: debootstrap --variant=minbase bookworm from ${DEBIAN_MIRROR}`);
    run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], { quiet: true });
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man', 'usr/share/info']) {
      for (const entry of readdirSync(join(rootfs, dir))) if (entry !== 'partial' && entry !== 'lock') rmSync(join(rootfs, dir, entry), { recursive: true, force: true });
    }
    for (const entry of readdirSync(join(rootfs, 'usr/share/locale'))) if (entry !== 'locale.alias') rmSync(join(rootfs, 'usr/share/locale', entry), { recursive: true, force: true });

    const arch = { x64: 'x64', arm64: 'arm64' }[process.arch as 'x64' | 'arm64'];
    if (!arch) throw new Error(`no Node 24 package for ${process.arch}`);
    console.log(`image-build: Node 24 (node-linux-${arch}@24) and npm@11 from the npm registry`);
    const packs = join(work, 'packs');
    mkdirSync(packs);
    run('npm', ['pack', '--silent', '--pack-destination', packs, `node-linux-${arch}@24`, 'npm@11'], { quiet: true });
    for (const tgz of readdirSync(packs)) {
      const into = join(packs, tgz.replace(/-\d.*$/, ''));
      mkdirSync(into);
      run('tar', ['-xzf', join(packs, tgz), '-C', into, '--strip-components=1'], { quiet: true });
    }
    const node = readdirSync(packs).find((d) => d.startsWith('node-linux-'))!;
    cpSync(join(packs, node, 'bin', 'node'), join(rootfs, 'usr/local/bin/node'));
    mkdirSync(join(rootfs, 'usr/local/lib/node_modules'), { recursive: true });
    cpSync(join(packs, 'npm'), join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));

    const tar = spawnSync('sh', ['-c', `tar -C "$1" -c . | ${engine} import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]' - "$2"`, 'sh', rootfs, LOCAL_BASE], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (tar.status !== 0) throw new Error(`${engine} import failed (${tar.status})`);
    console.log(`image-build: ${LOCAL_BASE} made in ${Math.round((Date.now() - started) / 1000)} s (${mb(imageSize(engine, LOCAL_BASE))})`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * The CA file npm uses on this machine (`npm config get cafile`, else NODE_EXTRA_CA_CERTS), when
 * one is set: a machine behind a TLS-intercepting proxy needs it for the registry in the build too.
 */
function npmCaFile(): string | undefined {
  const configured = spawnSync('npm', ['config', 'get', 'cafile'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
  const file = configured && configured !== 'null' && configured !== 'undefined' ? configured : process.env.NODE_EXTRA_CA_CERTS;
  return file && existsSync(file) ? file : undefined;
}

/** Builds `IMAGE` (making or pulling the base first); returns the base used. */
export function buildImage(engine: string): string {
  const base = chooseBase(engine);
  const started = Date.now();
  const podman = engine.endsWith('podman');
  const ca = podman ? npmCaFile() : undefined;
  const caArgs = ca ? ['--volume', `${dirname(ca)}:/run/npm-ca:ro`, '--build-arg', `NPM_CONFIG_CAFILE=/run/npm-ca/${basename(ca)}`] : [];
  const args = ['build', ...(podman ? ['--format', 'docker'] : []), ...caArgs, '--build-arg', `BASE=${base}`, '--label', `${SOURCE_LABEL}=${sourceHash()}`, '--label', `${BASE_LABEL}=${base}`, '-t', IMAGE, '.'];
  console.log(`image-build: ${engine} ${args.join(' ')}`);
  run(engine, args);
  const [image, baseSize] = [imageSize(engine, IMAGE), imageSize(engine, base)];
  console.log(`image-build: ${IMAGE} built in ${Math.round((Date.now() - started) / 1000)} s: ${mb(image)}, ${mb(image - baseSize)} over its base ${base} (${mb(baseSize)})`);
  return base;
}

if (import.meta.main) {
  const engine = containerEngine();
  if (!engine) {
    console.error('image-build: no container engine (podman or docker) on PATH');
    process.exit(1);
  }
  try {
    buildImage(engine);
  } catch (err) {
    console.error(`image-build: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
