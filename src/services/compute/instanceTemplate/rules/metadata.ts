/** Rules of `properties.metadata`: key syntax and size, value size, total size, duplicates. */
import { type Findings, type Obj, listField, strField, utf8Length } from './common.ts';

export const METADATA_KEY = /^[a-zA-Z0-9-_]+$/;
/** Keys must be under 128 bytes. */
export const MAX_METADATA_KEY_BYTES = 127;
export const MAX_METADATA_VALUE_BYTES = 262144;
/** All keys and values together must be under 512 KB. */
export const MAX_METADATA_TOTAL_BYTES = 512 * 1024 - 1;

export function checkMetadata(f: Findings, metadata: Obj | undefined): void {
  if (!metadata) return;
  const at = 'resource.properties.metadata';
  const seen = new Set<string>();
  let total = 0;
  listField(metadata, 'items').forEach((it, i) => {
    const item = it as Obj;
    const key = strField(item, 'key');
    const value = strField(item, 'value') ?? '';
    if (key === undefined || key === '') {
      f.required(`${at}.items[${i}].key`);
    } else {
      total += utf8Length(key);
      if (!METADATA_KEY.test(key)) {
        f.invalid(`${at}.items[${i}].key`, key, "Must be a match of regex '[a-zA-Z0-9-_]+'");
      } else if (utf8Length(key) > MAX_METADATA_KEY_BYTES) {
        f.invalid(`${at}.items[${i}].key`, key, `Metadata keys must be under 128 bytes.`);
      }
      if (seen.has(key)) f.invalid(`${at}.items[${i}].key`, key, `Duplicate metadata key '${key}'.`);
      seen.add(key);
    }
    const valueBytes = utf8Length(value);
    total += valueBytes;
    if (valueBytes > MAX_METADATA_VALUE_BYTES) {
      f.invalid(`${at}.items[${i}].value`, '', `Metadata value for key '${key ?? ''}' is ${valueBytes} bytes; the maximum is ${MAX_METADATA_VALUE_BYTES} bytes.`);
    }
  });
  if (total > MAX_METADATA_TOTAL_BYTES) {
    f.invalid(at, '', `Metadata has a total size of ${total} bytes; the total size of all keys and values must be under 512 KB.`);
  }
}
