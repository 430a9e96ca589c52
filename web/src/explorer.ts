// The explorer page: a board and a move list from the start position or any FEN or PGN,
// the position in the URL (?fen=START&moves=UCI...&book=NAME; with several books loaded, a
// choice in the summary switches), and for every legal move its tablebase result, proof status
// and book numbers. Clicking a move (in the list or on the board) plays it; back / forward
// keep the line; the main line of a proof is highlighted. "Solve" runs the server's df-pn on
// the position (GET /api/solve) and shows its result, numbers and main line. The line and
// the Solve box sit beside the board; the PGN box shows the line to the shown position
// (and exports it as a file); where some moves are in a proof or a book, the others fold
// away under one row that unfolds them.
import './style.css';
import { Board } from './board';
import { ApiError, count, el, fill, getJSON, header, num, pageUrl, params, ratio, sendJSON, showError, START_FEN } from './common';

interface ProofView {
  id: number;
  name: string;
  in_proof: boolean;
  kind: string | null;
  nodes: number | null;
  unfolded: number | null;
  proof_move: string | null;
  main_line: string | null;
}

interface BookNode {
  id: number;
  status: string;
  proof: number | string;
  disproof: number | string;
  ratio: number | string;
  size: number;
  searches: number;
  expanded: boolean;
  marked: boolean;
  prover_to_move: boolean;
  claimed_by: string | null;
  transposition_of: number | null;
}

interface ExploreMove {
  uci: string;
  san: string;
  fen: string;
  tablebase: { category: string; dtc: number | null; result: string };
  proofs: ProofView[];
  book: BookNode | null;
}

interface Explore {
  rules: string;
  start_fen: string;
  standard_start: boolean;
  moves_uci: string;
  line: { uci: string; san: string; fen: string; main_line: boolean }[];
  fen: string;
  turn: 'white' | 'black';
  outcome: { winner: string | null; result: string; text: string } | null;
  repetitions: number;
  tablebase: { category: string; dtc: number | null; material: string; missing: string | null; units: number; tables_units: number };
  proofs: ProofView[];
  book: { name: string; node: BookNode | null; found_by?: string; note: string; leaf?: BookNode } | null;
  moves: ExploreMove[];
}

const state = {
  /** The start FEN (null: the standard start position). */
  start: null as string | null,
  /** The whole line, including moves after the current ply (after going back). */
  line: [] as string[],
  /** SAN of the line's moves, as far as known. */
  san: [] as string[],
  ply: 0,
  book: null as string | null,
  orientation: 'white' as 'white' | 'black',
  data: null as Explore | null,
  request: 0,
  /** The moves in no proof and no book are shown (folded away by default). */
  unfolded: false,
};

interface Solved {
  fen: string;
  prover: string;
  result: 'proved' | 'disproved' | 'unknown';
  proof: number | string;
  disproof: number | string;
  nodes: number;
  seconds: number;
  time_limit: number;
  main_line: string;
  proof_tree: { nodes: number; bytes: number; verified: boolean; error: string | null } | null;
}

/** The last solve: its position's FEN and what the server answered (or is doing). */
let solved: { fen: string; view: HTMLElement } | null = null;

const board = new Board(document.getElementById('board')!, (uci) => play(uci));

function positionParams(): Record<string, string | undefined> {
  return {
    fen: state.start ?? undefined,
    moves: state.line.slice(0, state.ply).join(' ') || undefined,
    book: state.book ?? undefined,
  };
}

function syncUrl(push: boolean): void {
  const url = pageUrl('/', positionParams());
  if (url !== location.pathname + location.search) {
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }
  header('explorer', positionParams());
}

function readUrl(): void {
  const p = params();
  const fen = p.get('fen');
  state.start = fen && fen !== START_FEN ? fen : null;
  state.line = (p.get('moves') ?? '').split(/\s+/).filter(Boolean);
  state.san = [];
  state.ply = state.line.length;
  state.book = p.get('book');
}

async function load(push: boolean): Promise<void> {
  const id = ++state.request;
  syncUrl(push);
  try {
    const data: Explore = await getJSON('/api/explore', positionParams());
    if (id !== state.request) return;
    showError(null);
    state.data = data;
    // The server normalises the moves (SAN in, UCI out).
    const played = data.moves_uci.split(/\s+/).filter(Boolean);
    const keep = state.line.slice(state.ply);
    const sameFuture = played.length === state.ply;
    state.line = sameFuture ? played.concat(keep) : played;
    state.ply = played.length;
    data.line.forEach((m, i) => (state.san[i] = m.san));
    if (!sameFuture) state.san.length = state.ply;
    syncUrl(false);
    render();
  } catch (e) {
    if (id !== state.request) return;
    showError(e instanceof ApiError ? e.message : String(e));
    if (!state.data) render();
  }
}

