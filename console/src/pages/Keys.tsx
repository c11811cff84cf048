import { useCallback, useEffect, useState } from 'react';
import { type Session, call, listAll, trackOperation, waitForKeyOperation } from '../api.ts';
import { Dialog, ErrorBox, ListTable, OperationStatus } from '../ui.tsx';
import { type KeyDraft, KeyEditor, restrictionsOf } from './KeyEditor.tsx';

interface Key {
  name: string;
  uid: string;
  displayName?: string;
  createTime: string;
  deleteTime?: string;
  etag: string;
  annotations?: Record<string, string>;
  restrictions?: KeyDraftRestrictions;
  serviceAccountEmail?: string;
}
type KeyDraftRestrictions = ReturnType<typeof restrictionsOf>;

/** The annotation a rotation leaves on the old key until the user finishes it. */
export const ROTATING_TO = 'cloudtwin.dev/rotating-to';
const RESTORE_WINDOW_MS = 30 * 24 * 3600 * 1000;
const idOf = (k: Key) => k.name.split('/').pop()!;

function summary(k: Key): string {
  const r = k.restrictions ?? {};
  const parts: string[] = [];
  if (r.browserKeyRestrictions) parts.push(`websites (${r.browserKeyRestrictions.allowedReferrers?.length ?? 0})`);
  if (r.serverKeyRestrictions) parts.push(`IPs (${r.serverKeyRestrictions.allowedIps?.length ?? 0})`);
  if (r.androidKeyRestrictions) parts.push(`Android apps (${r.androidKeyRestrictions.allowedApplications?.length ?? 0})`);
  if (r.iosKeyRestrictions) parts.push(`iOS apps (${r.iosKeyRestrictions.allowedBundleIds?.length ?? 0})`);
  if (r.apiTargets) parts.push(`APIs: ${r.apiTargets.map((t) => t.service).join(', ')}`);
  return parts.length ? parts.join(' · ') : 'Unrestricted';
}

function timeLeft(deleteTime: string, nowMs: number): string {
  const left = Date.parse(deleteTime) + RESTORE_WINDOW_MS - nowMs;
  if (left <= 0) return 'can no longer be restored';
  const days = Math.floor(left / 86_400_000);
  const hours = Math.floor((left % 86_400_000) / 3_600_000);
  return `${days} d ${hours} h left to restore`;
}

/** Resource time: the twin's clock when the admin token is at hand (it may have been advanced), else this machine's. */
function useNow(session: Session): () => number {
  const [offset, setOffset] = useState(0);
  useEffect(() => {
    if (!session.adminToken) return;
    call<{ now: string }>('GET', '/_twin/v1/clock', { admin: true })
      .then((c) => setOffset(Date.parse(c.now) - Date.now()))
      .catch(() => setOffset(0));
  }, [session.adminToken]);
  return () => Date.now() + offset;
}

