import { useState } from 'react';
import type { Session } from '../../api.ts';
import { type Scope, type Scoped, lastSegment, resourcePath, scopeLabel, scopeSegment } from '../../compute.ts';
import { Confirm, Dialog, ListTable, MutationStatus, Page, RowActions, SummaryList, ViewDialog, jsonTab } from '../../ui.tsx';
import { TemplateEditor } from './TemplateEditor.tsx';
import { useAggregatedList, useMutations } from './useCompute.ts';

/** A template as the page names it: "global instance template web" or "instance template web in us-central1". */
const templateTitle = ({ scope, resource }: Scoped<any>) => (scope.kind === 'global' ? `global instance template ${resource.name}` : `instance template ${resource.name} in ${scopeLabel(scope)}`);

/** A readable summary of a template: what a person wants to know at a glance. */
function TemplateSummary({ t, scope }: { t: any; scope: Scope }) {
  const p = t.properties ?? {};
  const rows: [string, string][] = [
    ['Location', scopeLabel(scope)],
    ['Machine type', p.machineType ?? '—'],
    ['Created', t.creationTimestamp ? new Date(t.creationTimestamp).toLocaleString() : '—'],
    ...((p.disks ?? []) as any[]).map((d, i): [string, string] => [
      `Disk ${i}${d.boot ? ' (boot)' : ''}`,
      [lastSegment(d.initializeParams?.sourceImage) ?? lastSegment(d.source) ?? 'blank', d.initializeParams?.diskSizeGb ? `${d.initializeParams.diskSizeGb} GB` : '', d.initializeParams?.diskType ?? '', d.mode ?? '']
        .filter(Boolean)
        .join(' · '),
    ]),
    ...((p.networkInterfaces ?? []) as any[]).map((n): [string, string] => [
      `Network ${n.name ?? ''}`,
      [lastSegment(n.network), n.subnetwork ? `subnet ${lastSegment(n.subnetwork)}` : '', n.accessConfigs?.length ? 'external IP' : 'internal only'].filter(Boolean).join(' · '),
    ]),
    ['Service account', ((p.serviceAccounts ?? []) as any[]).map((s) => s.email).join(', ') || '—'],
    ['Scheduling', p.scheduling ? `${p.scheduling.provisioningModel ?? ''} ${p.scheduling.preemptible ? 'preemptible' : ''} on maintenance: ${p.scheduling.onHostMaintenance ?? ''}`.trim() : '—'],
    ['Labels', Object.entries(p.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
    ['Tags', (p.tags?.items ?? []).join(', ') || '—'],
    ['Metadata keys', ((p.metadata?.items ?? []) as any[]).map((m) => m.key).join(', ') || '—'],
  ];
  return <SummaryList rows={rows} />;
}

/**
 * Instance templates, global and regional in one list (`instanceTemplates.aggregatedList`), each
 * with its location, as Google's console lists them: view (summary or JSON), create in either
 * location, delete.
 */
export function TemplatesPage({ session }: { session: Session }) {
  const { rows, error: listError, reload } = useAggregatedList<any>(session.project, 'instanceTemplates');
  const { op, error, done, run, succeeded } = useMutations(session.project, reload);
  const [viewing, setViewing] = useState<Scoped<any>>();
  const [deleting, setDeleting] = useState<Scoped<any>>();
  const [creating, setCreating] = useState(false);

  return (
    <Page
      id="templates-title"
      title="Instance templates"
      actions={
        <button type="button" onClick={() => setCreating(true)}>
          Create instance template
        </button>
      }
    >
      <MutationStatus op={op} done={done} error={error} />
      <ListTable
        rows={rows}
        error={listError}
        empty={<>No instance templates in {session.project}.</>}
        headers={['Name', 'Location', 'Machine type', 'Created', 'Actions']}
        row={(t) => (
          <tr key={`${scopeSegment(t.scope)}/${t.resource.name}`} data-template={t.resource.name} data-location={scopeLabel(t.scope)}>
            <td>{t.resource.name}</td>
            <td>{scopeLabel(t.scope)}</td>
            <td>{t.resource.properties?.machineType}</td>
            <td>{new Date(t.resource.creationTimestamp).toLocaleString()}</td>
            <td>
              <RowActions onView={() => setViewing(t)} onDelete={() => setDeleting(t)} />
            </td>
          </tr>
        )}
      />
      {deleting && (
        <Confirm
          title={`Delete ${templateTitle(deleting)}?`}
          action="Delete template"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={() => void run(`Deleted ${templateTitle(deleting)}`, 'DELETE', resourcePath(session.project, deleting.scope, 'instanceTemplates', deleting.resource.name))}
        >
          <p>Instances and groups can no longer be created from it. This cannot be undone.</p>
        </Confirm>
      )}
      {viewing && (
        <ViewDialog
          title={`Template ${viewing.resource.name} (${scopeLabel(viewing.scope)})`}
          tabs={[{ label: 'Summary', render: () => <TemplateSummary t={viewing.resource} scope={viewing.scope} /> }, jsonTab(viewing.resource)]}
          onClose={() => setViewing(undefined)}
        />
      )}
      {creating && (
        <Dialog title="Create an instance template" onClose={() => setCreating(false)}>
          <TemplateEditor
            session={session}
            onCancel={() => setCreating(false)}
            onCreated={(name, scope, finished) => {
              setCreating(false);
              void succeeded(`Created ${templateTitle({ scope, resource: { name } })}`, finished);
            }}
          />
        </Dialog>
      )}
    </Page>
  );
}
