/**
 * Resource references as clients write them: full URLs on any host (cloudtwin's own base URL,
 * `www.googleapis.com`, `compute.googleapis.com`), partial paths (`projects/P/global/networks/N`,
 * `global/networks/N`, `regions/R/subnetworks/S`) or bare names.
 */
export interface ParsedRef {
  project: string;
  /** `global`, `regions/R` or `zones/Z`. */
  scope: string;
  collection: string;
  name: string;
  /** Images named by family (`.../images/family/F`). */
  family?: boolean;
}

const URL_PREFIX = /^(?:https?:)?\/\/[^/]+\/compute\/(?:v1|beta|alpha)\//;
const SEGMENT = /^[a-z0-9](?:[-a-z0-9_.:]{0,62})$/;

/**
 * Parses of references seen lately: by value, then by collection and defaults. An insert parses its
 * network, subnetwork and image up to three times (permission check, resolution), and the same few
 * come back insert after insert. Keyed by the value itself first: the body's strings keep their hash,
 * where one key joining the four parts was a new string to hash on every call. Bounded; the parses
 * are frozen, shared by every caller.
 */
const PARSED = new Map<string, Map<string, ParsedRef | undefined>>();
let parsedCount = 0;
const MAX_PARSED = 1000;

/** Parses a reference; undefined when it is not of a form any collection accepts. The answer is frozen. */
export function parseReference(value: string, collection: string, defaults: { project: string; scope: string }): ParsedRef | undefined {
  if (value.length > 2048) return undefined;
  // Newline-separated: one key per reading (defaults with a newline, never seen in practice, are not remembered).
  if (defaults.project.includes('\n') || defaults.scope.includes('\n') || collection.includes('\n')) return parse(value, collection, defaults);
  const context = `${collection}\n${defaults.scope}\n${defaults.project}`;
  let byContext = PARSED.get(value);
  if (byContext === undefined) {
    if (parsedCount >= MAX_PARSED) {
      PARSED.clear();
      parsedCount = 0;
    }
    PARSED.set(value, (byContext = new Map()));
  }
  let parsed = byContext.get(context);
  if (parsed === undefined && !byContext.has(context)) {
    parsed = parse(value, collection, defaults);
    byContext.set(context, parsed);
    parsedCount++;
  }
  return parsed;
}

function parse(value: string, collection: string, defaults: { project: string; scope: string }): ParsedRef | undefined {
  let path = value.replace(URL_PREFIX, '');
  let project = defaults.project;
  const m = /^projects\/([^/]+)\/(.*)$/.exec(path);
  if (m) {
    project = m[1];
    path = m[2];
  }
  const parts = path.split('/');
  let scope = defaults.scope;
  if (parts[0] === 'global') {
    scope = 'global';
    parts.shift();
  } else if ((parts[0] === 'regions' || parts[0] === 'zones') && parts.length >= 2) {
    scope = `${parts[0]}/${parts[1]}`;
    parts.splice(0, 2);
  } else if (m && parts.length > 1 && parts[0] === collection) {
    // `projects/P/reservations/R` (a shared reservation)
  }
  let family = false;
  if (parts.length === 1 && !m && path === value) {
    // a bare name
  } else if (parts[0] === collection) {
    parts.shift();
  } else if (!(collection === 'images' && parts[0] === 'family')) {
    return undefined;
  }
  if (collection === 'images' && parts[0] === 'family' && parts.length === 2) {
    family = true;
    parts.shift();
  }
  if (parts.length !== 1 || !SEGMENT.test(parts[0]) || !SEGMENT.test(project)) return undefined;
  return Object.freeze({ project, scope, collection, name: parts[0], ...(family ? { family: true } : {}) });
}

/** The partial path of a parsed reference: `projects/P/global/networks/N`. */
export function refPath(r: ParsedRef): string {
  return `projects/${r.project}/${r.scope}/${r.collection}/${r.family ? 'family/' : ''}${r.name}`;
}
