/**
 * Silences the client-library warnings the compatibility suites provoke on purpose, and only
 * those, so `npm test` output shows what is new:
 * - google-auth-library's console.warn "The `credentials` option is deprecated. ..." (the suites
 *   pass a service-account key as `credentials`, as the README's gax example does);
 * - google-gax's `AutopaginateTrueWarning` (the suites call `listKeysAsync` / `listAsync` with the
 *   generated clients' default options, which carry `autoPaginate: true`).
 * Any other warning is printed as before.
 */
const QUIET_CONSOLE = [/^The `credentials` option is deprecated\. /];
const QUIET_WARNING_TYPES = new Set(['AutopaginateTrueWarning']);

const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && QUIET_CONSOLE.some((re) => re.test(args[0] as string))) return;
  warn(...args);
};

const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const options = rest[0];
  const type = typeof options === 'string' ? options : (options as { type?: string } | undefined)?.type ?? (warning instanceof Error ? warning.name : undefined);
  if (type && QUIET_WARNING_TYPES.has(type)) return;
  emitWarning(warning, ...rest);
}) as typeof process.emitWarning;
