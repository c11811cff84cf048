import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { isValidServiceName, validateRestrictions } from '../../../src/services/apikeys/restrictions/validate.ts';
import type { Restrictions } from '../../../src/services/apikeys/restrictions/types.ts';
import { validateDisplayName } from '../../../src/services/apikeys/rules.ts';
import { ApiProblem, type Session, call } from '../api.ts';
import { ErrorBox, Field } from '../ui.tsx';

/** One application-restriction kind at a time, as the API allows. */
export type AppKind = 'none' | 'browser' | 'server' | 'android' | 'ios';

interface AndroidRow {
  packageName: string;
  sha1Fingerprint: string;
}

export interface KeyDraft {
  displayName: string;
  kind: AppKind;
  /** Referrers, IPs or bundle ids, one per line. */
  lines: string;
  android: AndroidRow[];
  /** Selected API target services, each with optional methods (comma-separated). */
  targets: Map<string, string>;
}

export function draftOf(key: { displayName?: string; restrictions?: Restrictions } | undefined): KeyDraft {
  const r = key?.restrictions ?? {};
  const kind: AppKind = r.browserKeyRestrictions ? 'browser' : r.serverKeyRestrictions ? 'server' : r.androidKeyRestrictions ? 'android' : r.iosKeyRestrictions ? 'ios' : 'none';
  const lines = (r.browserKeyRestrictions?.allowedReferrers ?? r.serverKeyRestrictions?.allowedIps ?? r.iosKeyRestrictions?.allowedBundleIds ?? []).join('\n');
  const android = (r.androidKeyRestrictions?.allowedApplications ?? []).map((a) => ({ packageName: a.packageName ?? '', sha1Fingerprint: a.sha1Fingerprint ?? '' }));
  const targets = new Map<string, string>();
  for (const t of r.apiTargets ?? []) targets.set(t.service ?? '', (t.methods ?? []).join(', '));
  return { displayName: key?.displayName ?? '', kind, lines, android, targets };
}

/** The restrictions a draft stands for, in the API's wire form. */
export function restrictionsOf(d: KeyDraft): Restrictions {
  const list = d.lines.split('\n').map((s) => s.trim()).filter(Boolean);
  const r: Restrictions = {};
  if (d.kind === 'browser') r.browserKeyRestrictions = { allowedReferrers: list };
  if (d.kind === 'server') r.serverKeyRestrictions = { allowedIps: list };
  if (d.kind === 'ios') r.iosKeyRestrictions = { allowedBundleIds: list };
  if (d.kind === 'android') r.androidKeyRestrictions = { allowedApplications: d.android.filter((a) => a.packageName || a.sha1Fingerprint) };
  if (d.targets.size) {
    r.apiTargets = [...d.targets].map(([service, methods]) => {
      const m = methods.split(',').map((s) => s.trim()).filter(Boolean);
      return m.length ? { service, methods: m } : { service };
    });
  }
  return r;
}

/** Field problems of a draft by the server's own rules (the same code the API runs). */
export function draftProblems(d: KeyDraft, bound: boolean): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of validateDisplayName(d.displayName) ?? []) out.set(v.field, v.description);
  const r = validateRestrictions(restrictionsOf(d), { boundToServiceAccount: bound });
  if (!r.ok) for (const v of r.violations) if (!out.has(v.field)) out.set(v.field, v.description);
  return out;
}

const LIST_FIELD: Record<string, string> = {
  browser: 'restrictions.browser_key_restrictions.allowed_referrers',
  server: 'restrictions.server_key_restrictions.allowed_ips',
  ios: 'restrictions.ios_key_restrictions.allowed_bundle_ids',
};

const LIST_LABEL: Record<string, string> = {
  browser: 'Website restrictions: allowed referrers, one per line (e.g. example.com/* and *.example.com/*)',
  server: 'IP address restrictions: IPv4, IPv6 or CIDR blocks, one per line',
  ios: 'iOS bundle identifiers, one per line',
};

/** The problems of a list field, as "line N: ..." (the API names entries by index). */
function listProblems(problems: Map<string, string>, field: string): string | undefined {
  const out: string[] = [];
  for (const [f, msg] of problems) {
    if (f === field) out.push(msg);
    const m = f.startsWith(field + '[') ? /^\[(\d+)\]/.exec(f.slice(field.length)) : null;
    if (m) out.push(`line ${Number(m[1]) + 1}: ${msg}`);
  }
  return out.length ? out.join('\n') : undefined;
}