export function KeysPage({ session }: { session: Session }) {
  const [keys, setKeys] = useState<Key[]>();
  const [showDeleted, setShowDeleted] = useState(false);
  const [error, setError] = useState<unknown>();
  const [op, setOp] = useState<any>();
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; key: Key } | { kind: 'show'; key: Key; keyString?: string; copied?: boolean }>();
  const now = useNow(session);
  const parent = `/v2/projects/${session.project}/locations/global`;

  const load = useCallback(async () => {
    setError(undefined);
    try {
      setKeys(await listAll<Key>(`${parent}/keys`, 'keys', { showDeleted }));
    } catch (err) {
      setKeys([]);
      setError(err);
    }
  }, [parent, showDeleted]);

  useEffect(() => {
    void load();
  }, [load]);

  /** Runs a mutation: shows its operation until done, then reloads the list. */
  const run = async (what: string, start: () => Promise<any>): Promise<any> => {
    setError(undefined);
    try {
      const first = await start();
      trackOperation({ service: 'apikeys', name: first.name, project: session.project, what, startedAt: Date.now() });
      const result = await waitForKeyOperation(first, setOp);
      await load();
      return result;
    } catch (err) {
      setError(err);
      throw err;
    }
  };

  const create = (draft: KeyDraft, serviceAccountEmail: string, extra: Record<string, unknown> = {}) =>
    run(`create key ${draft.displayName}`, () =>
      call('POST', `${parent}/keys`, {
        body: { displayName: draft.displayName || undefined, restrictions: restrictionsOf(draft), serviceAccountEmail: serviceAccountEmail || undefined, ...extra },
      }),
    );

  const copy = (k: Key) =>
    run(`copy key ${idOf(k)}`, () =>
      call('POST', `${parent}/keys`, {
        body: { displayName: `Copy of ${k.displayName ?? idOf(k)}`.slice(0, 63), restrictions: k.restrictions ?? {}, serviceAccountEmail: k.serviceAccountEmail },
      }),
    );

  /** A new key with the same restrictions; the old one is marked until the user confirms apps switched over. */
  const rotate = async (k: Key) => {
    const fresh = await run(`rotate key ${idOf(k)}: new key`, () =>
      call('POST', `${parent}/keys`, { body: { displayName: k.displayName, restrictions: k.restrictions ?? {}, serviceAccountEmail: k.serviceAccountEmail } }),
    );
    await run(`rotate key ${idOf(k)}: mark`, () =>
      call('PATCH', `/v2/${k.name}`, { query: { updateMask: 'annotations' }, body: { annotations: { ...(k.annotations ?? {}), [ROTATING_TO]: String(fresh.name).split('/').pop() } } }),
    );
  };

  const finishRotation = (k: Key) => run(`finish rotation of ${idOf(k)}`, () => call('DELETE', `/v2/${k.name}`, { query: { etag: k.etag } }));
  const remove = (k: Key) => run(`delete key ${idOf(k)}`, () => call('DELETE', `/v2/${k.name}`, { query: { etag: k.etag } }));
  const restore = (k: Key) => run(`restore key ${idOf(k)}`, () => call('POST', `/v2/${k.name}:undelete`, { body: {} }));

  const reveal = async (k: Key) => {
    setDialog({ kind: 'show', key: k });
    try {
      const { keyString } = await call<{ keyString: string }>('GET', `/v2/${k.name}/keyString`);
      setDialog({ kind: 'show', key: k, keyString });
    } catch (err) {
      setDialog(undefined);
      setError(err);
    }
  };

  const copyToClipboard = async (text: string, k: Key) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard permission refused (an insecure origin): the string stays selected for a manual copy.
      (document.getElementById('key-string') as HTMLInputElement | null)?.select();
    }
    setDialog({ kind: 'show', key: k, keyString: text, copied: true });
  };

  const quietly = (p: Promise<unknown>) => void p.catch(() => {});

  return (
    <section aria-labelledby="keys-title">
      <div className="page-head">
        <h1 id="keys-title">API keys</h1>
        <label className="toggle">
          <input type="checkbox" checked={showDeleted} onChange={(e) => setShowDeleted(e.target.checked)} /> Show deleted
        </label>
        <button type="button" onClick={() => setDialog({ kind: 'create' })}>
          Create key
        </button>
      </div>
      <OperationStatus op={op} />
      <ErrorBox error={error} />
      <ListTable
        rows={keys}
        empty={<>No keys in {session.project}.</>}
        headers={['Name', 'Key id', 'Restrictions', 'Created', 'State', 'Actions']}
        row={(k) => {
          const rotatingTo = k.annotations?.[ROTATING_TO];
          return (
            <tr key={k.uid} data-key={idOf(k)}>
              <td>{k.displayName || <span className="muted">(no name)</span>}</td>
              <td>
                <code>{idOf(k)}</code>
                {k.serviceAccountEmail ? <div className="muted">bound to {k.serviceAccountEmail}</div> : null}
              </td>
              <td>{summary(k)}</td>
              <td>{new Date(k.createTime).toLocaleString()}</td>
              <td className="state">
                {k.deleteTime ? `Deleted · ${timeLeft(k.deleteTime, now())}` : rotatingTo ? `Rotating → ${rotatingTo}` : 'Active'}
              </td>
              <td className="row-actions">
                {k.deleteTime ? (
                  <button type="button" onClick={() => quietly(restore(k))}>
                    Restore
                  </button>
                ) : (
                  <>
                    <button type="button" onClick={() => void reveal(k)}>
                      Show key
                    </button>
                    <button type="button" className="secondary" onClick={() => setDialog({ kind: 'edit', key: k })}>
                      Edit
                    </button>
                    <button type="button" className="secondary" onClick={() => quietly(copy(k))}>
                      Copy
                    </button>
                    {rotatingTo ? (
                      <button type="button" onClick={() => quietly(finishRotation(k))}>
                        Finish rotation
                      </button>
                    ) : (
                      <button type="button" className="secondary" onClick={() => quietly(rotate(k))}>
                        Rotate
                      </button>
                    )}
                    <button type="button" className="danger" onClick={() => confirm(`Delete key ${idOf(k)}? It can be restored for 30 days.`) && quietly(remove(k))}>
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          );
        }}
      />

      {dialog?.kind === 'create' && (
        <Dialog title="Create API key" onClose={() => setDialog(undefined)}>
          <KeyEditor
            session={session}
            creating
            onCancel={() => setDialog(undefined)}
            onSubmit={async (draft, sa) => {
              const key = await create(draft, sa);
              setDialog({ kind: 'show', key, keyString: key.keyString });
            }}
          />
        </Dialog>
      )}
      {dialog?.kind === 'edit' && (
        <Dialog title={`Edit key ${idOf(dialog.key)}`} onClose={() => setDialog(undefined)}>
          <KeyEditor
            session={session}
            creating={false}
            initial={dialog.key}
            onCancel={() => setDialog(undefined)}
            onSubmit={async (draft) => {
              await run(`update key ${idOf(dialog.key)}`, () =>
                call('PATCH', `/v2/${dialog.key.name}`, { query: { updateMask: 'displayName,restrictions' }, body: { displayName: draft.displayName, restrictions: restrictionsOf(draft) } }),
              );
              setDialog(undefined);
            }}
          />
        </Dialog>
      )}
      {dialog?.kind === 'show' && (
        <Dialog title={`Key ${idOf(dialog.key)}`} onClose={() => setDialog(undefined)}>
          {dialog.keyString ? (
            <div className="key-string">
              <input id="key-string" readOnly value={dialog.keyString} aria-label="Key string" onFocus={(e) => e.target.select()} />
              <button type="button" onClick={() => void copyToClipboard(dialog.keyString!, dialog.key)}>
                {dialog.copied ? 'Copied' : 'Copy to clipboard'}
              </button>
            </div>
          ) : (
            <p>Loading…</p>
          )}
        </Dialog>
      )}
    </section>
  );
}
