//! Lasker chess tables: orthodox chess endgames (both kings always present, no castling)
//! where stalemating the opponent is a lesser win (Müller and Haworth, ICGA Journal 41(4),
//! 2020). Every legal position has one of five values for the side to move — 4 wins by
//! mate, 3 wins by stalemating, 2 draw, 1 loses by being stalemated, 0 loses by being
//! mated — and a depth in plies: to mate (DTM) for 4 and 0, to stalemate (DTS) for 3 and
//! 1, the winner reaching its goal as fast as it can and the loser delaying it.
//!
//! The tables share the material signatures, the position index with its symmetries and
//! the build order of the antichess tables; their generator ([`generate`]) is a separate
//! retrograde engine (docs/research/lasker-engine.md says why), their files have their own
//! format (docs/formats/lasker-table.md, extension `.lctb`) and their probing
//! ([`LaskerTablebase`]) its own rules (orthodox, from `antichess_core::orthodox`).
//!
//! Positions in which the side not to move is in check are illegal: not values, not
//! counted. Positions in which the side to move can capture en passant are not stored:
//! probing resolves them through their moves, and generation treats them as positions of
//! their own ([`generate`] documents how).

mod build;
mod ep;
mod format;
mod generate;
mod probe;
mod stats;

pub use build::{
    lasker_build, lasker_dependencies, lasker_memory_estimate, LaskerBuildEvent, LaskerBuildReport,
    LASKER_GEN_BYTES_PER_POSITION,
};
pub use format::{LaskerTableData, LASKER_EXTENSION, LASKER_VERSION};
pub use generate::{lasker_generate, LaskerGenStats};
pub use probe::{LaskerMoveValue, LaskerTable, LaskerTablebase};
pub use stats::{
    ep_positions_of, lasker_side_stats, lasker_stats, stalemate_line, unique_images, LaskerDeepest,
    LaskerSideStats, LaskerStats, LineMove,
};

use std::fmt;

/// A Lasker value for the side to move: `value` 0–4 and the depth in plies (0 for draws).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaskerValue {
    /// 4 wins by mate, 3 wins by stalemate, 2 draw, 1 loses by being stalemated, 0 mated.
    pub value: u8,
    /// DTM (values 4 and 0) or DTS (values 3 and 1) in plies; 0 for a draw.
    pub depth: u16,
}

/// Stored code of a non-position (illegal, or an unused duplicate index of a symmetric
/// position).
pub(crate) const CODE_NONE: u16 = 0xf000;

impl LaskerValue {
    pub const DRAW: LaskerValue = LaskerValue { value: 2, depth: 0 };
    /// The side to move is mated.
    pub const MATED: LaskerValue = LaskerValue { value: 0, depth: 0 };
    /// The side to move is stalemated.
    pub const STALEMATED: LaskerValue = LaskerValue { value: 1, depth: 0 };

    /// The value of a move for the player making it, given the value of the position after
    /// it (for the opponent).
    #[must_use]
    #[inline]
    pub fn for_mover(after: LaskerValue) -> LaskerValue {
        if after.value == 2 {
            LaskerValue::DRAW
        } else {
            LaskerValue {
                value: 4 - after.value,
                depth: after.depth + 1,
            }
        }
    }

    /// Sort key: larger is better for the side to move (mate before stalemate before draw;
    /// a faster win, a slower loss).
    #[must_use]
    #[inline]
    pub fn key(self) -> i32 {
        let d = i32::from(self.depth);
        match self.value {
            4 => 50_000 - d,
            3 => 30_000 - d,
            2 => 20_000,
            1 => 10_000 + d,
            _ => d,
        }
    }

    /// The stored 16-bit code: value in the top 4 bits, depth below.
    #[must_use]
    #[inline]
    pub(crate) fn code(self) -> u16 {
        u16::from(self.value) << 12 | self.depth
    }

    /// The value of a stored code; `None` for [`CODE_NONE`] or an invalid value.
    #[must_use]
    #[inline]
    pub(crate) fn from_code(code: u16) -> Option<LaskerValue> {
        let value = (code >> 12) as u8;
        (value <= 4).then_some(LaskerValue {
            value,
            depth: code & 0x0fff,
        })
    }

    /// `"mate-win"`, `"stalemate-win"`, `"draw"`, `"stalemate-loss"`, `"mate-loss"`.
    #[must_use]
    pub const fn category(self) -> &'static str {
        match self.value {
            4 => "mate-win",
            3 => "stalemate-win",
            2 => "draw",
            1 => "stalemate-loss",
            _ => "mate-loss",
        }
    }

    /// `"dtm"` for values 4 and 0, `"dts"` for 3 and 1, `None` for a draw.
    #[must_use]
    pub const fn metric(self) -> Option<&'static str> {
        match self.value {
            4 | 0 => Some("dtm"),
            3 | 1 => Some("dts"),
            _ => None,
        }
    }
}

impl fmt::Display for LaskerValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            4 => write!(f, "4 (wins by mate, DTM {})", self.depth),
            3 => write!(f, "3 (wins by stalemate, DTS {})", self.depth),
            2 => write!(f, "2 (draw)"),
            1 => write!(f, "1 (loses by being stalemated, DTS {})", self.depth),
            _ => write!(f, "0 (loses by being mated, DTM {})", self.depth),
        }
    }
}

/// Whether `material` has a Lasker table: both kings exactly once, more than the kings.
#[must_use]
pub fn lasker_material_ok(material: &crate::Material) -> bool {
    use antichess_core::{Color, Role};
    material.count(Color::White, Role::King) == 1
        && material.count(Color::Black, Role::King) == 1
        && material.units() > 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_negation() {
        let v = |value, depth| LaskerValue { value, depth };
        assert!(v(4, 9).key() > v(4, 11).key());
        assert!(v(4, 99).key() > v(3, 1).key());
        assert!(v(3, 99).key() > v(2, 0).key());
        assert!(v(1, 5).key() > v(1, 3).key());
        assert!(v(1, 0).key() > v(0, 99).key());
        assert_eq!(LaskerValue::for_mover(LaskerValue::MATED), v(4, 1));
        assert_eq!(LaskerValue::for_mover(v(3, 4)), v(1, 5));
        assert_eq!(LaskerValue::for_mover(LaskerValue::DRAW), LaskerValue::DRAW);
        assert_eq!(LaskerValue::from_code(v(3, 42).code()), Some(v(3, 42)));
        assert_eq!(LaskerValue::from_code(CODE_NONE), None);
    }
}
