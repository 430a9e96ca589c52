//! `antichess tb`: build, probe, inspect and verify endgame tablebases.

use std::io::BufRead;
use std::process::ExitCode;

use antichess_core::Position;
use antichess_tb::format::MAX_UNITS;
use antichess_tb::{
    build, table_stats, verify_tables, BuildOptions, Material, MoveValue, TableKind, TableStats,
    Tablebase, VerifyRow, VerifyStatus, VerifyTablesOptions, Wdl,
};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use serde_json::json;

use crate::common::args::TablesArgs;
use crate::common::output::{print_json, Format};
use crate::common::progress::BuildProgress;
use crate::common::tables::ensure_tables;

mod bound;
mod build;
mod lasker;
mod plan;
mod queue;

use build::{print_report, BoundSide, BuildArgs, Game};

/// The largest tables `tb probe` builds on its own.
const AUTO_BUILD_UNITS: u32 = 5;

#[derive(Debug, Subcommand)]
pub enum TbCommand {
    Build(BuildArgs),
    Probe(ProbeArgs),
    Stats(StatsArgs),
    Verify(VerifyArgs),
}

/// Probe positions: WDL and DTC (distance to conversion in plies), and every legal move's
/// result, best first. Missing tables are built first.
///
/// In JSON output (one object per position) the position's "category" ("win", "draw" or
/// "loss") and "dtc" are for the side to move; a move's "category" and "dtc" describe the
/// position after the move, for the side then to move (as lichess's tablebase API does),
/// and "conversion" says whether the move captures or promotes.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The position, or "-" to read FENs from standard input, one per line.
    #[arg(long, value_name = "FEN")]
    pub fen: String,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Statistics of tables: positions by result and side to move, longest wins, mutual
/// zugzwangs (also totalled over the tables without knights and pawns).
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(value_name = "SIGNATURE", required_unless_present = "units")]
    pub signatures: Vec<String>,

    /// Every table with at most this many units.
    #[arg(long, value_name = "N", conflicts_with = "signatures")]
    pub units: Option<u32>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Check tables against the rules: every stored value (and DTC) is re-derived from its
/// successors (this table for quiet moves, the smaller tables for captures and
/// promotions, the rules' scoring without legal moves), by a code path separate from the
/// generator, and disagreements are reported with a FEN. A file that is not the table of
/// its name (a renamed or copied file) is refused. Exit code 1 if any table fails.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[arg(value_name = "SIGNATURE", required_unless_present = "all")]
    pub signatures: Vec<String>,

    /// Verify every table in the directory (bound tables included).
    #[arg(long, conflicts_with = "signatures")]
    pub all: bool,

    /// Verify the materials' bound tables for this side (colours as written; `both` for
    /// the two) instead of their exact tables.
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "all")]
    pub bound: Option<BoundSide>,

    /// Output: text, or one JSON object with a row per table (material, positions,
    /// status "ok", "mismatch" or "error", the first disagreements, seconds).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub tables: TablesArgs,
}

pub fn run(command: &TbCommand) -> anyhow::Result<ExitCode> {
    match command {
        TbCommand::Build(args) => run_build(args),
        TbCommand::Probe(args) => run_probe(args),
        TbCommand::Stats(args) => run_stats(args),
        TbCommand::Verify(args) => run_verify(args),
    }
}

fn parse_signatures(signatures: &[String]) -> anyhow::Result<Vec<Material>> {
    signatures
        .iter()
        .map(|s| s.parse::<Material>().map_err(Into::into))
        .collect()
}

fn targets(signatures: &[String], units: Option<u32>) -> anyhow::Result<Vec<Material>> {
    match units {
        Some(n) if !(2..=MAX_UNITS).contains(&n) => {
            bail!("--units {n}: tables have 2 to {MAX_UNITS} units")
        }
        Some(n) => Ok(Material::all_up_to(n)),
        None => parse_signatures(signatures),
    }
}

/// `tb build --from-book` takes the book's materials of at most this many units unless
/// `--units` says otherwise.
const FROM_BOOK_UNITS: u32 = 5;

