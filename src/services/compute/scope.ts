/**
 * Where a Compute resource or operation lives: `global`, a region, or a zone. A type, never a
 * string: code that needs a region asks `regionOf`, a path asks `scopePath`. Stored as its
 * `location` text (`global`, the region's or the zone's name: zones and regions never share a
 * name), read back with `scopeAt`.
 */
import { REGIONS, ZONES } from './catalogue.ts';
import { LINK_BASE } from './names.ts';

export type Scope = { readonly type: 'global' } | { readonly type: 'region'; readonly name: string } | { readonly type: 'zone'; readonly name: string };
export type ScopeType = Scope['type'];

export const GLOBAL: Scope = Object.freeze({ type: 'global' });
export const inRegion = (name: string): Scope => ({ type: 'region', name });
export const inZone = (name: string): Scope => ({ type: 'zone', name });

export const isGlobal = (s: Scope): s is Extract<Scope, { type: 'global' }> => s.type === 'global';

/** The scope's `location` as stored: `global`, a region's or a zone's name. */
export const locationOf = (s: Scope): string => (s.type === 'global' ? 'global' : s.name);

/** The scope a stored `location` names. */
export function scopeAt(location: string): Scope {
  if (location === 'global') return GLOBAL;
  return ZONES.has(location) ? inZone(location) : inRegion(location);
}

/** Whether the catalogue has the scope's region or zone (global always exists). */
export const scopeExists = (s: Scope): boolean => (s.type === 'global' ? true : s.type === 'region' ? REGIONS.has(s.name) : ZONES.has(s.name));

/** The region a scope is in: a region's own name, a zone's region; undefined for global. */
export const regionOf = (s: Scope): string | undefined => (s.type === 'region' ? s.name : s.type === 'zone' ? ZONES.get(s.name) : undefined);

/** `projects/P/global`, `projects/P/regions/R` or `projects/P/zones/Z`: where the scope's collections are. */
export function scopePath(project: string, s: Scope): string {
  return s.type === 'global' ? `projects/${project}/global` : `projects/${project}/${s.type === 'region' ? 'regions' : 'zones'}/${s.name}`;
}
export const scopeLink = (project: string, s: Scope): string => LINK_BASE + scopePath(project, s);

/** `projects/P`, `projects/P/regions/R` or `projects/P/zones/Z`: the resource a collection's list and insert are authorized on. */
export const parentPath = (project: string, s: Scope): string => (s.type === 'global' ? `projects/${project}` : scopePath(project, s));

/** The link of the region or zone itself (`region` / `zone` fields of resources and operations); undefined for global. */
export const locationLink = (project: string, s: Scope): string | undefined => (s.type === 'global' ? undefined : scopeLink(project, s));

/** The key of a scope in an aggregatedList: `global`, `regions/R` or `zones/Z`. */
export const scopeKey = (s: Scope): string => (s.type === 'global' ? 'global' : `${s.type === 'region' ? 'regions' : 'zones'}/${s.name}`);

/** Every scope of a type, in the catalogue's order (aggregated lists show each). */
export function allScopes(type: ScopeType): Scope[] {
  if (type === 'global') return [GLOBAL];
  return type === 'region' ? [...REGIONS.keys()].map(inRegion) : [...ZONES.keys()].map(inZone);
}
