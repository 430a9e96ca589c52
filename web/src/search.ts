// The search page of a book: the root's numbers over time, what each worker is searching,
// the queue, the pin and marks. Everything is read from the book's store every few
// seconds, so the page follows `antichess book grow` running in other processes; the
// buttons write to the store. The explorer's position comes in the URL (?book=&fen=&moves=).
import './style.css';
import { ApiError, clock, count, duration, el, fill, getJSON, header, num, pageUrl, params, ratio, sendJSON, showError } from './common';
import { plot } from './plot';

const REFRESH_MS = 3000;

const p = params();
const position = { fen: p.get('fen') ?? undefined, moves: p.get('moves') ?? undefined };
let bookName: string | null = p.get('book');
let summary: any = null;
let busy = false;
/** The server's write rule (`open`, `token` or `read-only`, from /api/status). */
let writes = 'open';

function bookUrl(path = ''): string {
  return `/api/books/${encodeURIComponent(bookName ?? '')}${path}`;
}

/** The explorer's URL for a line from the book's root. */
function explorerHref(lineUci: string): string {
  if (!summary) return '/';
  const moves = [summary.prolog_uci, lineUci].filter(Boolean).join(' ');
  return summary.prolog_uci ? pageUrl('/', { moves, book: bookName }) : pageUrl('/', { fen: summary.root_fen, moves: lineUci, book: bookName });
}

function lineLink(line: { line_san: string; line_uci: string; node: number }): HTMLElement {
  return el('a', { href: explorerHref(line.line_uci), title: `node ${line.node}` }, line.line_san || '(root)');
}

function statusTag(status: string | null | undefined): HTMLElement {
  const s = status ?? 'unknown';
  const cls = s.includes('win') ? 'win' : s.includes('loss') ? 'loss' : 'unknown';
  return el('span', { class: `cat ${cls}` }, s);
}

function stat(k: string, v: string | HTMLElement): HTMLElement {
  return el('div', { class: 'stat' }, el('span', { class: 'v' }, v), el('span', { class: 'k' }, k));
}

function renderRoot(s: any): void {
  const r = s.root;
  const c = s.counts;
  fill(
    document.getElementById('root')!,
    el('h2', {}, `Book ${s.name} — proving a win for ${s.prover}`),
    el('div', { class: 'muted small' }, `${s.location} · root ${s.prolog_san || s.root_fen} · ${s.rules} rules`),
    el(
      'div',
      { class: 'stats', id: 'root-stats' },
      stat('status', statusTag(r.status)),
      stat('proof', num(r.proof)),
      stat('disproof', num(r.disproof)),
      stat('ratio', ratio(r.ratio)),
      stat('subtree', count(r.size)),
      stat('nodes', count(c.nodes)),
      stat('open leaves', count(c.open_leaves)),
      stat('won / lost', `${count(c.won)} / ${count(c.lost)}`),
      stat('searches', count(c.searches)),
      stat('claimed', count(c.claimed)),
      stat('queued', count(c.queued)),
    ),
    el('div', { class: 'small', style: 'margin-top:8px' }, 'Walk starts at: ', s.pin ? lineLink(s.pin) : el('span', { class: 'muted' }, 'the root (no pin)')),
  );
}

function renderWorkers(s: any): void {
  const rows = (s.workers as any[]).map((w) =>
    el(
      'tr',
      {},
      el('td', {}, w.worker),
      el('td', { class: 'linecell' }, lineLink(w.line)),
      el('td', { class: 'num' }, w.started_ms ? duration(s.now_ms - w.started_ms) : '–'),
      el('td', { class: 'num' }, duration(w.lease_until_ms - s.now_ms)),
    ),
  );
  fill(
    document.getElementById('workers')!,
    el('thead', {}, el('tr', {}, el('th', {}, 'Worker'), el('th', {}, 'Searching'), el('th', { class: 'num' }, 'For'), el('th', { class: 'num' }, 'Lease left'))),
    el('tbody', {}, ...(rows.length ? rows : [el('tr', {}, el('td', { class: 'empty', colspan: '4' }, 'no worker is searching (start `antichess book grow`)'))])),
  );
  const queue = (s.queue as any[]).map((q) => el('li', {}, lineLink(q.line), ' ', statusTag(q.status), q.expanded ? el('span', { class: 'muted small' }, ' (walked from)') : null));
  const refused = writes === 'read-only' ? 'the server is read-only' : queue.length === 0 ? 'the queue is empty' : null;
  const clear = el('button', { type: 'button', id: 'queue-clear', class: 'danger', disabled: !!refused, title: refused ?? undefined }, 'Clear the queue');
  clear.addEventListener('click', () => act(() => sendJSON('DELETE', bookUrl('/queue'))));
  fill(document.getElementById('queue')!, queue.length ? el('ol', { id: 'queue-list' }, ...queue) : el('div', { class: 'empty', id: 'queue-list' }, 'the queue is empty'), el('div', { class: 'buttons' }, clear));
}

