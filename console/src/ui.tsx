import { type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiProblem } from './api.ts';

/**
 * An API error as the API gave it: status, message, reason. `fieldsShown`: the page shows each field
 * problem at its field, so the box says how many there are instead of repeating their messages.
 */
export function ErrorBox({ error, fieldsShown }: { error: unknown; fieldsShown?: boolean }) {
  if (!error) return null;
  if (error instanceof ApiProblem) {
    const n = error.fields.length;
    const message = fieldsShown && n ? `${n === 1 ? 'One field was' : `${n} fields were`} refused: see below.` : error.message;
    return (
      <div className="error" role="alert">
        <strong>
          {[String(error.httpCode), error.status, error.reason].filter(Boolean).join(' · ')}
        </strong>
        <div className="error-message">{message}</div>
      </div>
    );
  }
  return (
    <div className="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

/** A modal dialog: focus moves in, Escape closes, focus returns where it was. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    // What the body marks (data-autofocus), else the first field, else the first button of the body
    // (the close button comes last in the tab order's interest).
    const first =
      ref.current?.querySelector<HTMLElement>('.dialog-body [data-autofocus]') ??
      ref.current?.querySelector<HTMLElement>('.dialog-body input, .dialog-body textarea, .dialog-body select') ??
      ref.current?.querySelector<HTMLElement>('.dialog-body button');
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus();
    };
  }, [onClose]);
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-label={title} ref={ref}>
        <div className="dialog-head">
          <h2>{title}</h2>
          <button type="button" className="plain" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div className="dialog-body">{children}</div>
      </div>
    </div>
  );
}

/** What a long-running operation is doing; once done, whether it succeeded or failed (never a green "Done" for an error). */
export function OperationStatus({ op }: { op: { name: string; done?: boolean; status?: string; progress?: number; error?: unknown } | undefined }) {
  if (!op) return null;
  const done = op.done === true || op.status === 'DONE';
  const failed = done && Boolean(op.error);
  const state = failed ? 'failed' : done ? 'done' : 'running';
  return (
    <div className={`operation ${state}`} role="status" aria-live="polite">
      <span className="dot" aria-hidden="true" /> {failed ? 'Failed' : done ? 'Done' : op.status ?? 'Running'}
      {!done && typeof op.progress === 'number' ? ` (${op.progress}%)` : ''} · <code className="id">{op.name}</code>
    </div>
  );
}

/** Where a page's last change stands: its operation, what it did once it succeeded, or the API's error. */
export function MutationStatus({ op, done, error }: { op: Parameters<typeof OperationStatus>[0]['op']; done: string | undefined; error: unknown }) {
  return (
    <>
      <OperationStatus op={op} />
      <StatusLine text={done} />
      <ErrorBox error={error} />
    </>
  );
}

/**
 * Asks before an action that creates or deletes something: says what will happen, and acts only
 * on the button named for the action. Cancel (or Escape) calls `onClose`; the action closes it
 * too, then calls `onConfirm`. For a destructive one (`danger`) Cancel has the focus, so a stray
 * Enter deletes nothing.
 */
export function Confirm({ title, action, danger, onConfirm, onClose, children }: { title: string; action: string; danger?: boolean; onConfirm: () => void; onClose: () => void; children: ReactNode }) {
  const confirm = () => {
    onClose();
    onConfirm();
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="confirm-text">{children}</div>
      <div className="actions">
        <button type="button" className={danger ? 'danger-solid' : undefined} onClick={confirm}>
          {action}
        </button>
        <button type="button" className="secondary" onClick={onClose} data-autofocus={danger ? '' : undefined}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** A page of the console: its title (which names the section) with the page's own controls beside it, then its body. */
export function Page({ id, title, actions, children }: { id: string; title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <div className="page-head">
        <h1 id={id}>{title}</h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** The Refresh button of a page's head. */
export function RefreshButton({ onRefresh }: { onRefresh: () => unknown }) {
  return (
    <button type="button" className="secondary" onClick={() => void onRefresh()}>
      Refresh
    </button>
  );
}

/** A listed resource's actions: View first, Delete (red) last, the resource's own between. */
export function RowActions({ onView, onDelete, children }: { onView: () => void; onDelete: () => void; children?: ReactNode }) {
  return (
    <div className="row-actions">
      <button type="button" className="secondary" onClick={onView}>
        View
      </button>
      {children}
      <button type="button" className="danger" onClick={onDelete}>
        Delete
      </button>
    </div>
  );
}

/** What the last action did ("Created key Copy of First key"), until the next one. */
export function StatusLine({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="status-line" role="status" aria-live="polite">
      <IdText text={text} />
    </p>
  );
}

export function Field({ label, children, hint, error }: { label: string; children: ReactNode; hint?: string; error?: string }) {
  return (
    <label className={`field ${error ? 'invalid' : ''}`}>
      <span className="label">{label}</span>
      {children}
      {hint && !error ? <span className="hint">{hint}</span> : null}
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </label>
  );
}

/** A UUID (key ids, operation names), kept whole wherever it appears in a sentence. */
const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;

/** Text whose UUIDs never break across lines (a browser breaks them at their hyphens). */
export function IdText({ text }: { text: string }) {
  return (
    <>
      {text.split(UUID).map((part, i) =>
        i % 2 ? (
          <span key={i} className="nowrap">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}

/**
 * A list as a table: the error alone when the list could not be read (never an empty state under
 * an error), "Loading…" until `rows` is known, `empty` when there are none, else a row per entry.
 * `widths` (one per column, CSS lengths; '' for a column that takes what is left) lays the table
 * out at the width of the page whatever its cells hold: what does not fit a cell wraps or is cut
 * short there (`td.clip`), never pushing a column out of sight.
 */
export function ListTable<R>({ rows, error, empty, headers, widths, className, row }: { rows: readonly R[] | undefined; error?: unknown; empty: ReactNode; headers: readonly string[]; widths?: readonly string[]; className?: string; row: (r: R) => ReactNode }) {
  if (error) return <ErrorBox error={error} />;
  if (!rows) return <p>Loading…</p>;
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  // On a phone each row becomes a card (styles.css), its cells stacked.
  return (
    <div className="table-wrap">
      <table className={[widths ? 'fixed' : '', className ?? ''].filter(Boolean).join(' ') || undefined}>
        {widths && (
          <colgroup>
            {widths.map((w, i) => (
              <col key={i} style={w ? { width: w } : undefined} />
            ))}
          </colgroup>
        )}
        <thead>
          <tr>
            {headers.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{rows.map(row)}</tbody>
      </table>
    </div>
  );
}

/** A readable summary of a resource: what a person wants to know at a glance, a label and a value a row. */
export function SummaryList({ rows }: { rows: readonly (readonly [string, ReactNode])[] }) {
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

/** One view of a resource in a ViewDialog ("Summary", "JSON", ...): its tab's label and what it shows. */
export interface ViewTab {
  label: string;
  render: () => ReactNode;
}

/** A resource's views (summary, JSON, its members...) as tabs of one dialog, the first shown first. */
export function ViewDialog({ title, tabs, onClose }: { title: string; tabs: readonly ViewTab[]; onClose: () => void }) {
  const [shown, setShown] = useState(0);
  const tab = tabs[Math.min(shown, tabs.length - 1)];
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="tabs" role="tablist">
        {tabs.map((t, i) => (
          <button key={t.label} type="button" role="tab" aria-selected={t === tab} className={t === tab ? '' : 'secondary'} onClick={() => setShown(i)}>
            {t.label}
          </button>
        ))}
      </div>
      {tab.render()}
    </Dialog>
  );
}

/** The JSON view of a resource, as the API answered it. */
export const jsonTab = (resource: unknown): ViewTab => ({ label: 'JSON', render: () => <pre className="json">{JSON.stringify(resource, null, 2)}</pre> });
