/**
 * Migration 0008 and snapshots taken before it: the rows of the retired `compute_world` (the
 * world's Compute entries) and `compute_instance_templates` tables as rows of `compute_resources`,
 * the one table of Compute's resources; `compute_operations.region` became `location`.
 * The same conversion serves a store being migrated and a snapshot being restored.
 */
import { stableId } from '../crypto/stableId.ts';
import type { Database } from './schema.ts';

/** The creation time the world's entries have when they give none (as world-declared resources always had). */
export const WORLD_EPOCH_MS = Date.parse('2024-01-01T00:00:00.000-08:00');

type Row = Record<string, unknown>;

/** A `compute_world` row (kind, project_number, location, name, body) as a `compute_resources` row. */
export function resourceFromWorldRow(r: Row): Database['compute_resources'] {
  const kind = String(r.kind);
  const projectNumber = String(r.project_number);
  const location = String(r.location);
  const name = String(r.name);
  const body = String(r.body);
  let created = NaN;
  try {
    created = Date.parse(String(JSON.parse(body).creationTimestamp ?? ''));
  } catch {
    // a body that is not JSON keeps the world's epoch
  }
  return {
    kind,
    project_number: projectNumber,
    location,
    name,
    id: stableId(`${kind}/${projectNumber}/${location}/${name}`),
    creation_ms: Number.isFinite(created) ? created : WORLD_EPOCH_MS,
    body,
  };
}

/** A `compute_instance_templates` row as a `compute_resources` row (kind `instanceTemplate`). */
export function resourceFromTemplateRow(r: Row): Database['compute_resources'] {
  return {
    kind: 'instanceTemplate',
    project_number: String(r.project_number),
    location: String(r.region),
    name: String(r.name),
    id: String(r.id),
    creation_ms: Number(r.creation_ms),
    body: String(r.body),
  };
}

/** A `compute_operations` row of before 0008 (`region`) as one of after it (`location`). */
export function operationIndexRow(r: Row): Row {
  if (!('region' in r)) return r;
  const { region, ...rest } = r;
  return { ...rest, location: region };
}

/** A snapshot's tables as they would be after migration 0008 (unchanged when already so). */
export function upgradeSnapshotTables(tables: Record<string, Row[]>): Record<string, Row[]> {
  const { compute_world: world, compute_instance_templates: templates, ...rest } = tables;
  if (!world && !templates && !(rest.compute_operations ?? []).some((r) => 'region' in r)) return tables;
  return {
    ...rest,
    compute_resources: [...(rest.compute_resources ?? []), ...(world ?? []).map(resourceFromWorldRow), ...(templates ?? []).map(resourceFromTemplateRow)],
    compute_operations: (rest.compute_operations ?? []).map(operationIndexRow),
  };
}
