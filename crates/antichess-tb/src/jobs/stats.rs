//! The `tb stats` job for antichess tables: [`tables_stats`] gathers [`table_stats`] of
//! each table asked for and totals their mutual zugzwangs (also over the tables without
//! knights and pawns), into one serializable report ([`TablesStatsReport`], the JSON of
//! `tb stats`, and its text). Counts are of positions up to symmetry, per side to move;
//! DTC in plies.

use serde::{Serialize, Serializer};

use crate::error::TbError;
use crate::material::Material;
use crate::stats::{table_stats, SideStats, TableStats};
use crate::tablebase::Tablebase;

/// The statistics of several tables.
#[derive(Debug, Clone, Serialize)]
pub struct TablesStatsReport {
    /// Each table's, in the order asked.
    #[serde(serialize_with = "stats_rows")]
    pub tables: Vec<TableStats>,
    /// Mutual zugzwangs of all the tables.
    pub mutual_zugzwangs: u64,
    /// Those of the tables without knights and pawns.
    pub mutual_zugzwangs_without_knights_and_pawns: u64,
}

/// The statistics of the tables of `materials` (each canonical) in `tb`.
///
/// # Errors
/// A table is missing or unreadable.
pub fn tables_stats(tb: &Tablebase, materials: &[Material]) -> Result<TablesStatsReport, TbError> {
    let mut tables = Vec::new();
    for m in materials {
        let table = tb
            .table(m)?
            .ok_or_else(|| TbError::Unsupported(format!("no table for {m}")))?;
        tables.push(table_stats(table)?);
    }
    let mutual_zugzwangs = tables.iter().map(|s| s.mutual_zugzwangs).sum();
    let mutual_zugzwangs_without_knights_and_pawns = tables
        .iter()
        .filter(|s| s.without_knights_and_pawns())
        .map(|s| s.mutual_zugzwangs)
        .sum();
    Ok(TablesStatsReport {
        tables,
        mutual_zugzwangs,
        mutual_zugzwangs_without_knights_and_pawns,
    })
}

impl TablesStatsReport {
    /// The text of `tb stats`: each table's statistics, then the mutual zugzwangs
    /// totalled over the tables (over one table with knights or pawns, that it has none
    /// without them).
    #[must_use]
    pub fn text(&self) -> String {
        let mut lines: Vec<String> = self.tables.iter().map(stats_text).collect();
        let (total, plain) = (
            self.mutual_zugzwangs,
            self.mutual_zugzwangs_without_knights_and_pawns,
        );
        if self.tables.len() > 1 {
            lines.push(format!(
                "mutual zugzwangs in these {} tables: {total}; in those without knights and \
                 pawns: {plain}",
                self.tables.len()
            ));
        } else if self.tables.iter().all(|s| !s.without_knights_and_pawns()) {
            lines.push(
                "  (without knights and pawns: 0; this material has knights or pawns)".to_string(),
            );
        }
        lines.join("\n")
    }
}

/// The text of one table's statistics.
#[must_use]
pub fn stats_text(s: &TableStats) -> String {
    let mut out = format!(
        "{} ({}): {} positions per side to move, up to symmetry\n",
        s.material,
        s.material.syzygy_name(),
        s.positions
    );
    out += &format!("  {:<14} {:>12} {:>12} {:>12}\n", "", "win", "draw", "loss");
    for (i, name) in ["white to move", "black to move"].iter().enumerate() {
        let st = &s.sides[i];
        out += &format!(
            "  {name:<14} {:>12} {:>12} {:>12}\n",
            st.wins, st.draws, st.losses
        );
    }
    for (i, name) in ["white", "black"].iter().enumerate() {
        match &s.sides[i].longest_win {
            Some((d, fen)) => {
                out +=
                    &format!("  longest win, {name} to move: {d} plies to conversion, e.g. {fen}\n")
            }
            None => out += &format!("  no win with {name} to move\n"),
        }
    }
    out += &format!("  mutual zugzwangs: {}", s.mutual_zugzwangs);
    if let Some(fen) = &s.zugzwang_example {
        out += &format!(", e.g. {fen} (and with Black to move)");
    }
    out
}

#[derive(Serialize)]
struct Row<'a> {
    material: String,
    positions: u64,
    white_to_move: Side<'a>,
    black_to_move: Side<'a>,
    mutual_zugzwangs: u64,
    mutual_zugzwang_example: &'a Option<String>,
}

#[derive(Serialize)]
struct Side<'a> {
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: Option<LongestWin<'a>>,
}

#[derive(Serialize)]
struct LongestWin<'a> {
    dtc: u16,
    fen: &'a str,
}

impl<'a> From<&'a SideStats> for Side<'a> {
    fn from(s: &'a SideStats) -> Self {
        Side {
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            longest_win: s
                .longest_win
                .as_ref()
                .map(|(dtc, fen)| LongestWin { dtc: *dtc, fen }),
        }
    }
}

fn stats_rows<S: Serializer>(tables: &[TableStats], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(tables.iter().map(|t| Row {
        material: t.material.name(),
        positions: t.positions,
        white_to_move: Side::from(&t.sides[0]),
        black_to_move: Side::from(&t.sides[1]),
        mutual_zugzwangs: t.mutual_zugzwangs,
        mutual_zugzwang_example: &t.zugzwang_example,
    }))
}

/// [`TablesStatsReport::text`].
impl std::fmt::Display for TablesStatsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}
