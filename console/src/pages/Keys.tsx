import { useCallback, useEffect, useState } from 'react';
import { type Session, call, listAll, trackOperation, waitForKeyOperation } from '../api.ts';
import { Confirm, Dialog, ErrorBox, ListTable, OperationStatus, Page, StatusLine } from '../ui.tsx';
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
/** How a key is named to a person: its display name, else its id. */
const labelOf = (k: Key) => k.displayName || idOf(k);

/**
 * The restrictions in one pattern, "<what the editor calls it> (<how many>)", e.g.
 * "Websites (2) · APIs (1): translate.googleapis.com".
 */
export function summary(r: KeyDraftRestrictions | undefined): string {
  const parts: string[] = [];
  const counted = (label: string, list: readonly unknown[] | undefined) => parts.push(`${label} (${list?.length ?? 0})`);
  if (r?.browserKeyRestrictions) counted('Websites', r.browserKeyRestrictions.allowedReferrers);
  if (r?.serverKeyRestrictions) counted('IP addresses', r.serverKeyRestrictions.allowedIps);
  if (r?.androidKeyRestrictions) counted('Android apps', r.androidKeyRestrictions.allowedApplications);
  if (r?.iosKeyRestrictions) counted('iOS apps', r.iosKeyRestrictions.allowedBundleIds);
  if (r?.apiTargets) parts.push(`APIs (${r.apiTargets.length}): ${r.apiTargets.map((t) => t.service).join(', ')}`);
  return parts.length ? parts.join(' · ') : 'Unrestricted';
}

