import type { SecretBox } from '../platform/crypto/secretBox.ts';
import { MAX_FAULT_RULES, tooManyRules } from '../platform/faults/rules.ts';
import { invalidArgument } from '../platform/http/errors.ts';
import type { IamService } from '../platform/iam/iamService.ts';
import { upgradeSnapshotTables } from '../platform/store/computeResourcesUpgrade.ts';
import { ALL_TABLES, RETIRED_TABLES } from '../platform/store/migrations.ts';
import type { Store } from '../platform/store/store.ts';

export const SNAPSHOT_FORMAT = 'cloudtwin.snapshot/v1';

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  takenAt: string;
  tables: Record<string, Record<string, unknown>[]>;
}

/**
 * All state out and in. Key strings leave sealed by this server's master key, so a snapshot
 * carries them in clear (it is an administrator's export) and they are sealed again on import,
 * which lets a snapshot move between servers with different master keys.
 */
export class SnapshotService {
  readonly #store: Store;
  readonly #secrets: SecretBox;
  readonly #iam: IamService;
  readonly #afterChange: () => Promise<void>;

  constructor(store: Store, secrets: SecretBox, iam: IamService, afterChange: () => Promise<void>) {
    this.#store = store;
    this.#secrets = secrets;
    this.#iam = iam;
    this.#afterChange = afterChange;
  }

  async take(): Promise<Snapshot> {
    const tables: Snapshot['tables'] = {};
    for (const t of ALL_TABLES) {
      const rows = (await this.#store.db.selectFrom(t).selectAll().execute()) as Record<string, unknown>[];
      tables[t] = t === 'api_keys' ? rows.map(({ key_cipher, ...r }) => ({ ...r, key_string: this.#secrets.decrypt(String(key_cipher), String(r.uid)) })) : rows;
    }
    return { format: SNAPSHOT_FORMAT, takenAt: new Date().toISOString(), tables };
  }

  async restore(snapshot: unknown): Promise<void> {
    const s = snapshot as Snapshot;
    if (!s || typeof s !== 'object' || s.format !== SNAPSHOT_FORMAT || typeof s.tables !== 'object' || s.tables === null) {
      throw invalidArgument(`Invalid snapshot: format must be '${SNAPSHOT_FORMAT}' and tables an object.`);
    }
    for (const t of Object.keys(s.tables)) {
      if (RETIRED_TABLES.has(t) && Array.isArray(s.tables[t])) continue;
      if (!(ALL_TABLES as readonly string[]).includes(t) || !Array.isArray(s.tables[t])) throw invalidArgument(`Invalid snapshot: tables.${t} is not a known table of rows.`);
    }
    const rules = s.tables.fault_rules?.length ?? 0;
    if (rules > MAX_FAULT_RULES) throw tooManyRules('this snapshot (tables.fault_rules)', rules);
    // A snapshot taken before Compute's resources had one table: its rows as they are now.
    const tables = upgradeSnapshotTables(s.tables);
    await this.#store.db.transaction().execute(async (trx) => {
      for (const t of ALL_TABLES) await trx.deleteFrom(t).execute();
      for (const t of [...ALL_TABLES].reverse()) {
        let rows = tables[t] ?? [];
        if (t === 'api_keys') {
          rows = rows.map(({ key_string, ...r }) => ({
            ...r,
            key_cipher: this.#secrets.encrypt(String(key_string), String(r.uid)),
            key_hash: this.#secrets.lookupHash(String(key_string)),
          }));
        }
        for (let i = 0; i < rows.length; i += 200) await trx.insertInto(t).values(rows.slice(i, i + 200) as any).execute();
      }
      await this.#iam.worldChanged(trx);
    }).catch((err) => {
      if (err?.status) throw err;
      throw invalidArgument(`Invalid snapshot: ${err?.message ?? err}`);
    });
    await this.#afterChange();
  }

  async reset(): Promise<void> {
    await this.#store.db.transaction().execute(async (trx) => {
      for (const t of ALL_TABLES) await trx.deleteFrom(t).execute();
      await this.#iam.worldChanged(trx);
    });
    await this.#afterChange();
  }
}
