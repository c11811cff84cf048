/** A duplicate-key violation of either store: a row with that key is stored already (PostgreSQL's 23505, SQLite's UNIQUE constraint). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(String(e?.message ?? ''));
}
