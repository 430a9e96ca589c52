//! Deterministic random positions for the tests: positions along random playouts from the
//! start (which in this game reach promotions, en passant and near-empty boards), random
//! sparse placements (few units, random side to move, en passant set-ups) that reach
//! stalemates and dead draws far more often than play does, and random placements of a
//! given material (for comparisons with tablebases). The same seed gives the same positions.

use antichess_core::{Board, Color, Piece, Position, Role, Rules, Setup, Square};

/// xorshift64*: small, deterministic, good enough for test data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; the state is never zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0; slightly biased towards small values, which test
    /// data does not mind).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Every position along random playouts from the start until `count` positions are
/// collected. Each playout ends when the game is over or after 300 plies.
pub fn playout_positions(seed: u64, count: usize, rules: Rules) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = Position::start(rules);
        for _ in 0..300 {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() || out.len() >= count {
                break;
            }
            pos.play_mut(moves[rng.below(moves.len())]);
        }
    }
    out
}

/// Random valid positions with 2 to 8 units, a random side to move, and in about a third
/// of them an en passant square that a pawn has just passed.
pub fn sparse_positions(seed: u64, count: usize, rules: Rules) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut board = Board::empty();
        let units = 2 + rng.below(7);
        let turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut ep = None;
        if rng.below(3) == 0 {
            // A pawn of the side not to move has just advanced two squares.
            let them = turn.other();
            let file = rng.below(8) as u8;
            let (to_rank, passed_rank) = if them == Color::White { (3, 2) } else { (4, 5) };
            board.set(
                Square::from_coords(file, to_rank),
                Piece::new(them, Role::Pawn),
            );
            // One capturing pawn beside it, or (half of the time) one on each side.
            let both = rng.below(2) == 0;
            for side in [-1i32, 1] {
                let f = file as i32 + side;
                if (0..8).contains(&f)
                    && (both || (side == 1) == (rng.below(2) == 0) || f == 0 || f == 7)
                {
                    board.set(
                        Square::from_coords(f as u8, to_rank),
                        Piece::new(turn, Role::Pawn),
                    );
                }
            }
            ep = Some(Square::from_coords(file, passed_rank));
        }
        while (board.occupied().count() as usize) < units {
            let sq = Square::new(rng.below(64) as u32).unwrap();
            if board.occupied().contains(sq) {
                continue;
            }
            let role = Role::ALL[rng.below(6)];
            if role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
                continue;
            }
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            board.set(sq, Piece::new(color, role));
        }
        let mut setup = Setup::new(board, turn);
        setup.ep_square = ep;
        if let Ok(pos) = Position::from_setup(setup, rules) {
            out.push(pos);
        }
    }
    out
}

/// A random placement of `pieces` (each piece with its count; pawns never on the first or
/// last rank) with `turn` to move and at least one legal move, drawn with the xorshift64
/// generator whose state is `seed` (which it advances). Units may stand in check of each
/// other: there is no check in this game.
pub fn random_placement(
    pieces: &[(Piece, u8)],
    turn: Color,
    rules: Rules,
    seed: &mut u64,
) -> Position {
    loop {
        let mut board = Board::empty();
        for &(piece, count) in pieces {
            let mut placed = 0;
            while placed < count {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                let sq = Square::new((*seed % 64) as u32).unwrap();
                if board.occupied().contains(sq)
                    || (piece.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7))
                {
                    continue;
                }
                board.put_unchecked(sq, piece);
                placed += 1;
            }
        }
        let pos = Position::from_board_unchecked(board, turn, rules);
        if pos.count_moves() > 0 {
            return pos;
        }
    }
}
