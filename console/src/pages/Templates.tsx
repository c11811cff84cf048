import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem, type Session, call, listAll, trackOperation, waitForComputeOperation } from '../api.ts';
import { jsonFieldLines, lineOf } from '../jsonPaths.ts';
import { Confirm, Dialog, ErrorBox, ListTable, OperationStatus } from '../ui.tsx';

/** The project's regions as Compute's regions.list gives them (every page), by name. */
async function listRegions(project: string): Promise<string[]> {
  return (await listAll<{ name: string }>(`/compute/v1/projects/${project}/regions`, 'items', { maxResults: 500 })).map((r) => r.name);
}

const EXAMPLE = {
  name: 'web-template',
  description: 'Web servers',
  properties: {
    machineType: 'e2-medium',
    disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '10' } }],
    networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'External NAT' }] }],
    labels: { env: 'dev' },
  },
};

const last = (url: unknown) => (typeof url === 'string' ? url.split('/').pop() : undefined);

/** A readable summary of a template: what a person wants to know at a glance. */
function TemplateSummary({ t }: { t: any }) {
  const p = t.properties ?? {};
  const rows: [string, string][] = [
    ['Machine type', p.machineType ?? '—'],
    ['Region', last(t.region) ?? '—'],
    ['Created', t.creationTimestamp ? new Date(t.creationTimestamp).toLocaleString() : '—'],
    ...((p.disks ?? []) as any[]).map((d, i): [string, string] => [
      `Disk ${i}${d.boot ? ' (boot)' : ''}`,
      [last(d.initializeParams?.sourceImage) ?? last(d.source) ?? 'blank', d.initializeParams?.diskSizeGb ? `${d.initializeParams.diskSizeGb} GB` : '', d.initializeParams?.diskType ?? '', d.mode ?? '']
        .filter(Boolean)
        .join(' · '),
    ]),
    ...((p.networkInterfaces ?? []) as any[]).map((n): [string, string] => [
      `Network ${n.name ?? ''}`,
      [last(n.network), n.subnetwork ? `subnet ${last(n.subnetwork)}` : '', n.accessConfigs?.length ? 'external IP' : 'internal only'].filter(Boolean).join(' · '),
    ]),
    ['Service account', ((p.serviceAccounts ?? []) as any[]).map((s) => s.email).join(', ') || '—'],
    ['Scheduling', p.scheduling ? `${p.scheduling.provisioningModel ?? ''} ${p.scheduling.preemptible ? 'preemptible' : ''} on maintenance: ${p.scheduling.onHostMaintenance ?? ''}`.trim() : '—'],
    ['Labels', Object.entries(p.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
    ['Tags', (p.tags?.items ?? []).join(', ') || '—'],
    ['Metadata keys', ((p.metadata?.items ?? []) as any[]).map((m) => m.key).join(', ') || '—'],
  ];
  return (
    <dl className="summary">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A JSON editor whose API errors are pinned to the lines of the fields they name. */
function TemplateEditor({ session, region, onCreated, onCancel }: { session: Session; region: string; onCreated: () => void; onCancel: () => void }) {
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [error, setError] = useState<unknown>();
  const [op, setOp] = useState<any>();
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  let parseError: string | undefined;
  try {
    JSON.parse(text);
  } catch (err) {
    parseError = (err as Error).message;
  }
  const lines = jsonFieldLines(text);
  const problems = error instanceof ApiProblem ? error.fields : [];
  const pinned = problems.map((f) => ({ ...f, path: f.field.replace(/^resource\./, ''), line: lineOf(lines, f.field.replace(/^resource\./, '')) }));

  const goTo = (line: number | undefined) => {
    const el = area.current;
    if (!el || !line) return;
    const starts = text.split('\n').slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
    const end = text.indexOf('\n', starts);
    el.focus();
    el.setSelectionRange(starts, end === -1 ? text.length : end);
  };

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const first = await call('POST', `/compute/v1/projects/${session.project}/regions/${region}/instanceTemplates`, { body: JSON.parse(text) });
      trackOperation({ service: 'compute', name: first.name, project: session.project, region, what: `insert template in ${region}`, startedAt: Date.now() });
      const done = await waitForComputeOperation(session.project, first, setOp);
      if (done.error) setError(new ApiProblem(done.httpErrorStatusCode ?? 400, { error: { message: done.error.errors?.map((e: any) => e.message).join('\n'), errors: done.error.errors?.map((e: any) => ({ ...e, reason: e.code })), status: done.httpErrorMessage } }));
      else onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="template-editor">
      <OperationStatus op={op} />
      <ErrorBox error={error} fieldsShown={pinned.length > 0} />
      {pinned.length > 0 && (
        <ul className="pinned" aria-label="Problems by field">
          {pinned.map((p, i) => (
            <li key={i} data-field={p.field}>
              <button type="button" className="plain" onClick={() => goTo(p.line)}>
                {p.line ? `line ${p.line} · ` : ''}
                <code>{p.path}</code>
              </button>
              : {p.message}
            </li>
          ))}
        </ul>
      )}
      <div className="editor">
        <ol className="gutter" aria-hidden="true">
          {text.split('\n').map((_, i) => (
            <li key={i} className={pinned.some((p) => p.line === i + 1) ? 'marked' : undefined} />
          ))}
        </ol>
        <textarea ref={area} aria-label="Instance template JSON" spellCheck={false} wrap="off" value={text} onChange={(e) => setText(e.target.value)} rows={Math.min(30, text.split('\n').length + 1)} />
      </div>
      {parseError ? <span className="field-error">Not valid JSON: {parseError}</span> : null}
      <div className="actions">
        <button type="button" disabled={busy || Boolean(parseError)} onClick={() => void submit()}>
          Create in {region}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function TemplatesPage({ session }: { session: Session }) {
  const [region, setRegion] = useState('us-central1');
  const [regions, setRegions] = useState<string[]>();
  const [regionsError, setRegionsError] = useState<unknown>();
  const [templates, setTemplates] = useState<any[]>();
  const [error, setError] = useState<unknown>();
  const [listError, setListError] = useState<unknown>();
  const [op, setOp] = useState<any>();
  const [viewing, setViewing] = useState<{ t: any; as: 'summary' | 'json' }>();
  const [creating, setCreating] = useState(false);
  const base = `/compute/v1/projects/${session.project}/regions/${region}/instanceTemplates`;

  const load = useCallback(async () => {
    try {
      const list = await listAll<any>(base, 'items', { maxResults: 500 });
      setListError(undefined);
      setTemplates(list);
    } catch (err) {
      setTemplates(undefined);
      setListError(err);
    }
  }, [base]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    let live = true;
    setRegionsError(undefined);
    listRegions(session.project).then(
      (names) => live && setRegions(names),
      (err) => {
        if (!live) return;
        setRegions(undefined);
        setRegionsError(err);
      },
    );
    return () => {
      live = false;
    };
  }, [session.project]);

  const [deleting, setDeleting] = useState<any>();
  const remove = async (t: any) => {
    setError(undefined);
    try {
      const first = await call('DELETE', `${base}/${t.name}`);
      trackOperation({ service: 'compute', name: first.name, project: session.project, region, what: `delete template ${t.name}`, startedAt: Date.now() });
      const done = await waitForComputeOperation(session.project, first, setOp);
      if (done.error) setError(new Error(done.error.errors?.map((e: any) => e.message).join('\n')));
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="templates-title">
      <div className="page-head">
        <h1 id="templates-title">Instance templates</h1>
        <label>
          <span className="label">Region</span>
          <select value={region} onChange={(e) => setRegion(e.target.value)} aria-label="Region">
            {(regions?.includes(region) ? regions : [region, ...(regions ?? [])]).map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setCreating(true)}>
          Create template
        </button>
      </div>
      <OperationStatus op={op} />
      {/* An unknown or forbidden project fails both lists: its error is said once, in place of the list. */}
      <ErrorBox error={listError ? undefined : regionsError} />
      <ErrorBox error={error} />
      <ListTable
        rows={templates}
        error={listError}
        empty={<>No instance templates in {region}.</>}
        headers={['Name', 'Machine type', 'Created', 'Actions']}
        row={(t) => (
          <tr key={t.id} data-template={t.name}>
            <td>{t.name}</td>
            <td>{t.properties?.machineType}</td>
            <td>{new Date(t.creationTimestamp).toLocaleString()}</td>
            <td>
              <div className="row-actions">
                <button type="button" className="secondary" onClick={() => setViewing({ t, as: 'summary' })}>
                  View
                </button>
                <button type="button" className="danger" onClick={() => setDeleting(t)}>
                  Delete
                </button>
              </div>
            </td>
          </tr>
        )}
      />
      {deleting && (
        <Confirm
          title={`Delete instance template ${deleting.name}?`}
          action="Delete template"
          danger
          onCancel={() => setDeleting(undefined)}
          onConfirm={() => {
            setDeleting(undefined);
            void remove(deleting);
          }}
        >
          <p>Instances and groups can no longer be created from it. This cannot be undone.</p>
        </Confirm>
      )}
      {viewing && (
        <Dialog title={`Template ${viewing.t.name}`} onClose={() => setViewing(undefined)}>
          <div className="tabs" role="tablist">
            {(['summary', 'json'] as const).map((as) => (
              <button key={as} type="button" role="tab" aria-selected={viewing.as === as} className={viewing.as === as ? '' : 'secondary'} onClick={() => setViewing({ ...viewing, as })}>
                {as === 'summary' ? 'Summary' : 'JSON'}
              </button>
            ))}
          </div>
          {viewing.as === 'summary' ? <TemplateSummary t={viewing.t} /> : <pre className="json">{JSON.stringify(viewing.t, null, 2)}</pre>}
        </Dialog>
      )}
      {creating && (
        <Dialog title={`Create an instance template in ${region}`} onClose={() => setCreating(false)}>
          <TemplateEditor
            session={session}
            region={region}
            onCancel={() => setCreating(false)}
            onCreated={() => {
              setCreating(false);
              void load();
            }}
          />
        </Dialog>
      )}
    </section>
  );
}
