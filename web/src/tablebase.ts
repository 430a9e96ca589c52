// The tablebase page: any FEN, every move's result best first and grouped into winning,
// drawing and losing moves (as lichess's tablebase explorer shows them), the rule set the
// results are for, and a random position of a given material. A game selector switches
// between antichess and Lasker chess (orthodox endgames where stalemating the opponent is a
// lesser win: values 4 mate win to 0 mated, with DTM or DTS; /api/tablebase?game=lasker).
// The position and the game are in the URL (?fen=...&game=lasker).
import './style.css';
import { Board } from './board';
import { ApiError, el, fill, getJSON, header, pageUrl, params, showError } from './common';

const DEFAULT_FEN = '8/8/8/8/8/2k5/8/KR6 w - - 0 1';
const DEFAULT_LASKER_FEN = '8/8/8/8/8/5k2/P7/7K w - - 0 1';

type Game = 'antichess' | 'lasker';

/** A Lasker value: 4 mate win, 3 stalemate win, 2 draw, 1 stalemate loss, 0 mated. */
interface LaskerValue {
  value: number;
  category: string;
  depth: number | null;
  metric: string | null;
}

interface LaskerReport extends LaskerValue {
  fen: string;
  game: 'lasker';
  moves: (LaskerValue & { uci: string; san: string; fen: string })[];
}

interface Report {
  fen: string;
  material: string;
  category: string;
  dtc: number | null;
  variant_win: boolean;
  variant_loss: boolean;
  game_over_draw: boolean;
  missing: string | null;
  moves: { uci: string; san: string; category: string; dtc: number | null; zeroing: boolean; conversion: boolean; variant_win: boolean; variant_loss: boolean }[];
}

let game: Game = params().get('game') === 'lasker' ? 'lasker' : 'antichess';
let fen = params().get('fen') || (game === 'lasker' ? DEFAULT_LASKER_FEN : DEFAULT_FEN);
let lastMove: string | undefined;
let orientation: 'white' | 'black' = 'white';
const board = new Board(document.getElementById('board')!, (uci) => {
  const m = game === 'lasker' ? lasker?.moves.find((x) => x.uci === uci) : report?.moves.find((x) => x.uci === uci);
  if (m) void playMove(uci);
});
let report: Report | null = null;
let lasker: LaskerReport | null = null;
/** The server's rule set (from /api/status), once read. */
let rules: string | null = null;

/** What a rule set does with a stalemate, the one way the rule sets differ. */
const RULES: Record<string, string> = {
  international: 'lichess antichess: a stalemated player wins',
  fics: 'FICS suicide: when stalemated, the side with fewer pieces wins',
  joint: 'a win only where the international and FICS rules agree',
  vinciperdi: 'a stalemate is a draw',
  pritchard: 'promotion to a queen only, a stalemate is a draw',
};

function rulesText(name: string): string {
  const base = name.split('+')[0];
  const queen = name.includes('queen-only') && base !== 'pritchard' ? '; promotion to a queen only' : '';
  return `${name} rules (${RULES[base] ?? 'see the guide'}${queen})`;
}

function mover(category: string): string {
  return category === 'win' ? 'loss' : category === 'loss' ? 'win' : category;
}

async function playMove(uci: string): Promise<void> {
  if (game === 'lasker') {
    // Orthodox moves: the answer gives the position after each.
    const m = lasker?.moves.find((x) => x.uci === uci);
    if (!m) return;
    lastMove = uci;
    await show(m.fen, true);
    return;
  }
  // The position after the move, from the explorer's endpoint (which plays it).
  try {
    const data = await getJSON('/api/explore', { fen, moves: uci });
    lastMove = uci;
    await show(data.fen, true);
  } catch (e) {
    showError(e instanceof ApiError ? e.message : String(e));
  }
}

