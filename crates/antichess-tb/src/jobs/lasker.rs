//! The `tb` jobs for Lasker chess tables ([`crate::lasker`]): the report of a build
//! ([`LaskerBuildSummary`]), the plan of a dry run ([`lasker_plan`]), a probe
//! ([`lasker_probe`]) and the statistics of tables ([`LaskerStatsReport`]), each one
//! serializable report (the JSON of `tb … --game lasker`) with its text ([`value_text`],
//! [`LaskerProbe::text`], [`lasker_stats_text`]). Values 0–4 for the side to move,
//! depths (DTM, DTS) in plies; positions count both sides to move, legal positions only
//! (see [`crate::lasker::lasker_stats`]).

use std::path::Path;

use antichess_core::orthodox::OrthoPosition;
use serde::{Serialize, Serializer};

use crate::error::TbError;
use crate::index::TableIndex;
use crate::jobs::plan::{bytes_text, PlanRow};
use crate::lasker::{
    lasker_dependencies, lasker_memory_estimate, lasker_stats, LaskerBuildEvent, LaskerBuildReport,
    LaskerDeepest, LaskerSideStats, LaskerStats, LaskerTablebase, LaskerValue,
};
use crate::material::Material;

/// One table of a Lasker build: present already, or built.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum LaskerBuildRow {
    /// Present before the build.
    Present {
        /// The material's name.
        material: String,
        /// `"present"`.
        status: &'static str,
    },
    /// Built now.
    Built {
        /// The material's name.
        material: String,
        /// `"built"`.
        status: &'static str,
        /// Generation and writing.
        seconds: f64,
        /// Indices per side times two.
        indices: u64,
        /// Legal positions, both sides.
        positions: u64,
        /// Positions by value 0..=4.
        by_value: [u64; 5],
        /// The deepest DTM, in plies.
        max_dtm: u16,
        /// The deepest DTS, in plies.
        max_dts: u16,
        /// En passant nodes (not stored).
        ep_nodes: u64,
    },
}

/// What a Lasker build did (the JSON of `tb build --game lasker`).
#[derive(Debug, Clone, Serialize)]
pub struct LaskerBuildSummary {
    /// `"lasker"`.
    pub game: &'static str,
    /// The tables directory.
    pub dir: String,
    /// Tables built.
    pub built: usize,
    /// Tables already present.
    pub present: usize,
    /// Wall-clock time.
    pub seconds: f64,
    /// The tables present, then those built.
    pub tables: Vec<LaskerBuildRow>,
}

impl LaskerBuildSummary {
    /// The summary of `report`, a build into `dir`.
    #[must_use]
    pub fn new(report: &LaskerBuildReport, dir: &Path) -> LaskerBuildSummary {
        let mut tables: Vec<LaskerBuildRow> = report
            .present_tables
            .iter()
            .map(|m| LaskerBuildRow::Present {
                material: m.name(),
                status: "present",
            })
            .collect();
        tables.extend(
            report
                .built
                .iter()
                .map(|(m, s, seconds)| LaskerBuildRow::Built {
                    material: m.name(),
                    status: "built",
                    seconds: *seconds,
                    indices: s.indices,
                    positions: s.positions,
                    by_value: s.by_value,
                    max_dtm: s.max_dtm,
                    max_dts: s.max_dts,
                    ep_nodes: s.ep_nodes,
                }),
        );
        LaskerBuildSummary {
            game: "lasker",
            dir: dir.display().to_string(),
            built: report.built.len(),
            present: report.present_tables.len(),
            seconds: report.seconds,
            tables,
        }
    }
}

/// A Lasker dry run: the plan in build order and its totals (the JSON of `tb build --game
/// lasker --dry-run`), with the totals as one line.
#[derive(Debug, Clone, Serialize)]
pub struct LaskerPlanReport {
    /// `"lasker"`.
    pub game: &'static str,
    /// The tables directory.
    pub dir: String,
    /// Tables of the plan.
    pub tables: usize,
    /// Tables missing.
    pub to_build: usize,
    /// Positions of the tables missing.
    pub positions: u64,
    /// The memory the largest table to build is expected to need.
    pub largest_memory_estimate: u64,
    /// Every table, in build order.
    pub plan: Vec<PlanRow>,
    /// "N Lasker tables needed, … in DIR".
    #[serde(skip)]
    pub summary: String,
}

