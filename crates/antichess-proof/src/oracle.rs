//! Leaves of a proof and how they are judged: [`LeafOracle`], the interface through which
//! the verifier asks tablebases about tablebase leaves (implemented by the tablebase crate;
//! [`NoTablebases`] here), the leaf checker shared by both verifiers, and the comparison of
//! a proof's recorded tables with the oracle's ([`compare_tables`]).
//!
//! A terminal leaf (no legal move) must be a win for the prover by
//! `Position::no_move_outcome` under the proof's rule set. A tablebase leaf must be a win
//! for the prover according to the oracle (values are for the side to move), or, with
//! `expand_tablebase_leaves`, it is played out to the end of the game: the prover plays the
//! oracle's `best_move`, the opponent every legal move, until every line ends in a terminal
//! win. Positions already shown won are remembered (by [`PositionId`]); repetition on a
//! play-out line and play-outs deeper than a limit are errors.

use std::collections::HashSet;

use antichess_core::{Color, Move, MoveList, Outcome, Position};

use crate::position_id::{units, PositionId};
use crate::tables::{hex_checksum, TableCheck, TableRecord, TableStatus};

/// Value of a position for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeafValue {
    Win,
    Draw,
    Loss,
}

/// Tablebases, as the verifier sees them.
pub trait LeafOracle {
    /// Largest number of units (pieces, kings included) the oracle covers.
    fn max_units(&self) -> u32;

    /// Value for the side to move, or `None` if no table covers the position.
    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String>;

    /// A move that makes progress towards the win (e.g. shortest distance to conversion) in
    /// a won position, used by `--expand-tablebase-leaves`.
    fn best_move(&self, pos: &Position) -> Result<Option<Move>, String>;

    /// The tables a probe of `pos` reads (material and file checksum), recorded in the
    /// proof files written with this oracle (default: none known).
    fn tables_read(&self, pos: &Position) -> Result<Vec<TableRecord>, String> {
        let _ = pos;
        Ok(Vec::new())
    }

    /// The checksum of the oracle's table of `material` (our notation, canonical):
    /// `Ok(None)` if it has none, an error if it cannot open it (default: none).
    fn table_checksum(&self, material: &str) -> Result<Option<u64>, String> {
        let _ = material;
        Ok(None)
    }
}

/// The oracle without tables: covers nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTablebases;

impl LeafOracle for NoTablebases {
    fn max_units(&self) -> u32 {
        0
    }

    fn probe(&self, _pos: &Position) -> Result<Option<LeafValue>, String> {
        Ok(None)
    }

    fn best_move(&self, _pos: &Position) -> Result<Option<Move>, String> {
        Ok(None)
    }
}

/// An oracle that may be absent (`None`: as [`NoTablebases`], covering nothing), e.g.
/// `tablebase.map(TablebaseOracle::new)` for optional tables.
impl<O: LeafOracle> LeafOracle for Option<O> {
    fn max_units(&self) -> u32 {
        self.as_ref().map_or(0, O::max_units)
    }

    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String> {
        self.as_ref().map_or(Ok(None), |o| o.probe(pos))
    }

    fn best_move(&self, pos: &Position) -> Result<Option<Move>, String> {
        self.as_ref().map_or(Ok(None), |o| o.best_move(pos))
    }

    fn tables_read(&self, pos: &Position) -> Result<Vec<TableRecord>, String> {
        self.as_ref().map_or(Ok(Vec::new()), |o| o.tables_read(pos))
    }

    fn table_checksum(&self, material: &str) -> Result<Option<u64>, String> {
        self.as_ref()
            .map_or(Ok(None), |o| o.table_checksum(material))
    }
}

/// The positions whose tables a probe of `pos` reads: `pos` itself, or, with an en
/// passant capture to make, those its moves lead to (again so resolved); positions where
/// a side has no unit left (game ends) need no table and are left out.
#[must_use]
pub fn probed_positions(pos: &Position) -> Vec<Position> {
    let mut out = Vec::new();
    let mut stack = vec![*pos];
    while let Some(pos) = stack.pop() {
        if pos.us().is_empty() || pos.them().is_empty() {
            continue;
        }
        if pos.ep_square().is_some() {
            stack.extend(pos.legal_moves().iter().map(|&m| pos.play(m)));
            continue;
        }
        out.push(pos);
    }
    out
}

/// Tablebases of `antichess-tb` as an oracle: values by probing, and as best move in a won
/// position the move with the fewest plies to conversion.
#[derive(Debug, Clone, Copy)]
pub struct TablebaseOracle<'a> {
    tablebase: &'a antichess_tb::Tablebase,
    units: u32,
}

