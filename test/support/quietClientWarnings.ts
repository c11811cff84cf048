/**
 * Silences the client-library warnings the compatibility suites provoke on purpose, and only
 * those, so `npm test` output shows what is new:
 * - google-auth-library's console.warn "The `credentials` option is deprecated. ..." (the suites
 *   pass a service-account key as `credentials`, as the README's gax example does);
 * - google-gax's `AutopaginateTrueWarning` (the suites call `listKeysAsync` / `listAsync` with the
 *   generated clients' default options, which carry `autoPaginate: true`);
 * - Node's DEP0123 ("Setting the TLS ServerName to an IP address ..."), which @grpc/grpc-js
 *   provokes when the gRPC suite connects over TLS to 127.0.0.1.
 * Any other warning is printed as before.
 */
const QUIET_CONSOLE = [/^The `credentials` option is deprecated\. /];
const QUIET_WARNING_TYPES = new Set(['AutopaginateTrueWarning']);
const QUIET_WARNING_CODES = new Set(['DEP0123']);

const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && QUIET_CONSOLE.some((re) => re.test(args[0] as string))) return;
  warn(...args);
};

const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const options = rest[0];
  const type = typeof options === 'string' ? options : (options as { type?: string } | undefined)?.type ?? (warning instanceof Error ? warning.name : undefined);
  const code = typeof options === 'string' ? rest[1] : (options as { code?: string } | undefined)?.code ?? (warning as { code?: string }).code;
  if ((type && QUIET_WARNING_TYPES.has(type)) || (typeof code === 'string' && QUIET_WARNING_CODES.has(code))) return;
  emitWarning(warning, ...rest);
}) as typeof process.emitWarning;
