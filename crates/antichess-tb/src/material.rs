//! Material signatures: how many pieces of each colour and role a table covers, and
//! which of them have a table under the royal rule sets ([`royal_table_ok`]).
//!
//! Text forms: our notation, uppercase for White and lowercase for Black (`KRkb`,
//! `Kkbn`), and the Syzygy/lichess form with `v` between the sides, both uppercase
//! (`KRvKB`). A "unit" is any piece, kings included. Colour-swapped signatures share one
//! table; the canonical orientation puts the stronger side (more units, then more of the
//! higher roles in the order K Q R B N P) as White.

use std::fmt;
use std::str::FromStr;

use antichess_core::{Board, Color, Piece, Position, Role, Rules, Setup, Square};

use crate::TbError;

/// Roles in the order used for names and for comparing strength: K Q R B N P.
pub const NAME_ORDER: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// Piece counts per colour and role.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Material {
    counts: [[u8; 6]; 2],
}

impl Material {
    /// The material of a board.
    #[must_use]
    #[inline]
    pub fn from_board(board: &Board) -> Material {
        let mut counts = [[0u8; 6]; 2];
        for color in Color::ALL {
            let ours = board.by_color(color);
            for role in Role::ALL {
                counts[color.index()][role.index()] = (ours & board.by_role(role)).count() as u8;
            }
        }
        Material { counts }
    }