impl<'a> TablebaseOracle<'a> {
    /// The oracle covering every table of `tablebase` (up to its `max_units()` units; a
    /// material without a table answers nothing).
    #[must_use]
    pub fn new(tablebase: &'a antichess_tb::Tablebase) -> TablebaseOracle<'a> {
        TablebaseOracle {
            tablebase,
            units: tablebase.max_units(),
        }
    }
}

impl LeafOracle for TablebaseOracle<'_> {
    fn max_units(&self) -> u32 {
        self.units
    }

    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String> {
        // A position with an en-passant capture to make is valued through the positions
        // after its moves (captures all: captures are compulsory), one unit smaller.
        let slack = u32::from(pos.ep_square().is_some());
        if pos.board().occupied().count() > self.units + slack {
            return Ok(None);
        }
        Ok(self
            .tablebase
            .probe_wdl(pos)
            .map_err(|e| e.to_string())?
            .map(|wdl| match wdl {
                antichess_tb::Wdl::Win => LeafValue::Win,
                antichess_tb::Wdl::Draw => LeafValue::Draw,
                antichess_tb::Wdl::Loss => LeafValue::Loss,
            }))
    }

    fn best_move(&self, pos: &Position) -> Result<Option<Move>, String> {
        // Where only a bound table covers the material, its bounded game's distances
        // guide the way; a position with an en-passant capture to make needs no table of
        // its own (every move of the result is checked again by the verifier).
        if pos.ep_square().is_some()
            || !self
                .tablebase
                .contains(&antichess_tb::Material::from_board(pos.board()))
        {
            if let Some(m) = self
                .tablebase
                .probe_bound_best_move(pos)
                .map_err(|e| e.to_string())?
            {
                return Ok(Some(m));
            }
        }
        let moves = self.tablebase.probe_moves(pos).map_err(|e| e.to_string())?;
        Ok(moves
            .first()
            .filter(|m| m.wdl_for_mover() == antichess_tb::Wdl::Win)
            .map(|m| m.mv))
    }

    /// The table of the position's material, or, with an en passant capture available,
    /// those of the positions its captures lead to (as the probe resolves it).
    fn tables_read(&self, pos: &Position) -> Result<Vec<TableRecord>, String> {
        let mut out = Vec::new();
        for pos in probed_positions(pos) {
            let material = antichess_tb::Material::from_board(pos.board())
                .canonical()
                .0;
            if let Some(table) = self.tablebase.table(&material).map_err(|e| e.to_string())? {
                out.push(TableRecord {
                    material: material.name(),
                    checksum: table.header().checksum,
                });
                continue;
            }
            // Bound tables answer where no exact table exists: both are recorded (a sure
            // value may come from either), named with their kind, e.g. `RPPpp:bound-w`.
            for color in Color::ALL {
                if let Some(table) = self
                    .tablebase
                    .bound_table(&material, color)
                    .map_err(|e| e.to_string())?
                {
                    out.push(TableRecord {
                        material: format!(
                            "{}{}",
                            material.name(),
                            antichess_tb::TableKind::Bound(color).record_suffix()
                        ),
                        checksum: table.header().checksum,
                    });
                }
            }
        }
        Ok(out)
    }

    fn table_checksum(&self, material: &str) -> Result<Option<u64>, String> {
        let (name, kind) = antichess_tb::TableKind::split_record(material);
        let material: antichess_tb::Material = name.parse().map_err(|e| format!("{e}"))?;
        let table = match kind {
            antichess_tb::TableKind::Exact => self.tablebase.table(&material),
            antichess_tb::TableKind::Bound(color) => self.tablebase.bound_table(&material, color),
        };
        Ok(table
            .map_err(|e| e.to_string())?
            .map(|t| t.header().checksum))
    }
}

/// Compares recorded tables with the oracle's tables.
#[must_use]
pub fn compare_tables(recorded: &[TableRecord], oracle: &dyn LeafOracle) -> Vec<TableCheck> {
    recorded
        .iter()
        .map(|r| {
            let (found, status, error) = match oracle.table_checksum(&r.material) {
                Ok(Some(sum)) if sum == r.checksum => {
                    (Some(hex_checksum(sum)), TableStatus::Same, None)
                }
                Ok(Some(sum)) => (Some(hex_checksum(sum)), TableStatus::Different, None),
                Ok(None) => (None, TableStatus::Missing, None),
                Err(e) => (None, TableStatus::Unreadable, Some(e)),
            };
            TableCheck {
                material: r.material.clone(),
                recorded: hex_checksum(r.checksum),
                found,
                status,
                error,
            }
        })
        .collect()
}

/// Default depth limit of a tablebase play-out, in plies.
pub const DEFAULT_PLAYOUT_DEPTH: u32 = 4096;

/// A failure judging a leaf.
#[derive(Debug)]
pub(crate) enum LeafError {
    /// The leaf is not a win (a verdict on the proof).
    NotWon(String),
    /// No table covers the leaf and no tables at all are available.
    NoTables { units: u32 },
    /// The oracle failed (not a verdict).
    Oracle(String),
}

/// Judges leaves for the verifiers.
pub(crate) struct LeafChecker<'a> {
    oracle: &'a dyn LeafOracle,
    prover: Color,
    expand: bool,
    depth_limit: u32,
    /// Positions shown won by play-outs (prover to move or opponent to move).
    won: HashSet<PositionId>,
    /// Tablebase leaves checked.
    pub(crate) max_units_seen: u32,
}

