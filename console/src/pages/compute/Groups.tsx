import { useEffect, useState } from 'react';
import { type Session, call } from '../../api.ts';
import { type Scoped, lastSegment, referenceLabel, resourcePath, scopeLabel, scopeSegment } from '../../compute.ts';
import { Confirm, Dialog, Field, ListTable, MutationStatus, Page, RefreshButton, RowActions, SummaryList, ViewDialog, jsonTab } from '../../ui.tsx';
import { InstanceStatus } from './Instances.tsx';
import { useAggregatedList, useMutations, useReloadWhile } from './useCompute.ts';

/** A group as the page names it: "managed instance group web in us-central1-a". */
const groupTitle = ({ scope, resource }: Scoped<any>) => `managed instance group ${resource.name} in ${scopeLabel(scope)}`;

/** How many instances a group has now: each managed instance has one current action (`none` when idle), so their counts add up to it. */
export const currentSize = (g: any): number => Object.values<number>(g.currentActions ?? {}).reduce((a, b) => a + (Number(b) || 0), 0);

/** A version's share of the group, when it has one: `2` or `20%` (of the target size). */
const versionShare = (v: any) => (v.targetSize?.fixed !== undefined ? String(v.targetSize.fixed) : v.targetSize?.percent !== undefined ? `${v.targetSize.percent}%` : undefined);

/** The group's versions, one a line: its template (and name), with its share when it has one (a canary). */
function Versions({ g }: { g: any }) {
  const versions: any[] = g.versions?.length ? g.versions : [{ instanceTemplate: g.instanceTemplate }];
  return (
    <>
      {versions.map((v, i) => (
        <span key={i} className="version">
          {referenceLabel(v.instanceTemplate) ?? '—'}
          {v.name ? ` · ${v.name}` : ''}
          {versionShare(v) ? ` · ${versionShare(v)} of ${g.targetSize}` : ''}
        </span>
      ))}
    </>
  );
}

/** Whether the group has reached what it was asked for: Stable, or Updating while instances are on their way. */
function GroupStatus({ g }: { g: any }) {
  const stable = g.status?.isStable === true;
  return (
    <span className={`state ${stable ? 'up' : 'moving'}`}>
      <span className="dot" aria-hidden="true" /> {stable ? 'Stable' : 'Updating'}
    </span>
  );
}

const fixedOrPercent = (v: any) => (v?.fixed !== undefined ? String(v.fixed) : v?.percent !== undefined ? `${v.percent}%` : '—');

function GroupSummary({ g, location }: { g: any; location: string }) {
  const p = g.updatePolicy ?? {};
  const actions = Object.entries<number>(g.currentActions ?? {}).filter(([, n]) => n > 0);
  return (
    <SummaryList
      rows={[
        ['Location', `${location} (${g.region ? 'regional' : 'zonal'})`],
        ...(g.region ? [['Zones', ((g.distributionPolicy?.zones ?? []) as any[]).map((z) => lastSegment(z.zone)).join(', ') || '—'] as [string, string]] : []),
        ['Versions', <Versions g={g} />],
        ['Base instance name', g.baseInstanceName ?? '—'],
        ['Target size', String(g.targetSize ?? '—')],
        ['Current size', String(currentSize(g))],
        ['Current actions', actions.map(([a, n]) => `${a} ${n}`).join(', ') || '—'],
        ['Status', <GroupStatus g={g} />],
        ['Version target reached', g.status?.versionTarget?.isReached ? 'Yes' : 'No'],
        ['Update policy', [p.type, p.maxSurge ? `max surge ${fixedOrPercent(p.maxSurge)}` : '', p.maxUnavailable ? `max unavailable ${fixedOrPercent(p.maxUnavailable)}` : '', p.minimalAction ? `minimal action ${p.minimalAction}` : ''].filter(Boolean).join(' · ') || '—'],
        ['Created', g.creationTimestamp ? new Date(g.creationTimestamp).toLocaleString() : '—'],
      ]}
    />
  );
}