/** A service account is named by its e-mail address; anything else is flagged as the user types. */
export function serviceAccountProblem(email: string): string | undefined {
  const s = email.trim();
  if (!s || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)) return undefined;
  return 'Not an e-mail address: a service account is named by its e-mail, e.g. name@project.iam.gserviceaccount.com.';
}

/** The services a caller can see (Service Usage), for the API-target picker. */
function useServices(session: Session) {
  const [services, setServices] = useState<{ name: string; title: string }[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    call<{ services?: { config: { name: string; title: string } }[] }>('GET', `/v1/projects/${session.project}/services`, { query: { filter: 'state:ENABLED' } })
      .then((r) => setServices((r.services ?? []).map((s) => ({ name: s.config.name, title: s.config.title }))))
      .catch(setError);
  }, [session.project]);
  return { services, error };
}

/**
 * Create or edit a key: display name, one kind of application restriction, API targets.
 * Problems show inline as the user types (the server's rules); the server's error when it still refuses.
 */
export function KeyEditor(props: {
  session: Session;
  initial?: { displayName?: string; restrictions?: Restrictions; serviceAccountEmail?: string };
  creating: boolean;
  onSubmit: (draft: KeyDraft, serviceAccountEmail: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<KeyDraft>(() => draftOf(props.initial));
  const [serviceAccount, setServiceAccount] = useState(props.initial?.serviceAccountEmail ?? '');
  const [serverError, setServerError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const { services, error: servicesError } = useServices(props.session);
  const bound = Boolean(serviceAccount.trim());
  const problems = useMemo(() => draftProblems(draft, bound), [draft, bound]);
  const accountProblem = props.creating ? serviceAccountProblem(serviceAccount) : undefined;
  const serverFields = serverError instanceof ApiProblem ? new Map(serverError.fields.map((f) => [f.field.replace(/^key\./, ''), f.message])) : new Map<string, string>();
  const problemOf = (field: string) => problems.get(field) ?? serverFields.get(field);
  const set = (patch: Partial<KeyDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (problems.size || accountProblem) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await props.onSubmit(draft, serviceAccount.trim());
    } catch (err) {
      setServerError(err);
    } finally {
      setBusy(false);
    }
  };

  const listField = LIST_FIELD[draft.kind];
  return (
    <form onSubmit={submit} className="key-editor">
      <ErrorBox error={serverError} />
      <Field label="Display name" error={problemOf('display_name')}>
        <input name="displayName" value={draft.displayName} onChange={(e) => set({ displayName: e.target.value })} />
      </Field>
      {props.creating && (
        <Field
          label="Service account (optional: makes a bound key)"
          error={accountProblem}
          hint="Binding needs the organization policy constraints/iam.managed.disableServiceAccountApiKeyCreation set to not enforced, and a project with an organization."
        >
          <input name="serviceAccount" value={serviceAccount} onChange={(e) => setServiceAccount(e.target.value)} placeholder="name@project.iam.gserviceaccount.com" />
        </Field>
      )}
      <fieldset>
        <legend>Application restriction</legend>
        <div className="radios" role="radiogroup">
          {(['none', 'browser', 'server', 'android', 'ios'] as const).map((k) => (
            <label key={k}>
              <input type="radio" name="kind" value={k} checked={draft.kind === k} onChange={() => set({ kind: k })} disabled={bound && k !== 'none' && k !== 'server'} />
              {{ none: 'None', browser: 'Websites', server: 'IP addresses', android: 'Android apps', ios: 'iOS apps' }[k]}
            </label>
          ))}
        </div>
        {listField && (
          <Field label={LIST_LABEL[draft.kind]} error={listProblems(problems, listField) ?? listProblems(serverFields, listField)}>
            <textarea name="entries" rows={4} value={draft.lines} onChange={(e) => set({ lines: e.target.value })} />
          </Field>
        )}
        {draft.kind === 'android' && (
          <div className="android">
            {draft.android.map((a, i) => {
              const base = `restrictions.android_key_restrictions.allowed_applications[${i}]`;
              const update = (patch: Partial<AndroidRow>) => set({ android: draft.android.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
              return (
                <div className="row" key={i}>
                  <Field label="Package name" error={problemOf(`${base}.package_name`)}>
                    <input value={a.packageName} onChange={(e) => update({ packageName: e.target.value })} placeholder="com.example.app" />
                  </Field>
                  <Field label="SHA-1 certificate fingerprint" error={problemOf(`${base}.sha1_fingerprint`)}>
                    <input value={a.sha1Fingerprint} onChange={(e) => update({ sha1Fingerprint: e.target.value })} placeholder="DA:39:A3:…" />
                  </Field>
                  <button type="button" className="secondary" onClick={() => set({ android: draft.android.filter((_, j) => j !== i) })}>
                    Remove
                  </button>
                </div>
              );
            })}
            <button type="button" className="secondary" onClick={() => set({ android: [...draft.android, { packageName: '', sha1Fingerprint: '' }] })}>
              Add an Android app
            </button>
          </div>
        )}
      </fieldset>
      <fieldset>
        <legend>API restrictions</legend>
        <ApiTargets services={services} servicesError={servicesError} targets={draft.targets} onChange={(targets) => set({ targets })} />
        {[...problems].filter(([f]) => f.startsWith('restrictions.api_targets')).map(([f, m]) => (
          <span className="field-error" key={f}>
            {m}
          </span>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={busy || problems.size > 0 || Boolean(accountProblem)}>
          {props.creating ? 'Create key' : 'Save'}
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The API targets: a checkbox per service of the project's list and per target the key already has
 * (listed or not: unticking one removes it), and a field to add a service by name (the only way when
 * the list cannot be read).
 */
function ApiTargets({ services, servicesError, targets, onChange }: { services: { name: string; title: string }[] | undefined; servicesError: unknown; targets: Map<string, string>; onChange: (t: Map<string, string>) => void }) {
  // Services named by the key or typed in, kept on screen when unticked so they can be ticked again.
  const [extra, setExtra] = useState<string[]>(() => [...targets.keys()]);
  const [typed, setTyped] = useState('');
  const [typedProblem, setTypedProblem] = useState<string>();
  const listed = new Set((services ?? []).map((s) => s.name));
  const rows = [...(services ?? []), ...extra.filter((n) => !listed.has(n)).map((name) => ({ name, title: '' }))];

  const toggle = (name: string, on: boolean) => {
    const t = new Map(targets);
    if (on) t.set(name, t.get(name) ?? '');
    else t.delete(name);
    onChange(t);
  };
  const add = () => {
    const name = typed.trim().toLowerCase();
    if (!isValidServiceName(name)) {
      setTypedProblem(`Not a service name: use the API's dotted name, e.g. translate.googleapis.com.`);
      return;
    }
    setTypedProblem(undefined);
    setTyped('');
    if (!extra.includes(name)) setExtra([...extra, name]);
    toggle(name, true);
  };

  return (
    <>
      {servicesError ? (
        <p className="note" data-testid="services-unreadable">
          The project's API list could not be read (
          {servicesError instanceof ApiProblem && servicesError.httpCode === 403 ? (
            <>
              {servicesError.status}: reading it needs <code>roles/serviceusage.serviceUsageViewer</code>
            </>
          ) : (
            (servicesError as Error).message
          )}
          ). Type the service names of the APIs this key may call.
        </p>
      ) : !services ? (
        <p className="note">Loading the project's APIs…</p>
      ) : null}
      {rows.length > 0 && (
        <div className="targets">
          {rows.map((s) => (
            <div key={s.name} className="target">
              <label>
                <input type="checkbox" checked={targets.has(s.name)} onChange={(e) => toggle(s.name, e.target.checked)} />
                {s.title ? `${s.title} ` : ''}
                <code>{s.name}</code>
                {!listed.has(s.name) && services ? <span className="muted"> (not in the project's list)</span> : null}
              </label>
              {targets.has(s.name) && (
                <input
                  aria-label={`Methods of ${s.name}`}
                  placeholder="methods (optional, comma-separated, e.g. Get*)"
                  value={targets.get(s.name)}
                  onChange={(e) => onChange(new Map(targets).set(s.name, e.target.value))}
                />
              )}
            </div>
          ))}
        </div>
      )}
      <div className="add-target">
        <Field label="Add an API by service name" error={typedProblem}>
          <input
            name="addService"
            value={typed}
            placeholder="translate.googleapis.com"
            onChange={(e) => {
              setTyped(e.target.value);
              setTypedProblem(undefined);
            }}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault(); // adds the service; does not submit the key
              add();
            }}
          />
        </Field>
        <button type="button" className="secondary" onClick={add} disabled={!typed.trim()}>
          Add API
        </button>
      </div>
    </>
  );
}
