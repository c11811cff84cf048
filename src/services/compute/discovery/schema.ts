/** Compute v1's schemas and methods, from `table.json` (made by `scripts/generate-discovery-tables.ts` out of Google's discovery document). */
import { DiscoverySchemas } from '../../../platform/discovery/schemas.ts';

export const COMPUTE_SCHEMAS = new DiscoverySchemas(new URL('./table.json', import.meta.url));
