import { useEffect, useRef, useState } from 'react';
import { ApiProblem, type Session } from '../../api.ts';
import { GLOBAL, type Scope, collectionPath, listRegions, mutate, scopeLabel } from '../../compute.ts';
import { jsonFieldLines, lineOf } from '../../jsonPaths.ts';
import { ErrorBox, OperationStatus } from '../../ui.tsx';

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

/**
 * Where a new template goes, as Google's console asks it: global (usable in every region) or
 * regional, in a region regions.list gives.
 */
function LocationPicker({ project, scope, onChange }: { project: string; scope: Scope; onChange: (s: Scope) => void }) {
  const [regions, setRegions] = useState<string[]>();
  const [error, setError] = useState<unknown>();
  const [region, setRegion] = useState(scope.kind === 'region' ? scope.name : 'us-central1');
  useEffect(() => {
    let live = true;
    listRegions(project).then(
      (names) => live && setRegions(names),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [project]);
  const choices = regions?.includes(region) ? regions : [region, ...(regions ?? [])];
  return (
    <fieldset className="location">
      <legend>Location</legend>
      <div className="radios">
        <label>
          <input type="radio" name="location" checked={scope.kind === 'global'} onChange={() => onChange(GLOBAL)} /> Global
        </label>
        <label>
          <input type="radio" name="location" checked={scope.kind === 'region'} onChange={() => onChange({ kind: 'region', name: region })} /> Regional
        </label>
        <select
          aria-label="Region"
          value={region}
          disabled={scope.kind !== 'region'}
          onChange={(e) => {
            setRegion(e.target.value);
            onChange({ kind: 'region', name: e.target.value });
          }}
        >
          {choices.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </div>
      <span className="hint">A global template can make instances in every region; a regional one only in its region.</span>
      <ErrorBox error={error} />
    </fieldset>
  );
}

/**
 * A new instance template: where it goes, and its JSON, whose API errors are pinned to the lines
 * of the fields they name.
 */
export function TemplateEditor({ session, onCreated, onCancel }: { session: Session; onCreated: (name: string, scope: Scope, op: any) => void; onCancel: () => void }) {
  const [scope, setScope] = useState<Scope>(GLOBAL);
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [error, setError] = useState<unknown>();
  const [op, setOp] = useState<any>();
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  let parseError: string | undefined;
  let body: any;
  try {
    body = JSON.parse(text);
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
    setOp(undefined);
    try {
      const done = await mutate(session.project, 'POST', collectionPath(session.project, scope, 'instanceTemplates'), { body, onProgress: setOp });
      onCreated(String(body?.name ?? ''), scope, done);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="template-editor">
      <LocationPicker project={session.project} scope={scope} onChange={setScope} />
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
          {scope.kind === 'global' ? 'Create global template' : `Create in ${scopeLabel(scope)}`}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
