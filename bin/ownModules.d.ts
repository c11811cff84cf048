/** The hook: a relative import of a `.ts` or `.js` file from one own module to another resolves by URL; anything else goes on to `nextResolve`. */
export function resolveOwnModule(
  specifier: string,
  context: { parentURL?: string },
  nextResolve: (specifier: string, context: { parentURL?: string }) => { url: string; shortCircuit?: boolean },
): { url: string; shortCircuit?: boolean };
/** Installs the hook in this process; false where Node has none. */
export function resolveOwnModulesDirectly(): boolean;
