//! A WDL generator for materials with pawns that works one *pawn slice* at a time: the
//! prototype of docs/research/tb-6unit.md, for 6-unit tables whose whole index does not
//! fit in memory at the generator's 2.125 bytes per position.
//!
//! A pawn move is irreversible and every pawn move that stays in the material (a push,
//! a double step) makes the pawn configuration strictly more advanced; captures and
//! promotions leave the material. So a material's positions split into slices, one per
//! configuration of the pawns (White's pawn squares, Black's pawn squares), and a slice
//! depends only on itself (moves of the other units), on slices more advanced
//! ([`layout`]'s advancement: they are solved first, most advanced first) and on other
//! materials' tables (read through [`Tablebase`], exact or, for a bound table, bound for
//! the table's colour). Slices of one advancement are independent and solved in parallel.
//!
//! The rules are the whole-index generator's ([`crate::generate`]): captures compulsory,
//! a side without moves scored by the rule set; positions with an en passant capture
//! available are not stored: a double step that allows one is read through the tables
//! like a capture (the opponent must capture, and every capture leaves the material). A
//! bound table for colour `c` ([`TableKind::Bound`]) reads a material without a table as
//! the result worst for `c`, as [`crate::generate_kind`] does, so `c`'s wins are wins.
//!
//! **What it keeps**: the finished slices, two bits per position (the WDL the table file
//! holds), in a store with room for every configuration and placement of the material
//! ([`layout::SliceLayout`]: both mirror images of a configuration, placements with two
//! units on a square; the unused room is never written, but a page holds many slices, so
//! it is resident); and per thread one slice's working state (a byte of value, a flag, an
//! offset and its internal moves' targets per position). The store is what a slice
//! generator would write to disk; the working state is the memory that must be fast.
//!
//! Only WDL: no DTC, no file is written. The result is read through [`SliceTable`] and
//! compared with the whole-index generator's tables by [`SliceTable::compare`].
//! Antichess rules only (not the royal-king rule sets).

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use antichess_core::{Board, Color, Position, Rules};
use rayon::prelude::*;

use crate::format::TableKind;
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use crate::zeroed::ZeroedArray;
use crate::TbError;

mod layout;
mod slice;

use layout::{advancement, SliceLayout};
use slice::{load, Scratch, SliceCounts, SliceGen};

/// Progress of a slice generation.
#[derive(Debug, Clone, Copy)]
pub enum SliceEvent {
    /// The slices of one advancement are solved.
    Level {
        advancement: u32,
        slices: u64,
        positions: u64,
        seconds: f64,
    },
}

/// What a slice generation did.
#[derive(Debug, Clone, Default)]
pub struct SliceReport {
    /// Slices solved (pawn configurations without a shared square, one of each mirror pair).
    pub slices: u64,
    /// Positions solved (both sides to move; no two units on a square).
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Positions of the largest slice.
    pub largest_slice: u64,
    /// Positions a slice's working state has room for (both sides, every placement).
    pub slice_room: u64,
    /// Advancement levels (the longest chain of pawn moves, plus one).
    pub levels: u32,
    /// The most sweeps one slice's internal fixpoint took.
    pub max_sweeps: u32,
    /// Bytes of the store of finished slices (two bits per position of its room).
    pub store_bytes: u64,
    pub seconds: f64,
}

/// The WDL of every position of a pawn material, as the slice generator left it.
#[derive(Debug)]
pub struct SliceTable {
    material: Material,
    rules: Rules,
    kind: TableKind,
    layout: SliceLayout,
    store: ZeroedArray<AtomicU64>,
}

/// How [`generate_slices`] runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct SliceOptions {
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Solve only this many advancement levels, the most advanced first (to measure the
    /// slices of a material too large to finish); the table is then incomplete: only
    /// [`SliceReport`]'s figures mean something.
    pub levels: Option<u32>,
}

/// A disagreement found by [`SliceTable::compare`].
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub fen: String,
    pub slices: Wdl,
    pub reference: Wdl,
}

