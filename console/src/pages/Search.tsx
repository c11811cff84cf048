import { type FormEvent, useEffect, useState } from 'react';
import { type Session, call } from '../api.ts';
import { ErrorBox, Field, Page } from '../ui.tsx';

/** Every search.list parameter, with the choices the API accepts (empty = not sent). */
const CHOICES: Record<string, string[]> = {
  order: ['', 'relevance', 'date', 'rating', 'title', 'videoCount', 'viewCount'],
  safeSearch: ['', 'moderate', 'none', 'strict'],
  channelType: ['', 'any', 'show'],
  eventType: ['', 'completed', 'live', 'upcoming'],
  videoCaption: ['', 'any', 'closedCaption', 'none'],
  videoDefinition: ['', 'any', 'high', 'standard'],
  videoDimension: ['', 'any', '2d', '3d'],
  videoDuration: ['', 'any', 'short', 'medium', 'long'],
  videoEmbeddable: ['', 'any', 'true'],
  videoLicense: ['', 'any', 'creativeCommon', 'youtube'],
  videoPaidProductPlacement: ['', 'any', 'true'],
  videoSyndicated: ['', 'any', 'true'],
  videoType: ['', 'any', 'episode', 'movie'],
};
const TEXT_PARAMS = ['q', 'channelId', 'location', 'locationRadius', 'publishedAfter', 'publishedBefore', 'regionCode', 'relevanceLanguage', 'topicId', 'videoCategoryId', 'onBehalfOfContentOwner'] as const;
const FLAGS = ['forMine', 'forDeveloper', 'forContentOwner'] as const;
const TYPES = ['video', 'channel', 'playlist'] as const;

/** Titles arrive HTML-escaped, as the real API writes them; show them as text. */
function unescapeHtml(s: string): string {
  return new DOMParser().parseFromString(s, 'text/html').documentElement.textContent ?? s;
}