/** Plays a move at the current ply (keeps the rest of the line if it is the same move). */
function play(uci: string): void {
  if (state.line[state.ply] === uci) {
    state.ply += 1;
  } else {
    state.line = state.line.slice(0, state.ply).concat([uci]);
    state.san.length = state.ply;
    state.ply += 1;
  }
  void load(true);
}

function go(ply: number): void {
  const target = Math.max(0, Math.min(state.line.length, ply));
  if (target === state.ply) return;
  state.ply = target;
  void load(true);
}

function category(cat: string, dtc: number | null, label?: string): HTMLElement {
  if (cat === 'unknown' && !label) return el('span', { class: 'muted' }, '–');
  const text = label ?? cat;
  return el('span', { class: `cat ${cat}` }, dtc !== null && cat !== 'draw' && cat !== 'unknown' ? `${text} ${dtc}` : text);
}

function proofCell(views: ProofView[], data: Explore): HTMLElement {
  // The first proof that has the position (or the move) in it.
  const v = views.find((p) => p.in_proof) ?? null;
  const here = data.proofs.find((p) => p.in_proof);
  if (!v) {
    if (here && here.kind === 'prover') return el('span', { class: 'muted' }, 'not played');
    return el('span', { class: 'muted' }, here ? 'not in proof' : '–');
  }
  const label = v.proof_move ? (here?.kind === 'prover' ? 'proof move' : 'answered') : 'proved';
  const title = `${v.name}: ${v.kind} node, ${v.nodes} nodes in the file, ${v.unfolded} unfolded`;
  return el(
    'span',
    { title },
    el('span', { class: 'cat proof' }, label),
    ' ',
    el('span', { class: 'muted' }, count(v.nodes)),
  );
}

function bookCells(b: BookNode | null): HTMLElement[] {
  if (!b) return [el('td', { class: 'muted', colspan: '4' }, '–')];
  const statusClass = b.status.includes('win') ? 'win' : b.status.includes('loss') ? 'loss' : 'unknown';
  return [
    el('td', { class: 'num' }, `${num(b.proof)} / ${num(b.disproof)}`),
    el('td', { class: 'num wide' }, ratio(b.ratio)),
    el('td', {}, el('span', { class: `cat ${statusClass}` }, b.status), b.claimed_by ? el('span', { title: `searched by ${b.claimed_by}` }, ' ⚙') : null),
    el('td', { class: 'num wide' }, count(b.size)),
  ];
}

function renderMoves(data: Explore): void {
  const table = document.getElementById('moves')!;
  const hasBook = !!data.book;
  const hasProofs = data.proofs.length > 0;
  const head = el(
    'tr',
    {},
    el('th', {}, 'Move'),
    el('th', {}, 'Tablebase'),
    hasProofs ? el('th', {}, 'Proof') : null,
    ...(hasBook
      ? [el('th', { class: 'num' }, 'Proof / disproof'), el('th', { class: 'num wide' }, 'Ratio'), el('th', {}, 'Status'), el('th', { class: 'num wide' }, 'Subtree')]
      : []),
  );
  // Moves in no proof and no book fold away where some move is in one (otherwise there is
  // nothing to tell them apart by).
  const known = (m: ExploreMove) => m.proofs.some((p) => p.in_proof) || m.book !== null;
  const fold = (hasProofs || hasBook) && data.moves.some(known) && !data.moves.every(known);
  const columns = 2 + (hasProofs ? 1 : 0) + (hasBook ? 4 : 0);
  const rows: HTMLElement[] = [];
  const folded: HTMLElement[] = [];
  for (const m of data.moves) {
    const main = m.proofs.some((p) => p.main_line);
    const tr = el(
      'tr',
      { class: main ? 'main-line' : undefined, 'data-uci': m.uci, title: main ? 'the main line of the proof' : undefined },
      el('td', { class: 'san' }, m.san, main ? el('span', { class: 'star' }, '★') : null),
      el('td', { title: 'result for the side playing the move; DTC of the position after it, in plies' }, category(m.tablebase.result, m.tablebase.dtc)),
      hasProofs ? el('td', {}, proofCell(m.proofs, data)) : null,
      ...(hasBook ? bookCells(m.book) : []),
    );
    tr.addEventListener('click', () => play(m.uci));
    if (fold && !known(m)) {
      tr.classList.add('foldable');
      tr.hidden = !state.unfolded;
      folded.push(tr);
    } else rows.push(tr);
  }
  if (folded.length) {
    const n = folded.length;
    const label = () => (state.unfolded ? `Hide the ${n} move${n === 1 ? '' : 's'} in no proof and no book ▴` : `${n} more move${n === 1 ? '' : 's'} in no proof and no book ▾`);
    const toggle = el('button', { type: 'button', id: 'fold-toggle', class: 'link' }, label());
    toggle.addEventListener('click', (e) => {
      e.stopPropagation();
      state.unfolded = !state.unfolded;
      for (const tr of folded) tr.hidden = !state.unfolded;
      toggle.textContent = label();
    });
    rows.push(el('tr', { class: 'fold' }, el('td', { colspan: String(columns) }, toggle)), ...folded);
  }
  if (!rows.length) {
    rows.push(el('tr', {}, el('td', { class: 'empty', colspan: '8' }, data.outcome ? `Game over: ${data.outcome.text}` : 'No legal moves')));
  }
  fill(table, el('thead', {}, head), el('tbody', {}, ...rows));
}

