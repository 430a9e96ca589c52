//! The `tb probe` job for antichess positions: [`probe_position`] answers with the value
//! of a position (WDL and DTC, in plies, for the side to move) and of every legal move
//! (the position after it, for the side then to move, as lichess's tablebase API does),
//! best first; or, for a material with bound tables and no exact table, the interval they
//! give. Tables of at most [`ProbeOptions::build_units`] units are built on the way by the
//! caller's `ensure`; larger ones must be present. One serializable report
//! ([`ProbeReport`], the JSON line of `tb probe`), with its text ([`ProbeReport::text`]).

use std::path::PathBuf;

use antichess_core::{Color, Position, Rules};
use serde::Serialize;

use crate::error::TbError;
use crate::format::MAX_UNITS;
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;

/// Where [`probe_position`] looks.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The tables directory.
    pub dir: PathBuf,
    /// The rule set.
    pub rules: Rules,
    /// The largest tables built on the way (by the caller's `ensure`).
    pub build_units: u32,
}

/// A probe's answer: exact, or the interval of the bound tables.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ProbeReport {
    /// From the exact tables.
    Exact(ExactProbe),
    /// From bound tables only.
    Bound(BoundProbe),
}

/// The exact value of a position and of each of its moves.
#[derive(Debug, Clone, Serialize)]
pub struct ExactProbe {
    /// The position.
    pub fen: String,
    /// `"win"`, `"draw"` or `"loss"` for the side to move.
    pub category: &'static str,
    /// Plies to conversion, unless drawn.
    pub dtc: Option<u16>,
    /// Every legal move, best first.
    pub moves: Vec<ProbedMove>,
    /// The result for the side to move.
    #[serde(skip)]
    pub wdl: Wdl,
    /// The rule set's name.
    #[serde(skip)]
    pub rules: String,
    /// The side to move.
    #[serde(skip)]
    pub turn: Color,
    /// The position has a legal move.
    #[serde(skip)]
    pub has_moves: bool,
}

/// One move of an [`ExactProbe`].
#[derive(Debug, Clone, Serialize)]
pub struct ProbedMove {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// The position after the move, for the side then to move.
    pub category: &'static str,
    /// Its plies to conversion, unless drawn.
    pub dtc: Option<u16>,
    /// The move captures or promotes.
    pub conversion: bool,
    /// The result for the side playing it.
    #[serde(skip)]
    pub for_mover: Wdl,
    /// Plies to conversion if it is played.
    #[serde(skip)]
    pub plies: u16,
}

/// The interval the bound tables give a position.
#[derive(Debug, Clone, Serialize)]
pub struct BoundProbe {
    /// The position.
    pub fen: String,
    /// The result for the side to move, where both bounds agree.
    pub category: Option<&'static str>,
    /// The lowest and highest result for the side to move.
    pub bounds: Bounds,
    /// `"bound"`.
    pub tables: &'static str,
    /// The rule set's name.
    #[serde(skip)]
    pub rules: String,
    /// The side to move.
    #[serde(skip)]
    pub turn: Color,
    /// The canonical material.
    #[serde(skip)]
    pub material: String,
}

/// The two ends of a [`BoundProbe`].
#[derive(Debug, Clone, Serialize)]
pub struct Bounds {
    /// At least this.
    pub low: &'static str,
    /// At most this.
    pub high: &'static str,
}

/// Every material a probe of `pos` may need: its own, or those its captures lead to when
/// an en passant capture is available.
#[must_use]
pub fn probe_targets(pos: &Position) -> Vec<Material> {
    if pos.us().is_empty() || pos.them().is_empty() {
        return Vec::new();
    }
    let mut out = vec![Material::from_board(pos.board())];
    if pos.ep_square().is_some() {
        for m in pos.legal_moves() {
            out.extend(probe_targets(&pos.play(m)));
        }
    } else {
        for m in pos.legal_moves() {
            let child = pos.play(m);
            if child.ep_square().is_some() || pos.is_capture(m) || m.is_promotion() {
                out.extend(probe_targets(&child));
            }
        }
    }
    out
}

/// The answer for a position whose material has bound tables but no exact table: the
/// interval they give (nothing is built); `None` for any other position.
fn probe_bounds(pos: &Position, options: &ProbeOptions) -> Result<Option<BoundProbe>, TbError> {
    let tb = Tablebase::open(&options.dir, options.rules)?;
    let material = Material::from_board(pos.board());
    if pos.us().is_empty() || pos.them().is_empty() || tb.contains(&material) {
        return Ok(None);
    }
    if !tb.has_table_for(pos.board()) {
        return Ok(None);
    }
    let Some((lo, hi)) = tb.probe_wdl_bounds(pos)? else {
        return Ok(None);
    };
    Ok(Some(BoundProbe {
        fen: pos.fen(),
        category: (lo == hi).then_some(lo.name()),
        bounds: Bounds {
            low: lo.name(),
            high: hi.name(),
        },
        tables: "bound",
        rules: options.rules.to_string(),
        turn: pos.turn(),
        material: material.canonical().0.to_string(),
    }))
}

