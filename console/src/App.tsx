import { type ComponentType, useCallback, useEffect, useState } from 'react';
import { type Session, loadSession, saveSession } from './api.ts';
import { ProjectField } from './ProjectField.tsx';
import { KeysPage } from './pages/Keys.tsx';
import { NotFoundPage } from './pages/NotFound.tsx';
import { OperationsPage } from './pages/Operations.tsx';
import { SearchPage } from './pages/Search.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { GroupsPage } from './pages/compute/Groups.tsx';
import { InstancesPage } from './pages/compute/Instances.tsx';
import { TemplatesPage } from './pages/compute/Templates.tsx';
import { FaultsPage } from './pages/Faults.tsx';
import { RequestsPage } from './pages/Requests.tsx';

interface PageEntry {
  /** The page's route: `#/id`. */
  id: string;
  title: string;
  /**
   * The product the page belongs to, when it has several pages: the header links the product
   * (to its first page) and the product's pages are tabs under the header.
   */
  section?: string;
  /** A page of wide tables (a log) takes the whole width of the window. */
  wide?: boolean;
  Page: ComponentType<{ session: Session }>;
}

const COMPUTE = 'Compute Engine';

/** Every page, in the order the header and a section's tabs show them. */
const PAGES: readonly PageEntry[] = [
  { id: 'keys', title: 'API keys', Page: KeysPage },
  { id: 'instances', title: 'VM instances', section: COMPUTE, Page: InstancesPage },
  { id: 'templates', title: 'Instance templates', section: COMPUTE, Page: TemplatesPage },
  { id: 'groups', title: 'Managed instance groups', section: COMPUTE, Page: GroupsPage },
  { id: 'operations', title: 'Operations', Page: OperationsPage },
  { id: 'search', title: 'Search playground', Page: SearchPage },
  { id: 'requests', title: 'Requests', wide: true, Page: RequestsPage },
  { id: 'faults', title: 'Faults', Page: FaultsPage },
];

/** The header's links: a page of its own, or a section (its first page's route). */
const HEADER_LINKS = PAGES.filter((p, i) => !p.section || PAGES.findIndex((q) => q.section === p.section) === i).map((p) => ({ id: p.id, title: p.section ?? p.title, section: p.section }));

/** The page a hash names: the keys page for none, undefined (not found) for one the console does not have. */
function pageFromHash(): PageEntry | undefined {
  const id = location.hash.replace(/^#\/?/, '').split('/')[0] || 'keys';
  return PAGES.find((p) => p.id === id);
}

/** The tabs of a section's pages, under the header. */
function SectionTabs({ section, page }: { section: string; page: PageEntry }) {
  return (
    <nav className="section-tabs" aria-label={section}>
      {PAGES.filter((p) => p.section === section).map((p) => (
        <a key={p.id} href={`#/${p.id}`} aria-current={page === p ? 'page' : undefined}>
          {p.title}
        </a>
      ))}
    </nav>
  );
}

export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [page, setPage] = useState<PageEntry | undefined>(pageFromHash);

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
          {HEADER_LINKS.map((l) => (
            <a key={l.id} href={`#/${l.id}`} aria-current={l.section ? (page?.section === l.section ? 'true' : undefined) : page?.id === l.id ? 'page' : undefined}>
              {l.title}
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
      {page?.section && <SectionTabs section={page.section} page={page} />}
      <main className={page?.wide ? 'wide' : undefined}>
        {page ? <page.Page session={session} /> : <NotFoundPage />}
      </main>
    </div>
  );
}