/** A long key id as its first characters (as a short commit hash is), the whole id on hover: the key column shows it in full. */
function ShortId({ id }: { id: string }) {
  return (
    <code className="id" title={id} data-id={id}>
      {id.length > 13 ? `${id.slice(0, 8)}…` : id}
    </code>
  );
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

/** An action on a credential waiting for the user's yes: what it does, and the button that does it. */
interface Pending {
  title: string;
  action: string;
  danger?: boolean;
  text: string;
  act: () => Promise<unknown>;
}

export function KeysPage({ session }: { session: Session }) {
  const [keys, setKeys] = useState<Key[]>();
  const [showDeleted, setShowDeleted] = useState(false);
  const [error, setError] = useState<unknown>();
  const [listError, setListError] = useState<unknown>();
  const [op, setOp] = useState<any>();
  const [status, setStatus] = useState<string>();
  const [pending, setPending] = useState<Pending>();
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; key: Key } | { kind: 'show'; key: Key; keyString?: string; copied?: boolean }>();
  const now = useNow(session);
  const parent = `/v2/projects/${session.project}/locations/global`;

  const load = useCallback(async () => {
    try {
      const list = await listAll<Key>(`${parent}/keys`, 'keys', { showDeleted });
      setListError(undefined);
      setKeys(list);
    } catch (err) {
      setKeys(undefined);
      setListError(err);
    }
  }, [parent, showDeleted]);

  useEffect(() => {
    void load();
  }, [load]);
  // What was done, and failed, in another project is not news in this one.
  useEffect(() => {
    setStatus(undefined);
    setError(undefined);
    setOp(undefined);
  }, [session.project]);

  /**
   * Runs a mutation: shows its operation until done, reloads the list, then says what was done.
   * `inDialog`: the dialog that started it shows its error (the page does not repeat it).
   */
  const run = async (what: string, start: () => Promise<any>, opts: { inDialog?: boolean } = {}): Promise<any> => {
    setError(undefined);
    setStatus(undefined);
    try {
      const first = await start();
      trackOperation({ service: 'apikeys', name: first.name, project: session.project, what, startedAt: Date.now() });
      const result = await waitForKeyOperation(first, setOp);
      setOp(undefined);
      await load();
      return result;
    } catch (err) {
      if (opts.inDialog) setOp(undefined);
      else setError(err);
      throw err;
    }
  };
  /** Runs a confirmed action; its error is on the page already. */
  const quietly = (p: Promise<unknown>) => void p.catch(() => {});

  const create = async (draft: KeyDraft, serviceAccountEmail: string) => {
    const key = await run(
      `create key ${draft.displayName}`,
      () =>
        call('POST', `${parent}/keys`, {
          body: { displayName: draft.displayName || undefined, restrictions: restrictionsOf(draft), serviceAccountEmail: serviceAccountEmail || undefined },
        }),
      { inDialog: true },
    );
    setStatus(`Created key ${labelOf(key)}`);
    return key;
  };

  const duplicate = async (k: Key) => {
    const key = await run(`duplicate key ${idOf(k)}`, () =>
      call('POST', `${parent}/keys`, {
        body: { displayName: `Copy of ${labelOf(k)}`.slice(0, 63), restrictions: k.restrictions ?? {}, serviceAccountEmail: k.serviceAccountEmail },
      }),
    );
    setStatus(`Created key ${labelOf(key)}`);
  };

  /** A new key with the same restrictions; the old one is marked until the user confirms apps switched over. */
  const rotate = async (k: Key) => {
    const fresh = await run(`rotate key ${idOf(k)}: new key`, () =>
      call('POST', `${parent}/keys`, { body: { displayName: k.displayName, restrictions: k.restrictions ?? {}, serviceAccountEmail: k.serviceAccountEmail } }),
    );
    const freshId = String(fresh.name).split('/').pop();
    await run(`rotate key ${idOf(k)}: mark`, () =>
      call('PATCH', `/v2/${k.name}`, { query: { updateMask: 'annotations' }, body: { annotations: { ...(k.annotations ?? {}), [ROTATING_TO]: freshId } } }),
    );
    setStatus(`Created key ${freshId} to replace ${labelOf(k)}; finish the rotation once your apps use the new key`);
  };

  const remove = async (k: Key, what: string) => {
    await run(`${what} ${idOf(k)}`, () => call('DELETE', `/v2/${k.name}`, { query: { etag: k.etag } }));
    setStatus(`Deleted key ${labelOf(k)} (${idOf(k)}); it can be restored for 30 days`);
  };

  const restore = async (k: Key) => {
    await run(`restore key ${idOf(k)}`, () => call('POST', `/v2/${k.name}:undelete`, { body: {} }));
    setStatus(`Restored key ${labelOf(k)}`);
  };

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

  /** The actions on a live key that create or delete a credential, each with what it asks first (restoring one asks too). */
  const credentialActions = (k: Key): { label: string; className: string; asks: Pending }[] => {
    const rotatingTo = k.annotations?.[ROTATING_TO];
    const name = labelOf(k);
    return [
      {
        label: 'Duplicate key',
        className: 'secondary',
        asks: {
          title: `Duplicate key ${name}?`,
          action: 'Create duplicate',
          text: `This creates a new, live key "Copy of ${name}" with its own key string and the same restrictions. ${name} is not changed.`,
          act: () => duplicate(k),
        },
      },
      rotatingTo
        ? {
            label: 'Finish rotation',
            className: 'danger',
            asks: {
              title: `Finish rotation of ${name}?`,
              action: 'Delete old key',
              danger: true,
              text: `This deletes the old key ${idOf(k)}: apps still using it stop working. Its replacement ${rotatingTo} stays. The old key can be restored for 30 days.`,
              act: () => remove(k, 'finish rotation of'),
            },
          }
        : {
            label: 'Rotate',
            className: 'secondary',
            asks: {
              title: `Rotate key ${name}?`,
              action: 'Create new key',
              text: `This creates a new, live key with the same name and restrictions. ${name} keeps working, marked as rotating, until you finish the rotation (which deletes it).`,
              act: () => rotate(k),
            },
          },
      {
        label: 'Delete',
        className: 'danger',
        asks: {
          title: `Delete key ${name}?`,
          action: 'Delete key',
          danger: true,
          text: `Apps using key ${idOf(k)} stop working at once. It can be restored for 30 days.`,
          act: () => remove(k, 'delete key'),
        },
      },
    ];
  };

  return (
    <Page
      id="keys-title"
      title="API keys"
      actions={
        <>
          <label className="toggle">
            <input type="checkbox" checked={showDeleted} onChange={(e) => setShowDeleted(e.target.checked)} /> Show deleted
          </label>
          <button type="button" onClick={() => setDialog({ kind: 'create' })}>
            Create key
          </button>
        </>
      }
    >
      <OperationStatus op={op} />
      <StatusLine text={status} />
      <ErrorBox error={error} />
      <ListTable
        rows={keys}
        error={listError}
        empty={<>No keys in {session.project}.</>}
        headers={['Key', 'Restrictions', 'Created', 'State', 'Actions']}
        row={(k) => {
          const rotatingTo = k.annotations?.[ROTATING_TO];
          return (
            <tr key={k.uid} data-key={idOf(k)} className={k.deleteTime ? 'deleted' : undefined}>
              <td className="name">
                <div className="key-name">{k.displayName || <span className="muted">(no name)</span>}</div>
                <code className="id">{idOf(k)}</code>
                {k.serviceAccountEmail ? <div className="muted">bound to {k.serviceAccountEmail}</div> : null}
              </td>
              <td>{summary(k.restrictions)}</td>
              <td>{new Date(k.createTime).toLocaleString()}</td>
              <td className="state">
                {k.deleteTime ? (
                  `Deleted · ${timeLeft(k.deleteTime, now())}`
                ) : rotatingTo ? (
                  <>
                    Rotating → <ShortId id={rotatingTo} />
                  </>
                ) : (
                  'Active'
                )}
              </td>
              <td>
                <div className="row-actions">
                  {k.deleteTime ? (
                    <button
                      type="button"
                      onClick={() =>
                        setPending({
                          title: `Restore key ${labelOf(k)}?`,
                          action: 'Restore key',
                          text: `Its key string works again at once, with the restrictions it had.`,
                          act: () => restore(k),
                        })
                      }
                    >
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
                      {credentialActions(k).map((a) => (
                        <button key={a.label} type="button" className={a.className} onClick={() => setPending(a.asks)}>
                          {a.label}
                        </button>
                      ))}
                    </>
                  )}
                </div>
              </td>
            </tr>
          );
        }}
      />

      {pending && (
        <Confirm title={pending.title} action={pending.action} danger={pending.danger} onConfirm={() => quietly(pending.act())} onClose={() => setPending(undefined)}>
          <p>{pending.text}</p>
        </Confirm>
      )}
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
        <Dialog title={`Edit key ${labelOf(dialog.key)}`} onClose={() => setDialog(undefined)}>
          <KeyEditor
            session={session}
            creating={false}
            initial={dialog.key}
            onCancel={() => setDialog(undefined)}
            onSubmit={async (draft) => {
              const updated = await run(
                `update key ${idOf(dialog.key)}`,
                () =>
                  call('PATCH', `/v2/${dialog.key.name}`, { query: { updateMask: 'displayName,restrictions' }, body: { displayName: draft.displayName, restrictions: restrictionsOf(draft) } }),
                { inDialog: true },
              );
              setStatus(`Updated key ${labelOf(updated)}`);
              setDialog(undefined);
            }}
          />
        </Dialog>
      )}
      {dialog?.kind === 'show' && (
        <Dialog title={`Key string of ${labelOf(dialog.key)}`} onClose={() => setDialog(undefined)}>
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
    </Page>
  );
}
