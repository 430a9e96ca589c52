// The board: lichess's chessground, with the legal moves the API lists (so the board only
// allows those) and a chooser for promotions (a pawn may also promote to a king here).
import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { DrawShape } from '@lichess-org/chessground/draw';
import '@lichess-org/chessground/assets/chessground.base.css';
import '@lichess-org/chessground/assets/chessground.brown.css';
import '@lichess-org/chessground/assets/chessground.cburnett.css';
import { el } from './common';

type Key = any;

export interface BoardPosition {
  fen: string;
  turn: 'white' | 'black';
  /** Legal moves in UCI. */
  moves: string[];
  lastMove?: string;
  /** Arrows, e.g. the proof's move. */
  arrows?: { uci: string; brush: 'green' | 'blue' | 'paleGrey' | 'red' }[];
}

const PROMOTION_NAMES: Record<string, string> = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', k: 'King' };

export class Board {
  readonly api: Api;
  private moves: string[] = [];
  private chooser: HTMLElement;

  constructor(
    private wrap: HTMLElement,
    private onMove: (uci: string) => void,
  ) {
    const boardEl = el('div', { class: 'cg-board-wrap' });
    this.chooser = el('div', { class: 'promotion', hidden: true });
    wrap.append(boardEl, this.chooser);
    this.api = Chessground(boardEl, {
      coordinates: true,
      autoCastle: false,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: false },
      movable: {
        free: false,
        showDests: true,
        events: { after: (orig: Key, dest: Key) => this.played(orig, dest) },
      },
      premovable: { enabled: false },
      drawable: { enabled: true },
    });
  }

  set(p: BoardPosition, orientation: 'white' | 'black'): void {
    this.moves = p.moves;
    this.chooser.hidden = true;
    const dests = new Map<Key, Key[]>();
    for (const uci of p.moves) {
      const from = uci.slice(0, 2);
      const to = uci.slice(2, 4);
      const list = dests.get(from) ?? [];
      if (!list.includes(to)) list.push(to);
      dests.set(from, list);
    }
    this.api.set({
      fen: p.fen.split(' ')[0],
      orientation,
      turnColor: p.turn,
      lastMove: p.lastMove ? ([p.lastMove.slice(0, 2), p.lastMove.slice(2, 4)] as Key[]) : undefined,
      movable: { color: p.moves.length ? p.turn : undefined, dests },
    });
    const shapes: DrawShape[] = (p.arrows ?? []).map((a) => ({
      orig: a.uci.slice(0, 2) as Key,
      dest: a.uci.slice(2, 4) as Key,
      brush: a.brush,
    }));
    this.api.setAutoShapes(shapes);
  }

  private played(orig: string, dest: string): void {
    const candidates = this.moves.filter((m) => m.startsWith(orig + dest));
    if (candidates.length <= 1) {
      this.onMove(candidates[0] ?? orig + dest);
      return;
    }
    // A promotion: let the player choose the piece.
    this.chooser.replaceChildren(
      el('div', { class: 'promotion-title' }, 'Promote to'),
      ...candidates.map((uci) => {
        const b = el('button', { type: 'button', 'data-uci': uci }, PROMOTION_NAMES[uci[4]] ?? uci[4]);
        b.addEventListener('click', () => {
          this.chooser.hidden = true;
          this.onMove(uci);
        });
        return b;
      }),
    );
    this.chooser.hidden = false;
  }
}