function renderSummary(data: Explore): void {
  const box = document.getElementById('summary')!;
  const items: (HTMLElement | null)[] = [];
  const who = data.turn === 'white' ? 'White' : 'Black';
  const tb = data.tablebase;
  const tbText = tb.category === 'unknown'
    ? el(
        'span',
        { class: 'muted' },
        tb.units > Math.max(tb.tables_units, 2) + 1 ? `${tb.units} units: beyond the tables (complete up to ${tb.tables_units})` : tb.missing ? `no table for ${tb.missing}` : 'unknown',
      )
    : el('span', {}, category(tb.category, null, `${tb.category} for ${who}`), tb.dtc !== null && tb.category !== 'draw' ? ` · DTC ${tb.dtc} plies` : '');
  items.push(el('dt', {}, 'Tablebase'), el('dd', { id: 'tb-status' }, tbText));
  for (const p of data.proofs) {
    items.push(
      el('dt', {}, `Proof ${p.name}`),
      el(
        'dd',
        { class: 'proof-status' },
        p.in_proof
          ? el('span', {}, el('span', { class: 'cat proof' }, `in proof · ${p.kind}`), ` ${count(p.nodes)} nodes (${count(p.unfolded)} unfolded)`)
          : el('span', { class: 'muted' }, 'not in the proof'),
      ),
    );
  }
  if (data.book) {
    const b = data.book;
    const n = b.node;
    items.push(
      el('dt', {}, bookChooser(b.name)),
      el(
        'dd',
        { id: 'book-status' },
        n
          ? el(
              'span',
              {},
              el('span', { class: `cat ${n.status.includes('win') ? 'win' : n.status.includes('loss') ? 'loss' : 'unknown'}` }, n.status),
              ` node ${n.id} · ${num(n.proof)} / ${num(n.disproof)} · ratio ${ratio(n.ratio)} · subtree ${count(n.size)}`,
              b.note ? el('span', { class: 'muted' }, ` · ${b.note}`) : null,
            )
          : el('span', { class: 'muted' }, b.note),
      ),
    );
  }
  const outcome = data.outcome ? el('div', { class: 'turn' }, `Game over: ${data.outcome.text}`) : el('div', { class: 'turn' }, `${who} to move`);
  fill(
    box,
    outcome,
    el('dl', { class: 'summary-grid' }, ...items),
    el('div', { class: 'fen', title: 'FEN of this position' }, data.fen),
    el(
      'div',
      { class: 'buttons' },
      el('a', { href: pageUrl('/tablebase', { fen: data.fen }) }, 'Tablebase page'),
      data.book ? el('a', { href: pageUrl('/search', positionParams()) }, 'Steer the search from here') : null,
      data.book?.node && data.book.node.status === 'unknown' ? queueButton(data.book.name, data.book.node.id) : null,
    ),
  );
}

/** The book row's label: the book's name, or a choice of every loaded book when there are
 * several (the choice goes into the URL, as `?book=` would). */
