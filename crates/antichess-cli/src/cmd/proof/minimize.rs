//! `antichess proof minimize`: makes a proof file smaller with the solver's help (any proof
//! of either format, e.g. one assembled from a book or written without minimisation): the
//! proof pool of `antichess-pns` searches other prover moves and keeps the combination that
//! makes the whole proof (with shared positions) smallest; with `--global` (the `mip`
//! feature) it also chooses over the whole pool at once as an integer program. The result
//! is verified. Ctrl-C ends the minimisation early with the smallest proof found so far.
//! The job is the pns crate's ([`antichess_pns::minimize::file::minimize_file`]); this file
//! parses the arguments into its options and prints its events and report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_pns::minimize::file::{
    minimize_file, MinimizeFileEvent, MinimizeFileOptions, MinimizeInput,
};
use antichess_pns::minimize::summary::file_summary;
use antichess_pns::minimize::text::progress_figures;
use antichess_pns::{MinimizeOptions, GLOBAL_CHOICE};
use anyhow::bail;
use clap::Args;
use indicatif::ProgressBar;

use crate::common::args::{ReferenceArgs, SearchTables};
use crate::common::interrupt::stop_on_ctrl_c;
use crate::common::output::{
    parse_format_of_proof_command, print_json_pretty, Format as OutputFormat,
};
use crate::common::parse::{parse_duration, parse_size};
use crate::common::progress::bar_style;

#[derive(Debug, Args)]
pub struct MinimizeArgs {
    /// The proof file to make smaller (format detected from the magic bytes).
    pub input: PathBuf,

    /// Where to write the smaller proof (our compact format). It is written beside it
    /// first and renamed into place only if it verifies.
    #[arg(long, short)]
    pub output: PathBuf,

    /// How long to search for smaller proofs (seconds, or with a unit: 30s, 5m, 2h; default
    /// 5m, or no limit with --nodes). Ctrl-C ends it sooner: the smallest proof found so
    /// far is verified and written.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,

    /// While it runs, save the smallest proof so far to the output (verified, atomically)
    /// at most this often, so that a run killed outright keeps it: run again from the
    /// output to go on (seconds, or with a unit: 30s, 10m; 0: only at the end).
    #[arg(long, value_name = "T", value_parser = parse_duration, default_value = "10m")]
    pub save_every: Duration,

    #[command(flatten)]
    pub tables: SearchTables,

    /// The solver's transposition table (MB, or with a unit: 512M, 4G).
    #[arg(long, value_parser = parse_size, default_value = "1G")]
    pub hash: usize,

    /// Also prove every other move at this many prover nodes (those with the largest
    /// subtrees) and minimise each on its own before comparing: slower, but finds choices
    /// near the root whose first proofs are larger (0: off).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub top_nodes: usize,

    /// With --top-nodes: the search of each such move may use at least this many nodes
    /// (a count, or 500K, 20M, 2G; default: 4,096 per node of the subtree it would replace,
    /// at most 50 million).
    #[arg(long, value_name = "NODES", requires = "top_nodes", value_parser = crate::common::parse::parse_nodes)]
    pub top_budget: Option<u64>,

    /// With --top-nodes: how long each proved move is minimised on its own (default: a
    /// sixteenth of --time). The moves are tried while this much time is left.
    #[arg(long, value_parser = parse_duration, requires = "top_nodes")]
    pub top_time: Option<Duration>,

    /// Exact searches: at each prover node whose move frees at most --exact-max nodes, the
    /// smallest proof that builds on the rest of the proof is searched for, with at most
    /// this many positions per search (0: no exact searches). Larger budgets finish the
    /// search at larger subtrees (a count, or 500K, 20M, 2G; default: 1 million).
    #[arg(long, value_name = "NODES", value_parser = crate::common::parse::parse_nodes)]
    pub exact_nodes: Option<u64>,

    /// Exact searches only at nodes whose move frees at most this many nodes (default:
    /// 1,000).
    #[arg(long, value_name = "N")]
    pub exact_max: Option<u64>,

    /// After the passes, a global phase of at most this long (seconds, or 30s, 5m, ...):
    /// exact searches of the other moves at every prover node whose move frees at most
    /// --exact-max nodes (proofs up to --global-slack nodes larger than what the move
    /// frees), then the smallest proof the whole pool can make, solved exactly as an
    /// integer program (HiGHS), repeated while it makes the proof smaller. It finds the
    /// smaller proofs that need changes at several nodes at once, which pay only through
    /// the positions they share. Needs a build with `--features mip`.
    #[arg(long, value_parser = parse_duration, value_name = "T")]
    pub global: Option<Duration>,

    /// With --global, --global-nodes or --global-mip-nodes: the other moves' proofs may be this many nodes
    /// larger than what the node's move frees (default: 12).
    #[arg(long, value_name = "N")]
    pub global_slack: Option<u64>,

    /// More proofs for the pool to draw on (repeat the option): of the same position (e.g.
    /// minimisations that started from other first proofs) or of positions below it (e.g.
    /// a subtree proved on its own), for the same prover and rule set. Each is verified
    /// first; the result is never larger than any of them of the same position.
    #[arg(long, value_name = "FILE")]
    pub merge: Vec<PathBuf>,

    /// File format of the input (default: detected from the magic bytes). Files to merge
    /// are always detected, so the two formats can be mixed.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub proof_format: Option<antichess_proof::Format>,

    #[command(flatten)]
    pub reference: ReferenceArgs,

    /// Output: text, or a JSON object at the end (input, output, format, nodes before and
    /// after, seconds, whether it was interrupted).
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,

