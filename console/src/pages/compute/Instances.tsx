import { useState } from 'react';
import type { Session } from '../../api.ts';
import { type Scoped, lastSegment, metadataValue, referenceLabel, resourcePath, scopeLabel, scopeSegment } from '../../compute.ts';
import { Confirm, ListTable, MutationStatus, Page, RefreshButton, RowActions, SummaryList, ViewDialog, jsonTab } from '../../ui.tsx';
import { useAggregatedList, useMutations, useReloadWhile } from './useCompute.ts';

/** An instance as the page names it: "instance web-1 in us-central1-a". */
const instanceTitle = ({ scope, resource }: Scoped<any>) => `instance ${resource.name} in ${scopeLabel(scope)}`;

/** The template an instance was made from: the `instance-template` metadata Compute gives a managed group's instances. */
export const instanceTemplateOf = (instance: any) => referenceLabel(metadataValue(instance, 'instance-template'));

/** The managed group that made an instance (`created-by`). */
export const instanceGroupOf = (instance: any) => referenceLabel(metadataValue(instance, 'created-by'));

/** The statuses an instance stays in until asked to change (the others are on their way to one of them). */
const SETTLED = new Set(['RUNNING', 'TERMINATED', 'SUSPENDED']);

/** An instance's status as a dot and its name (RUNNING green, TERMINATED grey, on its way amber). */
export function InstanceStatus({ status }: { status: string | undefined }) {
  const state = status === 'RUNNING' ? 'up' : status === 'TERMINATED' || status === 'SUSPENDED' ? 'down' : 'moving';
  return (
    <span className={`state ${state}`}>
      <span className="dot" aria-hidden="true" /> {status ?? '—'}
    </span>
  );
}

/** What a person wants to know of an instance at a glance. */
function InstanceSummary({ i, zone }: { i: any; zone: string }) {
  return (
    <SummaryList
      rows={[
        ['Zone', zone],
        ['Status', <InstanceStatus status={i.status} />],
        ['Machine type', lastSegment(i.machineType) ?? '—'],
        ['Created', i.creationTimestamp ? new Date(i.creationTimestamp).toLocaleString() : '—'],
        ['Instance template', instanceTemplateOf(i) ?? '—'],
        ['Managed by', instanceGroupOf(i) ?? '—'],
        ...((i.networkInterfaces ?? []) as any[]).map((n): [string, string] => [
          `Network ${n.name ?? ''}`,
          [lastSegment(n.network), n.subnetwork ? `subnet ${lastSegment(n.subnetwork)}` : '', n.networkIP ? `internal ${n.networkIP}` : '', ...((n.accessConfigs ?? []) as any[]).map((a) => (a.natIP ? `external ${a.natIP}` : 'external IP'))]
            .filter(Boolean)
            .join(' · '),
        ]),
        ...((i.disks ?? []) as any[]).map((d, n): [string, string] => [
          `Disk ${n}${d.boot ? ' (boot)' : ''}`,
          [lastSegment(d.source), d.diskSizeGb ? `${d.diskSizeGb} GB` : '', d.mode ?? '', d.autoDelete ? 'deleted with the instance' : 'kept when the instance is deleted'].filter(Boolean).join(' · '),
        ]),
        ['Service account', ((i.serviceAccounts ?? []) as any[]).map((s) => s.email).join(', ') || '—'],
        ['Labels', Object.entries(i.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
        ['Tags', (i.tags?.items ?? []).join(', ') || '—'],
        ['Deletion protection', i.deletionProtection ? 'On' : 'Off'],
      ]}
    />
  );
}

/**
 * VM instances of every zone of the project (`instances.aggregatedList`): status, machine type,
 * internal IP and the template and group it came from; view (summary or JSON), stop, start and
 * delete, each followed to the end of its operation; reloaded while an instance is on its way.
 */
export function InstancesPage({ session }: { session: Session }) {
  const { rows, error: listError, reload } = useAggregatedList<any>(session.project, 'instances');
  const { op, error, done, run } = useMutations(session.project, reload);
  useReloadWhile(rows?.some((i) => !SETTLED.has(i.resource.status)) ?? false, reload);
  const [viewing, setViewing] = useState<Scoped<any>>();
  const [deleting, setDeleting] = useState<Scoped<any>>();
  const [stopping, setStopping] = useState<Scoped<any>>();
  const path = (i: Scoped<any>) => resourcePath(session.project, i.scope, 'instances', i.resource.name);

  return (
    <Page id="instances-title" title="VM instances" actions={<RefreshButton onRefresh={reload} />}>
      <MutationStatus op={op} done={done} error={error} />
      <ListTable
        rows={rows}
        error={listError}
        empty={<>No instances in {session.project}.</>}
        headers={['Name', 'Zone', 'Status', 'Machine type', 'Internal IP', 'Template', 'Actions']}
        widths={['', '9.5rem', '11rem', '9rem', '7.5rem', '', '13.5rem']}
        row={(i) => {
          const status = i.resource.status as string | undefined;
          const group = instanceGroupOf(i.resource);
          return (
            <tr key={`${scopeSegment(i.scope)}/${i.resource.name}`} data-instance={i.resource.name} data-zone={scopeLabel(i.scope)}>
              <td>
                {i.resource.name}
                {group && <span className="sub muted">in group {group}</span>}
              </td>
              <td>{scopeLabel(i.scope)}</td>
              <td>
                <InstanceStatus status={status} />
              </td>
              <td data-label="Machine type">{lastSegment(i.resource.machineType) ?? '—'}</td>
              <td data-label="Internal IP">{i.resource.networkInterfaces?.[0]?.networkIP ?? '—'}</td>
              <td data-label="Template">{instanceTemplateOf(i.resource) ?? '—'}</td>
              <td>
                <RowActions onView={() => setViewing(i)} onDelete={() => setDeleting(i)}>
                  {status === 'TERMINATED' || status === 'SUSPENDED' ? (
                    <button type="button" className="secondary" onClick={() => void run(`Started ${instanceTitle(i)}`, 'POST', `${path(i)}/start`)}>
                      Start
                    </button>
                  ) : (
                    <button type="button" className="secondary" disabled={status === 'STOPPING'} onClick={() => setStopping(i)}>
                      Stop
                    </button>
                  )}
                </RowActions>
              </td>
            </tr>
          );
        }}
      />
      {stopping && (
        <Confirm
          title={`Stop ${instanceTitle(stopping)}?`}
          action="Stop instance"
          onClose={() => setStopping(undefined)}
          onConfirm={() => void run(`Stopped ${instanceTitle(stopping)}`, 'POST', `${path(stopping)}/stop`)}
        >
          <p>It shuts down and keeps its disks and internal IP; Start runs it again.</p>
        </Confirm>
      )}
      {deleting && (
        <Confirm
          title={`Delete ${instanceTitle(deleting)}?`}
          action="Delete instance"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={() => void run(`Deleted ${instanceTitle(deleting)}`, 'DELETE', path(deleting))}
        >
          <p>Its disks set to be deleted with it go too. This cannot be undone.</p>
          {instanceGroupOf(deleting.resource) && <p>It belongs to the managed instance group {instanceGroupOf(deleting.resource)}.</p>}
        </Confirm>
      )}
      {viewing && (
        <ViewDialog
          title={`Instance ${viewing.resource.name} (${scopeLabel(viewing.scope)})`}
          tabs={[{ label: 'Summary', render: () => <InstanceSummary i={viewing.resource} zone={scopeLabel(viewing.scope)} /> }, jsonTab(viewing.resource)]}
          onClose={() => setViewing(undefined)}
        />
      )}
    </Page>
  );
}