/// Probes `pos` (given as `fen`, which errors name): from its bound tables if it has no
/// exact table, else from the exact tables, which `ensure` builds (and opens) when they
/// have at most [`ProbeOptions::build_units`] units and which must be present otherwise.
///
/// # Errors
/// Too many units, a table missing that is not built on the way, a table unreadable, or
/// `ensure`'s error.
pub fn probe_position<E: From<TbError>>(
    fen: &str,
    pos: &Position,
    options: &ProbeOptions,
    ensure: impl FnOnce(&[Material]) -> Result<Tablebase, E>,
) -> Result<ProbeReport, E> {
    let units = pos.board().occupied().count();
    if units > MAX_UNITS {
        return Err(TbError::Unsupported(format!(
            "{fen}: {units} units; tables have at most {MAX_UNITS} units"
        ))
        .into());
    }
    let targets = probe_targets(pos);
    if let Some(bounds) = probe_bounds(pos, options)? {
        return Ok(ProbeReport::Bound(bounds));
    }
    let tb = if units > options.build_units {
        // Too large to build on the way: probe the tables the directory holds.
        let tb = Tablebase::open(&options.dir, options.rules)?;
        if let Some(m) = targets.iter().find(|m| !tb.contains(m)) {
            return Err(TbError::Unsupported(format!(
                "{fen}: no {m} table in {}; tables of more than {} units are not built on the \
                 way (build it with `antichess tb build {m}`)",
                options.dir.display(),
                options.build_units
            ))
            .into());
        }
        tb
    } else {
        ensure(&targets)?
    };
    Ok(ProbeReport::Exact(exact_probe(&tb, pos)?))
}

/// The exact value of `pos` and of its moves, best first.
///
/// # Errors
/// A table needed is missing or unreadable.
pub fn exact_probe(tb: &Tablebase, pos: &Position) -> Result<ExactProbe, TbError> {
    let value = tb.probe_required(pos)?;
    let moves = tb.probe_moves(pos)?;
    Ok(ExactProbe {
        fen: pos.fen(),
        category: value.wdl.name(),
        dtc: value.dtc(),
        moves: moves
            .iter()
            .map(|mv| ProbedMove {
                uci: mv.mv.to_string(),
                san: pos.san(mv.mv),
                category: mv.after.wdl.name(),
                dtc: mv.after.dtc(),
                conversion: mv.conversion,
                for_mover: mv.wdl_for_mover(),
                plies: mv.plies_to_conversion(),
            })
            .collect(),
        wdl: value.wdl,
        rules: pos.rules().to_string(),
        turn: pos.turn(),
        has_moves: !pos.legal_moves().is_empty(),
    })
}

impl ProbeReport {
    /// The text of `tb probe`: the position's result, then each move's for the side
    /// playing it (best first), or the interval of the bound tables.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            ProbeReport::Exact(probe) => probe.text(),
            ProbeReport::Bound(probe) => format!(
                "fen: {}\nrules: {}\nresult: {} for {} (to move): bound tables of {} (promotions \
                 left open) say at least {} and at most {}; no exact table, so no moves and no DTC",
                probe.fen,
                probe.rules,
                probe.category.unwrap_or("unknown"),
                probe.turn,
                probe.material,
                probe.bounds.low,
                probe.bounds.high
            ),
        }
    }
}

impl ExactProbe {
    /// The text of an exact probe (see [`ProbeReport::text`]).
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = format!("fen: {}\nrules: {}\n", self.fen, self.rules);
        let who = self.turn;
        out += &match (self.wdl, self.dtc) {
            (wdl, Some(dtc)) if wdl != Wdl::Draw => {
                format!("result: {wdl} for {who} (to move), {dtc} plies to conversion\n")
            }
            _ => format!("result: draw ({who} to move)\n"),
        };
        if !self.has_moves {
            out += "no legal moves\n";
            return out;
        }
        out += "moves, best first (result for the side playing it; plies to conversion):\n";
        for mv in &self.moves {
            let result = match mv.for_mover {
                Wdl::Draw => "draw".to_string(),
                wdl => format!("{wdl:<4} {:>3}", mv.plies),
            };
            out += &format!(
                "  {:<8} {:<6} {result}{}\n",
                mv.san,
                mv.uci,
                if mv.conversion { "  (converts)" } else { "" }
            );
        }
        out
    }
}

/// A position that `tb probe --fen -` could not probe: its line of the JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeFailure {
    /// The FEN as given.
    pub fen: String,
    /// Why, with its causes.
    pub error: String,
}
