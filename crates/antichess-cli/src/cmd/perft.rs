//! `antichess perft`: count the leaves of the legal move tree.

use std::process::ExitCode;
use std::time::Instant;

use antichess_core::{perft, perft_full, Move, Position};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::common::args::PositionArgs;
use crate::common::output::Format;

/// Count the leaf nodes of the legal move tree to a depth (move generation test).
///
/// In JSON: `fen`, `rules`, `depth`, `nodes`, `seconds`, `full` (every leaf played), and
/// with --divide `divide` (`uci`, `san`, `nodes` below each legal move).
#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// Depth in plies.
    #[arg(long, short)]
    pub depth: u32,

    /// Print the count below each legal move.
    #[arg(long)]
    pub divide: bool,

    /// Play every leaf move instead of counting the last ply (slower; measures make-move).
    #[arg(long)]
    pub full: bool,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

fn count(pos: &Position, depth: u32, full: bool) -> u64 {
    if full {
        perft_full(pos, depth)
    } else {
        perft(pos, depth)
    }
}

pub fn run(args: &PerftArgs) -> anyhow::Result<ExitCode> {
    let pos = args.position.position()?;
    let json = args.format == Format::Json;
    let start = Instant::now();
    let mut divide = Vec::new();
    let total = if args.depth == 0 {
        1
    } else {
        let moves = pos.legal_moves();
        let bar = ProgressBar::new(moves.len() as u64).with_style(
            ProgressStyle::with_template(
                "{spinner} perft {msg} [{bar:30}] {pos}/{len} root moves, {elapsed}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_message(format!("{}", args.depth));
        let mut rows: Vec<(Move, String, u64)> = Vec::new();
        for m in &moves {
            let n = count(&pos.play(*m), args.depth - 1, args.full);
            rows.push((*m, pos.san(*m), n));
            bar.inc(1);
        }
        bar.finish_and_clear();
        if args.divide {
            rows.sort_by_key(|(m, _, _)| m.to_string());
            if json {
                divide = rows
                    .iter()
                    .map(|(m, san, n)| json!({ "uci": m.to_string(), "san": san, "nodes": n }))
                    .collect();
            } else {
                for (m, san, n) in &rows {
                    println!("{m} {san:<8} {n}");
                }
                println!();
            }
        }
        rows.iter().map(|(_, _, n)| n).sum()
    };
    let seconds = start.elapsed().as_secs_f64();
    if json {
        let mut out = json!({
            "fen": pos.fen(),
            "rules": pos.rules().to_string(),
            "depth": args.depth,
            "nodes": total,
            "seconds": seconds,
            "full": args.full,
        });
        if args.divide {
            out["divide"] = divide.into();
        }
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    println!("{total}");
    eprintln!(
        "perft({}) of {} in {:.3} s, {:.1} Mnodes/s{}",
        args.depth,
        pos.fen(),
        seconds,
        total as f64 / seconds.max(1e-9) / 1e6,
        if args.full {
            " (every leaf played)"
        } else {
            " (last ply counted)"
        }
    );
    Ok(ExitCode::SUCCESS)
}
