/**
 * Secrets never travel back: error answers and log lines name a secret-bearing parameter or
 * field but never quote its value, and anything shaped like a credential (an API key string, an
 * access token, a private key) is masked in whatever text an answer or a log line carries.
 */

/** Parameter and field names (JSON and proto spellings) whose values are credentials. */
export const SECRET_NAMES: ReadonlySet<string> = new Set([
  'key',
  '$key',
  'keyString',
  'key_string',
  'access_token',
  'accessToken',
  'oauth_token',
  'oauthToken',
  'token',
  'id_token',
  'idToken',
  'refresh_token',
  'refreshToken',
  'assertion',
  'client_secret',
  'clientSecret',
  'password',
  'privateKey',
  'private_key',
  'privateKeyData',
  'private_key_data',
  'authorization',
  'adminToken',
  'admin_token',
  'api_key',
  'apiKey',
]);

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name);
}

/**
 * API key strings, access tokens (`ya29.`), admin tokens (`ctadm_`), JWTs (a self-signed
 * service-account assertion: `eyJ...` header and payload) and PEM private keys, wherever they
 * appear in a text. Linear in the text: a JWT starts only where a base64url run starts (so
 * `eyJeyJeyJ...` is one attempt, not one per `eyJ`).
 */
const SECRET_SHAPES =
  /AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_.~+/-]+|ctadm_[0-9A-Za-z_-]+|(?<![0-9A-Za-z_-])eyJ[0-9A-Za-z_-]+\.eyJ[0-9A-Za-z_-]+\.[0-9A-Za-z_-]*|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;
const HINT = /AIza|ya29\.|ctadm_|eyJ|PRIVATE KEY/;

export const REDACTED = 'REDACTED';

/** `text` with every credential-shaped part replaced by `REDACTED` (no copy when there is none). */
export function scrubSecrets(text: string): string {
  return HINT.test(text) ? text.replace(SECRET_SHAPES, REDACTED) : text;
}

/** How much of a bad value an error message echoes (Google quotes a short prefix too). */
export const ECHO_LIMIT = 64;

/**
 * A bad value as an error message shows it: JSON, cut to a short prefix (`"aaaa..."`, `[1,2,...]`),
 * credentials masked. Never walks more of the value than it shows.
 */
export function echoValue(value: unknown, limit = ECHO_LIMIT): string {
  let out = '';
  let cut = false;
  let inString = false;
  const emit = (s: string, isString = false): void => {
    if (out.length + s.length > limit) {
      out += s.slice(0, Math.max(0, limit - out.length));
      cut = true;
      inString = isString;
    } else out += s;
  };
  // An explicit stack of what is still to print: no recursion, and it stops at the limit.
  const stack: unknown[] = [value];
  while (stack.length && !cut) {
    const v = stack.pop();
    if (isToken(v)) emit(v.s);
    else if (typeof v === 'string') {
      if (v.length > limit) {
        emit(JSON.stringify(v.slice(0, limit)).slice(0, -1), true);
        cut = true;
        inString = true;
      } else emit(JSON.stringify(v), true);
    } else if (typeof v === 'number' || typeof v === 'boolean' || v === null) emit(String(v));
    else if (Array.isArray(v)) {
      emit('[');
      stack.push(token(']'));
      for (let i = Math.min(v.length, limit) - 1; i >= 0; i--) {
        stack.push(v[i]);
        if (i > 0) stack.push(token(','));
      }
    } else if (typeof v === 'object') {
      emit('{');
      stack.push(token('}'));
      const keys = Object.keys(v as object).slice(0, limit);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((v as Record<string, unknown>)[keys[i]]);
        stack.push(token(JSON.stringify(keys[i].slice(0, limit)) + ':'));
        if (i > 0) stack.push(token(','));
      }
    } else emit(String(v));
  }
  // A cut string keeps its closing quote, so the message still reads as a quoted prefix.
  if (cut) out += inString ? '..."' : '...';
  return scrubSecrets(out);
}

const TOKEN = Symbol('token');
type Token = { [TOKEN]: true; s: string };

function isToken(v: unknown): v is Token {
  return v !== null && typeof v === 'object' && Object.hasOwn(v, TOKEN);
}

function token(s: string): Token {
  return { [TOKEN]: true, s };
}

/** A text shown in an error message (a field name, a URL path), cut to `limit` characters and masked. */
export function echoText(text: string, limit = 200): string {
  return scrubSecrets(text.length > limit ? text.slice(0, limit) + '...' : text);
}

/**
 * A request URL safe to log: the value of every secret-bearing query parameter (`key`,
 * `keyString`, `key_string`, `access_token`, ... however its name is percent-encoded) is masked,
 * and so is anything shaped like a key string or token elsewhere in the URL (the path).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return scrubEncoded(url, encodeURI);
  const pairs = url.slice(q + 1).split('&');
  for (let i = 0; i < pairs.length; i++) {
    const eq = pairs[i].indexOf('=');
    const name = eq < 0 ? pairs[i] : pairs[i].slice(0, eq);
    if (eq >= 0 && isSecretName(decodeName(name))) pairs[i] = `${name}=${REDACTED}`;
    else if (eq >= 0) pairs[i] = `${scrubEncoded(name, encodeURIComponent)}=${scrubEncoded(pairs[i].slice(eq + 1), encodeURIComponent)}`;
    else pairs[i] = scrubEncoded(name, encodeURIComponent);
  }
  return scrubEncoded(url.slice(0, q), encodeURI) + '?' + pairs.join('&');
}

/** A URL part with every credential masked, also one percent-encoded (`AIza%53y...`, a PEM key's `%20`s). */
function scrubEncoded(part: string, encode: (s: string) => string): string {
  const raw = scrubSecrets(part);
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  const decoded = decodeName(raw);
  const masked = scrubSecrets(decoded);
  return masked === decoded ? raw : encode(masked);
}

function decodeName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