    #[must_use]
    pub const fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color as usize][role as usize]
    }

    pub fn set_count(&mut self, color: Color, role: Role, n: u8) {
        self.counts[color.index()][role.index()] = n;
    }

    /// Units (pieces, kings included) of one colour.
    #[must_use]
    pub fn side_units(&self, color: Color) -> u32 {
        self.counts[color.index()]
            .iter()
            .map(|&n| u32::from(n))
            .sum()
    }

    /// All units.
    #[must_use]
    pub fn units(&self) -> u32 {
        self.side_units(Color::White) + self.side_units(Color::Black)
    }

    /// Pawns of both colours.
    #[must_use]
    pub fn pawns(&self) -> u32 {
        u32::from(self.count(Color::White, Role::Pawn))
            + u32::from(self.count(Color::Black, Role::Pawn))
    }

    #[must_use]
    pub fn has_pawns(&self) -> bool {
        self.pawns() > 0
    }

    /// A compact key (4 bits per colour and role); equal materials have equal keys.
    #[must_use]
    #[inline]
    pub fn key(&self) -> u64 {
        let mut key = 0u64;
        for c in 0..2 {
            for r in 0..6 {
                key |= u64::from(self.counts[c][r] & 15) << (4 * (c * 6 + r));
            }
        }
        key
    }

    /// The same material with the colours exchanged.
    #[must_use]
    pub fn swapped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    fn strength(&self, color: Color) -> (u32, [u8; 6]) {
        let mut by_name = [0u8; 6];
        for (i, role) in NAME_ORDER.iter().enumerate() {
            by_name[i] = self.count(color, *role);
        }
        (self.side_units(color), by_name)
    }

    /// Whether White is the stronger side (the canonical orientation).
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        self.strength(Color::White) >= self.strength(Color::Black)
    }

    /// Both colours have the same pieces.
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    /// The canonical orientation and whether the colours were swapped to reach it.
    #[must_use]
    pub fn canonical(&self) -> (Material, bool) {
        if self.is_canonical() {
            (*self, false)
        } else {
            (self.swapped(), true)
        }
    }

    /// A random legal position with exactly this material, by rejection sampling: pieces
    /// on random empty squares (pawns on ranks 2 to 7), `turn` or a random side to move.
    /// `below(n)` gives a random number in `0..n`, so each caller keeps its own generator.
    /// After 1,000 tries without a legal position, the last refusal.
    pub fn random_position(
        &self,
        rules: Rules,
        turn: Option<Color>,
        below: &mut dyn FnMut(u64) -> u64,
    ) -> Result<Position, antichess_core::Error> {
        let pieces: Vec<Piece> = self
            .groups()
            .flat_map(|(piece, n)| std::iter::repeat_n(piece, n as usize))
            .collect();
        let mut last_error = None;
        for _ in 0..1000 {
            let mut board = Board::empty();
            for &piece in &pieces {
                loop {
                    let index = if piece.role == Role::Pawn {
                        8 + below(48) as u32
                    } else {
                        below(64) as u32
                    };
                    let sq = Square::from_index(index);
                    if board.piece_at(sq).is_none() {
                        board.set(sq, piece);
                        break;
                    }
                }
            }
            let side = turn.unwrap_or(if below(2) == 0 {
                Color::White
            } else {
                Color::Black
            });
            match Position::from_setup(Setup::new(board, side), rules) {
                Ok(pos) => return Ok(pos),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.expect("1,000 tries were made"))
    }

    /// Pieces in index order: for each colour (White first), each role in K Q R B N P order,
    /// with its count, skipping absent roles.
    pub fn groups(&self) -> impl Iterator<Item = (Piece, u8)> + '_ {
        Color::ALL.into_iter().flat_map(move |color| {
            NAME_ORDER
                .iter()
                .filter(move |role| self.count(color, **role) > 0)
                .map(move |role| (Piece::new(color, *role), self.count(color, *role)))
        })
    }

    fn side_letters(&self, color: Color, upper: bool) -> String {
        let mut s = String::new();
        for role in NAME_ORDER {
            for _ in 0..self.count(color, role) {
                s.push(if upper {
                    role.upper_char()
                } else {
                    role.char()
                });
            }
        }
        s
    }

    /// Our notation: `KRkb`.
    #[must_use]
    pub fn name(&self) -> String {
        format!(
            "{}{}",
            self.side_letters(Color::White, true),
            self.side_letters(Color::Black, false)
        )
    }

    /// Syzygy/lichess notation: `KRvKB`. Used for file names (unique ignoring case).
    #[must_use]
    pub fn syzygy_name(&self) -> String {
        format!(
            "{}v{}",
            self.side_letters(Color::White, true),
            self.side_letters(Color::Black, true)
        )
    }

    /// Materials one capture or one promotion away (by either side), in any orientation,
    /// excluding those where a side has no units left (those positions are decided
    /// without a table).
    #[must_use]
    pub fn successors(&self, promotions: &[Role]) -> Vec<Material> {
        let mut out = Vec::new();
        for mover in Color::ALL {
            let victim = mover.other();
            for role in Role::ALL {
                // Plain capture of a `role`.
                if self.count(victim, role) == 0 {
                    continue;
                }
                let mut after = *self;
                after.counts[victim.index()][role.index()] -= 1;
                out.push(after);
                // Capture by a pawn that promotes.
                if self.count(mover, Role::Pawn) > 0 {
                    for promo in promotions {
                        let mut after = after;
                        after.counts[mover.index()][Role::Pawn.index()] -= 1;
                        after.counts[mover.index()][promo.index()] += 1;
                        out.push(after);
                    }
                }
            }
            if self.count(mover, Role::Pawn) > 0 {
                for promo in promotions {
                    let mut after = *self;
                    after.counts[mover.index()][Role::Pawn.index()] -= 1;
                    after.counts[mover.index()][promo.index()] += 1;
                    out.push(after);
                }
            }
        }
        out.retain(|m| m.side_units(Color::White) > 0 && m.side_units(Color::Black) > 0);
        out.sort();
        out.dedup();
        out
    }

    /// Every canonical material with 2 to `max_units` units (both sides at least one),
    /// ordered so that each comes after the materials it depends on: by units, then by
    /// pawns, then by name.
    #[must_use]
    pub fn all_up_to(max_units: u32) -> Vec<Material> {
        let mut out = Vec::new();
        for total in 2..=max_units {
            for white_units in 1..total {
                for white in multisets(white_units) {
                    for black in multisets(total - white_units) {
                        let m = Material {
                            counts: [white, black],
                        };
                        if m.is_canonical() {
                            out.push(m);
                        }
                    }
                }
            }
        }
        sort_for_building(&mut out);
        out
    }
}

/// Sorts materials so that dependencies (fewer units, or as many units and fewer pawns)
/// come first.
pub fn sort_for_building(materials: &mut [Material]) {
    materials.sort_by_key(|m| (m.units(), m.pawns(), m.name()));
}

/// Whether `material` has a table under a royal rule set: exactly one king per side and
/// at least one other man per side (a bare king decides the game by the rule).
#[must_use]
pub fn royal_table_ok(material: &Material) -> bool {
    Color::ALL
        .iter()
        .all(|&c| material.count(c, Role::King) == 1 && material.side_units(c) > 1)
}