function bookChooser(name: string): HTMLElement | string {
  const books: { name: string }[] = status?.books ?? [];
  if (books.length < 2) return `Book ${name}`;
  const select = el('select', { id: 'explorer-book', title: 'the book whose numbers are shown' }, ...books.map((b) => el('option', { value: b.name }, b.name))) as HTMLSelectElement;
  select.value = name;
  select.addEventListener('change', () => {
    state.book = select.value;
    void load(true);
  });
  return el('label', {}, 'Book ', select);
}

/** Queues the position's book node (searched, or walked from, before the normal selection). */
function queueButton(book: string, id: number): HTMLElement {
  const readOnly = status?.writes === 'read-only';
  const b = el('button', { type: 'button', id: 'queue-position', title: readOnly ? 'the server is read-only' : `queue node ${id} in book ${book}`, disabled: readOnly }, 'Queue in the book');
  b.addEventListener('click', async () => {
    try {
      await sendJSON('POST', `/api/books/${encodeURIComponent(book)}/queue`, { id });
      b.textContent = 'Queued ✓';
      b.setAttribute('disabled', '');
      showError(null);
    } catch (e) {
      showError(e instanceof ApiError ? e.message : String(e));
    }
  });
  return b;
}

function renderLine(data: Explore): void {
  const box = document.getElementById('line')!;
  const parts: (HTMLElement | string)[] = [];
  const startFen = data.start_fen.split(' ');
  const startFull = Number(startFen[5] ?? '1') || 1;
  const blackFirst = startFen[1] === 'b';
  const start = el('span', { class: `ply${state.ply === 0 ? ' current' : ''}`, 'data-ply': '0' }, 'start');
  start.addEventListener('click', () => go(0));
  parts.push(start);
  for (let i = 0; i < state.line.length; i++) {
    const idx = i + (blackFirst ? 1 : 0);
    if (idx % 2 === 0) parts.push(el('span', { class: 'num' }, `${startFull + idx / 2}.`));
    else if (i === 0) parts.push(el('span', { class: 'num' }, `${startFull}…`));
    const main = data.line[i]?.main_line ?? false;
    const cls = ['ply', i + 1 === state.ply ? 'current' : '', i >= state.ply ? 'future' : '', main ? 'main' : ''].filter(Boolean).join(' ');
    const span = el('span', { class: cls, 'data-ply': String(i + 1), title: main ? 'on the main line of a proof' : undefined }, state.san[i] ?? state.line[i]);
    span.addEventListener('click', () => go(i + 1));
    parts.push(span);
  }
  if (data.outcome && state.ply === state.line.length) parts.push(el('span', { class: 'num' }, data.outcome.result));
  fill(box, ...parts);
}

/** The PGN tag of a rule set's variant (lichess's names where there is one). */
function variantName(rules: string): string {
  if (rules.startsWith('fics')) return 'Suicide';
  return 'Antichess';
}

/** The line to the shown position as PGN: tags (the variant, the rules when they are not
 * lichess's, the start position when it is not the standard one, the result) and the
 * moves. */
