/**
 * The server's log as the CLI writes it: pino's JSON lines as they are (`--log-format json`, the
 * default: one object per line, what log collectors and `docker logs` pipelines read), or one
 * plain line per record for people (`--log-format pretty`):
 *
 *   12:04:31.207 INFO  request completed reqId=req-1 method=GET url=/_twin/v1/health status=200 responseTime=1.9
 *
 * The time (local, to the millisecond), the level, the message, then every other field as
 * `name=value` (strings as they are unless they hold a space or a quote, everything else as
 * JSON); an error's stack follows on indented lines. `pid` and `hostname` are left out.
 */

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where pino writes: anything with `write(line)`. */
export interface LogSink {
  write(text: string): unknown;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEFT_OUT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

/** A sink for pino in `format`, writing to `out`. */
export function logSink(format: LogFormat, out: LogSink): LogSink {
  if (format === 'json') return out;
  return { write: (chunk: string) => out.write(prettyLines(chunk)) };
}

/** Pino's JSON lines (one or more, newline-ended) as pretty lines; a line that is not a JSON object passes as it is. */
export function prettyLines(chunk: string): string {
  let out = '';
  for (const line of chunk.split('\n')) {
    if (line === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      out += line + '\n';
      continue;
    }
    out += record !== null && typeof record === 'object' && !Array.isArray(record) ? prettyRecord(record) : line + '\n';
  }
  return out;
}

function prettyRecord(record: Record<string, unknown>): string {
  const time = typeof record.time === 'number' ? clockTime(new Date(record.time)) : '';
  const level = (LEVELS[record.level as number] ?? String(record.level ?? '')).padEnd(5);
  let line = `${time} ${level} ${String(record.msg ?? '')}`;
  for (const [name, value] of Object.entries(record)) {
    if (LEFT_OUT.has(name) || value === undefined) continue;
    line += ` ${name}=${fieldText(value)}`;
  }
  const err = record.err as { message?: unknown; stack?: unknown } | undefined;
  if (err && typeof err === 'object') {
    const stack = typeof err.stack === 'string' ? err.stack : String(err.message ?? JSON.stringify(err));
    line += '\n' + stack.split('\n').map((l) => `    ${l.trim()}`).join('\n');
  }
  return line + '\n';
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (typeof value === 'number' && !Number.isInteger(value)) return String(Math.round(value * 10) / 10);
  return JSON.stringify(value);
}

function clockTime(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}
