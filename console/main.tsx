/**
 * The openregion console: a page over the REST API on the same origin. It signs in with a bearer token, picks the
 * organization, project and region the token holds, and shows one view a page, chosen by the address's fragment
 * (`#/servers`), so every view has a link and the back button works.
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RegionRead } from '../src/region/http/schemas/region.ts';
import { apiWith } from './api.ts';
import { ProblemNote } from './components.tsx';
import { ScopeContext, type Scope } from './context.ts';
import { claimsOf, keepToken, signInFromFragment, signOut } from './session.ts';
import { LoadBalancersView } from './views/load-balancers.tsx';
import { NetworksView } from './views/networks.tsx';
import { OperatorView } from './views/operator.tsx';
import { RegionsView } from './views/regions.tsx';
import { SecurityGroupsView } from './views/security-groups.tsx';
import { ServersView } from './views/servers.tsx';
import { SshCertificateAuthoritiesView } from './views/ssh-certificate-authorities.tsx';
import { VolumesView } from './views/volumes.tsx';

const PAGES = [
  { path: '#/region', title: 'Region' },
  { path: '#/networks', title: 'Networks' },
  { path: '#/security-groups', title: 'Security groups' },
  { path: '#/servers', title: 'Servers' },
  { path: '#/load-balancers', title: 'Load balancers' },
  { path: '#/volumes', title: 'Volumes' },
  { path: '#/ssh-certificate-authorities', title: 'SSH CAs' },
  { path: '#/operator', title: 'Operator' },
] as const;

type PagePath = (typeof PAGES)[number]['path'];

const pageOf = (hash: string): PagePath => PAGES.find((p) => p.path === hash)?.path ?? '#/region';

function usePage(): PagePath {
  const [page, setPage] = useState(pageOf(window.location.hash));
  useEffect(() => {
    const onHash = () => setPage(pageOf(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return page;
}

function SignIn({ onToken, expired }: { onToken: (token: string) => void; expired: boolean }) {
  const [token, setToken] = useState('');
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to openregion</h1>
      {expired ? <p role="alert">The API refused the token: sign in again.</p> : null}
      <p>
        Paste a bearer token. <code>openregion up</code> prints a link that signs you in with its development token.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim() !== '') onToken(token.trim());
        }}
      >
        <label for="token">Bearer token</label>
        <textarea id="token" rows={4} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function Console({ token, onSignOut }: { token: string; onSignOut: (expired: boolean) => void }) {
  const claims = useMemo(() => claimsOf(token), [token]);
  const api = useMemo(() => apiWith(token, () => onSignOut(true)), [token, onSignOut]);
  const page = usePage();
  const organizationID = claims?.organizationIDs[0] ?? '';
  const [projectID, setProjectID] = useState(claims?.projectIDs[0]);
  const [regions, setRegions] = useState<readonly RegionRead[] | undefined>(undefined);
  const [regionID, setRegionID] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  useEffect(() => {
    api('GET', `/api/v1/organizations/${encodeURIComponent(organizationID)}/regions`).then((r) => {
      setRegions(r);
      setRegionID((current) => current ?? r[0]?.metadata.id);
    }, setProblem);
  }, [api, organizationID]);
  const scope: Scope = useMemo(
    () => ({ api, organizationID, projectID, regionID }),
    [api, organizationID, projectID, regionID],
  );
  const title = PAGES.find((p) => p.path === page)?.title ?? '';
  useEffect(() => {
    document.title = `${title} · openregion`;
  }, [title]);
  return (
    <ScopeContext.Provider value={scope}>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to the content
      </a>
      <header>
        <strong class="brand">openregion</strong>
        <nav aria-label="Views">
          <ul>
            {PAGES.filter((p) => p.path !== '#/operator' || claims?.operator === true).map((p) => (
              <li key={p.path}>
                <a href={p.path} aria-current={p.path === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="scope">
          <label for="project">Project</label>
          <select id="project" value={projectID} onChange={(e) => setProjectID(e.currentTarget.value)}>
            {(claims?.projectIDs ?? []).map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
          <label for="region">Region</label>
          <select id="region" value={regionID} onChange={(e) => setRegionID(e.currentTarget.value)}>
            {(regions ?? []).map((r) => (
              <option key={r.metadata.id} value={r.metadata.id}>
                {r.metadata.name}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => onSignOut(false)}>
            Sign out {claims?.subject ?? ''}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ProblemNote problem={problem} />
        {regions === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : page === '#/region' ? (
          <RegionsView regions={regions} />
        ) : page === '#/networks' ? (
          <NetworksView />
        ) : page === '#/security-groups' ? (
          <SecurityGroupsView />
        ) : page === '#/servers' ? (
          <ServersView />
        ) : page === '#/load-balancers' ? (
          <LoadBalancersView />
        ) : page === '#/volumes' ? (
          <VolumesView />
        ) : page === '#/operator' ? (
          <OperatorView />
        ) : (
          <SshCertificateAuthoritiesView />
        )}
      </main>
    </ScopeContext.Provider>
  );
}

function App() {
  const [token, setToken] = useState(signInFromFragment);
  const [expired, setExpired] = useState(false);
  const out = useMemo(
    () => (refused: boolean) => {
      signOut();
      setExpired(refused);
      setToken(undefined);
    },
    [],
  );
  if (token === undefined) {
    return (
      <SignIn
        expired={expired}
        onToken={(t) => {
          keepToken(t);
          setToken(t);
        }}
      />
    );
  }
  return <Console token={token} onSignOut={out} />;
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