/// The plan of a Lasker build of `targets` into `dir`; builds nothing.
///
/// # Errors
/// A material without a Lasker table, or the directory cannot be read.
pub fn lasker_plan(targets: &[Material], dir: &Path) -> Result<LaskerPlanReport, TbError> {
    let plan = lasker_dependencies(targets)?;
    let present = LaskerTablebase::open(dir)?;
    let rows: Vec<PlanRow> = plan
        .iter()
        .map(|m| PlanRow {
            material: m.name(),
            units: m.units(),
            pawns: m.pawns(),
            positions: 2 * TableIndex::new(m).size(),
            memory_estimate: lasker_memory_estimate(m),
            status: if present.contains(m) {
                "present"
            } else {
                "missing"
            },
            kind: None,
        })
        .collect();
    let missing: Vec<_> = rows.iter().filter(|r| r.status == "missing").collect();
    let positions: u64 = missing.iter().map(|r| r.positions).sum();
    let peak = missing.iter().map(|r| r.memory_estimate).max().unwrap_or(0);
    let summary = format!(
        "{} Lasker tables needed, {} present, {} to build ({positions} positions, the largest \
         needing ~{}) in {}",
        plan.len(),
        plan.len() - missing.len(),
        missing.len(),
        bytes_text(peak),
        dir.display()
    );
    Ok(LaskerPlanReport {
        game: "lasker",
        dir: dir.display().to_string(),
        tables: plan.len(),
        to_build: missing.len(),
        positions,
        largest_memory_estimate: peak,
        plan: rows,
        summary,
    })
}

/// A Lasker value in a report: the value, its category and, unless drawn, its depth and
/// metric.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ValueReport {
    /// 0–4.
    pub value: u8,
    /// `"mate-win"` … `"mate-loss"`.
    pub category: &'static str,
    /// In plies, unless drawn.
    pub depth: Option<u16>,
    /// `"dtm"` or `"dts"`, unless drawn.
    pub metric: Option<&'static str>,
    /// The value itself.
    #[serde(skip)]
    pub of: LaskerValue,
}

impl From<LaskerValue> for ValueReport {
    fn from(v: LaskerValue) -> ValueReport {
        ValueReport {
            value: v.value,
            category: v.category(),
            depth: v.metric().map(|_| v.depth),
            metric: v.metric(),
            of: v,
        }
    }
}

/// A Lasker probe (the JSON line of `tb probe --game lasker`).
#[derive(Debug, Clone, Serialize)]
pub struct LaskerProbe {
    /// The position.
    pub fen: String,
    /// `"lasker"`.
    pub game: &'static str,
    /// Its value for the side to move.
    #[serde(flatten)]
    pub value: ValueReport,
    /// Every legal move, best first.
    pub moves: Vec<LaskerProbedMove>,
    /// The side to move.
    #[serde(skip)]
    pub turn: antichess_core::Color,
    /// The side to move is in check.
    #[serde(skip)]
    pub check: bool,
}

/// One move of a [`LaskerProbe`].
#[derive(Debug, Clone, Serialize)]
pub struct LaskerProbedMove {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// The position after it, for the opponent.
    #[serde(flatten)]
    pub after: ValueReport,
    /// Its value for the side playing it.
    #[serde(skip)]
    pub for_mover: LaskerValue,
}

/// The tables a Lasker probe of `pos` (given as `fen`, which errors name) needs.
///
/// # Errors
/// More than 5 men.
pub fn lasker_probe_targets(fen: &str, pos: &OrthoPosition) -> Result<Vec<Material>, TbError> {
    let men = pos.board().occupied().count();
    if men > 5 {
        return Err(TbError::Unsupported(format!(
            "{fen}: {men} men; Lasker tables have at most 5"
        )));
    }
    Ok(if men > 2 {
        vec![Material::from_board(pos.board())]
    } else {
        Vec::new()
    })
}

/// The value of `pos` and of its moves, best first.
///
/// # Errors
/// A table needed is missing or unreadable.
pub fn lasker_probe(tb: &LaskerTablebase, pos: &OrthoPosition) -> Result<LaskerProbe, TbError> {
    let value = tb.probe(pos)?;
    let moves = tb.probe_moves(pos)?;
    Ok(LaskerProbe {
        fen: pos.fen(),
        game: "lasker",
        value: value.into(),
        moves: moves
            .iter()
            .map(|mv| LaskerProbedMove {
                uci: mv.mv.to_string(),
                san: pos.san(mv.mv),
                after: mv.after.into(),
                for_mover: mv.for_mover(),
            })
            .collect(),
        turn: pos.turn(),
        check: pos.is_check(),
    })
}

/// The statistics of Lasker tables (the JSON of `tb stats --game lasker`).
#[derive(Debug, Clone, Serialize)]
pub struct LaskerStatsReport {
    /// `"lasker"`.
    pub game: &'static str,
    /// Each table's, in the order asked.
    #[serde(serialize_with = "stats_rows")]
    pub tables: Vec<LaskerStats>,
}

