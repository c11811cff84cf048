/**
 * `npm test`: every suite on SQLite, then again on PostgreSQL when CLOUDTWIN_TEST_DATABASE_URL
 * is set. Extra arguments narrow the files (e.g. `npm test -- test/unit`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const files = args.length ? args.map((a) => (a.endsWith('.ts') ? a : `${a.replace(/\/$/, '')}/**/*.test.ts`)) : ['test/**/*.test.ts'];
const stores: ('sqlite' | 'postgres')[] = ['sqlite'];
if (process.env.CLOUDTWIN_TEST_DATABASE_URL) stores.push('postgres');
else console.log('note: CLOUDTWIN_TEST_DATABASE_URL is not set, so the suites run on SQLite only (set it to postgres://... to run them on PostgreSQL too)');

let passed = 0;
let failed = 0;
let skipped = 0;
let exit = 0;
const dir = mkdtempSync(join(tmpdir(), 'cloudtwin-test-'));
for (const store of stores) {
  console.log(`\n=== suites on ${store} ===`);
  const tap = join(dir, `${store}.tap`);
  const r = spawnSync(
    process.execPath,
    ['--test', '--test-timeout=180000', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
    { stdio: 'inherit', env: { ...process.env, CLOUDTWIN_TEST_STORE: store } },
  );
  if (r.status !== 0) exit = 1;
  const text = readFileSync(tap, 'utf8');
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  // Test names are printable text (a NUL or an escape sequence in a name turns the log into binary for grep and terminals).
  for (const name of unprintableTestNames(text)) {
    console.log(`test name with a non-printable character (use JSON.stringify for such values): ${JSON.stringify(name)}`);
    failed++;
  }
  passed += count('pass');
  failed += count('fail') + count('cancelled');
  skipped += count('skipped') + count('todo');
}
rmSync(dir, { recursive: true, force: true });

/** The names in a TAP log (`# Subtest: NAME`) that hold a control character other than tab. */
function unprintableTestNames(tap: string): string[] {
  const out: string[] = [];
  for (const m of tap.matchAll(/^\s*# Subtest: (.*)$/gm)) if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(m[1])) out.push(m[1]);
  return out;
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(exit || (failed ? 1 : 0));
