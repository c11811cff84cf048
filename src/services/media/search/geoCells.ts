import type { SearchIndex } from './index.ts';

/**
 * Geotagged documents bucketed by 1-degree cells of latitude and longitude, so a location search
 * takes its candidates from the few cells its circle can reach instead of every geotagged
 * document (a tenth of the catalogue). Cells only propose candidates: plan.ts checks each
 * one's great-circle distance. Built on demand from the index's geotagged list, dropped with the
 * index's other derived lists on any change.
 */

const DEG = 180 / Math.PI;
const LNG_CELLS = 360;
/** Beyond this many cells the circle is large (or reaches a pole): every geotagged document is a candidate. */
const MAX_CELLS = 64;
/** Margin (degrees) around the circle's box: a document on a cell border is never missed by rounding. */
const MARGIN = 1e-6;

export function cellOf(latDeg: number, lngDeg: number): number {
  const row = Math.min(179, Math.max(0, Math.floor(latDeg) + 90));
  const col = (((Math.floor(lngDeg) + 180) % LNG_CELLS) + LNG_CELLS) % LNG_CELLS;
  return row * LNG_CELLS + col;
}

/** Cell number -> its documents, ascending (built on first use after each change). */
export function geoCells(index: SearchIndex): Map<number, Int32Array> {
  if (index.geoCells) return index.geoCells;
  const buckets = new Map<number, number[]>();
  const { geoDocs, alive, lat, lng } = index;
  for (let i = 0; i < geoDocs.n; i++) {
    const d = geoDocs.docs[i];
    if (!alive[d]) continue;
    const c = cellOf(lat[d] * DEG, lng[d] * DEG);
    let b = buckets.get(c);
    if (!b) buckets.set(c, (b = []));
    b.push(d);
  }
  const cells = new Map<number, Int32Array>();
  for (const [c, docs] of buckets) cells.set(c, Int32Array.from(docs));
  index.geoCells = cells;
  return cells;
}

/**
 * The cells a circle (centre and radius as an angle, radians) can reach, or undefined when it
 * reaches too many of them (or a pole). The longitude span of a circle of angular radius r at
 * latitude φ is asin(sin r / cos φ) either side (the tangent meridians).
 */
export function coveringCells(latRad: number, lngRad: number, angle: number): number[] | undefined {
  const lat0 = (latRad - angle) * DEG - MARGIN;
  const lat1 = (latRad + angle) * DEG + MARGIN;
  if (lat0 <= -90 || lat1 >= 90) return undefined;
  const sinSpan = Math.sin(angle) / Math.cos(latRad);
  if (sinSpan >= 1) return undefined;
  const span = Math.asin(sinSpan) * DEG + MARGIN;
  const lng0 = Math.floor(lngRad * DEG - span);
  const lng1 = Math.floor(lngRad * DEG + span);
  const rows = Math.floor(lat1) - Math.floor(lat0) + 1;
  const cols = lng1 - lng0 + 1;
  if (rows * cols > MAX_CELLS || cols >= LNG_CELLS) return undefined;
  const out: number[] = [];
  for (let la = Math.floor(lat0); la <= Math.floor(lat1); la++) for (let lo = lng0; lo <= lng1; lo++) out.push(cellOf(la, lo));
  return out;
}