    /// The same as --format json.
    #[arg(long, hide = true)]
    pub json: bool,

    #[command(flatten)]
    pub work: Box<WorkArgs>,
}

/// Budgets in positions searched (and branch-and-bound nodes) instead of time: a
/// minimisation within them does the same searches and gives the same proof on every
/// machine.
#[derive(Debug, Args)]
pub struct WorkArgs {
    /// Stop after the searches have evaluated this many positions (a count, or 500K,
    /// 20M, 2G): a budget that gives the same proof on every machine. --time still
    /// applies if given; without it there is then no time limit.
    #[arg(long, value_name = "N", value_parser = crate::common::parse::parse_nodes)]
    pub nodes: Option<u64>,

    /// A global phase within a work budget instead of (or as well as) a time: its exact
    /// searches may evaluate this many positions (a count, or 500K, 20M). With
    /// --global-mip-nodes and no --global, the phase does the same on every machine.
    /// Needs a build with `--features mip`.
    #[arg(long, value_name = "N", value_parser = crate::common::parse::parse_nodes)]
    pub global_nodes: Option<u64>,

    /// In the global phase, each integer program may explore this many branch-and-bound
    /// nodes (default: no limit). Needs a build with `--features mip`.
    #[arg(long, value_name = "N", value_parser = crate::common::parse::parse_nodes)]
    pub global_mip_nodes: Option<u64>,
}

pub fn run(args: &MinimizeArgs) -> anyhow::Result<ExitCode> {
    let mut minimize = minimize_options(args);
    let global = minimize.has_global_phase();
    if args.global_slack.is_some() && !global {
        bail!("--global-slack needs --global (or --global-nodes, --global-mip-nodes)");
    }
    if global && !GLOBAL_CHOICE {
        bail!(
            "--global needs an integer-programming solver, and this antichess was built \
             without one: build it with `cargo build --release --features mip` (HiGHS, \
             compiled from source: needs cmake and a C++ compiler)"
        );
    }
    let reference = args.reference.options()?;
    // An output that may not be replaced is refused before the work.
    antichess_io::check_target(&args.output)?;
    let format = args.proof_format;
    let input = MinimizeInput::read(&args.input, format, &reference)?;
    let tablebase = args.tables.open(input.rules(), false)?;
    let bar = progress_bar(minimize.time, args.global);
    // Ctrl-C: the minimisation ends as if its time were up, and the smallest proof found
    // so far is verified and written.
    let stop = stop_on_ctrl_c(
        "interrupted: finishing with the smallest proof found so far",
        Some(&bar),
    );
    minimize.stop = Some(Arc::clone(&stop));
    let options = MinimizeFileOptions {
        output: args.output.clone(),
        merge: args.merge.clone(),
        hash_bytes: args.hash,
        tablebase,
        minimize,
        save_every: args.save_every,
    };
    let started = Instant::now();
    let mut report = minimize_file(&input, &options, &mut |e| {
        print_event(args, &options.minimize, &bar, started, e);
    })?;
    bar.finish_and_clear();
    let write_error = report.write_error.take();
    if args.json || args.format == OutputFormat::Json {
        if write_error.is_none() {
            print_json_pretty(&report)?;
        }
    } else {
        if stop.load(Ordering::Relaxed) {
            println!(
                "interrupted after {:.1} s: the proof below is the smallest found so far",
                report.seconds
            );
        }
        println!("{}", file_summary(&report));
        if write_error.is_none() {
            println!("wrote {} (verified)", args.output.display());
        }
    }
    if let Some(e) = write_error {
        bail!(
            "{}; the output is left as it was",
            crate::common::output::describe(&e.into())
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The minimiser's options from the arguments.
fn minimize_options(args: &MinimizeArgs) -> MinimizeOptions {
    let mut options = MinimizeOptions::with_budget(args.time, args.work.nodes);
    options.top_nodes = args.top_nodes;
    options.top_min_budget = args.top_budget.unwrap_or(0);
    options.top_time = args.top_time.unwrap_or(options.top_time);
    options.exact_nodes = args.exact_nodes.unwrap_or(options.exact_nodes);
    options.exact_max_subtree = args.exact_max.unwrap_or(options.exact_max_subtree);
    options.global_time = args.global;
    options.global_work = args.work.global_nodes;
    options.global_mip_nodes = args.work.global_mip_nodes;
    options.global_slack = args.global_slack.unwrap_or(options.global_slack);
    options
}

/// The progress bar over the time budget (`time`, then the global phase's).
fn progress_bar(time: Duration, global: Option<Duration>) -> ProgressBar {
    let total = if time == Duration::MAX {
        Duration::ZERO
    } else {
        time + global.unwrap_or_default()
    };
    ProgressBar::new(total.as_secs().max(1))
        .with_style(bar_style("{spinner} [{bar:30}] {elapsed}/{len}s {msg}"))
}

/// Prints an event of the job: the start line, the bar's progress, the saves.
fn print_event(
    args: &MinimizeArgs,
    minimize: &MinimizeOptions,
    bar: &ProgressBar,
    started: Instant,
    event: MinimizeFileEvent<'_>,
) {
    if let MinimizeFileEvent::Progress(p) = event {
        bar.set_position(started.elapsed().as_secs());
        if let Some(figures) = progress_figures(p) {
            bar.set_message(figures);
        }
    } else if let Some(line) = event.line(&args.input, minimize, &args.output) {
        bar.suspend(|| eprintln!("{line}"));
    }
}
