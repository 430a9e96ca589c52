//! Attack tables: knight, king and pawn attacks as const arrays, sliding attacks by "fancy"
//! magic bitboards whose lookup table is computed at compile time.
//!
//! Every table has a slow reference (`*_reference`, ray walking) and an exhaustive test that
//! the fast lookup agrees with it for every square and every relevant occupancy.

use crate::{Bitboard, Color, Square};

const KNIGHT_DELTAS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

/// Squares reached by single steps `deltas` (file, rank) from `sq`.
const fn step_attacks(sq: usize, deltas: &[(i32, i32)]) -> u64 {
    let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut bb = 0u64;
    let mut i = 0;
    while i < deltas.len() {
        let (f, r) = (file + deltas[i].0, rank + deltas[i].1);
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            bb |= 1 << (r * 8 + f);
        }
        i += 1;
    }
    bb
}

/// Sliding attacks along `dirs` from `sq`, stopping at (and including) occupied squares.
const fn slide(sq: usize, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
    let mut bb = 0u64;
    let mut i = 0;
    while i < dirs.len() {
        let (df, dr) = dirs[i];
        let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let bit = 1u64 << (r * 8 + f);
            bb |= bit;
            if occupied & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        i += 1;
    }
    bb
}

/// The relevant occupancy mask: the slide on an empty board without the last square of each
/// ray (a piece there cannot block anything further).
const fn relevant_mask(sq: usize, dirs: &[(i32, i32)]) -> u64 {
    let mut bb = 0u64;
    let mut i = 0;
    while i < dirs.len() {
        let (df, dr) = dirs[i];
        let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            bb |= 1 << (r * 8 + f);
            f += df;
            r += dr;
        }
        i += 1;
    }
    bb
}

const fn step_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = step_attacks(sq, deltas);
        sq += 1;
    }
    table
}

const KNIGHT_ATTACKS: [u64; 64] = step_table(&KNIGHT_DELTAS);
const KING_ATTACKS: [u64; 64] = step_table(&KING_DELTAS);
const PAWN_ATTACKS: [[u64; 64]; 2] = [
    step_table(&[(-1, 1), (1, 1)]),
    step_table(&[(-1, -1), (1, -1)]),
];

#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010, 0x00c0002001401000, 0x2100110008402002, 0x0880080081041000,
    0x0200020020041008, 0x2300040008010012, 0x0c00283004008201, 0x0180010000407a80,
    0x0168800080400020, 0x0010400040201000, 0x1001002001001048, 0x1001002408100100,
    0x0801000408010012, 0x4001000209000400, 0x08a20004c8020001, 0x2002801145002280,
    0x0080860021004200, 0x001000c009402002, 0x00b0002004002800, 0x100a808010020800,
    0x8101010008000410, 0x0244008002000480, 0x0000040010810208, 0x2000020000448534,
    0x4104400480008033, 0x0000810100204000, 0x0440430900200010, 0x4600240900100100,
    0x0060080080040080, 0x0001000300080400, 0x0004084400011002, 0x0023040200008041,
    0x0580050043002080, 0x0400804002802008, 0x0001002001004010, 0x1000200901001000,
    0x4410800801800c00, 0xa012003806001004, 0x0020100104008802, 0x0004808402000041,
    0x0010400170898000, 0x0080500020004004, 0x1040408012020020, 0x8010040008004040,
    0x2001080100110004, 0x0000020004008080, 0x0021010810040002, 0x0800008c43020024,
    0x0000800021005100, 0x0070201040008080, 0x0000d04282006a00, 0x0010014400080240,
    0x0001080110050100, 0x0012000810240600, 0x0402000801040200, 0x028100108a004100,
    0x0050800300102045, 0x8208210040120882, 0x8010600101183441, 0x020b000910006045,
    0x0241001002480005, 0x0081000400880241, 0x0000009008024124, 0x0048122980410402,
];

#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013, 0x8010a40085821200, 0x0008008430840822, 0x0808048108040000,
    0x1304042100008104, 0x5001012010204023, 0x81048801b8200420, 0x200a008084012000,
    0x0040102001042084, 0x840a505042428020, 0x0000700102202920, 0x44101c0c10800002,
    0x0040040422000000, 0x0180020802090202, 0x4020020811041202, 0x000104308c042000,
    0x4140661002424400, 0x0028012008010460, 0x0188062102002a00, 0x0014004840102008,
    0x0105000290400002, 0x8001022200410400, 0x104a041918013446, 0x008a000082008238,
    0x04a0060008100430, 0x0008220008820801, 0x2508041208005010, 0x4008080200202020,
    0x2441001013004000, 0x0030008060407000, 0x4008108000420800, 0x0012021050290100,
    0x0210080482200500, 0xcc01112048100480, 0x0020402806500440, 0x00048e0080580080,
    0x0040102020020080, 0x0028010440080807, 0x4601041108008800, 0x8040810e04104200,
    0x901210110400088a, 0xa003080212081050, 0x00c1004048401004, 0x900000a014400800,
    0x0008021040405401, 0x4020008206002090, 0x0004190424030100, 0x0424008a02026250,
    0x8004088250900040, 0x1c00430088a04200, 0x0001020094040001, 0x8040210020880061,
    0x2010040450442032, 0x0800840850044001, 0x0004040802140004, 0x0004080a04222020,
    0x8088802110022000, 0x1081a10416114400, 0x0205010a24060820, 0x0000000720411080,
    0x1008000208430400, 0x580c026028810840, 0x802020441020a110, 0x12c0022401020018,
];