function renderHistory(h: any): void {
  const samples = h.samples as any[];
  const asNum = (v: any) => (typeof v === 'number' ? v : NaN);
  plot(
    document.getElementById('plot-root')!,
    [
      { name: 'proof', color: '#2f6f4f', points: samples.map((x) => [x.t_ms, asNum(x.proof)]) },
      { name: 'disproof', color: '#c0392b', points: samples.map((x) => [x.t_ms, asNum(x.disproof)]) },
      { name: 'book nodes', color: '#8a8070', points: samples.map((x) => [x.t_ms, x.nodes]) },
    ],
    { log: true, empty: `sampled every ${h.sample_every_s}s while the server runs` },
  );
  const log = h.log as any[];
  plot(
    document.getElementById('plot-log')!,
    [
      { name: 'searches', color: '#2b5aa0', points: log.map((x) => [x.t_ms, x.searches]) },
      { name: 'positions searched', color: '#b7791f', points: log.map((x) => [x.t_ms, x.positions]) },
      { name: 'proved', color: '#2f8a4f', points: log.map((x) => [x.t_ms, x.proved]) },
    ],
    { log: true, empty: 'no search yet' },
  );
  const rows = (h.recent as any[]).map((r) =>
    el(
      'tr',
      {},
      el('td', { class: 'time' }, clock(r.finished_ms)),
      el('td', {}, r.worker),
      el('td', { class: 'linecell' }, lineLink(r.line)),
      el('td', {}, r.result ?? '–'),
      el('td', { class: 'num' }, count(r.positions)),
      el('td', { class: 'num' }, duration(r.finished_ms - r.started_ms)),
    ),
  );
  fill(
    document.getElementById('recent')!,
    el('thead', {}, el('tr', {}, ...['Finished', 'Worker', 'Leaf', 'Result', 'Positions', 'Time'].map((t) => el('th', {}, t)))),
    el('tbody', {}, ...(rows.length ? rows : [el('tr', {}, el('td', { class: 'empty', colspan: '6' }, 'no search finished yet'))])),
  );
}