/// The statistics of the Lasker tables of `materials` in `tb`.
///
/// # Errors
/// A table is missing or unreadable.
pub fn lasker_tables_stats(
    tb: &LaskerTablebase,
    materials: &[Material],
) -> Result<LaskerStatsReport, TbError> {
    Ok(LaskerStatsReport {
        game: "lasker",
        tables: materials
            .iter()
            .map(|m| lasker_stats(tb, m))
            .collect::<Result<_, _>>()?,
    })
}

/// A percentage to three decimals.
fn rounded(p: [f64; 5]) -> [f64; 5] {
    p.map(|p| (p * 1000.0).round() / 1000.0)
}

#[derive(Serialize)]
struct Deepest<'a> {
    depth: u16,
    value: u8,
    unique: u64,
    up_to_symmetry: u64,
    whole_board: u64,
    fen: &'a str,
}

impl<'a> Deepest<'a> {
    fn of(d: &'a Option<LaskerDeepest>) -> Option<Deepest<'a>> {
        d.as_ref().map(|d| Deepest {
            depth: d.depth,
            value: d.value,
            unique: d.unique,
            up_to_symmetry: d.positions,
            whole_board: d.boards,
            fen: &d.fen,
        })
    }
}

#[derive(Serialize)]
struct EnPassant {
    unique: [u64; 5],
    up_to_symmetry: [u64; 5],
    whole_board: [u64; 5],
    unique_illegal_before: [u64; 5],
    percent_with: [f64; 5],
}

#[derive(Serialize)]
struct Side<'a> {
    unique: [u64; 5],
    up_to_symmetry: [u64; 5],
    whole_board: [u64; 5],
    percent: [f64; 5],
    deepest_dts: Option<Deepest<'a>>,
    deepest_dtm: Option<Deepest<'a>>,
    en_passant: EnPassant,
}

impl<'a> From<&'a LaskerSideStats> for Side<'a> {
    fn from(s: &'a LaskerSideStats) -> Self {
        Side {
            unique: s.unique,
            up_to_symmetry: s.positions,
            whole_board: s.boards,
            percent: rounded(s.percentages()),
            deepest_dts: Deepest::of(&s.deepest_dts),
            deepest_dtm: Deepest::of(&s.deepest_dtm),
            en_passant: EnPassant {
                unique: s.ep_unique,
                up_to_symmetry: s.ep_positions,
                whole_board: s.ep_boards,
                unique_illegal_before: s.ep_unique_illegal_before,
                percent_with: rounded(s.percentages_with_ep()),
            },
        }
    }
}

#[derive(Serialize)]
struct LineMove<'a> {
    uci: &'a str,
    san: &'a str,
    value: u8,
    depth: u16,
}

#[derive(Serialize)]
struct Line<'a> {
    start: &'a Option<String>,
    moves: Vec<LineMove<'a>>,
    end: &'a Option<String>,
}

#[derive(Serialize)]
struct Row<'a> {
    material: String,
    white_to_move: Side<'a>,
    black_to_move: Side<'a>,
    dts_line: Line<'a>,
}

fn stats_rows<S: Serializer>(tables: &[LaskerStats], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(tables.iter().map(|t| {
        Row {
            material: t.material.name(),
            white_to_move: Side::from(&t.sides[0]),
            black_to_move: Side::from(&t.sides[1]),
            dts_line: Line {
                start: &t.line_start,
                moves: t
                    .line
                    .iter()
                    .map(|m| LineMove {
                        uci: &m.uci,
                        san: &m.san,
                        value: m.before.value,
                        depth: m.before.depth,
                    })
                    .collect(),
                end: &t.line_end,
            },
        }
    }))
}

/// Value names in the order 0..=4.
pub const VALUE_NAMES: [&str; 5] = [
    "loses by being mated",
    "loses by being stalemated",
    "draw",
    "wins by stalemate",
    "wins by mate",
];

/// A value as text: "4 wins by mate (mate-win, dtm 7)", "2 draw".
#[must_use]
pub fn value_text(v: LaskerValue) -> String {
    match v.metric() {
        Some(metric) => format!(
            "{} {} ({}, {metric} {})",
            v.value,
            VALUE_NAMES[usize::from(v.value)],
            v.category(),
            v.depth
        ),
        None => "2 draw".to_string(),
    }
}