/// One square's magic: `table[offset + ((occupied & mask) * magic) >> shift]`.
#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: u32,
}

/// Magic descriptors for both sliders; the bishop entries follow the rook entries in the
/// shared table. Returns the descriptors and the total table size.
const fn build_magics() -> ([Magic; 64], [Magic; 64], usize) {
    let empty = Magic {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    };
    let mut rook = [empty; 64];
    let mut bishop = [empty; 64];
    let mut offset = 0usize;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, &ROOK_DIRS);
        let bits = mask.count_ones();
        rook[sq] = Magic {
            mask,
            magic: ROOK_MAGICS[sq],
            shift: 64 - bits,
            offset: offset as u32,
        };
        offset += 1 << bits;
        sq += 1;
    }
    sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, &BISHOP_DIRS);
        let bits = mask.count_ones();
        bishop[sq] = Magic {
            mask,
            magic: BISHOP_MAGICS[sq],
            shift: 64 - bits,
            offset: offset as u32,
        };
        offset += 1 << bits;
        sq += 1;
    }
    (rook, bishop, offset)
}

const MAGICS: ([Magic; 64], [Magic; 64], usize) = build_magics();
const ROOK_MAGIC: [Magic; 64] = MAGICS.0;
const BISHOP_MAGIC: [Magic; 64] = MAGICS.1;
const SLIDER_TABLE_SIZE: usize = MAGICS.2;

const fn fill_table(
    table: &mut [u64; SLIDER_TABLE_SIZE],
    magics: &[Magic; 64],
    dirs: &[(i32, i32)],
) {
    let mut sq = 0;
    while sq < 64 {
        let m = magics[sq];
        // Carry-rippler over all subsets of the mask.
        let mut subset = 0u64;
        loop {
            let index = m.offset as usize + (subset.wrapping_mul(m.magic) >> m.shift) as usize;
            table[index] = slide(sq, subset, dirs);
            subset = subset.wrapping_sub(m.mask) & m.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
}

const fn build_slider_table() -> [u64; SLIDER_TABLE_SIZE] {
    let mut table = [0u64; SLIDER_TABLE_SIZE];
    fill_table(&mut table, &ROOK_MAGIC, &ROOK_DIRS);
    fill_table(&mut table, &BISHOP_MAGIC, &BISHOP_DIRS);
    table
}

/// Rook attacks of all squares followed by bishop attacks (about 860 KB).
#[allow(long_running_const_eval)]
static SLIDER_TABLE: [u64; SLIDER_TABLE_SIZE] = build_slider_table();

#[inline(always)]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let index =
        m.offset as usize + ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    Bitboard(SLIDER_TABLE[index])
}

/// Knight attacks from `sq`.
#[must_use]
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[sq.index()])
}

/// King attacks from `sq`.
#[must_use]
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (diagonally forward).
#[must_use]
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKS[color.index()][sq.index()])
}

/// Rook attacks from `sq` given the occupied squares.
#[must_use]
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGIC[sq.index()], occupied)
}

/// Bishop attacks from `sq` given the occupied squares.
#[must_use]
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGIC[sq.index()], occupied)
}

/// Queen attacks from `sq` given the occupied squares.
#[must_use]
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Attacks of a piece of `role` and `color` on `sq` (for pawns: the capture squares).
#[must_use]
#[inline]
pub fn attacks(color: Color, role: crate::Role, sq: Square, occupied: Bitboard) -> Bitboard {
    use crate::Role;
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// Slow reference: rook attacks by walking rays.
#[must_use]
pub fn rook_attacks_reference(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(slide(sq.index(), occupied.0, &ROOK_DIRS))
}

/// Slow reference: bishop attacks by walking rays.
#[must_use]
pub fn bishop_attacks_reference(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(slide(sq.index(), occupied.0, &BISHOP_DIRS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliding_attacks_exhaustive() {
        for sq in Square::all() {
            for (mask, fast, slow) in [
                (
                    relevant_mask(sq.index(), &ROOK_DIRS),
                    rook_attacks as fn(Square, Bitboard) -> Bitboard,
                    rook_attacks_reference as fn(Square, Bitboard) -> Bitboard,
                ),
                (
                    relevant_mask(sq.index(), &BISHOP_DIRS),
                    bishop_attacks,
                    bishop_attacks_reference,
                ),
            ] {
                for subset in Bitboard(mask).subsets() {
                    // Squares outside the mask must not change the answer.
                    let noisy = subset | Bitboard(!mask & 0x8100_0000_0000_0081);
                    assert_eq!(fast(sq, subset), slow(sq, subset), "{sq} {subset:?}");
                    assert_eq!(fast(sq, noisy), slow(sq, noisy), "{sq} {noisy:?}");
                }
            }
        }
    }

    #[test]
    fn leaper_tables() {
        assert_eq!(
            knight_attacks(Square::A1),
            Bitboard::from_iter([Square::B3, Square::C2])
        );
        assert_eq!(king_attacks(Square::H8).count(), 3);
        assert_eq!(
            pawn_attacks(Color::White, Square::E4),
            Bitboard::from_iter([Square::D5, Square::F5])
        );
        assert_eq!(
            pawn_attacks(Color::Black, Square::A5),
            Bitboard::from_square(Square::B4)
        );
        assert_eq!(pawn_attacks(Color::White, Square::H8), Bitboard::EMPTY);
    }
}
