/** The typed arrays the search index grows (its columns, lists, text and scratch). */
export type GrowableArray = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/** A copy of `a`, `length` long, holding its first `used` elements (the rest zero). */
export function grown<T extends GrowableArray>(a: T, length: number, used = a.length): T {
  const b = new (a.constructor as new (length: number) => T)(length);
  b.set(used === a.length ? a : (a.subarray(0, used) as T));
  return b;
}
