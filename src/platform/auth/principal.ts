/** Who is calling, as IAM sees them. */
export interface Principal {
  /** IAM member form: `user:alice@example.com`, `serviceAccount:ci@demo.iam.gserviceaccount.com`. */
  member: string;
  /** Granted OAuth scopes (full URLs); `all` for credentials that carry every scope. */
  scopes: ReadonlySet<string> | 'all';
  /** Permissive mode: owner on every project. */
  superuser: boolean;
}

/** The member every bearer token stands for in permissive mode, unless `--permissive-principal` names another. */
export const DEFAULT_PERMISSIVE_PRINCIPAL = 'user:owner@cloudtwin.local';

export function hasAnyScope(p: Principal, required: readonly string[]): boolean {
  if (p.scopes === 'all') return true;
  for (const s of required) if (p.scopes.has(s)) return true;
  return false;
}

/** Whether `principal` names one: an IAM member (`user:`, `serviceAccount:` or `group:` and an e-mail) or a plain e-mail (see `memberFor`). */
export function isPrincipal(principal: string): boolean {
  return /^(user|serviceAccount|group):[^\s@:]+@[^\s@:]+\.[^\s@:]+$/.test(memberFor(principal));
}

/** `user:x@y` for plain e-mails; a service account's e-mail as `serviceAccount:`. */
export function memberFor(principal: string): string {
  if (principal.includes(':')) return principal;
  return /\.gserviceaccount\.com$/.test(principal) ? `serviceAccount:${principal}` : `user:${principal}`;
}