async function show(newFen: string, push: boolean): Promise<void> {
  (document.getElementById('game-select') as HTMLSelectElement).value = game;
  // Random positions come from the antichess tables only (the form's CSS overrides `hidden`).
  (document.getElementById('random') as HTMLElement).style.display = game === 'lasker' ? 'none' : '';
  if (game === 'lasker') return showLasker(newFen, push);
  try {
    if (!rules) rules = (await getJSON('/api/status')).rules ?? null;
    const r: Report = await getJSON('/api/tablebase', { fen: newFen });
    showError(null);
    report = r;
    fen = r.fen;
    const url = pageUrl('/tablebase', { fen });
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
    header('tablebase', { fen });
    render(r);
  } catch (e) {
    showError(e instanceof ApiError ? e.message : String(e));
  }
}

async function showLasker(newFen: string, push: boolean): Promise<void> {
  try {
    const r: LaskerReport = await getJSON('/api/tablebase', { fen: newFen, game: 'lasker' });
    showError(null);
    lasker = r;
    fen = r.fen;
    const url = pageUrl('/tablebase', { fen, game: 'lasker' });
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
    header('tablebase', { fen });
    renderLasker(r);
  } catch (e) {
    showError(e instanceof ApiError ? e.message : String(e));
  }
}

/** The men of a FEN in our material notation (KPk: White's, then Black's in lower case). */
function fenMaterial(f: string): string {
  const men = f.split(' ')[0].replace(/[^a-zA-Z]/g, '');
  const order = 'KQRBNPkqrbnp';
  return [...men].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join('');
}

/** Lasker values for the side to move (index = value). */
const LASKER_TEXT = ['loses by being mated', 'loses by being stalemated', 'draw', 'wins by stalemating', 'wins by mate'];
/** The colour class of a Lasker value: wins green, draws grey, losses red. */
function laskerClass(value: number): string {
  return value > 2 ? 'win' : value < 2 ? 'loss' : 'draw';
}

function laskerDepth(v: LaskerValue): string {
  return v.metric && v.depth !== null ? `${v.metric.toUpperCase()} ${v.depth}` : '';
}

function renderLasker(r: LaskerReport): void {
  const turn = r.fen.split(' ')[1] === 'b' ? 'black' : 'white';
  const who = turn === 'white' ? 'White' : 'Black';
  const best = r.moves[0];
  board.set(
    {
      fen: r.fen,
      turn,
      moves: r.moves.map((m) => m.uci),
      lastMove,
      arrows: best ? [{ uci: best.uci, brush: laskerClass(4 - best.value) === 'win' ? 'green' : laskerClass(4 - best.value) === 'loss' ? 'red' : 'paleGrey' }] : [],
    },
    orientation,
  );
  (document.getElementById('fen-input') as HTMLInputElement).value = r.fen;
  const text = r.value === 2 ? 'draw' : `${who} ${LASKER_TEXT[r.value]}`;
  const depth = r.metric && r.depth !== null ? ` · ${r.metric.toUpperCase()} ${r.depth} plies` : '';
  fill(
    document.getElementById('summary')!,
    el('div', { class: 'turn' }, `${who} to move · ${fenMaterial(r.fen)} · Lasker chess`),
    el('div', { id: 'tb-result' }, tag(laskerClass(r.value), `${r.value}: ${text}`), depth),
    el('div', { class: 'muted small rules', id: 'tb-rules' }, 'Lasker chess: orthodox rules, stalemating the opponent is a lesser win (4 mate win, 3 stalemate win, 2 draw, 1 stalemated, 0 mated); DTM or DTS in plies'),
    el('div', { class: 'fen', style: 'margin-top:6px' }, r.fen),
    el('div', { class: 'buttons' }, el('button', { type: 'button', id: 'flip' }, 'Flip board')),
  );
  document.getElementById('flip')!.addEventListener('click', () => {
    orientation = orientation === 'white' ? 'black' : 'white';
    renderLasker(r);
  });
  // Best first (the server's order), grouped by the value for the mover.
  const groups: HTMLElement[][] = [[], [], [], [], []];
  for (const m of r.moves) {
    const forMover = 4 - m.value;
    const tr = el(
      'tr',
      { 'data-uci': m.uci },
      el('td', { class: 'san' }, m.san),
      el('td', {}, tag(laskerClass(forMover), forMover === 2 ? 'draw' : LASKER_TEXT[forMover])),
      el('td', { class: 'num' }, laskerDepth(m) || '–'),
    );
    tr.addEventListener('click', () => void playMove(m.uci));
    groups[forMover].push(tr);
  }
  const titles = ['Moves that get mated', 'Moves that get stalemated', 'Drawing moves', 'Moves that stalemate', 'Moves that mate'];
  const keys = ['mate-loss', 'stalemate-loss', 'draw', 'stalemate-win', 'mate-win'];
  const bodies = [4, 3, 2, 1, 0]
    .filter((v) => groups[v].length)
    .map((v) =>
      el(
        'tbody',
        { class: `group group-${keys[v]}` },
        el('tr', { class: 'group-head' }, el('th', { colspan: '3' }, tag(laskerClass(v), `${titles[v]} (${groups[v].length})`))),
        ...groups[v],
      ),
    );
  fill(
    document.getElementById('moves')!,
    el('thead', {}, el('tr', {}, el('th', {}, 'Move'), el('th', {}, 'Result for the mover'), el('th', { class: 'num', title: 'depth to mate (DTM) or to stalemate (DTS) of the position after the move, in plies' }, 'Depth after'))),
    ...(bodies.length ? bodies : [el('tbody', {}, el('tr', {}, el('td', { class: 'empty', colspan: '3' }, 'no legal moves')))]),
  );
  document.body.dataset.ready = r.fen;
}

