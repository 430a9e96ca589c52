//! `antichess moves`: list the legal moves of a position, or its result if the game is over
//! (the job is `antichess_core::jobs::moves_report`; here its report printed).

use std::process::ExitCode;

use antichess_core::jobs::moves_report;
use clap::Args;

use crate::common::args::PositionArgs;
use crate::common::output::{print_json, Format};

/// List the legal moves of a position in SAN and UCI, or the result if the game is over.
///
/// In JSON: `fen`, `rules`, `turn`, `outcome` (`null`, or `result` in PGN notation and
/// `reason`), `captures_compulsory`, `check` (the side to move is in check: royal-king rule
/// sets only), and `moves` (`uci`, `san`).
#[derive(Debug, Args)]
pub struct MovesArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &MovesArgs) -> anyhow::Result<ExitCode> {
    let report = moves_report(&args.position.game()?);
    if args.format == Format::Json {
        print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("fen: {}", report.fen);
    println!("rules: {}", report.rules);
    println!("to move: {}", report.turn);
    if let Some(outcome) = &report.outcome {
        println!("result: {} ({})", outcome.result, outcome.reason);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "legal moves: {}{}",
        report.moves.len(),
        if report.has_capture {
            " (captures are compulsory)"
        } else if report.check {
            " (in check)"
        } else {
            ""
        }
    );
    for m in &report.moves {
        println!("{:<8} {}", m.san, m.uci);
    }
    Ok(ExitCode::SUCCESS)
}
