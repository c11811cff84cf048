/**
 * Compute's batch endpoint wire format (`POST /batch/compute/v1`, as googleapis clients and gcloud
 * send it): a `multipart/mixed` body whose parts are `application/http` requests, each answered
 * as its own request, in order, in a `multipart/mixed` answer whose parts carry the HTTP status
 * line, headers and body of each answer and `Content-ID: <response-ID>` for a request's `<ID>`.
 */
import { STATUS_CODES } from '../../platform/http/statusCodes.ts';

/** Google's limit of calls in one batch request. */
export const MAX_BATCH_PARTS = 1000;

export interface BatchPart {
  contentId?: string;
  /** The part as an HTTP request, or why it is not one. */
  request?: { method: string; url: string; headers: Record<string, string>; body: string };
  problem?: string;
}

/** The boundary of a `multipart/mixed` content type; undefined when there is none. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /^\s*multipart\/mixed\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,200})"|([^\s;"]{1,200}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Headers and body of a MIME entity (CRLF or LF line ends). */
function splitEntity(text: string): { headers: Record<string, string>; body: string } {
  const m = /\r?\n\r?\n/.exec(text);
  const head = m ? text.slice(0, m.index) : text;
  const body = m ? text.slice(m.index + m[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

/** The parts of a batch body, each parsed as an HTTP request or with the problem that made it none. */
export function parseBatch(body: string, boundary: string): BatchPart[] {
  const delimiter = `--${boundary}`;
  const chunks = body.split(delimiter);
  const parts: BatchPart[] = [];
  // chunks[0] is the preamble; a chunk starting with `--` is the epilogue after the close delimiter.
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) break;
    const entity = splitEntity(chunk.replace(/^[ \t]*\r?\n/, '').replace(/\r?\n$/, ''));
    const contentId = entity.headers['content-id'];
    const type = (entity.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/http') {
      parts.push({ contentId, problem: `Each part of a batch request must be an application/http request (this part is '${type.slice(0, 100) || 'untyped'}').` });
      continue;
    }
    const nl = entity.body.search(/\r?\n/);
    const line = (nl < 0 ? entity.body : entity.body.slice(0, nl)).trim();
    const m = /^(GET|POST|PUT|PATCH|DELETE) (\S{1,8192})(?: HTTP\/1\.[01])?$/.exec(line);
    if (!m) {
      parts.push({ contentId, problem: `The request line of a batch part is not 'METHOD /path HTTP/1.1': '${line.slice(0, 100)}'.` });
      continue;
    }
    const inner = splitEntity(nl < 0 ? '' : entity.body.slice(nl).replace(/^\r?\n/, ''));
    let url = m[2];
    if (/^https?:\/\//i.test(url)) url = url.replace(/^https?:\/\/[^/]*/i, '') || '/';
    parts.push({ contentId, request: { method: m[1], url, headers: inner.headers, body: inner.body.replace(/\r?\n$/, '') } });
  }
  return parts;
}

export interface BatchAnswer {
  contentId?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The multipart/mixed answer: one `application/http` part per answer, in order. */
export function formatBatch(answers: readonly BatchAnswer[], boundary: string): string {
  const out: string[] = [];
  for (const a of answers) {
    const id = a.contentId ? `Content-ID: <response-${a.contentId.replace(/^<|>$/g, '')}>\r\n` : '';
    const headers = Object.entries(a.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    out.push(`--${boundary}\r\nContent-Type: application/http\r\n${id}\r\nHTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? ''}\r\n${headers}\r\n${a.body}\r\n`);
  }
  out.push(`--${boundary}--\r\n`);
  return out.join('');
}
