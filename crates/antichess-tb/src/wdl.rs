//! Game-theoretic values stored in tables: win / draw / loss for the side to move, and the
//! distance to conversion.
//!
//! DTC counts plies (half-moves) from the position to the next conversion — a capture or a
//! promotion, which leaves the table — or to the end of the game, with the winning side
//! converting as soon as it can and the losing side as late as it can. A position where
//! the side to move must capture has DTC 1; a position without legal moves has DTC 0.

use std::fmt;
use std::ops::Neg;

/// Win, draw or loss for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Wdl {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl Wdl {
    /// `"win"`, `"draw"` or `"loss"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }

    /// The 2-bit code stored in table files (0 loss, 1 draw, 2 win).
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }

    #[must_use]
    pub const fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Loss),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            _ => None,
        }
    }

    /// The value for the side to move from an outcome.
    #[must_use]
    pub fn from_outcome(outcome: antichess_core::Outcome, turn: antichess_core::Color) -> Wdl {
        match outcome.winner() {
            Some(winner) if winner == turn => Wdl::Win,
            Some(_) => Wdl::Loss,
            None => Wdl::Draw,
        }
    }
}

impl Neg for Wdl {
    type Output = Wdl;
    /// The value for the other side.
    fn neg(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value with its distance to conversion (`dtc` is 0 for draws).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value {
    pub wdl: Wdl,
    /// Plies to conversion (see the module documentation); 0 when drawn.
    pub dtc: u16,
}

impl Value {
    /// The DTC if the position is decided.
    #[must_use]
    pub fn dtc(self) -> Option<u16> {
        (self.wdl != Wdl::Draw).then_some(self.dtc)
    }
}
