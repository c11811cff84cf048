/**
 * Compiles the store's migration steps (src/platform/store/migrationSteps.ts, Kysely's schema
 * builder) into the statements each makes on a fresh store, src/platform/store/migrationSql.ts.
 * A fresh store's first start runs those statements as they are: building them with Kysely's
 * builders on every start cost more than everything else opening the store does (each builder
 * call is cold code then). The steps run against a driver that answers nothing, as a fresh store's
 * empty tables would: reads are left out, and a step's row moves write nothing. The output is
 * committed; test/unit/migrations.test.ts checks it is what this script makes now.
 *
 *   node scripts/generate-migration-sql.ts          (writes the file)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type DatabaseIntrospector,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { MIGRATION_STEPS } from '../src/platform/store/migrationSteps.ts';

export const MIGRATION_SQL_FILE = fileURLToPath(new URL('../src/platform/store/migrationSql.ts', import.meta.url));

const DIALECTS = {
  sqlite: { adapter: () => new SqliteAdapter(), compiler: () => new SqliteQueryCompiler(), introspector: (db: Kysely<any>): DatabaseIntrospector => new SqliteIntrospector(db) },
  postgres: { adapter: () => new PostgresAdapter(), compiler: () => new PostgresQueryCompiler(), introspector: (db: Kysely<any>): DatabaseIntrospector => new PostgresIntrospector(db) },
};

/** The statements `step` runs on `dialect`, as Kysely compiles them (no database: a driver that answers nothing). */
async function compile(dialect: keyof typeof DIALECTS, name: string): Promise<string[]> {
  const d = DIALECTS[dialect];
  const statements: string[] = [];
  const db = new Kysely<any>({
    dialect: { createAdapter: d.adapter, createDriver: () => new DummyDriver(), createIntrospector: d.introspector, createQueryCompiler: d.compiler },
    log: (event) => {
      // A read changes nothing (and finds nothing here, as on a fresh store): a step's row moves are no-ops then.
      if (event.level !== 'query' || event.query.query.kind === 'SelectQueryNode') return;
      // A statement with parameters would need its values kept beside it: the steps are DDL, and have none.
      if (event.query.parameters.length > 0) throw new Error(`migration ${name} (${dialect}): a statement with parameters cannot be compiled ahead: ${event.query.sql}`);
      statements.push(event.query.sql);
    },
  });
  await MIGRATION_STEPS[name].up(db);
  await db.destroy();
  return statements;
}

/** The text of migrationSql.ts. */
export async function migrationSqlSource(): Promise<string> {
  const entries: string[] = [];
  for (const name of Object.keys(MIGRATION_STEPS).sort()) {
    const [sqlite, postgres] = [await compile('sqlite', name), await compile('postgres', name)];
    // The steps use portable types only, so both dialects get the same text; a step that compiles
    // differently needs this file to keep statements per dialect.
    if (JSON.stringify(sqlite) !== JSON.stringify(postgres)) throw new Error(`migration ${name} compiles differently for SQLite and PostgreSQL:\n${sqlite.join('\n')}\n--\n${postgres.join('\n')}`);
    entries.push(`  {\n    name: ${quote(name)},\n    statements: [\n${sqlite.map((q) => `      ${quote(q)},`).join('\n')}\n    ],\n  },`);
  }
  return [
    '// Made by scripts/generate-migration-sql.ts from migrationSteps.ts: do not edit. After changing',
    '// a step, run `node scripts/generate-migration-sql.ts` (test/unit/migrations.test.ts checks).',
    '',
    '/** A migration step: its name (the bookkeeping key) and the statements it runs, in order (the same text on SQLite and PostgreSQL). */',
    'export interface MigrationSql {',
    '  name: string;',
    '  statements: readonly string[];',
    '}',
    '',
    '/** Every step, in name order. */',
    'export const MIGRATION_SQL: readonly MigrationSql[] = [',
    ...entries,
    '];',
    '',
  ].join('\n');
}

const quote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

if (import.meta.main) {
  writeFileSync(MIGRATION_SQL_FILE, await migrationSqlSource());
  process.stdout.write(`generate-migration-sql: ${MIGRATION_SQL_FILE}\n`);
}
