/**
 * The console's addresses: one History-API path a page (`/servers`, `/servers/<id>`), so every view and every
 * object's page has a link that works on its own, the back button included; the server answers each of these paths
 * with the console (src/cli/console/pages.ts). An old `#/servers` link is moved to `/servers`.
 */
import { useEffect, useState } from 'preact/hooks';
import { pageOf, type PagePath } from '../src/cli/console/pages.ts';

export interface Place {
  readonly page: PagePath;
  /** What follows the page's path: an object's id on a detail page, else empty. */
  readonly rest: string;
}

const EVENT = 'openregion:navigate';

/** Where the address points; the region page for `/` or anything that is not a page. */
export function placeOf(location: { pathname: string; hash: string }): Place {
  const legacy = /^#(\/[^&]*)/.exec(location.hash)?.[1];
  return pageOf(legacy ?? location.pathname) ?? { page: '/region', rest: '' };
}

/** Moves an old `#/view` address to `/view`, keeping nothing else of the fragment (the token has left it already). */
export function settleAddress(): void {
  const legacy = /^#(\/[^&]*)/.exec(window.location.hash)?.[1];
  if (legacy !== undefined) history.replaceState(null, '', legacy);
}

export function navigate(path: string): void {
  history.pushState(null, '', path);
  window.dispatchEvent(new Event(EVENT));
  window.scrollTo(0, 0);
}

export function usePlace(): Place {
  const [place, setPlace] = useState(() => placeOf(window.location));
  useEffect(() => {
    const onChange = () => {
      setPlace(placeOf(window.location));
    };
    window.addEventListener('popstate', onChange);
    window.addEventListener(EVENT, onChange);
    return () => {
      window.removeEventListener('popstate', onChange);
      window.removeEventListener(EVENT, onChange);
    };
  }, []);
  return place;
}

/** A link within the console: a plain `<a href>` (open in a new tab works), followed without a reload. */
export function onLink(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  const href = anchor?.getAttribute('href');
  if (anchor === null || anchor === undefined || href === null || href === undefined || !href.startsWith('/')) return;
  if (anchor.hasAttribute('target') || anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(href);
}
