import { useEffect, useRef, useState } from 'react';

/** How long typing must pause before the project is loaded. */
export const PROJECT_COMMIT_DELAY_MS = 800;

/**
 * The project the pages act on. Typing changes only the field; the project is committed (and the
 * pages load it) on Enter, when the field loses focus, or once typing pauses. An empty field is
 * never committed: leaving it empty puts the current project back.
 */
export function ProjectField({ project, onCommit }: { project: string; onCommit: (project: string) => void }) {
  const [text, setText] = useState(project);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => setText(project), [project]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const commit = (value: string) => {
    clearTimeout(timer.current);
    const next = value.trim();
    if (!next) return setText(project);
    if (next !== project) onCommit(next);
  };

  return (
    <label className="project">
      <span className="label">Project</span>
      <input
        aria-label="Project"
        value={text}
        spellCheck={false}
        onChange={(e) => {
          const value = e.target.value;
          setText(value);
          clearTimeout(timer.current);
          if (value.trim()) timer.current = setTimeout(() => commit(value), PROJECT_COMMIT_DELAY_MS);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit(text);
          if (e.key === 'Escape') {
            clearTimeout(timer.current);
            setText(project);
          }
        }}
        onBlur={() => commit(text)}
      />
    </label>
  );
}
