import { useCallback, useEffect, useState } from 'react';
import { type Session, call, trackedOperations } from '../api.ts';
import { ErrorBox, IdText, ListTable, Page, RefreshButton } from '../ui.tsx';

interface Row {
  service: 'API Keys' | 'Compute';
  name: string;
  what: string;
  status: string;
  error?: string;
  time: number;
}

async function apiKeysRows(project: string): Promise<Row[]> {
  const mine = trackedOperations().filter((o) => o.service === 'apikeys' && o.project === project);
  return Promise.all(
    mine.map(async (o): Promise<Row> => {
      try {
        const op = await call('GET', `/v2/${o.name}`);
        return { service: 'API Keys', name: o.name, what: o.what, status: op.done ? 'DONE' : 'RUNNING', error: op.error ? `${op.error.code}: ${op.error.message}` : undefined, time: o.startedAt };
      } catch (err) {
        return { service: 'API Keys', name: o.name, what: o.what, status: 'UNKNOWN', error: (err as Error).message, time: o.startedAt };
      }
    }),
  );
}

/** Compute operations of every region of the project (aggregated list, newest first). */
async function computeRows(project: string): Promise<Row[]> {
  const res = await call('GET', `/compute/v1/projects/${project}/aggregated/operations`, { query: { maxResults: 100, returnPartialSuccess: true } });
  const rows: Row[] = [];
  for (const scope of Object.values<any>(res.items ?? {})) {
    for (const op of scope.operations ?? []) {
      rows.push({
        service: 'Compute',
        name: op.name,
        what: `${op.operationType} ${String(op.targetLink ?? '').split('/').slice(-3).join('/')}`,
        status: op.status,
        error: op.error?.errors?.map((e: any) => `${e.code}: ${e.message}`).join('; '),
        time: Date.parse(op.insertTime),
      });
    }
  }
  return rows;
}

/** Recent long-running operations of both services, with their status and errors. */
export function OperationsPage({ session }: { session: Session }) {
  const [rows, setRows] = useState<Row[]>();
  const [error, setError] = useState<unknown>();

  const load = useCallback(async () => {
    setError(undefined);
    const [keys, compute] = await Promise.allSettled([apiKeysRows(session.project), computeRows(session.project)]);
    if (compute.status === 'rejected') setError(compute.reason);
    setRows([...(keys.status === 'fulfilled' ? keys.value : []), ...(compute.status === 'fulfilled' ? compute.value : [])].sort((a, b) => b.time - a.time));
  }, [session.project]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Page id="ops-title" title="Operations" actions={<RefreshButton onRefresh={load} />}>
      {/* With some rows, the error sits above them; with none, it stands in place of the list (no "No recent operations." under it). */}
      {rows?.length ? <ErrorBox error={error} /> : null}
      <ListTable
        rows={rows}
        error={rows?.length ? undefined : error}
        empty="No recent operations."
        headers={['Service', 'Operation', 'Status', 'Error', 'Started']}
        row={(r) => (
          <tr key={r.name}>
            <td>{r.service}</td>
            <td>
              <div>
                <IdText text={r.what} />
              </div>
              <code className="id scroll">{r.name}</code>
            </td>
            <td className={r.error ? 'error-cell' : ''}>{r.error && r.status === 'DONE' ? 'FAILED' : r.status}</td>
            <td className={r.error ? 'error-cell' : ''}>{r.error ?? ''}</td>
            <td>{Number.isFinite(r.time) ? new Date(r.time).toLocaleString() : ''}</td>
          </tr>
        )}
      />
    </Page>
  );
}
