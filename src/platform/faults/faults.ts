import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../clock/clock.ts';
import type { Ids } from '../crypto/random.ts';
import { notFound } from '../http/errors.ts';
import { methodPattern } from '../journal/journal.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';
import { type FaultAction, type FaultRule, type FaultRuleInput, MAX_FAULT_RULES, checkRule, fires, renderRule, spent, tooManyRules } from './rules.ts';

/** Changes on every change of the rules (a random mark, so a reset that clears it is a change too). */
const VERSION = 'faults.version';

/** What a rule may look at in a call. Lazy parts are resolved only when a rule asks for them. */
export interface FaultCall {
  /** Discovery method id. */
  method: string;
  /** `user:alice@example.com`; absent for a call made with an API key alone. */
  principal?: string;
  /** The project the URL names (id or number), if any. */
  project?: string;
  headers: Record<string, string | string[] | undefined>;
  /** The API key the call carries: its id and project, resolved on demand. */
  apiKey?: () => Promise<{ keyId: string; projectNumber: string } | undefined>;
}

/** A fault that fires on a call. */
export interface FaultDecision {
  rule: string;
  action: FaultAction;
}

interface CompiledRule {
  rule: FaultRule;
  method: (id: string) => boolean;
  /** This process saw it spent (`next: N` after N calls); counters only grow until the rules change. */
  spent: boolean;
}

/**
 * Fault rules, kept in the store so every process on it applies the same ones. Each process
 * caches the rules and checks a version mark on its worker tick (as the other shared settings),
 * so a call with no rule set costs one array length check; the schedule counters are updated in
 * the store with one atomic statement per matching call, so "the next 2 calls" are 2 calls across
 * all processes.
 */
export class Faults {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #resolveProject: (idOrNumber: string) => Promise<{ projectId: string; projectNumber: string } | undefined>;
  #rules: CompiledRule[] = [];
  #version: string | null = null;
  /** Injected answers by rule, method and action (the /metrics counter of this process). */
  readonly injectedCounts = new Map<string, { rule: string; method: string; action: string; n: number }>();

  constructor(d: { store: Store; clock: Clock; ids: Ids; resolveProject: (idOrNumber: string) => Promise<{ projectId: string; projectNumber: string } | undefined> }) {
    this.#store = d.store;
    this.#clock = d.clock;
    this.#ids = d.ids;
    this.#resolveProject = d.resolveProject;
  }

  /** True when some rule exists: the only thing a call pays when there is none. */
  get any(): boolean {
    return this.#rules.length > 0;
  }

  /** Picks up rules another process changed (cheap when nothing changed: one settings read). */
  async reload(force = false): Promise<void> {
    const version = await readSetting<string | null>(this.#store.db, VERSION, null);
    if (!force && version === this.#version) return;
    const rows = await this.#store.db.selectFrom('fault_rules').select(['id', 'rule', 'matched']).orderBy('position').execute();
    this.#rules = rows.map((r) => {
      const rule = JSON.parse(r.rule) as FaultRule;
      return { rule, method: methodPattern(rule.match.method), spent: spent(rule.when, Number(r.matched)) };
    });
    this.#version = version;
  }

  async #changed(): Promise<void> {
    await writeSetting(this.#store.db, VERSION, this.#ids.hex(8));
    await this.reload(true);
  }