/// All role-count arrays with `n` units in total.
fn multisets(n: u32) -> Vec<[u8; 6]> {
    let mut out = Vec::new();
    let mut counts = [0u8; 6];
    fn rec(role: usize, left: u32, counts: &mut [u8; 6], out: &mut Vec<[u8; 6]>) {
        if role == 5 {
            counts[5] = left as u8;
            out.push(*counts);
            return;
        }
        for k in 0..=left {
            counts[role] = k as u8;
            rec(role + 1, left - k, counts, out);
        }
        counts[role] = 0;
    }
    rec(0, n, &mut counts, &mut out);
    out
}

impl FromStr for Material {
    type Err = TbError;

    /// Parses `KRkb` or `KRvKB` (the latter case-insensitively).
    fn from_str(s: &str) -> Result<Material, TbError> {
        let err = |reason: String| TbError::Signature {
            text: s.to_string(),
            reason,
        };
        let mut m = Material::default();
        let mut add = |c: char, color: Color| -> Result<(), TbError> {
            let role = Role::from_char(c)
                .ok_or_else(|| err(format!("'{c}' is not a piece letter (K Q R B N P)")))?;
            let n = &mut m.counts[color.index()][role.index()];
            if *n >= 15 {
                return Err(err("too many pieces of one kind".to_string()));
            }
            *n += 1;
            Ok(())
        };
        let trimmed = s.trim();
        if let Some((white, black)) = trimmed.split_once(['v', 'V']) {
            for c in white.chars() {
                add(c, Color::White)?;
            }
            for c in black.chars() {
                add(c, Color::Black)?;
            }
        } else {
            for c in trimmed.chars() {
                if c.is_ascii_uppercase() {
                    add(c, Color::White)?;
                } else {
                    add(c, Color::Black)?;
                }
            }
        }
        for color in Color::ALL {
            if m.side_units(color) == 0 {
                return Err(err(format!(
                    "{color} has no pieces (write White uppercase and Black lowercase, as in KRkb, or use KRvKB)"
                )));
            }
            if m.count(color, Role::Pawn) > 8 || m.side_units(color) > 16 {
                return Err(err(format!("{color} has more pieces than a game allows")));
            }
        }
        Ok(m)
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Material({})", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_notations() {
        let a: Material = "KRkb".parse().unwrap();
        let b: Material = "KRvKB".parse().unwrap();
        let c: Material = "krvkb".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.name(), "KRkb");
        assert_eq!(a.syzygy_name(), "KRvKB");
        assert_eq!("RKbk".parse::<Material>().unwrap(), a);
        assert!("KRx"
            .parse::<Material>()
            .unwrap_err()
            .to_string()
            .contains("'x'"));
        assert!("KR"
            .parse::<Material>()
            .unwrap_err()
            .to_string()
            .contains("black has no pieces"));
    }

    #[test]
    fn canonical_orientation() {
        let m: Material = "Kkrb".parse().unwrap();
        let (c, swapped) = m.canonical();
        assert!(swapped);
        assert_eq!(c.name(), "KRBk");
        assert!("KBkb".parse::<Material>().unwrap().is_canonical());
        assert!("KBkn".parse::<Material>().unwrap().is_canonical());
        assert!(!"KNkb".parse::<Material>().unwrap().is_canonical());
    }

    #[test]
    fn counts_of_all_materials() {
        // 1v1: 21 unordered pairs; 2v1: 21 * 6; 3v1: 56 * 6; 2v2: 21 * 22 / 2.
        assert_eq!(Material::all_up_to(2).len(), 21);
        assert_eq!(Material::all_up_to(3).len(), 21 + 126);
        assert_eq!(Material::all_up_to(4).len(), 21 + 126 + 336 + 231);
    }

    #[test]
    fn successors_capture_and_promote() {
        let m: Material = "KPk".parse().unwrap();
        let names: Vec<String> = m
            .successors(&Role::PROMOTIONS)
            .iter()
            .map(Material::name)
            .collect();
        // White captures the king -> black has nothing (excluded); black king takes K or P.
        assert!(names.contains(&"Pk".to_string()));
        assert!(names.contains(&"Kk".to_string()));
        assert!(names.contains(&"KQk".to_string()));
        assert!(names.contains(&"KKk".to_string()));
        assert_eq!(names.len(), 7);
    }
}
