// Browser test of the three pages, driven by playwright-core with Debian's chromium:
//
//   node tests/browser.mjs URL OUTDIR
//
// URL is a running `antichess serve` with a book named in $BOOK (default: the first) whose
// root is reached by $ROOT_MOVES (UCI from the start position) and a proof of that root;
// $GROW_BOOK, if set, names a book that `book grow` is growing meanwhile. The test loads
// the explorer at the root, plays the proof's move by clicking it in the move list and the
// reply by clicking on the board, solves the position with the "Solve" button, checks that the move list, the line and the statuses
// follow, goes back and forward, queues the position, switches to the other book and back;
// on the search page it queues, pins and unpins the explorer's position and watches the
// worker of the growing book; on the tablebase page it draws a random position of a
// material and checks its moves are grouped, switches the game to Lasker chess (value,
// depth, moves grouped by value, a mate played by orthodox rules) and back; it checks the layout (at 1400×1000 the line
// and the Solve box beside the board and above the fold, readable coordinates, moves in no
// proof and no book folded away, the PGN box and its export; no horizontal scroll on any
// page at 800 px wide, nor on the explorer at 390 px, whose move list then fits, proof /
// disproof column included, and whose board keeps its coordinates) and saves a screenshot of each page in OUTDIR (and in $DOCS_DIR
// too when that is set). Exits 1 with a message on the first failed check.
import { chromium } from 'playwright-core';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, outDir] = process.argv.slice(2);
if (!base || !outDir) {
  console.error('usage: node tests/browser.mjs URL OUTDIR');
  process.exit(2);
}
const rootMoves = process.env.ROOT_MOVES ?? 'e2e3 b8a6';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
mkdirSync(outDir, { recursive: true });
rmSync(join(outDir, 'failure.png'), { force: true });

function check(cond, message) {
  if (!cond) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

const userDataDir = mkdtempSync(join(tmpdir(), 'antichess-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ],
  viewport: { width: 1400, height: 1000 },
  acceptDownloads: true,
});
const page = context.pages()[0] ?? (await context.newPage());
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.on('console', (m) => {
  if (m.type() === 'error') consoleErrors.push(m.text());
});
page.setDefaultTimeout(20000);

/** Waits until the explorer shows the position after `moves` (UCI). */
async function explorerAt(moves) {
  await page.waitForFunction(
    (want) => document.body.dataset.moves === want && new URLSearchParams(location.search).get('moves') === want && document.querySelectorAll('#moves tbody tr').length > 0,
    moves,
  );
  await page.waitForLoadState('networkidle');
}

/** The centre of a square on the board (white at the bottom). */
async function squareCenter(square) {
  const box = await page.locator('cg-board').boundingBox();
  const file = square.charCodeAt(0) - 97;
  const rank = Number(square[1]) - 1;
  const size = box.width / 8;
  return { x: box.x + (file + 0.5) * size, y: box.y + (7 - rank + 0.5) * size };
}

/** Lets the board finish its animation (150 ms) before a screenshot or a look at it. */
async function settle() {
  await page.waitForTimeout(500);
}

/** Pieces on the board as "color role square" strings, sorted. */
async function boardPieces() {
  return page.evaluate(() => {
    const board = document.querySelector('cg-board');
    const size = board.getBoundingClientRect().width / 8;
    return [...board.querySelectorAll('piece')]
      .map((p) => {
        const m = /translate\(([-\d.]+)px, ([-\d.]+)px\)/.exec(p.style.transform);
        const file = Math.round(Number(m[1]) / size);
        const rank = 7 - Math.round(Number(m[2]) / size);
        return `${p.className} ${'abcdefgh'[file]}${rank + 1}`;
      })
      .sort();
  });
}

/** The same from a FEN (white at the bottom). */
function fenPieces(fen) {
  const names = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
  const out = [];
  fen.split(' ')[0].split('/').forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c);
      else {
        out.push(`${c === c.toUpperCase() ? 'white' : 'black'} ${names[c.toLowerCase()]} ${'abcdefgh'[file]}${8 - i}`);
        file += 1;
      }
    }
  });
  return out.sort();
}