/// Generates the WDL of `material` (with at least one pawn) slice by slice, reading the
/// tables its captures and promotions lead to from `children`: exact tables for
/// [`TableKind::Exact`] (a missing one is an error), exact or bound for `c` (a missing one
/// is the result worst for `c`) for [`TableKind::Bound`]`(c)`.
///
/// # Errors
/// A needed table is missing or damaged, the material has no pawn, or the rules are royal.
pub fn generate_slices(
    material: &Material,
    rules: Rules,
    children: &Tablebase,
    kind: TableKind,
    options: SliceOptions,
    progress: &(dyn Fn(SliceEvent) + Sync),
) -> Result<(SliceTable, SliceReport), TbError> {
    if !material.has_pawns() {
        return Err(TbError::Unsupported(format!(
            "{}: the slice generator needs a pawn",
            material.name()
        )));
    }
    if rules.is_royal() {
        return Err(TbError::Unsupported(format!(
            "the slice generator is for antichess rules, not {rules}"
        )));
    }
    let start = Instant::now();
    let layout = SliceLayout::new(material);
    let room = layout.configs() * 2 * layout.placements();
    let store = ZeroedArray::<AtomicU64>::new(room.div_ceil(32) as usize)?;
    let bound = match kind {
        TableKind::Exact => None,
        TableKind::Bound(c) => Some(c),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| TbError::Unsupported(format!("cannot start threads: {e}")))?;
    let by_advancement = |sets: &[u64], color: Color| {
        let mut out: Vec<Vec<u64>> = Vec::new();
        for (rank, &bb) in sets.iter().enumerate() {
            let a = advancement(bb, color) as usize;
            if out.len() <= a {
                out.resize(a + 1, Vec::new());
            }
            out[a].push(rank as u64);
        }
        out
    };
    let white = by_advancement(&layout.white_sets, Color::White);
    let black = by_advancement(&layout.black_sets, Color::Black);
    let gen = SliceGen {
        layout: &layout,
        rules,
        bound,
        children,
        store: &store,
    };
    let nb = layout.black_sets.len() as u64;
    let mut report = SliceReport {
        slice_room: 2 * layout.placements(),
        levels: (white.len() + black.len() - 1) as u32,
        store_bytes: store.len() as u64 * 8,
        ..SliceReport::default()
    };
    let stop = options
        .levels
        .map_or(0, |n| report.levels.saturating_sub(n) as usize);
    for level in (stop..report.levels as usize).rev() {
        let t = Instant::now();
        let mut level_counts = (0u64, SliceCounts::default(), 0u64);
        for aw in 0..white.len().min(level + 1) {
            let Some(bs) = black.get(level - aw) else {
                continue;
            };
            let parts: Result<Vec<(u64, SliceCounts, u64)>, TbError> = pool.install(|| {
                white[aw]
                    .par_iter()
                    .map_init(Scratch::default, |scratch, &rw| {
                        let mut sum = (0u64, SliceCounts::default(), 0u64);
                        for &rb in bs {
                            let config = rw * nb + rb;
                            if !layout.is_canonical(config) {
                                continue;
                            }
                            let c = gen.solve(config, scratch)?;
                            sum.0 += 1;
                            add(&mut sum.1, &c);
                            sum.2 = sum.2.max(c.positions);
                        }
                        Ok(sum)
                    })
                    .collect()
            });
            for (slices, c, largest) in parts? {
                level_counts.0 += slices;
                add(&mut level_counts.1, &c);
                level_counts.2 = level_counts.2.max(largest);
            }
        }
        let (slices, c, largest) = level_counts;
        report.slices += slices;
        report.positions += c.positions;
        report.wins += c.wins;
        report.draws += c.draws;
        report.losses += c.losses;
        report.max_sweeps = report.max_sweeps.max(c.sweeps);
        report.largest_slice = report.largest_slice.max(largest);
        progress(SliceEvent::Level {
            advancement: level as u32,
            slices,
            positions: c.positions,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    let table = SliceTable {
        material: *material,
        rules,
        kind,
        layout,
        store,
    };
    Ok((table, report))
}

/// Adds `c`'s counts to `sum` (sweeps: the largest).
fn add(sum: &mut SliceCounts, c: &SliceCounts) {
    sum.positions += c.positions;
    sum.wins += c.wins;
    sum.draws += c.draws;
    sum.losses += c.losses;
    sum.sweeps = sum.sweeps.max(c.sweeps);
}

impl SliceTable {
    #[must_use]
    pub fn material(&self) -> &Material {
        &self.material
    }

    #[must_use]
    pub fn kind(&self) -> TableKind {
        self.kind
    }

    /// The WDL for `side` to move on `board` (this material, pawns on ranks 2–7, no en
    /// passant capture pending).
    #[must_use]
    pub fn wdl(&self, board: &Board, side: Color) -> Wdl {
        let c = load(&self.store, self.layout.locate(board, side));
        Wdl::from_code(c.wrapping_sub(1)).expect("every position of the material is solved")
    }

    /// Checks every position solved against `reference`: its exact table of this
    /// material for an exact slice table, its bound table for `c` for a bound one (the
    /// value [`Tablebase::probe_wdl_within`] gives, so `reference` must not hold an exact
    /// table of the material then). Returns the number of positions compared and the
    /// first disagreements (at most `keep`).
    ///
    /// # Errors
    /// `reference` has no table of the material, or a damaged one.
    pub fn compare(
        &self,
        reference: &Tablebase,
        keep: usize,
    ) -> Result<(u64, u64, Vec<Mismatch>), TbError> {
        let bound = match self.kind {
            TableKind::Exact => None,
            TableKind::Bound(c) => Some(c),
        };
        let placements = self.layout.placements();
        let results: Result<Vec<(u64, u64, Vec<Mismatch>)>, TbError> = (0..self.layout.configs())
            .into_par_iter()
            .filter(|&config| self.layout.is_canonical(config))
            .map(|config| {
                let (white, black) = self.layout.pawns(config);
                let (mut compared, mut wrong, mut first) = (0u64, 0u64, Vec::new());
                for side in Color::ALL {
                    for placement in 0..placements {
                        let Some(board) = self.layout.board(white, black, placement) else {
                            continue;
                        };
                        let pos = Position::from_board_unhashed(board, side, self.rules);
                        let theirs = reference.probe_wdl_within(&pos, bound)?;
                        let ours = self.wdl(&board, side);
                        compared += 1;
                        if ours != theirs {
                            wrong += 1;
                            if first.len() < keep {
                                first.push(Mismatch {
                                    fen: pos.fen(),
                                    slices: ours,
                                    reference: theirs,
                                });
                            }
                        }
                    }
                }
                Ok((compared, wrong, first))
            })
            .collect();
        let (mut compared, mut wrong, mut first) = (0, 0, Vec::new());
        for (c, w, f) in results? {
            compared += c;
            wrong += w;
            first.extend(f);
        }
        first.truncate(keep);
        Ok((compared, wrong, first))
    }
}

#[cfg(test)]
mod tests;