async function renderPosition(): Promise<void> {
  const box = document.getElementById('position')!;
  const hasPosition = !!(position.fen || position.moves);
  let detail: any;
  try {
    detail = await getJSON(bookUrl('/node'), hasPosition ? position : { id: String(summary?.root.id ?? '') });
  } catch (e) {
    const message = e instanceof ApiError ? e.message : String(e);
    fill(box, el('div', { class: 'empty', id: 'position-missing' }, message), el('div', { class: 'buttons' }, el('a', { href: pageUrl('/', { ...position, book: bookName }) }, 'Open in the explorer')));
    return;
  }
  const n = detail.node;
  const ref = { id: n.id };
  // Disabled, with the reason, where the server would refuse: writes on a read-only
  // server (403), queueing a decided node (409), marking a proven node (409), removing a
  // mark that is not there (409), clearing a pin that is not set.
  const readOnly = writes === 'read-only';
  const open = n.proof !== 0 && n.disproof !== 0;
  const proven = n.status === 'win' || n.status === 'loss';
  const why = (refused: string | null) => (readOnly ? 'the server is read-only' : refused);
  const button = (label: string, id: string, f: () => Promise<any>, cls: string | undefined, refused: string | null) => {
    const reason = why(refused);
    const b = el('button', { type: 'button', id, class: cls, disabled: !!reason, title: reason ?? undefined }, label);
    b.addEventListener('click', () => act(f));
    return b;
  };
  const children = (detail.children as any[])
    .slice()
    .sort((a, b) => (n.prover_to_move ? cmp(a.proof, b.proof) : cmp(a.disproof, b.disproof)))
    .map((c) =>
      el(
        'tr',
        {},
        el('td', { class: 'san' }, el('a', { href: pageUrl('/search', { ...childPosition(c.uci), book: bookName }) }, c.san ?? c.uci)),
        el('td', { class: 'num' }, `${num(c.proof)} / ${num(c.disproof)}`),
        el('td', { class: 'num' }, ratio(c.ratio)),
        el('td', {}, statusTag(c.status)),
        el('td', { class: 'num' }, count(c.size)),
      ),
    );
  fill(
    box,
    el('div', { class: 'linecell', id: 'position-line' }, lineLink(detail.line)),
    el(
      'div',
      { class: 'stats', style: 'margin:8px 0' },
      stat('node', String(n.id)),
      stat('status', statusTag(n.status)),
      stat('proof / disproof', `${num(n.proof)} / ${num(n.disproof)}`),
      stat('ratio', ratio(n.ratio)),
      stat('subtree', count(n.size)),
      stat('searches', String(n.searches)),
      stat('to move', n.prover_to_move ? 'prover' : 'opponent'),
    ),
    el(
      'div',
      { class: 'buttons' },
      button('Queue this position', 'queue-add', () => sendJSON('POST', bookUrl('/queue'), ref), 'primary', open ? null : `decided (${n.status}): nothing to search`),
      button('Pin the walk here', 'pin-set', () => sendJSON('POST', bookUrl('/pin'), ref), undefined, null),
      button('Clear the pin', 'pin-clear', () => sendJSON('POST', bookUrl('/pin'), { clear: true }), undefined, summary?.pin ? null : 'no pin is set'),
      button('Mark win', 'mark-win', () => sendJSON('POST', bookUrl('/mark'), { ...ref, as: 'win' }), undefined, proven ? `proven (${n.status}): marks are for undecided positions` : null),
      button('Mark loss', 'mark-loss', () => sendJSON('POST', bookUrl('/mark'), { ...ref, as: 'loss' }), undefined, proven ? `proven (${n.status}): marks are for undecided positions` : null),
      button('Remove mark', 'mark-none', () => sendJSON('POST', bookUrl('/mark'), { ...ref, as: 'none' }), undefined, n.marked ? null : 'the node is not marked'),
      el('a', { href: explorerHref(detail.line.line_uci), style: 'align-self:center' }, 'Open in the explorer'),
    ),
    children.length
      ? el(
          'table',
          { class: 'table', style: 'margin-top:10px' },
          el('thead', {}, el('tr', {}, ...['Move', 'Proof / disproof', 'Ratio', 'Status', 'Subtree'].map((t) => el('th', {}, t)))),
          el('tbody', {}, ...children),
        )
      : el('div', { class: 'muted small', style: 'margin-top:8px' }, 'a leaf of the book'),
  );
}

function cmp(a: any, b: any): number {
  const v = (x: any) => (x === 'inf' ? Infinity : Number(x));
  return v(a) - v(b);
}

function childPosition(uci: string): { fen?: string; moves?: string } {
  if (position.fen || position.moves) return { fen: position.fen, moves: [position.moves, uci].filter(Boolean).join(' ') };
  // From the root: as the explorer names it.
  if (summary?.prolog_uci) return { moves: `${summary.prolog_uci} ${uci}` };
  return { fen: summary?.root_fen, moves: uci };
}

async function act(f: () => Promise<any>): Promise<void> {
  try {
    await f();
    showError(null);
  } catch (e) {
    showError(e instanceof ApiError ? e.message : String(e));
  }
  await refresh();
}

async function refresh(): Promise<void> {
  if (busy || !bookName) return;
  busy = true;
  try {
    summary = await getJSON(bookUrl());
    renderRoot(summary);
    renderWorkers(summary);
    renderHistory(await getJSON(bookUrl('/history')));
    await renderPosition();
    document.getElementById('updated')!.textContent = `updated ${clock(Date.now())}`;
    document.body.dataset.ready = 'true';
  } catch (e) {
    showError(e instanceof ApiError ? e.message : String(e));
  } finally {
    busy = false;
  }
}

async function start(): Promise<void> {
  header('search', { ...position, book: bookName });
  writes = (await getJSON('/api/status')).writes ?? 'open';
  const books: any[] = await getJSON('/api/books');
  const select = document.getElementById('book-select') as HTMLSelectElement;
  fill(select, ...books.map((b) => el('option', { value: b.name }, b.name)));
  if (!books.length) {
    fill(document.getElementById('root')!, el('div', { class: 'empty' }, 'The server has no book: start it with `antichess serve --book FILE`.'));
    document.body.dataset.ready = 'true';
    return;
  }
  if (!bookName || !books.some((b) => b.name === bookName)) bookName = books[0].name;
  select.value = bookName!;
  select.addEventListener('change', () => {
    bookName = select.value;
    history.replaceState(null, '', pageUrl('/search', { ...position, book: bookName }));
    header('search', { ...position, book: bookName });
    void refresh();
  });
  await refresh();
  setInterval(() => void refresh(), REFRESH_MS);
}

start().catch((e) => showError(e instanceof ApiError ? e.message : String(e)));
