import { useCallback, useEffect, useState } from 'react';
import { type Session, call } from '../api.ts';
import { ErrorBox, Field, ListTable, Page, RefreshButton } from '../ui.tsx';

interface Rule {
  id: string;
  match: { method: string; principal?: string; project?: string; apiKeyId?: string; header?: { name: string; value?: string } };
  action: { type: string; status?: string; httpCode?: number; reason?: string; message?: string; delayMs?: number };
  when: { next?: number; every?: number; probability?: number; seed?: string; always?: true };
  expireTime?: string;
  matched: number;
  injected: number;
  active: boolean;
}

const STATUSES = ['UNAVAILABLE', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'DEADLINE_EXCEEDED', 'ABORTED', 'PERMISSION_DENIED', 'NOT_FOUND', 'INVALID_ARGUMENT', 'UNAUTHENTICATED', 'FAILED_PRECONDITION'];

function describeWhen(w: Rule['when']): string {
  if (w.next !== undefined) return `next ${w.next}`;
  if (w.every !== undefined) return `every ${w.every}`;
  if (w.probability !== undefined) return `p=${w.probability}${w.seed ? ` seed ${w.seed}` : ''}`;
  return 'always';
}

function describeAction(a: Rule['action']): string {
  const delay = a.delayMs ? ` after ${a.delayMs} ms` : '';
  if (a.type === 'latency') return `latency ${a.delayMs} ms`;
  if (a.type === 'reset') return `reset${delay}`;
  return `${a.type === 'error' ? 'error' : 'operation fails'} ${a.httpCode ? `${a.httpCode} ` : ''}${a.status}${a.reason ? ` · ${a.reason}` : ''}${delay}`;
}

/** Fault injection rules (admin API): list, add, delete, clear. */
export function FaultsPage({ session }: { session: Session }) {
  const [rules, setRules] = useState<Rule[]>();
  const [error, setError] = useState<unknown>();
  const [method, setMethod] = useState('apikeys.projects.locations.keys.list');
  const [type, setType] = useState('error');
  const [status, setStatus] = useState('UNAVAILABLE');
  const [reason, setReason] = useState('');
  const [delayMs, setDelayMs] = useState('500');
  const [schedule, setSchedule] = useState('next');
  const [count, setCount] = useState('1');
  const [seed, setSeed] = useState('');

  const load = useCallback(async () => {
    if (!session.adminToken) return;
    try {
      setRules((await call<{ faults: Rule[] }>('GET', '/_twin/v1/faults', { admin: true })).faults);
    } catch (err) {
      setError(err);
    }
  }, [session.adminToken]);

  useEffect(() => {
    void load();
  }, [load]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      await load();
    } catch (err) {
      setError(err);
    }
  };

  const add = () => {
    const action: Record<string, unknown> = { type };
    if (type === 'error' || type === 'failOperation') {
      action.status = status;
      if (reason.trim()) action.reason = reason.trim();
    }
    if (type === 'latency') action.delayMs = Number(delayMs);
    const n = Number(count);
    const when = schedule === 'next' ? { next: n } : schedule === 'every' ? { every: n } : schedule === 'probability' ? { probability: n, ...(seed.trim() ? { seed: seed.trim() } : {}) } : { always: true };
    return act(() => call('POST', '/_twin/v1/faults', { admin: true, body: { match: { method: method.trim() }, action, when } }));
  };

  if (!session.adminToken) {
    return (
      <section aria-labelledby="faults-title">
        <h1 id="faults-title">Faults</h1>
        <p className="empty">Fault injection is part of the admin API: sign in with the admin token to use it.</p>
      </section>
    );
  }
  return (
    <Page
      id="faults-title"
      title="Faults"
      actions={
        <>
          <RefreshButton onRefresh={load} />
          <button type="button" className="secondary" onClick={() => void act(() => call('DELETE', '/_twin/v1/faults', { admin: true }))}>
            Clear all
          </button>
        </>
      }
    >
      <form className="fault-form" onSubmit={(e) => (e.preventDefault(), void add())}>
        <Field label="Method" hint="Discovery id; * matches any run">
          <input value={method} onChange={(e) => setMethod(e.target.value)} aria-label="Method" required />
        </Field>
        <Field label="Action">
          <select value={type} onChange={(e) => setType(e.target.value)} aria-label="Action">
            <option value="error">Answer an error</option>
            <option value="latency">Add latency</option>
            <option value="failOperation">Fail the operation</option>
            <option value="reset">Reset the connection</option>
          </select>
        </Field>
        {type === 'error' || type === 'failOperation' ? (
          <>
            <Field label="Status">
              <select value={status} onChange={(e) => setStatus(e.target.value)} aria-label="Status">
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </Field>
            <Field label="Reason" hint="rateLimitExceeded, backendError, QUOTA_EXCEEDED">
              <input value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Reason" />
            </Field>
          </>
        ) : null}
        {type === 'latency' ? (
          <Field label="Delay (ms)">
            <input type="number" min={0} value={delayMs} onChange={(e) => setDelayMs(e.target.value)} aria-label="Delay" />
          </Field>
        ) : null}
        <Field label="When">
          <select value={schedule} onChange={(e) => setSchedule(e.target.value)} aria-label="When">
            <option value="next">Next N calls</option>
            <option value="every">Every Kth call</option>
            <option value="probability">With probability</option>
            <option value="always">Always</option>
          </select>
        </Field>
        {schedule !== 'always' ? (
          <Field label={schedule === 'probability' ? 'Probability (0-1)' : schedule === 'every' ? 'K' : 'N'}>
            <input type="number" step="any" min={0} value={count} onChange={(e) => setCount(e.target.value)} aria-label="Count" />
          </Field>
        ) : null}
        {schedule === 'probability' ? (
          <Field label="Seed" hint="The same seed gives the same sequence">
            <input value={seed} onChange={(e) => setSeed(e.target.value)} aria-label="Seed" />
          </Field>
        ) : null}
        <button type="submit">Add rule</button>
      </form>
      <ErrorBox error={error} />
      <ListTable
        rows={rules}
        empty="No fault rules: every call is served normally."
        headers={['Rule', 'Method', 'Action', 'When', 'Matched', 'Injected', 'State', '']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <code>{r.id}</code>
            </td>
            <td>
              <code>{r.match.method}</code>
              {r.match.principal ? ` · ${r.match.principal}` : ''}
              {r.match.project ? ` · ${r.match.project}` : ''}
              {r.match.apiKeyId ? ` · key ${r.match.apiKeyId}` : ''}
            </td>
            <td>{describeAction(r.action)}</td>
            <td>{describeWhen(r.when)}</td>
            <td>{r.matched}</td>
            <td>{r.injected}</td>
            <td>{r.active ? 'active' : 'spent or expired'}</td>
            <td>
              <button type="button" className="secondary" aria-label={`Delete rule ${r.id}`} onClick={() => void act(() => call('DELETE', `/_twin/v1/faults/${r.id}`, { admin: true }))}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
    </Page>
  );
}
