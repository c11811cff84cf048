import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReadableJournalEntry } from '../../../src/platform/journal/journal.ts';
import { type Session, call } from '../api.ts';
import { ErrorBox, Field, ListTable, Page, RefreshButton } from '../ui.tsx';

const POLL_MS = 1000;

/** A canonical status or reason that may break after its underscores (RESOURCE_ EXHAUSTED), never inside a word. */
const breakable = (text: string) => text.split('_').map((part, i, all) => (i < all.length - 1 ? [part, '_', <wbr key={i} />] : part));

/** The request journal (admin API): every public API call of this server, newest first, live. */
export function RequestsPage({ session }: { session: Session }) {
  const [rows, setRows] = useState<ReadableJournalEntry[]>();
  const [error, setError] = useState<unknown>();
  const [method, setMethod] = useState('');
  const [status, setStatus] = useState('');
  const [live, setLive] = useState(true);
  const [info, setInfo] = useState<{ size: number; capacity: number }>();
  const filters = useRef({ method, status });
  filters.current = { method, status };

  const load = useCallback(async () => {
    if (!session.adminToken) return;
    try {
      const res = await call<{ requests: ReadableJournalEntry[]; size: number; capacity: number }>('GET', '/_twin/v1/requests', {
        admin: true,
        query: { method: filters.current.method.trim(), status: filters.current.status.trim(), limit: 200 },
      });
      setRows(res.requests);
      setInfo({ size: res.size, capacity: res.capacity });
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }, [session.adminToken]);

  useEffect(() => {
    void load();
    if (!live) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [load, live]);

  const clear = async () => {
    try {
      await call('DELETE', '/_twin/v1/requests', { admin: true });
      await load();
    } catch (err) {
      setError(err);
    }
  };

  if (!session.adminToken) {
    return (
      <section aria-labelledby="requests-title">
        <h1 id="requests-title">Requests</h1>
        <p className="empty">The request journal is part of the admin API: sign in with the admin token to see it.</p>
      </section>
    );
  }
  return (
    <Page
      id="requests-title"
      title="Requests"
      actions={
        <>
          <label className="toggle">
            <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live
          </label>
          <RefreshButton onRefresh={load} />
          <button type="button" className="secondary" onClick={() => void clear()}>
            Clear
          </button>
        </>
      }
    >
      <form className="filters" onSubmit={(e) => (e.preventDefault(), void load())}>
        <Field label="Method" hint="A discovery id; * matches any run (compute.*)">
          <input value={method} onChange={(e) => setMethod(e.target.value)} placeholder="youtube.search.list" aria-label="Method filter" />
        </Field>
        <Field label="Status" hint="429, 5xx, error, UNAVAILABLE">
          <input value={status} onChange={(e) => setStatus(e.target.value)} aria-label="Status filter" />
        </Field>
      </form>
      <ErrorBox error={error} />
      {info ? (
        <p className="hint">
          {info.size} of the last {info.capacity} calls kept by this server process.
        </p>
      ) : null}
      {/* Laid out at the page's width (at 1280 px every column in sight): a long id is cut short, whole on hover. */}
      <ListTable
        rows={rows}
        empty="No calls yet."
        className="journal"
        headers={['Time', 'Method', 'Caller', 'Project', 'Status', 'Latency', 'Fault', 'Operation']}
        widths={['6.5rem', '27%', '12%', '8rem', '11%', '5.5rem', '9rem', '']}
        row={(r) => {
          const caller = r.principal ?? (r.apiKeyId ? `key ${r.apiKeyId}` : '');
          return (
            <tr key={r.seq} className={r.fault ? 'faulted' : undefined}>
              <td className="nowrap">{new Date(r.time).toLocaleTimeString()}</td>
              <td className="clip">
                <code className="id" title={`${r.method}\n${r.httpMethod} ${r.url}`}>{r.method}</code>
              </td>
              <td className="clip" title={caller}>
                {caller.replace(/^[a-zA-Z]+:/, '')}
              </td>
              <td className="clip" title={r.project}>
                {r.project ?? ''}
              </td>
              <td className={r.status === 0 || r.status >= 400 ? 'error-cell' : ''} title={r.error?.message}>
                {r.status === 0 ? 'reset' : r.status}
                {r.error ? <> {breakable(r.error.status)}</> : ''}
                {r.error?.reason ? <div className="sub">{breakable(r.error.reason)}</div> : null}
              </td>
              <td className="nowrap number">{r.latencyMs.toFixed(1)} ms</td>
              <td>
                {r.fault ? (
                  <>
                    {r.fault.action}
                    <code className="id sub" title={`fault rule ${r.fault.rule}`}>
                      {r.fault.rule}
                    </code>
                  </>
                ) : (
                  ''
                )}
              </td>
              {/* An operation's name is told apart by its end: cut short at its start. */}
              <td className="clip">{r.operation ? <code className="id clip-start" title={r.operation}>{r.operation}</code> : ''}</td>
            </tr>
          );
        }}
      />
    </Page>
  );
}