/** No horizontal scroll at 800 px wide (then back to 1400×1000). */
async function noHorizontalScroll(name) {
  await page.setViewportSize({ width: 800, height: 1000 });
  await page.waitForTimeout(300);
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  if (scroll > width) await page.screenshot({ path: join(outDir, `${name}-800.png`), fullPage: true });
  check(scroll <= width, `no horizontal scroll on the ${name} page at 800 px (content ${scroll} px wide)`);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.waitForTimeout(300);
}

/** The explorer on a 390 px phone (issue 63): no sideways scroll, the move list's proof /
 *  disproof column whole inside its card (the list scrolled sideways within it), and the
 *  files' letters on the board. A screenshot in OUTDIR/explorer-390.png. */
async function phoneLayout() {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const r = await page.evaluate(() => {
    const th = [...document.querySelectorAll('#moves thead th')].find((t) => t.textContent.startsWith('Proof / disproof'));
    const box = document.querySelector('#moves').parentElement.getBoundingClientRect();
    const board = document.querySelector('cg-board').getBoundingClientRect();
    const files = [...document.querySelectorAll('.cg-wrap coords.files coord')].map((c) => c.getBoundingClientRect());
    return {
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
      column: th ? Math.round(th.getBoundingClientRect().right) : null,
      box: Math.round(box.right),
      files: files.length === 8 && files.every((b) => b.left >= board.left - 0.5 && b.right <= board.right + 0.5),
    };
  });
  await page.screenshot({ path: join(outDir, 'explorer-390.png'), fullPage: true });
  check(r.scroll <= r.width, `no horizontal scroll on the explorer at 390 px (content ${r.scroll} px wide)`);
  check(r.column !== null && r.column <= r.box, `the proof / disproof column is whole at 390 px (its right edge at ${r.column} px, the list's at ${r.box})`);
  check(r.files, "the files' letters are on the board at 390 px");
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.waitForTimeout(300);
}

/** The moves in no proof and no book where others are (what the explorer folds away). */
async function foldable(moves) {
  const url = `${base}/api/explore?moves=${encodeURIComponent(moves)}${process.env.BOOK ? `&book=${process.env.BOOK}` : ''}`;
  const data = await (await fetch(url)).json();
  const known = data.moves.filter((m) => m.proofs.some((p) => p.in_proof) || m.book !== null).length;
  return known > 0 && known < data.moves.length ? data.moves.length - known : 0;
}

/** Checks the folding of the explorer's move list at the shown position; true if it folds. */
async function checkFolding(moves) {
  const expected = await foldable(moves);
  const hidden = await page.locator('#moves tbody tr.foldable').count();
  check(hidden === expected, `${expected} moves in no proof and no book fold away at ${moves || 'the start'}`);
  if (!expected) return false;
  check((await page.locator('#moves tbody tr.foldable:visible').count()) === 0, 'the folded moves are hidden');
  await page.locator('#fold-toggle').click();
  check((await page.locator('#moves tbody tr.foldable:visible').count()) === expected, 'one click unfolds them');
  await page.locator('#fold-toggle').click();
  check((await page.locator('#moves tbody tr.foldable:visible').count()) === 0, 'and a second folds them again');
  return true;
}

async function clickSquare(square) {
  const p = await squareCenter(square);
  await page.mouse.click(p.x, p.y);
}

