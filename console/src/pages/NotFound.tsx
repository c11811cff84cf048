/** A route the console does not have (`#/no-such-page`): said so, with the way back. */
export function NotFoundPage() {
  const route = decodeURIComponent(location.hash.replace(/^#/, ''));
  return (
    <section aria-labelledby="not-found-title" className="not-found">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        The console has no page <code>{route}</code>. Pick a section above, or go to the <a href="#/keys">API keys</a>.
      </p>
    </section>
  );
}