  async create(input: FaultRuleInput): Promise<Record<string, unknown>> {
    const rule = checkRule(input, 'f-' + this.#ids.hex(6), this.#clock.nowMs());
    const table = await this.#store.db
      .selectFrom('fault_rules')
      .select([sql<number>`coalesce(max(position), 0)`.as('last'), sql<number>`count(*)`.as('count')])
      .executeTakeFirst();
    if (Number(table?.count ?? 0) >= MAX_FAULT_RULES) throw tooManyRules('one more (delete rules first: DELETE /_twin/v1/faults/{id}, or DELETE /_twin/v1/faults for all)', Number(table?.count) + 1);
    await this.#store.db.insertInto('fault_rules').values({ id: rule.id, position: Number(table?.last ?? 0) + 1, rule: JSON.stringify(rule), matched: 0, injected: 0 }).execute();
    await this.#changed();
    return renderRule(rule, { matched: 0, injected: 0 }, this.#clock.nowMs());
  }

  async list(): Promise<Record<string, unknown>[]> {
    const rows = await this.#store.db.selectFrom('fault_rules').selectAll().orderBy('position').execute();
    const now = this.#clock.nowMs();
    return rows.map((r) => renderRule(JSON.parse(r.rule), { matched: Number(r.matched), injected: Number(r.injected) }, now));
  }

  async get(id: string): Promise<Record<string, unknown>> {
    const r = await this.#store.db.selectFrom('fault_rules').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) throw notFound(`Fault rule ${id.slice(0, 100)} not found.`);
    return renderRule(JSON.parse(r.rule), { matched: Number(r.matched), injected: Number(r.injected) }, this.#clock.nowMs());
  }

  async delete(id: string): Promise<void> {
    const r = await this.#store.db.deleteFrom('fault_rules').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw notFound(`Fault rule ${id.slice(0, 100)} not found.`);
    await this.#changed();
  }

  async clear(): Promise<number> {
    const r = await this.#store.db.deleteFrom('fault_rules').executeTakeFirst();
    await this.#changed();
    return Number(r.numDeletedRows);
  }

  /**
   * The fault that acts on this call, if any: the first rule (in creation order) that matches
   * it, is not expired, and whose schedule fires for this match. A rule that matches counts the
   * call whether or not it fires (`every: 3` fires on the 3rd, 6th, ... matching call).
   */
  async decide(call: FaultCall): Promise<FaultDecision | undefined> {
    const now = this.#clock.nowMs();
    for (const c of this.#rules) {
      const r = c.rule;
      if (c.spent || (r.expireMs !== undefined && now >= r.expireMs) || !c.method(call.method)) continue;
      if (!(await this.#matches(r, call))) continue;
      const n = await this.#count(r.id);
      if (n === undefined) continue; // deleted meanwhile (another process)
      if (spent(r.when, n)) c.spent = true;
      if (!fires(r.when, n, (i) => seededUnit(('seed' in r.when && r.when.seed) || r.id, i))) continue;
      await this.#store.db.updateTable('fault_rules').set({ injected: sql`injected + 1` }).where('id', '=', r.id).execute();
      const key = `${r.id} ${call.method} ${r.action.type}`;
      const counted = this.injectedCounts.get(key);
      if (counted) counted.n++;
      else this.injectedCounts.set(key, { rule: r.id, method: call.method, action: r.action.type, n: 1 });
      return { rule: r.id, action: r.action };
    }
    return undefined;
  }

  async #matches(r: FaultRule, call: FaultCall): Promise<boolean> {
    const m = r.match;
    if (m.principal !== undefined && !samePrincipal(m.principal, call.principal)) return false;
    if (m.header !== undefined) {
      const v = call.headers[m.header.name.toLowerCase()];
      if (v === undefined || (m.header.value !== undefined && ![v].flat().includes(m.header.value))) return false;
    }
    let key: { keyId: string; projectNumber: string } | undefined;
    if (m.apiKeyId !== undefined) {
      key = await call.apiKey?.();
      if (key?.keyId !== m.apiKeyId) return false;
    }
    if (m.project !== undefined) {
      const callProject = call.project ?? (key ?? (await call.apiKey?.()))?.projectNumber;
      if (callProject === undefined) return false;
      if (callProject !== m.project) {
        const [a, b] = await Promise.all([this.#resolveProject(callProject), this.#resolveProject(m.project)]);
        if (!a || !b || a.projectNumber !== b.projectNumber) return false;
      }
    }
    return true;
  }

  /** Counts one matching call, atomically across processes; answers its position (from 1). */
  async #count(id: string): Promise<number | undefined> {
    const row = await this.#store.db.updateTable('fault_rules').set({ matched: sql`matched + 1` }).where('id', '=', id).returning('matched').executeTakeFirst();
    return row ? Number(row.matched) : undefined;
  }
}

function samePrincipal(rule: string, principal: string | undefined): boolean {
  if (principal === undefined) return false;
  return rule === principal || (!rule.includes(':') && principal.slice(principal.indexOf(':') + 1) === rule);
}

/** The seeded draw of the `n`th matching call, in [0, 1): the same seed gives the same sequence in every process. */
export function seededUnit(seed: string, n: number): number {
  return createHmac('sha256', seed).update(String(n)).digest().readUInt32BE(0) / 2 ** 32;
}