try {
  // --- Explorer ---------------------------------------------------------------------------
  await page.goto(`${base}/?moves=${encodeURIComponent(rootMoves)}`);
  await explorerAt(rootMoves);
  await page.locator('cg-board piece').first().waitFor();
  check((await page.locator('cg-board piece').count()) === 32, 'the board shows the 32 pieces of the root');
  const firstRows = await page.locator('#moves tbody tr').count();
  check(firstRows >= 1, `the move list shows the legal moves (${firstRows})`);
  const mainRow = page.locator('#moves tbody tr.main-line');
  check((await mainRow.count()) === 1, 'one move is highlighted as the main line of the proof');
  const mainUci = await mainRow.getAttribute('data-uci');
  const mainSan = (await mainRow.locator('td.san').innerText()).replace('★', '').trim();
  check((await page.locator('.proof-status').first().innerText()).includes('in proof'), 'the position is in the proof');
  check((await page.locator('#book-status').innerText()).includes('node'), 'the book knows the position');
  check((await mainRow.innerText()).includes('proof move'), 'the main-line move is the proof move');
  await settle();
  // Layout at 1400×1000: the line and the Solve box beside the board, above the fold.
  const boardBox = await page.locator('#board').boundingBox();
  for (const id of ['line', 'solve']) {
    const box = await page.locator(`#${id}`).boundingBox();
    check(box.x >= boardBox.x + boardBox.width && box.y + box.height <= 1000, `#${id} is beside the board and above the fold at 1400×1000 (x ${Math.round(box.x)}, bottom ${Math.round(box.y + box.height)})`);
  }
  const coords = await page.evaluate(() => {
    const c = getComputedStyle(document.querySelector('.cg-wrap coords coord'));
    return { size: parseFloat(c.fontSize), opacity: Number(getComputedStyle(document.querySelector('.cg-wrap coords')).opacity) };
  });
  check(coords.size >= 11 && coords.opacity === 1, `the coordinates are readable (${coords.size} px, opacity ${coords.opacity})`);
  let folded = await checkFolding(rootMoves);
  await page.screenshot({ path: join(outDir, 'explorer-root.png'), fullPage: true });

  // Play the proof's move by clicking it in the move list.
  await mainRow.click();
  const afterFirst = `${rootMoves} ${mainUci}`;
  await explorerAt(afterFirst);
  const lineText = await page.locator('#line').innerText();
  check(lineText.includes(mainSan), `the line shows ${mainSan} after clicking it in the list`);
  check((await page.locator('.proof-status').first().innerText()).includes('opponent'), 'the proof status follows: an opponent node');
  const replies = page.locator('#moves tbody tr');
  check((await replies.count()) >= 1, 'the replies are listed');
  check((await replies.first().innerText()).includes('answered'), 'every reply is answered in the proof');
  folded = (await checkFolding(afterFirst)) || folded;

  // Play the main-line reply by clicking on the board: from-square, then to-square.
  const reply = page.locator('#moves tbody tr.main-line');
  const replyUci = await reply.getAttribute('data-uci');
  const replySan = (await reply.locator('td.san').innerText()).replace('★', '').trim();
  await clickSquare(replyUci.slice(0, 2));
  await clickSquare(replyUci.slice(2, 4));
  const afterReply = `${afterFirst} ${replyUci}`;
  await explorerAt(afterReply);
  check((await page.locator('#line').innerText()).includes(replySan), `the line shows ${replySan} after playing it on the board`);
  check((await page.locator('.line .ply.current').innerText()).trim() === replySan, 'the current ply is the move just played');
  check((await page.locator('.line .ply.main').count()) >= 2, 'the moves on the main line are marked in the line');
  check((await page.locator('.proof-status').first().innerText()).includes('prover'), 'the proof status follows: a prover node');
  const rowsNow = await page.locator('#moves tbody tr').count();
  check(rowsNow >= 10, `the move list follows: ${rowsNow} legal moves`);
  check((await page.locator('#moves tbody tr.main-line').innerText()).includes('proof move'), 'the proof move is marked among them');
  folded = (await checkFolding(afterReply)) || folded;
  // Deeper on the proof's main line, beyond the book: the proof has one move at the
  // prover's nodes, and the others fold away.
  if (!folded) {
    const proof = (await (await fetch(`${base}/api/status`)).json()).proofs[0];
    const main = proof.main_line_uci.split(' ');
    for (let plies = 2; plies <= main.length && !folded; plies += 2) {
      const moves = `${proof.prolog_uci} ${main.slice(0, plies).join(' ')}`.trim();
      if (!(await foldable(moves))) continue;
      await page.goto(`${base}/?moves=${encodeURIComponent(moves)}`);
      await explorerAt(moves);
      folded = await checkFolding(moves);
    }
    await page.goto(`${base}/?moves=${encodeURIComponent(afterReply)}`);
    await explorerAt(afterReply);
  }
  check(folded, 'moves in no proof and no book were folded away somewhere on the line');
  // The PGN box shows the line, and exports it.
  const pgn = await page.locator('#pgn-input').inputValue();
  check(pgn.includes('[Variant "Antichess"]') && pgn.includes(mainSan) && pgn.includes(replySan) && pgn.trim().endsWith('*'), 'the PGN box shows the current line');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#pgn-export').click()]);
  const exported = readFileSync(await download.path(), 'utf8');
  check(exported === pgn && download.suggestedFilename().endsWith('.pgn'), `"Export PGN" saves the line (${download.suggestedFilename()})`);

  // Back and forward.
  await page.locator('#back').click();
  await explorerAt(afterFirst);
  check((await page.locator('.line .ply.future').count()) === 1, 'back keeps the move ahead in the line');
  await page.locator('#forward').click();
  await explorerAt(afterReply);
  check(true, 'forward returns to the move');
  // Queue the position in the book with one click from the explorer (the button is there
  // while the node is undecided: the `book grow` beside the server may have decided it).
  if ((await page.locator('#queue-position').count()) > 0) {
    await page.locator('#queue-position').click();
    await page.waitForFunction(() => document.getElementById('queue-position')?.textContent?.startsWith('Queued'));
    check(true, 'the explorer queues its position in the book with one click');
  } else {
    check(/win|loss/.test(await page.locator('#book-status').innerText()), 'the book node is decided, so there is nothing to queue');
  }
  // Solve the position on the server: a prover node of the proof, so df-pn proves it.
  await page.locator('#solve-time').fill('5');
  await page.locator('#solve-button').click();
  await page.locator('#solve-answer').waitFor({ timeout: 30000 });
  const answer = await page.locator('#solve-answer').innerText();
  check((await page.locator('#solve-answer').getAttribute('data-result')) === 'proved' && answer.includes('checked by the verifier'), `"Solve" proves the position and the verifier checks the proof (${answer.split('\n')[0]})`);
  check(answer.includes('Main line:'), 'the solve shows its main line');
  await settle();
  const shownFen = await page.locator('#fen-input').inputValue();
  check(JSON.stringify(await boardPieces()) === JSON.stringify(fenPieces(shownFen)), 'the board shows the position of the FEN');
  await page.screenshot({ path: join(outDir, 'explorer.png'), fullPage: true });
  await noHorizontalScroll('explorer');
  await phoneLayout();

  // With several books loaded the summary offers them; a choice reloads the position with
  // that book's numbers and goes into the URL, and choosing the first book again returns.
  if (process.env.GROW_BOOK) {
    const chooser = page.locator('#explorer-book');
    await chooser.waitFor();
    const names = await chooser.locator('option').allInnerTexts();
    check(names.includes(process.env.GROW_BOOK) && names.length >= 2, `the explorer offers every loaded book (${names.join(', ')})`);
    const first = await chooser.inputValue();
    for (const name of [process.env.GROW_BOOK, first]) {
      const before = await page.evaluate(() => document.body.dataset.ready);
      await chooser.selectOption(name);
      await page.waitForFunction(
        ([want, old]) =>
          document.body.dataset.ready !== old &&
          new URLSearchParams(location.search).get('book') === want &&
          document.getElementById('explorer-book')?.value === want,
        [name, before],
      );
      await explorerAt(afterReply);
      check(true, `choosing book ${name} in the explorer shows its numbers for the same position`);
    }
    check((await page.locator('#book-status').innerText()).includes('node'), 'back on the first book, it knows the position again');
  }

  // --- Search: the explorer's position in its book ---------------------------------------
  const book = process.env.BOOK ? `&book=${encodeURIComponent(process.env.BOOK)}` : '';
  await page.goto(`${base}/search?moves=${encodeURIComponent(afterFirst)}${book}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  check((await page.locator('#root-stats').innerText()).includes('disproof'), 'the search page shows the root numbers');
  check((await page.locator('#plot-root svg').count()) === 1, 'the root plot is drawn');
  check((await page.locator('#position-line').innerText()).includes(mainSan), 'the search page shows the explorer position');
  await page.locator('#queue-add').click();
  await page.waitForFunction(() => document.querySelectorAll('#queue-list li').length > 0);
  check(true, 'queueing the position shows it in the queue');
  await page.locator('#pin-set').click();
  await page.waitForFunction((san) => document.getElementById('root')?.innerText.includes(`Walk starts at: 2. ${san}`), mainSan);
  check(true, 'pinning the walk there shows the pin');
  await page.locator('#pin-clear').click();
  await page.waitForFunction(() => document.getElementById('root')?.innerText.includes('the root (no pin)'));
  check(true, 'clearing the pin shows the root again');
  // A decided node: queueing it is refused by the server (409), and disabled on the page.
  const decided = await page.evaluate(async ([book, start]) => {
    const get = async (moves) => (await fetch(`/api/books/${book}/node?moves=${encodeURIComponent(moves)}`)).json();
    const queue = [start];
    while (queue.length) {
      const moves = queue.shift();
      const d = await get(moves);
      for (const c of d.children ?? []) {
        const line = `${moves} ${c.uci}`;
        if (c.status === 'win' || c.status === 'loss') return { line, id: c.id };
        if (queue.length < 50) queue.push(line);
      }
    }
    return null;
  }, [process.env.BOOK ?? 'na6', afterFirst]);
  check(decided !== null, `the book has a decided node (${decided?.line})`);
  // (From here, not from the page: the page's console is to stay free of errors.)
  const refused = (await fetch(`${base}/api/books/${process.env.BOOK ?? 'na6'}/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: decided.id }) })).status;
  check(refused === 409, `the server refuses to queue a decided node (${refused})`);
  await page.goto(`${base}/search?moves=${encodeURIComponent(decided.line)}${book}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.getElementById('queue-add'));
  check(await page.locator('#queue-add').isDisabled(), 'so the search page disables "Queue this position" there');
  check(((await page.locator('#queue-add').getAttribute('title')) ?? '').includes('decided'), 'and says why');
  check(await page.locator('#mark-win').isDisabled(), 'marking a proven node is disabled too');
  const times = await page.locator('#recent tbody td:first-child').allInnerTexts();
  check(times.every((t) => /^\d\d:\d\d:\d\d$/.test(t) || t.startsWith('no search')), `one clock format in the recent searches (${times.slice(0, 2).join(', ')})`);
  check(/^updated \d\d:\d\d:\d\d$/.test(await page.locator('#updated').innerText()), 'and in the time of the last update');
  await noHorizontalScroll('search');

  // --- Search: a book that `book grow` grows beside the server ------------------------------
  const grown = process.env.GROW_BOOK;
  if (grown) {
    await page.goto(`${base}/search?book=${encodeURIComponent(grown)}`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    // The page refreshes every 3 s from the store: the worker of the other process shows.
    await page.waitForFunction(() => document.querySelectorAll('#workers tbody tr td.linecell').length > 0, null, { timeout: 30000 });
    check(true, 'a worker of the running `book grow` is shown with its leaf');
    const searches = async () => Number((await page.locator('#root-stats .stat:nth-child(9) .v').innerText()).replace(/,/g, ''));
    const before = await searches();
    await page.waitForTimeout(4000);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    check((await searches()) > before, `the search count follows the store (${before} → ${await searches()})`);
    check((await page.locator('#plot-root svg path').count()) >= 2, 'the root plot has its lines');
  } else {
    await page.waitForTimeout(1000);
  }
  await page.screenshot({ path: join(outDir, 'search.png'), fullPage: true });

  // --- Tablebase ------------------------------------------------------------------------------
  const fen = '8/8/8/8/8/2k5/8/KR6 w - - 0 1';
  await page.goto(`${base}/tablebase?fen=${encodeURIComponent(fen)}`);
  await page.waitForFunction(() => document.querySelectorAll('#moves tbody tr').length > 0 && document.body.dataset.ready);
  check((await page.locator('#tb-result').innerText()).match(/win|loss|draw/) !== null, 'the tablebase result is shown');
  const tbRows = await page.locator('#moves tbody tr:not(.group-head)').count();
  check(tbRows >= 5, `every move is listed (${tbRows})`);
  const groups = await page.locator('#moves tbody.group').evaluateAll((bodies) => bodies.map((b) => b.className.replace('group ', '')));
  check(JSON.stringify(groups) === JSON.stringify(['group-win', 'group-draw', 'group-loss']), `the moves are grouped into winning, drawing and losing (${groups.join(', ')})`);
  check((await page.locator('tbody.group-win tr:not(.group-head) td.san').allInnerTexts()).join() === 'Rb3', 'Rb3 is the one winning move');
  check((await page.locator('#tb-rules').innerText()).includes('international rules'), 'the page names the rule set');
  await noHorizontalScroll('tablebase');
  await page.locator('#material-input').fill('KRk');
  await page.locator('#random-button').click();
  await page.waitForFunction((old) => document.body.dataset.ready && document.body.dataset.ready !== old, fen);
  const randomFen = await page.locator('#fen-input').inputValue();
  check(randomFen !== fen, `a random position of KRk: ${randomFen}`);
  await page.locator('#moves tbody tr').first().waitFor();
  await settle();
  check(JSON.stringify(await boardPieces()) === JSON.stringify(fenPieces(randomFen)), 'the board shows the random position');
  await page.screenshot({ path: join(outDir, 'tablebase.png'), fullPage: true });

  // --- Tablebase, Lasker chess (the server has the KQk Lasker table) ------------------------
  const mateIn1 = '6k1/8/6K1/8/8/8/8/Q7 w - - 0 1';
  await page.goto(`${base}/tablebase?fen=${encodeURIComponent(mateIn1)}`);
  await page.waitForFunction((f) => document.body.dataset.ready === f, mateIn1);
  check((await page.locator('#game-select').inputValue()) === 'antichess', 'the game selector says antichess by default');
  await page.locator('#game-select').selectOption('lasker');
  await page.waitForFunction(() => document.querySelector('#tb-rules')?.textContent?.startsWith('Lasker chess'));
  check(new URL(page.url()).searchParams.get('game') === 'lasker', `the game is in the URL (${page.url()})`);
  const laskerResult = await page.locator('#tb-result').innerText();
  check(laskerResult.includes('4: White wins by mate') && laskerResult.includes('DTM 1 plies'), `the Lasker value and depth are shown (${laskerResult})`);
  check(await page.locator('#random').isHidden(), 'no random position form for Lasker chess');
  const laskerGroups = await page.locator('#moves tbody.group').evaluateAll((bodies) => bodies.map((b) => b.className.replace('group ', '')));
  check(laskerGroups[0] === 'group-mate-win', `mating moves first (${laskerGroups.join(', ')})`);
  const mates = await page.locator('tbody.group-mate-win tr:not(.group-head) td.san').allInnerTexts();
  check(mates.slice(0, 2).join() === 'Qa8#,Qg7#' && mates.length > 2, `the mates in one first, then the slower mates (${mates.join(', ')})`);
  const depthAfter = await page.locator('tbody.group-mate-win tr:not(.group-head) td.num').first().innerText();
  check(depthAfter === 'DTM 0', `the depth after a mate in one is DTM 0 (${depthAfter})`);
  await page.locator('tbody.group-mate-win tr:not(.group-head)').first().click();
  await page.waitForFunction(() => document.body.dataset.ready?.startsWith('Q5k1/'));
  const mated = await page.locator('#tb-result').innerText();
  check(mated.includes('0: Black loses by being mated') && mated.includes('DTM 0'), `the move is played by orthodox rules: Black is mated (${mated})`);
  check((await page.locator('#moves td.empty').innerText()).includes('no legal moves'), 'the mated side has no moves');
  await noHorizontalScroll('tablebase-lasker');
  await page.screenshot({ path: join(outDir, 'tablebase-lasker.png'), fullPage: true });
  await page.goBack();
  await page.waitForFunction((f) => document.body.dataset.ready === f, mateIn1);
  await page.locator('#game-select').selectOption('antichess');
  await page.waitForFunction(() => document.querySelector('#tb-rules')?.textContent?.includes('rules ('));
  check(new URL(page.url()).searchParams.get('game') === null, 'back to antichess: no game in the URL');
  check((await page.locator('#tb-result').innerText()).match(/win|loss|draw/) !== null, 'the antichess result is shown again');

  check(consoleErrors.length === 0, `no errors in the browser console${consoleErrors.length ? ': ' + consoleErrors.join('; ') : ''}`);
  console.log(`screenshots in ${outDir}`);
  if (process.env.DOCS_DIR) {
    mkdirSync(process.env.DOCS_DIR, { recursive: true });
    for (const name of ['explorer.png', 'search.png', 'tablebase.png']) copyFileSync(join(outDir, name), join(process.env.DOCS_DIR, name));
    console.log(`and in ${process.env.DOCS_DIR}`);
  }
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  try {
    await page.screenshot({ path: join(outDir, 'failure.png'), fullPage: true });
    console.error(`the page at the failure: ${join(outDir, 'failure.png')} (${page.url()})`);
  } catch {}
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
  process.exit(1);
}
await context.close();
rmSync(userDataDir, { recursive: true, force: true });
