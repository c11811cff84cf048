/** The specifier -> bundle URL map that applies in `root` (default: this checkout), or an empty map. */
export function vendoredSpecifiers(root?: string): Map<string, string>;
/** Installs the resolution hook in this process; returns the specifiers it serves. */
export function useVendoredDeps(root?: string): string[];
