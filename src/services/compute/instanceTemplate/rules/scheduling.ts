/**
 * Rules of `properties.scheduling`: preemptible / spot constraints, host error timeout, local SSD
 * recovery timeout, the run-duration union, durations, availability domain, node affinities,
 * termination and stop actions.
 */
import { type Findings, type Obj, boolField, field, int64Field, listField, numField, objField, strField } from './common.ts';

export const MAX_DURATION_SECONDS = 315576000000n;
export const MAX_NANOS = 999999999;
export const HOST_ERROR_TIMEOUT = { min: 90, max: 330, step: 30 };
export const MAX_LOCAL_SSD_RECOVERY_HOURS = 168n;

/** RFC 3339 timestamp (`2026-01-02T03:04:05Z`, fractional seconds and offsets allowed). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || se > 60) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d >= 1 && d <= days && !Number.isNaN(Date.parse(s));
}

/** A Duration's own ranges: seconds 0..315576000000, nanos 0..999999999. */
function checkDuration(f: Findings, at: string, d: Obj | undefined): bigint | undefined {
  if (!d) return undefined;
  const seconds = int64Field(d, 'seconds');
  const nanos = numField(d, 'nanos');
  let ok = true;
  if (seconds !== undefined && (seconds < 0n || seconds > MAX_DURATION_SECONDS)) {
    f.invalid(`${at}.seconds`, seconds.toString(), `Must be between 0 and ${MAX_DURATION_SECONDS} seconds.`);
    ok = false;
  }
  if (nanos !== undefined && (nanos < 0 || nanos > MAX_NANOS)) {
    f.invalid(`${at}.nanos`, nanos, `Must be between 0 and ${MAX_NANOS} nanoseconds.`);
    ok = false;
  }
  return ok ? (seconds ?? 0n) : undefined;
}

export function checkScheduling(f: Findings, s: Obj | undefined, hasAccelerators: boolean): void {
  const at = 'resource.properties.scheduling';
  const preemptible = boolField(s, 'preemptible') === true;
  const model = strField(s, 'provisioningModel');
  const ohm = strField(s, 'onHostMaintenance');
  const restart = boolField(s, 'automaticRestart');

  if (preemptible && restart === true) {
    f.invalid(`${at}.preemptible`, true, 'Scheduling must have preemptible be false when AutomaticRestart is true.');
  }
  if (preemptible && ohm === 'MIGRATE') {
    f.invalid(`${at}.preemptible`, true, "Scheduling must have preemptible be false when OnHostMaintenance isn't TERMINATE.");
  }
  if (model === 'SPOT' && !preemptible) {
    if (restart === true) f.invalid(`${at}.automaticRestart`, true, 'Spot instances cannot be automatically restarted.');
    if (ohm === 'MIGRATE') f.invalid(`${at}.onHostMaintenance`, ohm, 'Spot instances do not support live migration; onHostMaintenance must be TERMINATE.');
  }
  // Unset, onHostMaintenance is MIGRATE for standard VMs (TERMINATE for preemptible and spot ones).
  const effective = ohm ?? (preemptible || model === 'SPOT' ? 'TERMINATE' : 'MIGRATE');
  if (hasAccelerators && effective === 'MIGRATE') {
    f.invalid(`${at}.onHostMaintenance`, effective, 'Instances with guest accelerators do not support live migration.');
  }

  const het = numField(s, 'hostErrorTimeoutSeconds');
  if (het !== undefined && (het < HOST_ERROR_TIMEOUT.min || het > HOST_ERROR_TIMEOUT.max || het % HOST_ERROR_TIMEOUT.step !== 0)) {
    f.invalid(`${at}.hostErrorTimeoutSeconds`, het, 'Host error timeout must be between 90 and 330 seconds, in steps of 30 seconds.');
  }

  const lssd = objField(s, 'localSsdRecoveryTimeout');
  const lssdSeconds = checkDuration(f, `${at}.localSsdRecoveryTimeout`, lssd);
  if (lssdSeconds !== undefined && (lssdSeconds % 3600n !== 0n || lssdSeconds > MAX_LOCAL_SSD_RECOVERY_HOURS * 3600n || (numField(lssd, 'nanos') ?? 0) !== 0)) {
    f.invalid(`${at}.localSsdRecoveryTimeout`, '', 'Local SSD recovery timeout must be between 0 and 168 hours, in whole hours.');
  }

  const maxRun = objField(s, 'maxRunDuration');
  checkDuration(f, `${at}.maxRunDuration`, maxRun);
  const termination = strField(s, 'terminationTime');
  if (maxRun && termination !== undefined) {
    f.invalid(`${at}.terminationTime`, termination, 'Only one of maxRunDuration and terminationTime may be specified.');
  }
  if (termination !== undefined && !isRfc3339(termination)) {
    f.invalid(`${at}.terminationTime`, termination, 'Must be an RFC 3339 timestamp.');
  }
  checkDuration(f, `${at}.preemptionNoticeDuration`, objField(s, 'preemptionNoticeDuration'));
  checkDuration(f, `${at}.gracefulShutdown.maxDuration`, objField(objField(s, 'gracefulShutdown'), 'maxDuration'));

  const action = strField(s, 'instanceTerminationAction');
  if (action !== undefined && action !== 'INSTANCE_TERMINATION_ACTION_UNSPECIFIED' && model !== 'SPOT' && !preemptible && !maxRun && termination === undefined) {
    f.invalid(`${at}.instanceTerminationAction`, action, 'instanceTerminationAction can only be set for Spot VMs or VMs with maxRunDuration or terminationTime.');
  }
  if (field(s, 'onInstanceStopAction') !== undefined && action === 'DELETE') {
    f.invalid(`${at}.onInstanceStopAction`, '', 'onInstanceStopAction can only be set when instanceTerminationAction is STOP.');
  }

  const domain = numField(s, 'availabilityDomain');
  if (domain !== undefined && domain < 1) {
    f.invalid(`${at}.availabilityDomain`, domain, 'Availability domain must be at least 1.');
  }
  const minCpus = numField(s, 'minNodeCpus');
  if (minCpus !== undefined && minCpus < 0) f.invalid(`${at}.minNodeCpus`, minCpus, 'Must be at least 0.');

  listField(s, 'nodeAffinities').forEach((n, i) => {
    const aff = n as Obj;
    const p = `${at}.nodeAffinities[${i}]`;
    const key = strField(aff, 'key');
    if (key === undefined || key === '') f.required(`${p}.key`);
    const op = strField(aff, 'operator');
    if (op === undefined || op === 'OPERATOR_UNSPECIFIED') f.invalid(`${p}.operator`, op ?? '', "Operator must be 'IN' or 'NOT_IN'.");
    if (listField(aff, 'values').length === 0) f.required(`${p}.values`);
  });
}
