import { type ReactNode, useEffect, useRef } from 'react';
import { ApiProblem } from './api.ts';

/** An API error as the API gave it: status, message, reason, and the fields it names. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiProblem) {
    return (
      <div className="error" role="alert">
        <strong>
          {[String(error.httpCode), error.status, error.reason].filter(Boolean).join(' · ')}
        </strong>
        <div className="error-message">{error.message}</div>
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
    // The first field, else the first button of the body (the close button comes last in the tab order's interest).
    const first = ref.current?.querySelector<HTMLElement>('.dialog-body input, .dialog-body textarea, .dialog-body select') ?? ref.current?.querySelector<HTMLElement>('.dialog-body button');
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

/** What a long-running operation is doing, until it is done. */
export function OperationStatus({ op }: { op: { name: string; done?: boolean; status?: string; progress?: number } | undefined }) {
  if (!op) return null;
  const done = op.done === true || op.status === 'DONE';
  return (
    <div className={`operation ${done ? 'done' : 'running'}`} role="status" aria-live="polite">
      <span className="dot" aria-hidden="true" /> {done ? 'Done' : op.status ?? 'Running'}
      {typeof op.progress === 'number' ? ` (${op.progress}%)` : ''} · <code>{op.name}</code>
    </div>
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

/** A list as a table: "Loading…" until `rows` is known, `empty` when there are none, else a row per entry under `headers`. */
export function ListTable<R>({ rows, empty, headers, row }: { rows: readonly R[] | undefined; empty: ReactNode; headers: readonly string[]; row: (r: R) => ReactNode }) {
  if (!rows) return <p>Loading…</p>;
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap">
      <table>
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