/** A thumbnail that cannot be fetched (an offline machine) becomes a generated placeholder. */
function placeholder(title: string, kind: string): string {
  let h = 0;
  for (const c of title) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const hue = h % 360;
  const letter = (title.trim()[0] ?? '?').toUpperCase().replace(/[<&>"]/g, '?');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="hsl(${hue},45%,42%)"/><text x="160" y="108" font-family="sans-serif" font-size="64" fill="white" text-anchor="middle">${letter}</text><text x="10" y="170" font-family="sans-serif" font-size="14" fill="white">${kind}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function Thumbnail({ item }: { item: any }) {
  const t = item.snippet?.thumbnails ?? {};
  const url: string | undefined = (t.medium ?? t.high ?? t.default)?.url;
  const title = unescapeHtml(item.snippet?.title ?? '');
  const kind = String(item.id?.kind ?? '').split('#')[1] ?? '';
  const [failed, setFailed] = useState(false);
  return <img src={!url || failed ? placeholder(title, kind) : url} alt="" width={160} height={90} loading="lazy" onError={() => setFailed(true)} />;
}

/** "about 1 result", "about 1,200 results". */
export function aboutResults(n: number): string {
  return `about ${n.toLocaleString('en-US')} ${n === 1 ? 'result' : 'results'}`;
}

export function SearchPage({ session }: { session: Session }) {
  const [params, setParams] = useState<Record<string, string>>({ part: 'snippet', maxResults: '10', q: '' });
  const [types, setTypes] = useState<Set<string>>(new Set());
  const [flags, setFlags] = useState<Set<string>>(new Set());
  const [apiKey, setApiKey] = useState('');
  const [result, setResult] = useState<any>();
  const [view, setView] = useState<'cards' | 'json'>('cards');
  const [error, setError] = useState<unknown>();
  const [quota, setQuota] = useState<string>();

  /** The media quota of the project (admin API): a counter already in use today, else the default service's. */
  const loadQuota = async () => {
    if (!session.adminToken) return setQuota(undefined);
    try {
      const { quotas } = await call<{ quotas: any[] }>('GET', '/_twin/v1/quota', { admin: true });
      const mine = quotas.find((q) => (q.project === session.project || q.projectNumber === session.project) && !/^(apikeys|compute)\./.test(q.service));
      const q = mine ?? (await call('GET', `/_twin/v1/quota/projects/${session.project}/services/youtube.googleapis.com`, { admin: true }));
      setQuota(`${q.remaining} of ${q.dailyLimit} quota units left today`);
    } catch {
      setQuota(undefined);
    }
  };
  useEffect(() => {
    void loadQuota();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session.project, session.adminToken]);

  const search = async (pageToken?: string) => {
    setError(undefined);
    const query: Record<string, string | boolean> = {};
    for (const [k, v] of Object.entries(params)) if (v.trim()) query[k] = v.trim();
    if (types.size) query.type = [...types].join(',');
    for (const f of flags) query[f] = true;
    if (pageToken) query.pageToken = pageToken;
    try {
      setResult(await call('GET', '/youtube/v3/search', { query, apiKey: apiKey.trim() || undefined }));
    } catch (err) {
      setError(err);
      setResult(undefined);
    } finally {
      void loadQuota();
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void search();
  };
  const set = (k: string, v: string) => setParams((p) => ({ ...p, [k]: v }));
  const toggle = (s: Set<string>, v: string, apply: (s: Set<string>) => void) => {
    const n = new Set(s);
    if (n.has(v)) n.delete(v);
    else n.add(v);
    apply(n);
  };

  return (
    <Page id="search-title" title="Search playground" actions={quota ? <span className="quota">{quota}</span> : null}>
      <form className="search-form" onSubmit={submit}>
        <div className="grid">
          <Field label="API key (optional)">
            <input name="key" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="AIza… (else your access token)" autoComplete="off" />
          </Field>
          <Field label="part">
            <select name="part" value={params.part} onChange={(e) => set('part', e.target.value)}>
              <option>snippet</option>
              <option>id</option>
            </select>
          </Field>
          <Field label="maxResults (0-50)">
            <input name="maxResults" type="number" min={0} max={50} value={params.maxResults} onChange={(e) => set('maxResults', e.target.value)} />
          </Field>
          {TEXT_PARAMS.map((k) => (
            <Field key={k} label={k}>
              <input name={k} value={params[k] ?? ''} onChange={(e) => set(k, e.target.value)} />
            </Field>
          ))}
          {Object.entries(CHOICES).map(([k, options]) => (
            <Field key={k} label={k}>
              <select name={k} value={params[k] ?? ''} onChange={(e) => set(k, e.target.value)}>
                {options.map((o) => (
                  <option key={o} value={o}>
                    {o || '(not set)'}
                  </option>
                ))}
              </select>
            </Field>
          ))}
        </div>
        <fieldset className="inline">
          <legend>type</legend>
          {TYPES.map((t) => (
            <label key={t}>
              <input type="checkbox" checked={types.has(t)} onChange={() => toggle(types, t, setTypes)} /> {t}
            </label>
          ))}
        </fieldset>
        <fieldset className="inline">
          <legend>authorized filters</legend>
          {FLAGS.map((f) => (
            <label key={f}>
              <input type="checkbox" checked={flags.has(f)} onChange={() => toggle(flags, f, setFlags)} /> {f}
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      <ErrorBox error={error} />
      {result && (
        <div className="results">
          <div className="results-head">
            <span>
              {aboutResults(result.pageInfo?.totalResults ?? 0)} · region {result.regionCode}
            </span>
            <div className="tabs" role="tablist">
              <button type="button" role="tab" aria-selected={view === 'cards'} className={view === 'cards' ? '' : 'secondary'} onClick={() => setView('cards')}>
                Cards
              </button>
              <button type="button" role="tab" aria-selected={view === 'json'} className={view === 'json' ? '' : 'secondary'} onClick={() => setView('json')}>
                JSON
              </button>
            </div>
            <button type="button" className="secondary" disabled={!result.prevPageToken} onClick={() => void search(result.prevPageToken)}>
              Previous page
            </button>
            <button type="button" className="secondary" disabled={!result.nextPageToken} onClick={() => void search(result.nextPageToken)}>
              Next page
            </button>
          </div>
          {view === 'json' ? (
            <pre className="json">{JSON.stringify(result, null, 2)}</pre>
          ) : (
            <ul className="cards">
              {(result.items ?? []).map((item: any) => (
                <li key={item.etag} className="result-card">
                  <Thumbnail item={item} />
                  <div>
                    <div className="title">{unescapeHtml(item.snippet?.title ?? item.id?.videoId ?? item.id?.channelId ?? item.id?.playlistId ?? '')}</div>
                    <div className="muted">
                      {String(item.id?.kind ?? '').split('#')[1]} · {item.snippet?.channelTitle} · {item.snippet?.publishedAt ? new Date(item.snippet.publishedAt).toLocaleDateString() : ''}
                      {item.snippet?.liveBroadcastContent && item.snippet.liveBroadcastContent !== 'none' ? ` · ${item.snippet.liveBroadcastContent}` : ''}
                    </div>
                    <p>{item.snippet ? unescapeHtml(item.snippet.description ?? '') : ''}</p>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Page>
  );
}
