import { type FormEvent, useState } from 'react';
import { type Session, call, verifySignIn } from '../api.ts';
import { ErrorBox, Field } from '../ui.tsx';

interface WorldDirectory {
  projects: { projectId: string; projectNumber: string }[];
  principals: string[];
}

/** The scopes a console session asks for: every API cloudtwin serves. */
const SCOPES = ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/youtube'];

/** Sign in with an access token, or with the admin token pick a principal of the world and act as it. */
export function SignInPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [token, setToken] = useState('');
  const [project, setProject] = useState('');
  const [adminToken, setAdminToken] = useState('');
  const [world, setWorld] = useState<WorldDirectory>();
  const [principal, setPrincipal] = useState('');
  const [error, setError] = useState<unknown>();
  const [tokenError, setTokenError] = useState<unknown>();

  const [checking, setChecking] = useState(false);

  /** Signs in only once the token is accepted and the project is one it can use. */
  const withToken = async (e: FormEvent) => {
    e.preventDefault();
    const s = { token: token.trim(), project: project.trim() };
    if (!s.token || !s.project) return;
    setTokenError(undefined);
    setChecking(true);
    try {
      await verifySignIn(s.token, s.project);
      onSignedIn(s);
    } catch (err) {
      setTokenError(err);
    } finally {
      setChecking(false);
    }
  };

  const loadWorld = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const w = await call<WorldDirectory>('GET', '/_twin/v1/principals', { admin: true, session: { token: '', adminToken: adminToken.trim(), project: '' } });
      setWorld(w);
      setPrincipal(w.principals[0] ?? '');
      setProject(w.projects[0]?.projectId ?? '');
    } catch (err) {
      setError(err);
    }
  };

  const actAs = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const admin = adminToken.trim();
      const minted = await call<{ access_token: string }>('POST', '/_twin/v1/tokens', {
        admin: true,
        session: { token: '', adminToken: admin, project: '' },
        body: { principal, scopes: SCOPES },
      });
      onSignedIn({ token: minted.access_token, principal, adminToken: admin, project });
    } catch (err) {
      setError(err);
    }
  };

  return (
    <main className="signin">
      <h1>cloudtwin console</h1>
      <section className="card">
        <h2>Act as a principal of the world</h2>
        <ErrorBox error={error} />
        <form onSubmit={world ? actAs : loadWorld}>
          <Field label="Admin token" hint="Printed at first start; kept in .cloudtwin/admin-token">
            <input type="password" value={adminToken} onChange={(e) => setAdminToken(e.target.value)} autoComplete="off" name="adminToken" />
          </Field>
          {world ? (
            <>
              <Field label="Principal">
                <select value={principal} onChange={(e) => setPrincipal(e.target.value)} name="principal">
                  {world.principals.map((p) => (
                    <option key={p}>{p}</option>
                  ))}
                </select>
              </Field>
              <Field label="Project">
                <select value={project} onChange={(e) => setProject(e.target.value)} name="project">
                  {world.projects.map((p) => (
                    <option key={p.projectId} value={p.projectId}>
                      {p.projectId} ({p.projectNumber})
                    </option>
                  ))}
                </select>
              </Field>
              <button type="submit">Sign in as {principal || '…'}</button>
            </>
          ) : (
            <button type="submit">Load principals</button>
          )}
        </form>
      </section>
      <section className="card">
        <h2>Use an access token</h2>
        <ErrorBox error={tokenError} />
        <form onSubmit={(e) => void withToken(e)}>
          <Field label="Access token">
            <input type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" name="token" />
          </Field>
          <Field label="Project id">
            <input value={project} onChange={(e) => setProject(e.target.value)} name="projectId" />
          </Field>
          <button type="submit" disabled={checking || !token.trim() || !project.trim()}>
            {checking ? 'Checking the token…' : 'Sign in'}
          </button>
        </form>
      </section>
    </main>
  );
}
