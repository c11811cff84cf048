// The console's build: a static SPA served by `cloudtwin serve` at /console/.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** What the server sends compressed (src/console/plugin.ts: COMPRESSED_EXTENSIONS and its 512-byte floor). */
const COMPRESSIBLE = /\.(html|js|css|svg|json|txt)$/;

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) next to every text file
 * of the build over 512 bytes: the server sends those as they are, so no request pays for
 * compressing (brotli of the 300 KB bundle takes about a second) and no process loads node:zlib.
 */
function precompress() {
  let outDir = '';
  return {
    name: 'cloudtwin-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir.startsWith('/') ? config.build.outDir : join(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const p = join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (COMPRESSIBLE.test(e.name)) {
            const raw = readFileSync(p);
            if (raw.length <= 512) continue;
            writeFileSync(`${p}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
            writeFileSync(`${p}.gz`, gzipSync(raw, { level: 9 }));
          }
        }
      };
      walk(outDir);
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
});