fn run_build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    if args.game == Game::Lasker && args.queue.is_some() {
        bail!("--queue builds antichess tables; build Lasker tables without it");
    }
    if args.game == Game::Lasker {
        return lasker::run_build(
            &args.signatures,
            args.units,
            args.format,
            &args.tables,
            args.dry_run,
        );
    }
    if args.top.is_some() && args.from_book.is_none() && args.from_frontier.is_none() {
        bail!("--top goes with --from-book or --from-frontier");
    }
    if let Some(path) = &args.from_frontier {
        let (targets, side) = frontier_targets(path, args)?;
        return bound::run(&targets, side, args);
    }
    let targets = match &args.from_book {
        Some(book) => crate::common::book::missing_materials(
            book,
            args.top.unwrap_or(10),
            args.units.unwrap_or(FROM_BOOK_UNITS),
            args.tables.rules,
        )?,
        None => targets(&args.signatures, args.units)?,
    };
    if let Some(side) = args.bound {
        if args.game == Game::Lasker {
            bail!("--bound builds antichess tables; Lasker tables are exact");
        }
        return bound::run(&targets, side, args);
    }
    if let Some(url) = &args.queue {
        let options = BuildOptions {
            rules: args.tables.rules,
            dir: args.tables.dir(),
            threads: args.tables.threads,
            strategy: Default::default(),
        };
        return queue::run(url, &targets, options, args.format);
    }
    if targets.is_empty() {
        if let Some(book) = &args.from_book {
            bail!(
                "the book {book} records no material of at most {} units met without a table \
                 (its searches record those of at most 6 units; --units N to change the limit)",
                args.units.unwrap_or(FROM_BOOK_UNITS)
            );
        }
        bail!("give signatures (e.g. KRkb), --units N or --from-book BOOK");
    }
    let dir = args.tables.dir();
    let json = args.format == Format::Json;
    let options = BuildOptions {
        rules: args.tables.rules,
        dir: dir.clone(),
        threads: args.tables.threads,
        strategy: Default::default(),
    };
    if args.dry_run {
        return plan::dry_run(&targets, &options, args.format);
    }
    // The plan's size, and a warning when it is large, before anything is built.
    plan::announce_exact(&targets, &options, args.format == Format::Json)?;
    // The start line on stderr; the summary goes to standard output below.
    let progress = BuildProgress::new(json).at(&options).table_lines();
    let report = build(&targets, &options, &|e| progress.event(e));
    progress.finish(None);
    let report = report?;
    print_report(&report, &dir, args.tables.rules, json, "tables");
    Ok(ExitCode::SUCCESS)
}

