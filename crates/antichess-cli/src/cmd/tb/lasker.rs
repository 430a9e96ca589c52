//! `antichess tb … --game lasker`: build, probe and inspect Lasker chess tables (orthodox
//! endgames where stalemating the opponent is a lesser win; antichess_tb::lasker).
//!
//! What is counted: legal positions only (the side not to move is not in check), both
//! kings always present, no castling. Positions in which the side to move can capture en
//! passant are not stored and not counted (probing resolves them through their moves; the
//! generator values them as positions of their own, docs/formats/lasker-table.md).
//! Percentages are over the "unique" positions of the published figures (a Nalimov-style
//! index: without pawns the White king in the a1–d1–d4 triangle and, with it on the
//! diagonal, the Black king on or below it; with pawns the White king on files a–d); the
//! counts are also given up to symmetry and on the whole board.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_core::orthodox::OrthoPosition;
use antichess_tb::index::TableIndex;
use antichess_tb::lasker::{
    lasker_build, lasker_dependencies, lasker_material_ok, lasker_memory_estimate, lasker_stats,
    LaskerBuildEvent, LaskerDeepest, LaskerSideStats, LaskerStats, LaskerTablebase, LaskerValue,
};
use antichess_tb::Material;
use anyhow::{bail, Context};
use serde_json::json;

use crate::common::args::{default_tables_dir, TablesArgs};
use crate::common::output::Format;
use crate::common::progress::bytes_text;

/// Value names in the order 0..=4.
const VALUE_NAMES: [&str; 5] = [
    "loses by being mated",
    "loses by being stalemated",
    "draw",
    "wins by stalemate",
    "wins by mate",
];

/// The Lasker tables directory: `--tables`, else `lasker` beside the default antichess
/// directories ($ANTICHESS_TABLES/lasker, ~/.cache/antichess/tables/lasker).
pub fn dir(tables: &TablesArgs) -> PathBuf {
    tables.tables.clone().unwrap_or_else(|| {
        default_tables_dir(tables.rules)
            .parent()
            .map_or_else(|| PathBuf::from("lasker"), |p| p.join("lasker"))
    })
}

/// Materials with both kings and at most `units` men (pawns of both colours included).
fn all_up_to(units: u32) -> anyhow::Result<Vec<Material>> {
    if !(3..=5).contains(&units) {
        bail!("--units {units}: Lasker tables have 3 to 5 men");
    }
    Ok(Material::all_up_to(units)
        .into_iter()
        .filter(lasker_material_ok)
        .collect())
}

fn targets(signatures: &[String], units: Option<u32>) -> anyhow::Result<Vec<Material>> {
    match units {
        Some(n) => all_up_to(n),
        None => {
            let mut out = Vec::new();
            for s in signatures {
                let m: Material = s.parse()?;
                if !lasker_material_ok(&m) {
                    bail!("{s}: a Lasker table needs exactly one king per side and another man (e.g. KQk, KRPkp)");
                }
                if m.units() > 5 {
                    bail!("{s}: {} men; Lasker tables have at most 5", m.units());
                }
                out.push(m.canonical().0);
            }
            Ok(out)
        }
    }
}

fn build_quietly(
    targets: &[Material],
    tables: &TablesArgs,
    quiet: bool,
) -> anyhow::Result<LaskerTablebase> {
    let dir = dir(tables);
    let progress = |e: LaskerBuildEvent| {
        if quiet {
            return;
        }
        if let LaskerBuildEvent::Started { material, number } = e {
            eprintln!("building Lasker table #{number} {material}");
        }
    };
    lasker_build(targets, &dir, tables.threads, &progress)
        .with_context(|| format!("building Lasker tables in {}", dir.display()))?;
    Ok(LaskerTablebase::open(&dir)?)
}

