//! `antichess perft`: count the leaves of the legal move tree (the job is
//! `antichess_core::jobs::run_perft`; here its progress bar and its report printed).

use std::process::ExitCode;

use antichess_core::jobs::{run_perft, PerftEvent, PerftOptions};
use clap::Args;
use indicatif::ProgressBar;

use crate::common::args::PositionArgs;
use crate::common::output::{print_json, Format};
use crate::common::progress::bar_style;

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

pub fn run(args: &PerftArgs) -> anyhow::Result<ExitCode> {
    let pos = args.position.position()?;
    let options = PerftOptions {
        depth: args.depth,
        divide: args.divide,
        full: args.full,
    };
    let mut bar = None;
    let report = run_perft(&pos, options, &mut |e| match e {
        PerftEvent::Started { root_moves } => {
            let b = ProgressBar::new(root_moves as u64).with_style(bar_style(
                "{spinner} perft {msg} [{bar:30}] {pos}/{len} root moves, {elapsed}",
            ));
            b.set_message(format!("{}", args.depth));
            bar = Some(b);
        }
        PerftEvent::RootMove => bar.iter().for_each(|b| b.inc(1)),
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if args.format == Format::Json {
        print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    print!("{report}");
    eprintln!("{}", report.summary_line());
    Ok(ExitCode::SUCCESS)
}