/// The materials `tb build --from-frontier` builds (the first --top of the frontier's
/// order), and for which side: --bound, else the frontier's prover. Says on stderr what
/// the frontier needs and what the build wins back.
fn frontier_targets(
    path: &std::path::Path,
    args: &BuildArgs,
) -> anyhow::Result<(Vec<Material>, BoundSide)> {
    let found = antichess_book::frontier_tables::frontier_tables(path, 4)?;
    if found.rules != args.tables.rules {
        bail!(
            "{} is a book under the rules {}, the tables asked for are {}: give --rules {}",
            path.display(),
            found.rules,
            args.tables.rules,
            found.rules
        );
    }
    let chosen = &found.tables[..args.top.unwrap_or(usize::MAX).min(found.tables.len())];
    let side = args.bound.unwrap_or(match found.prover {
        antichess_core::Color::White => BoundSide::White,
        antichess_core::Color::Black => BoundSide::Black,
    });
    let won_back = chosen.last().map_or(0, |t| t.whole_nodes);
    if args.format == Format::Json && args.dry_run {
        // The plan's JSON follows on standard output; the frontier's account goes first.
        eprintln!("{}", serde_json::to_string(&found)?);
    } else {
        eprintln!(
            "{}: {} of its {} proofs ({} of {} nodes) have tablebase leaves of more than 4 \
             units, on {} materials; the {} built here let {} of those nodes verify ({:.1}%)",
            path.display(),
            found.needing,
            found.proofs,
            found.needing_nodes,
            found.nodes,
            found.tables.len(),
            chosen.len(),
            won_back,
            100.0 * won_back as f64 / found.needing_nodes.max(1) as f64,
        );
    }
    if chosen.is_empty() {
        bail!(
            "{}: no proof of this frontier has a tablebase leaf of more than 4 units: the \
             4-unit set is all it needs (`tb build --units 4`)",
            path.display()
        );
    }
    let targets = chosen
        .iter()
        .map(|t| t.material.parse::<Material>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok((targets, side))
}

/// Every material a probe of `pos` may need: its own, or those its captures lead to when
/// an en passant capture is available.
fn probe_targets(pos: &Position) -> Vec<Material> {
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
fn probe_bounds(pos: &Position, args: &ProbeArgs) -> anyhow::Result<Option<String>> {
    let dir = args.tables.dir();
    let tb = Tablebase::open(&dir, args.tables.rules)?;
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
    let exact = (lo == hi).then_some(lo);
    Ok(Some(match args.format {
        Format::Json => json!({
            "fen": pos.fen(),
            "category": exact.map(Wdl::name),
            "bounds": { "low": lo.name(), "high": hi.name() },
            "tables": "bound",
        })
        .to_string(),
        Format::Text => format!(
            "fen: {}\nrules: {}\nresult: {} for {} (to move): bound tables of {} (promotions \
             left open) say at least {} and at most {}; no exact table, so no moves and no DTC",
            pos.fen(),
            args.tables.rules,
            exact.map_or("unknown", Wdl::name),
            pos.turn(),
            material.canonical().0,
            lo.name(),
            hi.name()
        ),
    }))
}

fn probe_one(fen: &str, args: &ProbeArgs) -> anyhow::Result<String> {
    if args.game == Game::Lasker {
        return lasker::probe_one(fen, args.format, &args.tables);
    }
    let pos =
        Position::from_fen(fen, args.tables.rules).with_context(|| format!("--fen \"{fen}\""))?;
    let units = pos.board().occupied().count();
    if units > MAX_UNITS {
        bail!("{fen}: {units} units; tables have at most {MAX_UNITS} units");
    }
    let targets = probe_targets(&pos);
    if let Some(text) = probe_bounds(&pos, args)? {
        return Ok(text);
    }
    let tb = if units > AUTO_BUILD_UNITS {
        // Too large to build on the way: probe the tables the directory holds.
        let dir = args.tables.dir();
        let tb = Tablebase::open(&dir, args.tables.rules)?;
        if let Some(m) = targets.iter().find(|m| !tb.contains(m)) {
            bail!(
                "{fen}: no {m} table in {}; tables of more than {AUTO_BUILD_UNITS} units are not \
                 built on the way (build it with `antichess tb build {m}`)",
                dir.display()
            );
        }
        tb
    } else {
        ensure_tables(&targets, &args.tables, args.format == Format::Json)?
    };
    let value = tb.probe_required(&pos)?;
    let moves = tb.probe_moves(&pos)?;
    Ok(match args.format {
        Format::Json => json!({
            "fen": pos.fen(),
            "category": value.wdl.name(),
            "dtc": value.dtc(),
            "moves": moves.iter().map(|mv| json!({
                "uci": mv.mv.to_string(),
                "san": pos.san(mv.mv),
                "category": mv.after.wdl.name(),
                "dtc": mv.after.dtc(),
                "conversion": mv.conversion,
            })).collect::<Vec<_>>(),
        })
        .to_string(),
        Format::Text => text_probe(&pos, value, &moves),
    })
}

fn text_probe(pos: &Position, value: antichess_tb::Value, moves: &[MoveValue]) -> String {
    let mut out = format!("fen: {}\nrules: {}\n", pos.fen(), pos.rules());
    let who = pos.turn();
    out += &match value.wdl {
        Wdl::Draw => format!("result: draw ({who} to move)\n"),
        wdl => format!(
            "result: {wdl} for {who} (to move), {} plies to conversion\n",
            value.dtc
        ),
    };
    if pos.legal_moves().is_empty() {
        out += "no legal moves\n";
        return out;
    }
    out += "moves, best first (result for the side playing it; plies to conversion):\n";
    for mv in moves {
        let result = match mv.wdl_for_mover() {
            Wdl::Draw => "draw".to_string(),
            wdl => format!("{wdl:<4} {:>3}", mv.plies_to_conversion()),
        };
        out += &format!(
            "  {:<8} {:<6} {result}{}\n",
            pos.san(mv.mv),
            mv.mv.to_string(),
            if mv.conversion { "  (converts)" } else { "" }
        );
    }
    out
}

fn run_probe(args: &ProbeArgs) -> anyhow::Result<ExitCode> {
    if args.fen != "-" {
        println!("{}", probe_one(&args.fen, args)?.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = false;
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading standard input")?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        match probe_one(fen, args) {
            Ok(text) => println!("{}", text.trim_end()),
            Err(err) => {
                failed = true;
                match args.format {
                    Format::Json => {
                        println!(
                            "{}",
                            json!({ "fen": fen, "error": crate::common::output::describe(&err) })
                        )
                    }
                    Format::Text => eprintln!(
                        "error: line {}: {}",
                        n + 1,
                        crate::common::output::describe(&err)
                    ),
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn stats_json(s: &TableStats) -> serde_json::Value {
    let side = |i: usize| {
        let st = &s.sides[i];
        json!({
            "wins": st.wins, "draws": st.draws, "losses": st.losses,
            "longest_win": st.longest_win.as_ref().map(|(d, fen)| json!({ "dtc": d, "fen": fen })),
        })
    };
    json!({
        "material": s.material.name(),
        "positions": s.positions,
        "white_to_move": side(0),
        "black_to_move": side(1),
        "mutual_zugzwangs": s.mutual_zugzwangs,
        "mutual_zugzwang_example": s.zugzwang_example,
    })
}

fn stats_text(s: &TableStats) -> String {
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

fn run_stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    if args.game == Game::Lasker {
        return lasker::run_stats(&args.signatures, args.units, args.format, &args.tables);
    }
    let targets: Vec<Material> = targets(&args.signatures, args.units)?
        .iter()
        .map(|m| m.canonical().0)
        .collect();
    let tb = ensure_tables(&targets, &args.tables, args.format == Format::Json)?;
    let mut all = Vec::new();
    for m in &targets {
        let table = tb.table(m)?.with_context(|| format!("no table for {m}"))?;
        all.push(table_stats(table)?);
    }
    let total: u64 = all.iter().map(|s| s.mutual_zugzwangs).sum();
    let plain: u64 = all
        .iter()
        .filter(|s| s.without_knights_and_pawns())
        .map(|s| s.mutual_zugzwangs)
        .sum();
    match args.format {
        Format::Json => println!(
            "{}",
            json!({
                "tables": all.iter().map(stats_json).collect::<Vec<_>>(),
                "mutual_zugzwangs": total,
                "mutual_zugzwangs_without_knights_and_pawns": plain,
            })
        ),
        Format::Text => {
            for s in &all {
                println!("{}", stats_text(s));
            }
            if all.len() > 1 {
                println!("mutual zugzwangs in these {} tables: {total}; in those without knights and pawns: {plain}", all.len());
            } else if all.iter().all(|s| !s.without_knights_and_pawns()) {
                println!("  (without knights and pawns: 0; this material has knights or pawns)");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let tables = if args.all {
        None
    } else {
        let materials = parse_signatures(&args.signatures)?;
        Some(match args.bound {
            None => materials
                .into_iter()
                .map(|m| (m, TableKind::Exact))
                .collect(),
            Some(side) => materials
                .into_iter()
                .flat_map(|m| side.colors().iter().map(move |&c| (m, TableKind::Bound(c))))
                .collect(),
        })
    };
    let options = VerifyTablesOptions {
        dir: args.tables.dir(),
        rules: args.tables.rules,
        tables,
        threads: args.tables.threads,
    };
    let json = args.format == Format::Json;
    let report = verify_tables(&options, &mut |row| {
        if !json {
            print_verify_row(row);
        }
    })?;
    if json {
        print_json(&report)?;
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A table's line of `tb verify` (with the first disagreements below a mismatch).
fn print_verify_row(row: &VerifyRow) {
    let name = &row.material;
    let positions = row.positions.unwrap_or(0);
    match row.status {
        VerifyStatus::Ok => println!("{name}: ok ({positions} positions)"),
        VerifyStatus::Mismatch => {
            println!(
                "{name}: {} of {positions} positions disagree with their successors",
                row.mismatches.unwrap_or(0)
            );
            for e in row.examples.iter().flatten() {
                println!("  {e}");
            }
        }
        VerifyStatus::Error => {
            println!(
                "{name}: error: {}",
                row.error.as_deref().unwrap_or_default()
            )
        }
    }
}