pub fn run_build(
    signatures: &[String],
    units: Option<u32>,
    format: Format,
    tables: &TablesArgs,
    dry_run: bool,
) -> anyhow::Result<ExitCode> {
    let targets = targets(signatures, units)?;
    if targets.is_empty() {
        bail!("give signatures (e.g. KQk) or --units N");
    }
    let dir = dir(tables);
    if dry_run {
        return run_dry(&targets, &dir, format);
    }
    let json = format == Format::Json;
    let progress = |e: LaskerBuildEvent| {
        if json {
            return;
        }
        if let LaskerBuildEvent::Finished {
            material,
            stats,
            seconds,
        } = e
        {
            eprintln!(
                "{material}: {} legal positions, deepest DTM {} and DTS {} plies ({seconds:.1} s)",
                stats.positions, stats.max_dtm, stats.max_dts
            );
        }
    };
    let report = lasker_build(&targets, &dir, tables.threads, &progress)?;
    if json {
        let mut rows: Vec<serde_json::Value> = report
            .present_tables
            .iter()
            .map(|m| json!({ "material": m.name(), "status": "present" }))
            .collect();
        rows.extend(report.built.iter().map(|(m, s, seconds)| {
            json!({
                "material": m.name(),
                "status": "built",
                "seconds": seconds,
                "indices": s.indices,
                "positions": s.positions,
                "by_value": s.by_value,
                "max_dtm": s.max_dtm,
                "max_dts": s.max_dts,
                "ep_nodes": s.ep_nodes,
            })
        }));
        println!(
            "{}",
            json!({
                "game": "lasker",
                "dir": dir.display().to_string(),
                "built": report.built.len(),
                "present": report.present_tables.len(),
                "seconds": report.seconds,
                "tables": rows,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} Lasker tables built, {} already present, in {} ({:.1} s)",
        report.built.len(),
        report.present_tables.len(),
        dir.display(),
        report.seconds
    );
    Ok(ExitCode::SUCCESS)
}

/// `tb build --game lasker --dry-run`: the plan in build order (each table's positions,
/// both sides to move, its memory estimate and whether it is present), built nothing.
fn run_dry(targets: &[Material], dir: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let plan = lasker_dependencies(targets)?;
    let present = LaskerTablebase::open(dir)?;
    let rows: Vec<(Material, u64, u64, bool)> = plan
        .iter()
        .map(|m| {
            let positions = 2 * TableIndex::new(m).size();
            (
                *m,
                positions,
                lasker_memory_estimate(m),
                present.contains(m),
            )
        })
        .collect();
    let missing: Vec<_> = rows.iter().filter(|r| !r.3).collect();
    let positions: u64 = missing.iter().map(|r| r.1).sum();
    let peak = missing.iter().map(|r| r.2).max().unwrap_or(0);
    if format == Format::Json {
        println!(
            "{}",
            json!({
                "game": "lasker",
                "dir": dir.display().to_string(),
                "tables": plan.len(),
                "to_build": missing.len(),
                "positions": positions,
                "largest_memory_estimate": peak,
                "plan": rows.iter().map(|(m, p, mem, here)| json!({
                    "material": m.name(),
                    "units": m.units(),
                    "pawns": m.pawns(),
                    "positions": p,
                    "memory_estimate": mem,
                    "status": if *here { "present" } else { "missing" },
                })).collect::<Vec<_>>(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    for (m, p, mem, here) in &rows {
        println!(
            "{:<10} {:>14} positions  ~{:>9}  {}",
            m.name(),
            p,
            bytes_text(*mem),
            if *here { "present" } else { "to build" }
        );
    }
    println!(
        "{} Lasker tables needed, {} present, {} to build ({positions} positions, the largest needing ~{}) in {}",
        plan.len(),
        plan.len() - missing.len(),
        missing.len(),
        bytes_text(peak),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn value_json(v: LaskerValue) -> serde_json::Value {
    json!({
        "value": v.value,
        "category": v.category(),
        "depth": v.metric().map(|_| v.depth),
        "metric": v.metric(),
    })
}

fn value_text(v: LaskerValue) -> String {
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

pub fn probe_one(fen: &str, format: Format, tables: &TablesArgs) -> anyhow::Result<String> {
    let pos = OrthoPosition::from_fen(fen).with_context(|| format!("--fen \"{fen}\""))?;
    let men = pos.board().occupied().count();
    if men > 5 {
        bail!("{fen}: {men} men; Lasker tables have at most 5");
    }
    let material = Material::from_board(pos.board());
    let targets = if men > 2 { vec![material] } else { Vec::new() };
    let tb = build_quietly(&targets, tables, format == Format::Json)?;
    let value = tb.probe(&pos)?;
    let moves = tb.probe_moves(&pos)?;
    Ok(match format {
        Format::Json => {
            let mut v = json!({ "fen": pos.fen(), "game": "lasker" });
            let obj = v.as_object_mut().expect("object");
            for (k, x) in value_json(value).as_object().expect("object") {
                obj.insert(k.clone(), x.clone());
            }
            obj.insert(
                "moves".into(),
                moves
                    .iter()
                    .map(|mv| {
                        let mut m = json!({ "uci": mv.mv.to_string(), "san": pos.san(mv.mv) });
                        let o = m.as_object_mut().expect("object");
                        for (k, x) in value_json(mv.after).as_object().expect("object") {
                            o.insert(k.clone(), x.clone());
                        }
                        m
                    })
                    .collect(),
            );
            v.to_string()
        }
        Format::Text => {
            let mut out = format!(
                "fen: {}\ngame: lasker (orthodox rules, stalemate a lesser win)\nvalue: {} for {} (to move)\n",
                pos.fen(),
                value_text(value),
                pos.turn()
            );
            if moves.is_empty() {
                out += if pos.is_check() {
                    "checkmate\n"
                } else {
                    "stalemate\n"
                };
                return Ok(out);
            }
            out += "moves, best first (value for the side playing it; then the position after it, for the opponent):\n";
            for mv in &moves {
                out += &format!(
                    "  {:<8} {:<6} {:<44} after: {}\n",
                    pos.san(mv.mv),
                    mv.mv.to_string(),
                    value_text(mv.for_mover()),
                    value_text(mv.after)
                );
            }
            out
        }
    })
}

fn deepest_json(d: &Option<LaskerDeepest>) -> serde_json::Value {
    d.as_ref().map_or(serde_json::Value::Null, |d| {
        json!({
            "depth": d.depth, "value": d.value, "unique": d.unique,
            "up_to_symmetry": d.positions, "whole_board": d.boards, "fen": d.fen,
        })
    })
}

fn side_json(s: &LaskerSideStats) -> serde_json::Value {
    let pct = s.percentages();
    json!({
        "unique": s.unique,
        "up_to_symmetry": s.positions,
        "whole_board": s.boards,
        "percent": pct.map(|p| (p * 1000.0).round() / 1000.0),
        "deepest_dts": deepest_json(&s.deepest_dts),
        "deepest_dtm": deepest_json(&s.deepest_dtm),
        "en_passant": {
            "unique": s.ep_unique,
            "up_to_symmetry": s.ep_positions,
            "whole_board": s.ep_boards,
            "unique_illegal_before": s.ep_unique_illegal_before,
            "percent_with": s.percentages_with_ep().map(|p| (p * 1000.0).round() / 1000.0),
        },
    })
}

fn stats_json(s: &LaskerStats) -> serde_json::Value {
    json!({
        "material": s.material.name(),
        "white_to_move": side_json(&s.sides[0]),
        "black_to_move": side_json(&s.sides[1]),
        "dts_line": {
            "start": s.line_start,
            "moves": s.line.iter().map(|m| json!({ "uci": m.uci, "san": m.san,
                "value": m.before.value, "depth": m.before.depth })).collect::<Vec<_>>(),
            "end": s.line_end,
        },
    })
}

fn stats_text(s: &LaskerStats) -> String {
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

pub fn run_stats(
    signatures: &[String],
    units: Option<u32>,
    format: Format,
    tables: &TablesArgs,
) -> anyhow::Result<ExitCode> {
    let targets = targets(signatures, units)?;
    let tb = build_quietly(&targets, tables, format == Format::Json)?;
    let mut all = Vec::new();
    for m in &targets {
        all.push(lasker_stats(&tb, m)?);
    }
    match format {
        Format::Json => println!(
            "{}",
            json!({ "game": "lasker", "tables": all.iter().map(stats_json).collect::<Vec<_>>() })
        ),
        Format::Text => {
            for s in &all {
                println!("{}", stats_text(s).trim_end());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
