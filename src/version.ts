import { readFileSync } from 'node:fs';

/** The package's version (`cloudtwin --version`, the health endpoint). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