/** The group's instances as `listManagedInstances` gives them (every page): status, current action, version. */
function ManagedInstances({ path }: { path: string }) {
  const [rows, setRows] = useState<any[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let live = true;
    (async () => {
      const all: any[] = [];
      let pageToken: string | undefined;
      do {
        const page = await call<{ managedInstances?: any[]; nextPageToken?: string }>('POST', `${path}/listManagedInstances`, { query: { maxResults: 500, pageToken } });
        all.push(...(page.managedInstances ?? []));
        pageToken = page.nextPageToken;
      } while (pageToken);
      return all;
    })().then(
      (all) => live && setRows(all),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return (
    <ListTable
      rows={rows}
      error={error}
      empty="The group has no instances."
      headers={['Instance', 'Zone', 'Status', 'Current action', 'Template']}
      row={(m) => (
        <tr key={m.instance} data-member={m.name ?? lastSegment(m.instance)}>
          <td>{m.name ?? lastSegment(m.instance)}</td>
          <td>{/\/zones\/([^/]+)\//.exec(m.instance)?.[1] ?? '—'}</td>
          <td>
            <InstanceStatus status={m.instanceStatus} />
          </td>
          <td>{m.currentAction}</td>
          <td>{referenceLabel(m.version?.instanceTemplate) ?? '—'}</td>
        </tr>
      )}
    />
  );
}

/** Asks for a group's new target size: a whole number, at least 0. */
function ResizeDialog({ group, onResize, onCancel }: { group: Scoped<any>; onResize: (size: number) => void; onCancel: () => void }) {
  const [text, setText] = useState(String(group.resource.targetSize ?? 0));
  const size = /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
  return (
    <Dialog title={`Resize ${groupTitle(group)}`} onClose={onCancel}>
      <form
        className="resize-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (size !== undefined) onResize(size);
        }}
      >
        <Field label="Number of instances" hint={`Now ${group.resource.targetSize}. The group adds or removes instances to reach it.`} error={size === undefined ? 'A whole number, 0 or more.' : undefined}>
          <input type="number" min={0} step={1} value={text} onChange={(e) => setText(e.target.value)} />
        </Field>
        <div className="actions">
          <button type="submit" disabled={size === undefined}>
            Resize
          </button>
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * Managed instance groups, zonal and regional in one list (`instanceGroupManagers.aggregatedList`
 * covers both): template or versions, target and current size, whether stable; view (summary, its
 * managed instances, JSON), resize, delete, each followed to the end of its operation; reloaded
 * while a group is updating.
 */
export function GroupsPage({ session }: { session: Session }) {
  const { rows, error: listError, reload } = useAggregatedList<any>(session.project, 'instanceGroupManagers');
  const { op, error, done, run } = useMutations(session.project, reload);
  useReloadWhile(rows?.some((g) => g.resource.status?.isStable !== true) ?? false, reload);
  const [viewing, setViewing] = useState<Scoped<any>>();
  const [resizing, setResizing] = useState<Scoped<any>>();
  const [deleting, setDeleting] = useState<Scoped<any>>();
  const path = (g: Scoped<any>) => resourcePath(session.project, g.scope, 'instanceGroupManagers', g.resource.name);

  return (
    <Page id="groups-title" title="Managed instance groups" actions={<RefreshButton onRefresh={reload} />}>
      <MutationStatus op={op} done={done} error={error} />
      <ListTable
        rows={rows}
        error={listError}
        empty={<>No managed instance groups in {session.project}.</>}
        headers={['Name', 'Location', 'Template', 'Target size', 'Current size', 'Status', 'Actions']}
        widths={['', '9.5rem', '', '7rem', '7rem', '7.5rem', '14rem']}
        row={(g) => (
          <tr key={`${scopeSegment(g.scope)}/${g.resource.name}`} data-group={g.resource.name} data-location={scopeLabel(g.scope)}>
            <td>{g.resource.name}</td>
            <td>
              {scopeLabel(g.scope)}
              <span className="sub muted">{g.scope.kind === 'region' ? 'regional' : 'zonal'}</span>
            </td>
            <td>
              <Versions g={g.resource} />
            </td>
            <td data-label="Target size">{g.resource.targetSize}</td>
            <td data-label="Current size">{currentSize(g.resource)}</td>
            <td>
              <GroupStatus g={g.resource} />
            </td>
            <td>
              <RowActions onView={() => setViewing(g)} onDelete={() => setDeleting(g)}>
                <button type="button" className="secondary" onClick={() => setResizing(g)}>
                  Resize
                </button>
              </RowActions>
            </td>
          </tr>
        )}
      />
      {resizing && (
        <ResizeDialog
          group={resizing}
          onCancel={() => setResizing(undefined)}
          onResize={(size) => {
            setResizing(undefined);
            void run(`Resized ${groupTitle(resizing)} to ${size}`, 'POST', `${path(resizing)}/resize`, { query: { size } });
          }}
        />
      )}
      {deleting && (
        <Confirm
          title={`Delete ${groupTitle(deleting)}?`}
          action="Delete group"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={() => void run(`Deleted ${groupTitle(deleting)}`, 'DELETE', path(deleting))}
        >
          <p>{currentSize(deleting.resource) === 1 ? 'Its one instance is' : `Its ${currentSize(deleting.resource)} instances are`} deleted with it. This cannot be undone.</p>
        </Confirm>
      )}
      {viewing && (
        <ViewDialog
          title={`Group ${viewing.resource.name} (${scopeLabel(viewing.scope)})`}
          tabs={[
            { label: 'Summary', render: () => <GroupSummary g={viewing.resource} location={scopeLabel(viewing.scope)} /> },
            { label: 'Instances', render: () => <ManagedInstances path={path(viewing)} /> },
            jsonTab(viewing.resource),
          ]}
          onClose={() => setViewing(undefined)}
        />
      )}
    </Page>
  );
}
