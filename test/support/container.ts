/**
 * Containers for the tests: the engine (podman, or docker), the image `cloudtwin:dev` built from
 * the current sources (scripts/image-build.ts, run when the image is missing or was built from
 * other sources), and containers started from it with their port mapped to one of 127.0.0.1.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { BASE_LABEL, IMAGE, SOURCE_LABEL, containerEngine, imageLabel, sourceHash } from '../../scripts/image-build.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export { IMAGE };

/** What the container tests run on, or why they cannot run here. */
export type ContainerSetup = { engine: string; image: string; base: string } | { skip: string };

let setup: ContainerSetup | undefined;

/**
 * The engine and a current image, building it when needed (once per process). Where no engine is
 * installed, or the image cannot be built (no engine that runs containers), the reason to skip.
 */
export function containerSetup(): ContainerSetup {
  if (setup) return setup;
  const engine = containerEngine();
  if (!engine) return (setup = { skip: 'no container engine (podman or docker) on PATH' });
  const source = sourceHash();
  if (imageLabel(engine, IMAGE, SOURCE_LABEL) !== source) {
    // scripts/image-build.ts as `npm run image:build` runs it (its output only when it fails)
    const built = spawnSync(process.execPath, ['scripts/image-build.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 20 * 60_000, maxBuffer: 64 << 20 });
    if (built.status !== 0) return (setup = { skip: `${IMAGE} could not be built with ${engine}:\n${(built.stdout + built.stderr).split('\n').slice(-15).join('\n')}` });
  }
  return (setup = { engine, image: IMAGE, base: imageLabel(engine, IMAGE, BASE_LABEL) ?? 'unknown' });
}

/** Runs `engine args`; resolves to its exit code and output (never rejects). */
export function engineRun(engine: string, args: string[], timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(engine, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}

/** Like engineRun, but throws when the command fails; resolves to its stdout, trimmed. */
export async function engineOk(engine: string, args: string[], timeoutMs?: number): Promise<string> {
  const r = await engineRun(engine, args, timeoutMs);
  if (r.code !== 0) throw new Error(`${engine} ${args.join(' ')} -> ${r.code}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

export interface Container {
  name: string;
  /** `http://127.0.0.1:PORT`: the container's 8080 mapped to a free port of this machine. */
  url: string;
  /** Milliseconds from `run` to the first 200 of `/_twin/v1/health` through the mapped port. */
  healthyAfterMs: number;
  logs(): Promise<string>;
  /** Removes the container (force). */
  remove(): Promise<void>;
}

export const uniqueName = (what: string) => `cloudtwin-test-${what}-${randomBytes(4).toString('hex')}`;

/**
 * `run -d` of the image with `args` (env, volumes) and its 8080 published on 127.0.0.1 (unless
 * `publish` is false: on the host's network, say), then (unless `waitHealthy` is false) waits for
 * the health endpoint to answer 200 over HTTP through the mapped port (at most 60 s).
 */
export async function runContainer(s: { engine: string; image: string }, what: string, args: string[] = [], opts: { waitHealthy?: boolean; publish?: boolean } = {}): Promise<Container> {
  const name = uniqueName(what);
  const started = Date.now();
  const publish = opts.publish !== false;
  await engineOk(s.engine, ['run', '-d', '--name', name, ...(publish ? ['-p', '127.0.0.1::8080'] : []), ...args, s.image]);
  const remove = async () => void (await engineRun(s.engine, ['rm', '-f', '-t', '0', name]));
  const logs = async () => {
    const r = await engineRun(s.engine, ['logs', name]);
    return r.stdout + r.stderr;
  };
  try {
    if (!publish) return { name, url: '', healthyAfterMs: NaN, logs, remove };
    const port = /:(\d+)\s*$/.exec(await engineOk(s.engine, ['port', name, '8080']))![1];
    const url = `http://127.0.0.1:${port}`;
    for (; opts.waitHealthy !== false; ) {
      if (Date.now() - started > 60_000) throw new Error(`${name} was not healthy in 60 s:\n${await logs()}`);
      const ok = await fetch(`${url}/_twin/v1/health`).then((r) => r.status === 200, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    return { name, url, healthyAfterMs: Date.now() - started, logs, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
