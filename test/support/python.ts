import { execFileSync } from 'node:child_process';

/**
 * A Python with `grpcio` for the suites that drive Python clients: `python3` on PATH, else the
 * system's (`/usr/bin/python3`, where Debian's python3-grpcio installs it; .ci/run installs it
 * when no Python has grpcio). Undefined when there is none.
 */
export function pythonWithGrpc(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    if (pythonHas(python, 'grpc')) return python;
  }
  return undefined;
}

/** A Python that imports every one of `modules`: `python3` on PATH, else the system's; undefined when there is none. */
export function pythonWith(modules: string[]): string | undefined {
  return ['python3', '/usr/bin/python3'].find((python) => modules.every((m) => pythonHas(python, m)));
}

/** Whether `python` imports `module`. */
export function pythonHas(python: string, module: string): boolean {
  try {
    execFileSync(python, ['-c', `import ${module}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
