// History routing. The app lives under /admin/ plus a few top-level pages (/setup, /login, ...).
// `router.path` is reactive; `navigate()` pushes a new entry; <a href> clicks inside the app are
// intercepted (same origin, no modifier keys, not target=_blank, not /api or /files).

class Router {
  path = $state(location.pathname);
  search = $state(location.search);

  get query(): URLSearchParams {
    return new URLSearchParams(this.search);
  }

  navigate(to: string, options: { replace?: boolean } = {}): void {
    const target = new URL(to, location.href);
    // Another origin, or a page the server serves itself (a sign-in's returnTo=/api/graphql): load it.
    if (target.origin !== location.origin || !APP_PATH.test(target.pathname)) {
      if (options.replace) location.replace(to);
      else location.assign(to);
      return;
    }
    if (options.replace) history.replaceState(null, '', target.pathname + target.search + target.hash);
    else history.pushState(null, '', target.pathname + target.search + target.hash);
    this.sync();
    window.scrollTo(0, 0);
  }

  sync(): void {
    this.path = location.pathname;
    this.search = location.search;
  }
}

export const router = new Router();

/** Paths the server hands to the app; links elsewhere (/api, /files) load normally. */
const APP_PATH = /^\/(admin(\/|$)|setup$|login$|reset-password$|magic-link$|register$)/;

export function startRouter(): void {
  addEventListener('popstate', () => router.sync());
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download') || a.dataset.reload !== undefined) return;
    const href = a.getAttribute('href');
    if (!href || href.startsWith('#')) return;
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- parsed once to read its parts, not state
    const target = new URL(href, location.href);
    if (target.origin !== location.origin || !APP_PATH.test(target.pathname)) return;
    e.preventDefault();
    router.navigate(target.pathname + target.search + target.hash);
  });
}

/**
 * Matches `pattern` (`/admin/content/:collection`) against `path`; returns the parameters or null.
 * A trailing slash is ignored.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const norm = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const a = norm(pattern).split('/');
  const b = norm(path).split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) params[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}
