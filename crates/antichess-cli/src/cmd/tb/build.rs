//! What `tb build` and its `--bound` mode (`bound.rs`) share: the command's arguments
//! ([`BuildArgs`], with the [`Game`] and [`BoundSide`] choices that other `tb` commands
//! take too) and the report of a build.

use antichess_core::Color;
use antichess_tb::index::TableIndex;
use clap::Args;
use serde_json::json;

use crate::common::args::TablesArgs;
use crate::common::output::Format;

/// The game whose tables a `tb` command serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Game {
    /// Losing chess (the rule set is chosen with --rules).
    #[default]
    Antichess,
    /// Lasker chess: orthodox endgames where stalemating the opponent is a lesser win
    /// (values 4 mate win, 3 stalemate win, 2 draw, 1 stalemate loss, 0 mated; DTM / DTS
    /// in plies); tables in --tables, default the `lasker` directory beside the antichess
    /// ones.
    Lasker,
}

/// Build tables by retrograde analysis (and every table they depend on), in dependency
/// order, skipping tables already present: an interrupted build resumes (every file is
/// written under a temporary name and renamed when whole; a file found is kept after its
/// header and checksum are checked, and a damaged one is built again).
///
/// Progress: a bar with the time left on a terminal, and one line per table built on
/// stderr (time, positions/s, file size, peak memory, time left), terminal or not.
///
/// Rule sets (--rules): international, fics, joint, vinciperdi, pritchard (any of them
/// +queen-only but pritchard), up to 6 units; and the royal-king pritchard3 / pritchard4,
/// up to 4 units: their tables are K+X against K+Y (15 materials), since a side with a
/// bare king has won by the rule and needs no table (`--units 4` builds the 15).
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Materials to build, e.g. KRkb or KRvKB (White uppercase, Black lowercase).
    #[arg(value_name = "SIGNATURE")]
    pub signatures: Vec<String>,

    /// Build every table with at most this many units (pieces, kings included). With
    /// --from-book: take only the book's materials of at most this many units (default 5:
    /// a 6-unit pawn material's dependencies are hundreds of tables).
    #[arg(long, value_name = "N", conflicts_with = "signatures")]
    pub units: Option<u32>,

    /// Build the materials a book's searches met most without a table (`antichess book
    /// tables BOOK` lists them): the first --top of them (of at most --units units), with
    /// their dependencies.
    #[arg(long, value_name = "BOOK", conflicts_with = "signatures")]
    pub from_book: Option<String>,

    /// Build the tables that the proofs of a frontier file (`proofs/partial/<line>.frontier`)
    /// rest on: the materials of more than 4 units at their tablebase leaves, as bound
    /// tables for the frontier's prover (unless --bound says otherwise), in the order that
    /// lets the most proof nodes verify first (with --top, the first N of that order). Build
    /// the 4-unit set first (`tb build --units 4`). Without these tables, loading the
    /// frontier (`prove --frontier`) leaves the subtrees that need them open, to be searched
    /// again.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["signatures", "from_book", "units"])]
    pub from_frontier: Option<std::path::PathBuf>,

    /// With --from-book: how many of its materials, most met first (default 10). With
    /// --from-frontier: how many of its materials, in its order (default all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Build as one worker of the PostgreSQL queue at this URL (workers on any host share
    /// it and a tables directory): claim a table whose dependencies are done, build it,
    /// write it into --tables, mark it done; exit when every table of the queue is done.
    /// The materials given (if any) are added to the queue first. A killed worker loses at
    /// most the table it was building. See "Building tables on several machines" in
    /// docs/guide.md.
    #[arg(long, value_name = "postgres://…", conflicts_with = "dry_run")]
    pub queue: Option<String>,

    /// Build nothing: list the plan (every table needed, in build order, with its
    /// positions, the memory today's generator is expected to need for it, and whether
    /// it is present), then the totals (with the largest table's memory and the files'
    /// size, estimated). A build prints the totals on stderr before it starts; both warn
    /// there when the build is large (over 10^10 positions) or its largest table needs
    /// more memory than is available.
    #[arg(long)]
    pub dry_run: bool,

    /// Output: text, or one JSON object with a row per table of the plan (material,
    /// positions, "built" with its time or "present").
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    /// Build bound tables instead of exact ones: promotions without a capture (and any
    /// move into a material with no table) count as the result worst for SIDE, so a
    /// material needs no promotion tables (what makes pawn-heavy 5- and 6-unit materials
    /// affordable). SIDE's wins in a bound table are true wins; `both` builds the two
    /// bounds, which give the exact value wherever they agree. The materials its captures
    /// lead to without an exact table get bound tables too. Files are named
    /// `RPPvPP.bound-white.actb`; probes, the solver, the book and the verifier use them
    /// where no exact table exists (docs/formats/tablebase.md).
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "queue")]
    pub bound: Option<BoundSide>,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Whose wins a bound table makes sure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BoundSide {
    /// White's wins are sure (promotions count against White): what proving a White win
    /// needs.
    White,
    /// Black's wins are sure.
    Black,
    /// Both bound tables.
    Both,
}

impl BoundSide {
    pub(super) fn colors(self) -> &'static [Color] {
        match self {
            BoundSide::White => &[Color::White],
            BoundSide::Black => &[Color::Black],
            BoundSide::Both => &Color::ALL,
        }
    }
}

/// Prints what a build did: one JSON object (a row per table present or built), or a line
/// saying how many `noun` were built and how fast.
pub(super) fn print_report(
    report: &antichess_tb::BuildReport,
    dir: &std::path::Path,
    rules: antichess_core::Rules,
    json: bool,
    noun: &str,
) {
    if !json {
        println!(
            "{} {noun} built, {} already present, in {} ({:.1} s, {} positions, {:.2} M positions/s)",
            report.built.len(),
            report.present,
            dir.display(),
            report.seconds,
            report.positions,
            report.positions as f64 / report.seconds.max(1e-9) / 1e6
        );
        return;
    }
    let mut rows: Vec<serde_json::Value> = report
        .present_tables
        .iter()
        .map(|m| {
            json!({
                "material": m.name(),
                "positions": 2 * TableIndex::new(m).size(),
                "status": "present",
            })
        })
        .collect();
    rows.extend(report.built.iter().map(|b| {
        json!({
            "material": b.material.name(),
            "kind": b.kind.to_string(),
            "positions": b.stats.positions,
            "status": "built",
            "seconds": b.seconds,
            "bytes": b.bytes,
            "peak_memory": b.peak_memory,
        })
    }));
    println!(
        "{}",
        json!({
            "dir": dir.display().to_string(),
            "rules": rules.to_string(),
            "built": report.built.len(),
            "present": report.present,
            "positions": report.positions,
            "seconds": report.seconds,
            "tables": rows,
        })
    );
}