function linePgn(data: Explore): string {
  const startFen = data.start_fen.split(' ');
  const startFull = Number(startFen[5] ?? '1') || 1;
  const blackFirst = startFen[1] === 'b';
  const result = data.outcome ? data.outcome.result : '*';
  const tags: [string, string][] = [['Variant', variantName(data.rules)]];
  if (data.rules !== 'international') tags.push(['Rules', data.rules]);
  if (!data.standard_start) tags.push(['SetUp', '1'], ['FEN', data.start_fen]);
  tags.push(['Result', result]);
  const words: string[] = [];
  data.line.forEach((m, i) => {
    const idx = i + (blackFirst ? 1 : 0);
    if (idx % 2 === 0) words.push(`${startFull + idx / 2}.`);
    else if (i === 0) words.push(`${startFull}...`);
    words.push(m.san);
  });
  words.push(result);
  // Lines of at most 80 characters, as PGN export wants.
  const lines: string[] = [];
  let current = '';
  for (const w of words) {
    if (current && current.length + 1 + w.length > 80) {
      lines.push(current);
      current = w;
    } else current = current ? `${current} ${w}` : w;
  }
  lines.push(current);
  return `${tags.map(([k, v]) => `[${k} "${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`).join('\n')}\n\n${lines.join('\n')}\n`;
}

/** Keeps the PGN box on the current line (unless it is being edited). */
function renderPgn(data: Explore): void {
  const box = document.getElementById('pgn-input') as HTMLTextAreaElement;
  if (document.activeElement === box) return;
  box.value = linePgn(data);
  document.body.dataset.pgn = box.value;
}

/** What the server has loaded (`/api/status`), once read. */
let status: any = null;

async function renderSources(): Promise<void> {
  const box = document.getElementById('sources')!;
  if (!status) {
    try {
      status = await getJSON('/api/status');
    } catch {
      return;
    }
    // The summary's book row offers the other books once they are known.
    if (state.data && status.books.length > 1) renderSummary(state.data);
  }
  const rows: HTMLElement[] = [];
  for (const p of status.proofs as any[]) {
    const q = p.prolog_uci ? { moves: p.prolog_uci } : { fen: p.root_fen };
    const mainQ = p.prolog_uci ? { moves: `${p.prolog_uci} ${p.main_line_uci}`.trim() } : { fen: p.root_fen, moves: p.main_line_uci };
    rows.push(
      el(
        'div',
        { class: 'source' },
        el('strong', {}, `Proof ${p.name}`),
        ` — ${p.prover} wins · ${count(p.counts.total)} nodes · `,
        el('a', { href: pageUrl('/', { ...q, book: state.book }) }, 'root'),
        ' · ',
        el('a', { href: pageUrl('/', { ...mainQ, book: state.book }) }, 'main line'),
        el('div', { class: 'muted small' }, p.prolog_san ? `${p.prolog_san} | ${p.main_line_san}` : p.main_line_san),
      ),
    );
  }
  for (const b of status.books as any[]) {
    const q = b.explorer.fen ? { fen: b.explorer.fen } : { moves: b.explorer.moves };
    rows.push(
      el(
        'div',
        { class: 'source' },
        el('strong', {}, `Book ${b.name}`),
        ` — proving a win for ${b.prover} · `,
        el('a', { href: pageUrl('/', { ...q, book: b.name }) }, 'root'),
        ' · ',
        el('a', { href: pageUrl('/search', { book: b.name }) }, 'search page'),
      ),
    );
  }
  const tables = status.tables ? `tables: ${status.tables.materials} materials, complete up to ${status.tables.complete_units} units` : 'no tables';
  rows.push(el('div', { class: 'muted small' }, `${status.rules} rules · ${tables}`));
  fill(box, el('h2', {}, 'Loaded'), ...rows);
}

function render(): void {
  const data = state.data;
  if (!data) return;
  const arrows: { uci: string; brush: 'green' | 'blue' }[] = [];
  const mainMove = data.proofs.find((p) => p.main_line)?.main_line;
  const proofMove = data.proofs.find((p) => p.proof_move)?.proof_move;
  if (proofMove && proofMove !== mainMove) arrows.push({ uci: proofMove, brush: 'blue' });
  if (mainMove) arrows.push({ uci: mainMove, brush: 'green' });
  board.set(
    { fen: data.fen, turn: data.turn, moves: data.moves.map((m) => m.uci), lastMove: state.line[state.ply - 1], arrows },
    state.orientation,
  );
  renderSummary(data);
  renderSolve(data);
  renderMoves(data);
  renderLine(data);
  renderPgn(data);
  (document.getElementById('fen-input') as HTMLInputElement).value = data.fen;
  (document.getElementById('back') as HTMLButtonElement).disabled = state.ply === 0;
  (document.getElementById('first') as HTMLButtonElement).disabled = state.ply === 0;
  (document.getElementById('forward') as HTMLButtonElement).disabled = state.ply >= state.line.length;
  (document.getElementById('last') as HTMLButtonElement).disabled = state.ply >= state.line.length;
  document.body.dataset.ready = String(state.request);
  document.body.dataset.moves = state.line.slice(0, state.ply).join(' ');
}

/** Keeps the last solve's answer on screen while its position is shown. */
function renderSolve(data: Explore): void {
  const box = document.getElementById('solve-result')!;
  (document.getElementById('solve-button') as HTMLButtonElement).disabled = !!data.outcome;
  if (solved && solved.fen === data.fen) fill(box, solved.view);
  else if (solved) {
    solved = null;
    fill(box, 'Proof-number search (df-pn) of this position on the server; a draw counts as a failure.');
  }
}

function solvedView(s: Solved): HTMLElement {
  const who = s.prover === 'white' ? 'White' : 'Black';
  const what =
    s.result === 'proved'
      ? el('span', { class: 'cat win' }, `proved: ${who} wins`)
      : s.result === 'disproved'
        ? el('span', { class: 'cat loss' }, `disproved: ${who} cannot force a win`)
        : el('span', { class: 'cat unknown' }, `unknown after ${s.time_limit} s`);
  const proof = s.proof_tree
    ? s.proof_tree.verified
      ? ` · proof of ${count(s.proof_tree.nodes)} nodes, checked by the verifier`
      : ` · the verifier REJECTED the proof: ${s.proof_tree.error}`
    : '';
  return el(
    'div',
    { id: 'solve-answer', 'data-result': s.result },
    what,
    ` · proof / disproof ${num(s.proof)} / ${num(s.disproof)} · ${count(s.nodes)} positions in ${s.seconds.toFixed(2)} s${proof}`,
    s.main_line ? el('div', { class: 'main-line' }, `Main line: ${s.main_line}`) : null,
  );
}

document.getElementById('solve-form')!.addEventListener('submit', async (e) => {
  e.preventDefault();
  const data = state.data;
  if (!data) return;
  const button = document.getElementById('solve-button') as HTMLButtonElement;
  const prover = (document.getElementById('solve-prover') as HTMLSelectElement).value;
  const time = (document.getElementById('solve-time') as HTMLInputElement).value;
  const fen = data.fen;
  button.disabled = true;
  solved = { fen, view: el('span', { class: 'muted' }, 'searching…') };
  renderSolve(data);
  try {
    const answer: Solved = await getJSON('/api/solve', { ...positionParams(), prover: prover || undefined, time });
    if (solved?.fen === fen) solved = { fen, view: solvedView(answer) };
    showError(null);
  } catch (err) {
    if (solved?.fen === fen) solved = { fen, view: el('span', { class: 'muted' }, 'not solved') };
    showError(err instanceof ApiError ? err.message : String(err));
  } finally {
    button.disabled = false;
    if (state.data) renderSolve(state.data);
  }
});

document.getElementById('first')!.addEventListener('click', () => go(0));
document.getElementById('back')!.addEventListener('click', () => go(state.ply - 1));
document.getElementById('forward')!.addEventListener('click', () => go(state.ply + 1));
document.getElementById('last')!.addEventListener('click', () => go(state.line.length));
document.getElementById('flip')!.addEventListener('click', () => {
  state.orientation = state.orientation === 'white' ? 'black' : 'white';
  render();
});
document.addEventListener('keydown', (e) => {
  const t = e.target as HTMLElement;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
  if (e.key === 'ArrowLeft') go(state.ply - 1);
  else if (e.key === 'ArrowRight') go(state.ply + 1);
  else if (e.key === 'Home') go(0);
  else if (e.key === 'End') go(state.line.length);
  else if (e.key === 'f') document.getElementById('flip')!.click();
  else return;
  e.preventDefault();
});
document.getElementById('load')!.addEventListener('submit', async (e) => {
  e.preventDefault();
  const fen = (document.getElementById('fen-input') as HTMLInputElement).value.trim();
  const pgn = (document.getElementById('pgn-input') as HTMLTextAreaElement).value.trim();
  try {
    // The server parses FEN and PGN (or a plain move list) and answers the start and UCI
    // moves. A FEN typed in loads alone; otherwise the PGN box (the shown line, or what was
    // typed or pasted there).
    const query = fen && fen !== state.data?.fen ? { fen } : pgn ? { pgn } : { fen };
    const data: Explore = await getJSON('/api/explore', { ...query, book: state.book });
    state.start = data.standard_start ? null : data.start_fen;
    state.line = data.moves_uci.split(/\s+/).filter(Boolean);
    state.san = data.line.map((m) => m.san);
    state.ply = state.line.length;
    await load(true);
  } catch (err) {
    showError(err instanceof ApiError ? err.message : String(err));
  }
});
document.getElementById('pgn-export')!.addEventListener('click', () => {
  if (!state.data) return;
  const blob = new Blob([linePgn(state.data)], { type: 'application/x-chess-pgn' });
  const a = el('a', { href: URL.createObjectURL(blob), download: 'antichess-line.pgn' }) as HTMLAnchorElement;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});
window.addEventListener('popstate', () => {
  readUrl();
  void load(false);
});

readUrl();
header('explorer', positionParams());
void load(false);
void renderSources();
