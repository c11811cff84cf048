/** Ids already derived (BigInt hashing costs tens of microseconds; a catalogue list derives thousands). */
const STABLE_IDS = new Map<string, string>();

/**
 * A stable numeric id for a text (FNV-1a, 64 bits), within int64 as Compute's ids are: the id of a
 * built-in or world-declared resource, the same on every server and after every restart.
 */
export function stableId(text: string): string {
  let id = STABLE_IDS.get(text);
  if (id === undefined) {
    let h = 1469598103934665603n;
    for (const c of Buffer.from(text)) h = ((h ^ BigInt(c)) * 1099511628211n) & 0xffffffffffffffffn;
    id = (h % 8000000000000000000n + 1000000000000000000n).toString();
    if (STABLE_IDS.size >= 200_000) STABLE_IDS.clear();
    STABLE_IDS.set(text, id);
  }
  return id;
}