function tag(category: string, text: string): HTMLElement {
  return el('span', { class: `cat ${category}` }, text);
}

function render(r: Report): void {
  const turn = r.fen.split(' ')[1] === 'b' ? 'black' : 'white';
  const who = turn === 'white' ? 'White' : 'Black';
  const best = r.moves.find((m) => m.category !== 'unknown');
  board.set(
    {
      fen: r.fen,
      turn,
      moves: r.moves.map((m) => m.uci),
      lastMove,
      arrows: best && mover(best.category) !== 'unknown' ? [{ uci: best.uci, brush: mover(best.category) === 'win' ? 'green' : mover(best.category) === 'loss' ? 'red' : 'paleGrey' }] : [],
    },
    orientation,
  );
  (document.getElementById('fen-input') as HTMLInputElement).value = r.fen;
  const material = document.getElementById('material-input') as HTMLInputElement;
  if (!material.value || document.activeElement !== material) material.value = r.material;
  let result: HTMLElement;
  if (r.variant_win || r.variant_loss || r.game_over_draw) {
    result = el('span', {}, tag(r.category, r.variant_win ? `${who} has won` : r.variant_loss ? `${who} has lost` : 'drawn'), ' (the game is over)');
  } else if (r.category === 'unknown') {
    result = el('span', { class: 'muted' }, r.missing ? `No table for ${r.missing} is loaded` : 'unknown');
  } else {
    result = el('span', {}, tag(r.category, `${r.category} for ${who}`), r.dtc !== null ? ` · ${r.dtc} plies to conversion` : '');
  }
  fill(
    document.getElementById('summary')!,
    el('div', { class: 'turn' }, `${who} to move · ${r.material}`),
    el('div', { id: 'tb-result' }, result),
    el('div', { class: 'muted small rules', id: 'tb-rules' }, rules ? rulesText(rules) : ''),
    el('div', { class: 'fen', style: 'margin-top:6px' }, r.fen),
    el('div', { class: 'buttons' }, el('a', { href: pageUrl('/', { fen: r.fen }) }, 'Open in the explorer'), el('button', { type: 'button', id: 'flip' }, 'Flip board')),
  );
  document.getElementById('flip')!.addEventListener('click', () => {
    orientation = orientation === 'white' ? 'black' : 'white';
    render(r);
  });
  // Best first, in groups: the mover's result (a move to a position lost for the side then
  // to move wins for the mover).
  const groups: Record<string, HTMLElement[]> = { win: [], draw: [], loss: [], unknown: [] };
  for (const m of r.moves) {
    const res = m.variant_loss ? 'win' : m.variant_win ? 'loss' : mover(m.category);
    const text = m.variant_loss ? 'wins the game' : m.variant_win ? 'loses the game' : res;
    const tr = el(
      'tr',
      { 'data-uci': m.uci },
      el('td', { class: 'san' }, m.san),
      el('td', {}, tag(res, text)),
      el('td', { class: 'num' }, m.dtc !== null ? String(m.dtc) : '–'),
      el('td', { class: 'muted small' }, m.conversion ? 'converts' : m.zeroing ? 'pawn move' : ''),
    );
    tr.addEventListener('click', () => void playMove(m.uci));
    (groups[res] ?? groups.unknown).push(tr);
  }
  const titles: [string, string][] = [
    ['win', 'Winning moves'],
    ['draw', 'Drawing moves'],
    ['loss', 'Losing moves'],
    ['unknown', 'Moves the tables do not cover'],
  ];
  const bodies = titles
    .filter(([key]) => groups[key].length)
    .map(([key, title]) =>
      el(
        'tbody',
        { class: `group group-${key}` },
        el('tr', { class: 'group-head' }, el('th', { colspan: '4' }, tag(key, `${title} (${groups[key].length})`))),
        ...groups[key],
      ),
    );
  fill(
    document.getElementById('moves')!,
    el('thead', {}, el('tr', {}, el('th', {}, 'Move'), el('th', {}, 'Result for the mover'), el('th', { class: 'num', title: 'distance to conversion of the position after the move, in plies' }, 'DTC after'), el('th', {}, ''))),
    ...(bodies.length ? bodies : [el('tbody', {}, el('tr', {}, el('td', { class: 'empty', colspan: '4' }, 'no legal moves')))]),
  );
  document.body.dataset.ready = r.fen;
}