impl<'a> LeafChecker<'a> {
    pub(crate) fn new(
        oracle: &'a dyn LeafOracle,
        prover: Color,
        expand: bool,
        depth_limit: u32,
    ) -> LeafChecker<'a> {
        LeafChecker {
            oracle,
            prover,
            expand,
            depth_limit,
            won: HashSet::new(),
            max_units_seen: 0,
        }
    }

    /// A terminal leaf: no legal move; must score as a win for the prover.
    pub(crate) fn check_terminal(&self, pos: &Position) -> Result<(), LeafError> {
        terminal_verdict(pos, self.prover).map_err(LeafError::NotWon)
    }

    /// A tablebase leaf (has legal moves).
    pub(crate) fn check_tablebase(&mut self, pos: &Position) -> Result<(), LeafError> {
        let n = units(pos);
        self.max_units_seen = self.max_units_seen.max(n);
        if self.oracle.max_units() == 0 {
            return Err(LeafError::NoTables { units: n });
        }
        if self.expand {
            return self.play_out(pos);
        }
        let wanted = if pos.turn() == self.prover {
            LeafValue::Win
        } else {
            LeafValue::Loss
        };
        match self.oracle.probe(pos).map_err(LeafError::Oracle)? {
            None => Err(LeafError::NotWon(format!(
                "tablebase leaf with {n} units, but no table covers it (tables cover up to {} units)",
                self.oracle.max_units()
            ))),
            Some(value) if value == wanted => Ok(()),
            Some(value) => Err(LeafError::NotWon(format!(
                "tablebase leaf is not a win for {}: the tables say {} for {} (to move)",
                self.prover,
                match value {
                    LeafValue::Win => "win",
                    LeafValue::Draw => "draw",
                    LeafValue::Loss => "loss",
                },
                pos.turn()
            ))),
        }
    }

    /// Plays a tablebase leaf out to the end of the game.
    fn play_out(&mut self, leaf: &Position) -> Result<(), LeafError> {
        struct Frame {
            pos: Position,
            id: PositionId,
            mv: Option<Move>,
            pending: MoveList,
        }
        let line = |stack: &[Frame], extra: Option<Move>| -> String {
            let mut moves: Vec<Move> = stack.iter().skip(1).filter_map(|f| f.mv).collect();
            moves.extend(extra);
            if moves.is_empty() {
                "at the leaf".to_string()
            } else {
                format!("after {}", crate::position_id::movetext(leaf, &moves))
            }
        };
        let mut path: HashSet<PositionId> = HashSet::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut next = Some((*leaf, None::<Move>));
        loop {
            if let Some((pos, mv)) = next.take() {
                let id = PositionId::of(&pos);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    if let Err(why) = terminal_verdict(&pos, self.prover) {
                        return Err(LeafError::NotWon(format!(
                            "tablebase play-out {}: {why}",
                            line(&stack, mv)
                        )));
                    }
                } else if !self.won.contains(&id) {
                    if path.contains(&id) {
                        return Err(LeafError::NotWon(format!(
                            "tablebase play-out repeats a position {} ({})",
                            line(&stack, mv),
                            pos.fen()
                        )));
                    }
                    if stack.len() as u32 >= self.depth_limit {
                        return Err(LeafError::NotWon(format!(
                            "tablebase play-out did not end within {} plies ({})",
                            self.depth_limit,
                            pos.fen()
                        )));
                    }
                    let pending = if pos.turn() == self.prover {
                        let best = self.oracle.best_move(&pos).map_err(LeafError::Oracle)?;
                        match best {
                            Some(m) if moves.contains(&m) => {
                                let mut one = MoveList::new();
                                one.push(m);
                                one
                            }
                            Some(m) => {
                                return Err(LeafError::Oracle(format!(
                                    "best move {m} is not legal in {} (play-out {})",
                                    pos.fen(),
                                    line(&stack, mv)
                                )))
                            }
                            None => {
                                return Err(LeafError::NotWon(format!(
                                    "tablebase play-out {}: the tables give no winning move in {}",
                                    line(&stack, mv),
                                    pos.fen()
                                )))
                            }
                        }
                    } else {
                        moves
                    };
                    path.insert(id);
                    stack.push(Frame {
                        pos,
                        id,
                        mv,
                        pending,
                    });
                }
            }
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok(());
                };
                if let Some(m) = top.pending.pop() {
                    next = Some((top.pos.play(m), Some(m)));
                    break;
                }
                let done = stack.pop().expect("non-empty");
                path.remove(&done.id);
                self.won.insert(done.id);
            }
        }
    }
}

/// Whether a position with no legal move is a win for `prover`.
pub(crate) fn terminal_verdict(pos: &Position, prover: Color) -> Result<(), String> {
    let outcome = pos.no_move_outcome();
    if outcome == Outcome::Win(prover) {
        Ok(())
    } else {
        Err(format!(
            "{} to move has no legal move: {outcome} under {} rules, not a win for {prover}",
            pos.turn(),
            pos.rules()
        ))
    }
}
