//! `antichess bench store`: the load a book store sustains. Creates a fresh book, runs
//! `--processes` `antichess book grow` processes of one worker each on it with a budget of
//! one node per search (empty searches: the time goes to the walk, the claim and the
//! result's write with its minimax: the book crate's `grow_worker`), and reports from the
//! search log how many claims and how many result writes per second the store took.

use std::process::ExitCode;
use std::time::Duration;

use antichess_book::jobs::store_bench::{
    grow_worker, store_bench, StoreBenchEvent, StoreBenchOptions,
};
use antichess_book::text::bench::store_started_line;
use antichess_core::{play_move_text, Position, Rules};
use anyhow::{bail, Context};
use clap::Args;

use crate::common::output::{print_lines, Format};
use crate::common::parse::{parse_duration, parse_threads};

#[derive(Debug, Args)]
pub struct StoreBenchArgs {
    /// Where to create the book: a file or a postgres:// URL that holds no book yet
    /// (default: a SQLite file in a temporary directory). It is removed afterwards.
    #[arg(long, value_name = "LOCATION")]
    pub store: Option<String>,

    /// Worker processes (one worker each).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = parse_threads)]
    pub processes: usize,

    /// How long the workers run: seconds, or with a unit (20s, 1m).
    #[arg(long, value_name = "T", default_value = "20s", value_parser = parse_duration)]
    pub time: Duration,

    /// The book's root, as moves from the start (White to prove a win); short lines are
    /// solved within seconds by empty searches, which would end the measurement early.
    #[arg(long, default_value = "e3")]
    pub moves: String,

    /// Keep the book afterwards.
    #[arg(long)]
    pub keep: bool,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &StoreBenchArgs) -> anyhow::Result<ExitCode> {
    if args.processes == 0 {
        bail!("--processes 0: give at least one");
    }
    let options = StoreBenchOptions {
        location: args.store.clone(),
        game: play_move_text(Position::start(Rules::INTERNATIONAL), &args.moves)?,
        moves: args.moves.clone(),
        processes: args.processes,
        time: args.time,
        keep: args.keep,
    };
    let exe = std::env::current_exe().context("finding the antichess binary")?;
    let text = args.format == Format::Text;
    let report = store_bench(&options, &grow_worker(&exe), &mut |e| {
        let StoreBenchEvent::Created { store, location } = e;
        if text {
            println!(
                "{}",
                store_started_line(
                    store,
                    &location,
                    &args.moves,
                    args.processes,
                    args.time.as_secs_f64()
                )
            );
        }
    })?;
    print_lines(&report, args.format)
}