impl LaskerProbe {
    /// The text of `tb probe --game lasker`: the position's value, then each move's for
    /// the side playing it and the position after it.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = format!(
            "fen: {}\ngame: lasker (orthodox rules, stalemate a lesser win)\nvalue: {} for {} (to move)\n",
            self.fen,
            value_text(self.value.of),
            self.turn
        );
        if self.moves.is_empty() {
            out += if self.check {
                "checkmate\n"
            } else {
                "stalemate\n"
            };
            return out;
        }
        out += "moves, best first (value for the side playing it; then the position after it, for the opponent):\n";
        for mv in &self.moves {
            out += &format!(
                "  {:<8} {:<6} {:<44} after: {}\n",
                mv.san,
                mv.uci,
                value_text(mv.for_mover),
                value_text(mv.after.of)
            );
        }
        out
    }
}

/// The text of `tb stats --game lasker` for one table: per side to move the positions
/// by value (unique, up to symmetry, on the whole board), the en passant convention's
/// percentages where it applies, the deepest DTS and DTM, then the DTS line.
#[must_use]
pub fn lasker_stats_text(s: &LaskerStats) -> String {
    let mut out = format!(
        "{} ({}), Lasker chess: legal positions (side not to move not in check; en passant \
         positions not stored), per side to move; percentages of the unique positions\n",
        s.material,
        s.material.syzygy_name()
    );
    for (i, who) in ["white to move", "black to move"].iter().enumerate() {
        let st = &s.sides[i];
        let pct = st.percentages();
        out += &format!("  {who}:\n");
        for v in (0..5).rev() {
            out += &format!(
                "    {v} {:<26} {:>10} unique {:>8.3}%  ({} up to symmetry, {} on the whole board)\n",
                VALUE_NAMES[v], st.unique[v], pct[v], st.positions[v], st.boards[v]
            );
        }
        let ep: u64 = st.ep_unique.iter().sum();
        if ep > 0 {
            // The published KPkp row counts the positions with an en passant right as
            // positions of their own (docs/research/lasker-engine.md).
            let pct = st.percentages_with_ep();
            out += &format!(
                "    with the {ep} unique positions with an en passant right ({} of them after an illegal position) as positions of their own:",
                st.ep_unique_illegal_before.iter().sum::<u64>()
            );
            for v in (0..5).rev() {
                out += &format!(" {v} {:.3}%", pct[v]);
            }
            out += &format!(
                "\n      (those {ep} by value 4..0: {})\n",
                st.ep_unique
                    .iter()
                    .rev()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" / ")
            );
        }
        for (metric, d) in [("DTS", &st.deepest_dts), ("DTM", &st.deepest_dtm)] {
            match d {
                Some(d) => {
                    out += &format!(
                        "    deepest {metric}: {} plies (value {}), {} unique positions ({} up to symmetry, {} on the whole board), e.g. {}\n",
                        d.depth, d.value, d.unique, d.positions, d.boards, d.fen
                    )
                }
                None => out += &format!("    no {metric} position\n"),
            }
        }
    }
    if let Some(start) = &s.line_start {
        out += &format!("  DTS line from {start} ({} plies):\n   ", s.line.len());
        for (i, m) in s.line.iter().enumerate() {
            if i > 0 && i % 12 == 0 {
                out += "\n   ";
            }
            out += &format!(" {}", m.san);
        }
        out += &format!(
            "\n  ends in stalemate: {}\n",
            s.line_end.as_deref().unwrap_or("?")
        );
    }
    out
}

/// The text of `tb stats --game lasker`: each table's statistics.
impl std::fmt::Display for LaskerStatsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for s in &self.tables {
            writeln!(f, "{}", lasker_stats_text(s).trim_end())?;
        }
        Ok(())
    }
}

/// The text of `tb build --game lasker --dry-run`: a row per table, then the totals.
impl std::fmt::Display for LaskerPlanReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for row in &self.plan {
            writeln!(f, "{row}")?;
        }
        writeln!(f, "{}", self.summary)
    }
}

/// The summary line of `tb build --game lasker`: built, present, where, how long.
impl std::fmt::Display for LaskerBuildSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} Lasker tables built, {} already present, in {} ({:.1} s)",
            self.built, self.present, self.dir, self.seconds
        )
    }
}

impl LaskerBuildEvent {
    /// The event as a line for people: a table started (its number and material) or
    /// finished (its legal positions, deepest DTM and DTS, time); `None` for the plan.
    #[must_use]
    pub fn line(&self) -> Option<String> {
        match self {
            LaskerBuildEvent::Started { material, number } => {
                Some(format!("building Lasker table #{number} {material}"))
            }
            LaskerBuildEvent::Finished {
                material,
                stats,
                seconds,
            } => Some(format!(
                "{material}: {} legal positions, deepest DTM {} and DTS {} plies ({seconds:.1} s)",
                stats.positions, stats.max_dtm, stats.max_dts
            )),
            LaskerBuildEvent::Planned { .. } => None,
        }
    }
}