document.getElementById('probe')!.addEventListener('submit', (e) => {
  e.preventDefault();
  lastMove = undefined;
  void show((document.getElementById('fen-input') as HTMLInputElement).value.trim(), true);
});
document.getElementById('random')!.addEventListener('submit', async (e) => {
  e.preventDefault();
  const material = (document.getElementById('material-input') as HTMLInputElement).value.trim() || report?.material || '';
  const turn = (document.getElementById('turn-select') as HTMLSelectElement).value;
  try {
    const r = await getJSON('/api/tablebase/random', { material, turn });
    lastMove = undefined;
    await show(r.fen, true);
  } catch (err) {
    showError(err instanceof ApiError ? err.message : String(err));
  }
});
document.getElementById('game-select')!.addEventListener('change', (e) => {
  const next = (e.target as HTMLSelectElement).value === 'lasker' ? 'lasker' : 'antichess';
  if (next === game) return;
  game = next;
  lastMove = undefined;
  // A Lasker position needs one king a side and at most 5 men; else the game's default.
  const men = fenMaterial(fen);
  const fits = game === 'antichess' || (men.split('K').length === 2 && men.split('k').length === 2 && men.length <= 5);
  void show(fits ? fen : game === 'lasker' ? DEFAULT_LASKER_FEN : DEFAULT_FEN, true);
});
window.addEventListener('popstate', () => {
  lastMove = undefined;
  game = params().get('game') === 'lasker' ? 'lasker' : 'antichess';
  void show(params().get('fen') || (game === 'lasker' ? DEFAULT_LASKER_FEN : DEFAULT_FEN), false);
});

header('tablebase', { fen });
void show(fen, false);
