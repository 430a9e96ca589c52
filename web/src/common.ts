// Shared by the three pages: API calls, URL parameters, the header, number formatting.

export class ApiError extends Error {
  constructor(
    public status: number,
    message: string,
  ) {
    super(message);
  }
}

async function parse(res: Response): Promise<any> {
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = body && typeof body.error === 'string' ? body.error : text || res.statusText;
    throw new ApiError(res.status, message);
  }
  return body;
}

/** GET an API endpoint with query parameters (empty values are left out). */
export async function getJSON(path: string, params: Record<string, string | undefined | null> = {}): Promise<any> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const qs = q.toString();
  return parse(await fetch(qs ? `${path}?${qs}` : path));
}

/** Where this browser keeps the server's write token (see docs/api.md, "Who may write"). */
const TOKEN_KEY = 'antichess-token';

function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function storeToken(token: string | null): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // No storage (a private window, say): the token is asked again next time.
  }
}

/**
 * POST (or another method) a JSON body. A server started with a token answers 401 to a
 * write without it: the user is asked for it once, and it is kept in this browser.
 */
export async function sendJSON(method: string, path: string, body?: unknown): Promise<any> {
  let token = storedToken();
  const send = () => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };
  let res = await send();
  if (res.status === 401) {
    const given = window.prompt('This server needs its token to change a book (the text of its --token-file or $ANTICHESS_TOKEN). It is kept in this browser.');
    if (given && given.trim()) {
      token = given.trim();
      res = await send();
      storeToken(res.status === 401 ? null : token);
    }
  }
  return parse(res);
}

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1';

/** The page's query parameters. */
export function params(): URLSearchParams {
  return new URLSearchParams(location.search);
}

/** A page URL with parameters (empty values left out). */
export function pageUrl(page: string, p: Record<string, string | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const qs = q.toString();
  return qs ? `${page}?${qs}` : page;
}

/** Creates an element with attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: (Node | string | null | undefined)[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined));
}

/** Marks the current page in the header's navigation and keeps the position in its links. */
export function header(current: 'explorer' | 'search' | 'tablebase', position: Record<string, string | undefined | null>): void {
  const links: [string, string, string][] = [
    ['explorer', '/', 'Explorer'],
    ['search', '/search', 'Search'],
    ['tablebase', '/tablebase', 'Tablebase'],
  ];
  const nav = document.getElementById('nav');
  if (!nav) return;
  fill(
    nav,
    ...links.map(([id, href, label]) =>
      el('a', { href: pageUrl(href, position), class: id === current ? 'active' : undefined, id: `nav-${id}` }, label),
    ),
  );
}

/** A proof or disproof number ("inf" stays). */
export function num(v: number | string | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v === 'inf') return '∞';
  if (typeof v === 'number') return v.toLocaleString('en-US');
  return String(v);
}

export function ratio(v: number | string | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v === 'inf') return '∞';
  const x = Number(v);
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

export function count(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v >= 1e9) return (v / 1e9).toFixed(1) + 'G';
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e4) return (v / 1e3).toFixed(0) + 'k';
  return v.toLocaleString('en-US');
}

/** A time of day: 24-hour HH:MM:SS, the one clock format of the pages. */
export function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, '0')).join(':');
}

/** A length of time: 4.2s, 37s, 3m 4s, 2h 5m (the one duration format of the pages). */
export function duration(ms: number): string {
  if (ms < 10e3) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** Shows an error in the page's message area (or clears it). */
export function showError(message: string | null): void {
  const box = document.getElementById('error');
  if (!box) return;
  box.textContent = message ?? '';
  box.hidden = !message;
}
