/** The node_modules/.cloudtwin-vendor directory of this checkout. */
export const VENDOR_DIR: string;
/** Each import specifier the product uses, and the bundle entry it becomes. */
export const VENDORED: Record<string, { pkg: string; entry: string }>;
/** Bundles the vendored specifiers into `dir`; false when rolldown is not installed. */
export function bundleVendored(dir: string): Promise<boolean>;
