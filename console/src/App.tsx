import { useCallback, useEffect, useState } from 'react';
import { type Session, loadSession, saveSession } from './api.ts';
import { ProjectField } from './ProjectField.tsx';
import { KeysPage } from './pages/Keys.tsx';
import { NotFoundPage } from './pages/NotFound.tsx';
import { OperationsPage } from './pages/Operations.tsx';
import { SearchPage } from './pages/Search.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { TemplatesPage } from './pages/Templates.tsx';
import { FaultsPage } from './pages/Faults.tsx';
import { RequestsPage } from './pages/Requests.tsx';

const PAGES = [
  { id: 'keys', title: 'API keys' },
  { id: 'templates', title: 'Instance templates' },
  { id: 'operations', title: 'Operations' },
  { id: 'search', title: 'Search playground' },
  { id: 'requests', title: 'Requests' },
  { id: 'faults', title: 'Faults' },
] as const;
type PageId = (typeof PAGES)[number]['id'];

/** The page a hash names: the keys page for none, undefined (not found) for one the console does not have. */
function pageFromHash(): PageId | undefined {
  const id = location.hash.replace(/^#\/?/, '').split('/')[0];
  if (!id) return 'keys';
  return PAGES.find((p) => p.id === id)?.id;
}

export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [page, setPage] = useState<PageId | undefined>(pageFromHash);

  useEffect(() => {
    const onHash = () => setPage(pageFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const update = useCallback((s: Session | undefined) => {
    saveSession(s);
    setSession(s);
  }, []);

  if (!session) return <SignInPage onSignedIn={update} />;
  return (
    <div className="shell">
      <header className="top">
        <span className="brand">cloudtwin</span>
        <nav aria-label="Sections">
          {PAGES.map((p) => (
            <a key={p.id} href={`#/${p.id}`} aria-current={page === p.id ? 'page' : undefined}>
              {p.title}
            </a>
          ))}
        </nav>
        <div className="who">
          <ProjectField project={session.project} onCommit={(project) => update({ ...session, project })} />
          <span className="principal" title={`Signed in as ${session.principal ?? 'the holder of an access token'}`}>
            {session.principal ?? 'signed in with an access token'}
          </span>
          <button type="button" className="secondary" onClick={() => update(undefined)}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        {page === 'keys' && <KeysPage session={session} />}
        {page === 'templates' && <TemplatesPage session={session} />}
        {page === 'operations' && <OperationsPage session={session} />}
        {page === 'search' && <SearchPage session={session} />}
        {page === 'requests' && <RequestsPage session={session} />}
        {page === 'faults' && <FaultsPage session={session} />}
        {page === undefined && <NotFoundPage />}
      </main>
    </div>
  );
}
