//! `antichess moves`: list the legal moves of a position, or its result if the game is over
//! (the job is `antichess_core::jobs::moves_report`; here its report printed).

use std::process::ExitCode;

use antichess_core::jobs::moves_report;
use clap::Args;

use crate::common::args::PositionArgs;
use crate::common::output::{print_lines, Format};

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
    print_lines(&moves_report(&args.position.game()?), args.format)
}
