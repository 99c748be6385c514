/**
 * The console's pages, by path: the one list both the page (its navigation and History-API router) and the server
 * (which answers each path, and the paths below it, with the console's page) read, so a deep link such as
 * `/servers/<id>` loads the console and the console shows that page. No page path is an API path: the API lives under
 * `/api/`, the console's assets under `/console/`, and the probes and documents at fixed top-level names.
 */
export const CONSOLE_PAGES = [
  { path: '/region', title: 'Region' },
  { path: '/topology', title: 'Topology' },
  { path: '/networks', title: 'Networks' },
  { path: '/security-groups', title: 'Security groups' },
  { path: '/servers', title: 'Servers' },
  { path: '/load-balancers', title: 'Load balancers' },
  { path: '/volumes', title: 'Volumes' },
  { path: '/ssh-certificate-authorities', title: 'SSH CAs' },
  { path: '/operator', title: 'Operator' },
] as const;

export type PagePath = (typeof CONSOLE_PAGES)[number]['path'];

/** Top-level names the console never takes: the API, the console's assets, the documents and the probes. */
export const RESERVED = [
  '/api',
  '/console',
  '/openapi.json',
  '/.well-known',
  '/healthz',
  '/livez',
  '/readyz',
  '/metrics',
];

/** A console address split into its page and what follows it (`/servers/abc` → `/servers`, `abc`). */
export function pageOf(pathname: string): { page: PagePath; rest: string } | undefined {
  for (const { path } of CONSOLE_PAGES) {
    if (pathname === path || pathname === `${path}/`) return { page: path, rest: '' };
    if (pathname.startsWith(`${path}/`)) return { page: path, rest: decoded(pathname.slice(path.length + 1)) };
  }
  return undefined;
}

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};
