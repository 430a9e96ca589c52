//! `antichess solve`: prove or disprove a win by proof-number search, optionally writing
//! and verifying the proof. The job is the pns crate's prove pipeline with its checkpoint
//! ([`antichess_pns::prove::resume::prove_resumable`]); this file parses the arguments
//! into its options and prints its events and result.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use antichess_core::Color;
use antichess_pns::prove::job::{minimize_within, solve_job, SolveJobOptions};
use antichess_pns::prove::resume::{Checkpointing, ResumeEvent};
use antichess_pns::prove::text::{progress_line, solved_text};
use antichess_pns::{ProofOutput, ProveEvent, ProveOptions, SearchOptions, SearchStatus};
use antichess_tb::Tablebase;
use anyhow::bail;
use clap::Args;

use crate::common::args::{EvalArgs, PositionArgs, SearchTables};
use crate::common::interrupt::stop_on_ctrl_c;
use crate::common::output::{exit_code, peak_memory, print_json, Format};
use crate::common::parse::{parse_color, parse_duration, parse_nodes, parse_size, parse_threads};

/// Prove that one side wins by proof-number search (df-pn). A draw counts as a failure for
/// the prover, so "disproved" means the prover cannot force a win.
///
/// Tablebases: tables up to --tb-units units (default 3) are built into the tables
/// directory first if missing; larger complete sets already there (e.g. after `antichess
/// tb build --units 4`) are used too.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// The side whose win is to be proved (default: the side to move).
    #[arg(long, value_parser = parse_color)]
    pub prover: Option<Color>,

    #[command(flatten)]
    pub tables: SearchTables,

    /// Stop after this many nodes (positions evaluated): a count, or with a decimal unit
    /// (500K, 20M, 2G).
    #[arg(long, value_name = "N", value_parser = parse_nodes)]
    pub nodes: Option<u64>,

    /// Stop after this long: seconds, or with a unit (90s, 5m, 2h).
    #[arg(long, value_name = "T", value_parser = parse_duration)]
    pub time: Option<Duration>,

    /// Transposition table size: MB, or with a unit (512M, 4G). An entry is 24 bytes and a
    /// search stores about one per 3-4 nodes; a full table replaces its least-searched
    /// entries. The memory is faulted in as it is used (with huge pages where the system
    /// allows), which costs about a second per few GB.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub hash: usize,

    /// Search threads sharing the table.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_threads)]
    pub threads: usize,

    /// Write the proof to this file (our compact format) and verify it.
    #[arg(long, value_name = "FILE")]
    pub proof: Option<PathBuf>,

    /// Before writing the proof, spend up to this long looking for smaller proofs: the
    /// prover's nodes with the largest subtrees are revisited and their other moves searched
    /// (for at most half the time), then the proof pool combines what was found, with exact
    /// searches of small subtrees (seconds, or with a unit: 30s, 5m; 0 = write the proof as
    /// found). Ctrl-C ends it sooner, and the proof is written.
    #[arg(long, value_name = "T", default_value = "0", value_parser = parse_duration)]
    pub minimize: Duration,

    /// Minimise the proof within this many positions evaluated by the minimiser's
    /// searches (a count, or 500K, 20M): a budget that gives the same proof on every
    /// machine. Without --minimize there is then no time limit; with it, whichever comes
    /// first ends the minimisation.
    #[arg(long, value_name = "N", value_parser = parse_nodes)]
    pub minimize_nodes: Option<u64>,

    /// With --minimize: the proof as found is saved to the --proof file (verified, written
    /// beside it and renamed) before the minimisation starts, then the smallest so far at
    /// most this often, so that a run killed outright keeps it; `antichess proof minimize`
    /// goes on from it (seconds, or with a unit: 30s, 10m; 0: only at the end).
    #[arg(long, value_name = "T", default_value = "10m", value_parser = parse_duration)]
    pub save_every: Duration,

    /// The ε of the 1+ε trick: a child is searched until its number exceeds the second
    /// best sibling's times 1+ε (larger: fewer re-expansions, less precise focus).
    #[arg(long, value_name = "E", default_value_t = 0.25)]
    pub epsilon: f64,

    #[command(flatten)]
    pub eval: EvalArgs,

    /// Keep the search's state in this file so that it can be stopped and resumed: if the
    /// file exists the search resumes from it (same position, prover and rules), it is saved
    /// every --checkpoint-every, when the budget runs out, on Ctrl-C, and at the end (a
    /// solved checkpoint gives the answer, and a proof, at once). Its size is up to the
    /// used part of the hash table, compressed.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,

    /// How often to save the checkpoint while searching.
    #[arg(long, value_name = "T", default_value = "10m", value_parser = parse_duration)]
    pub checkpoint_every: Duration,

    /// Turn off the lone opposite-bishop rule.
    #[arg(long)]
    pub no_bishop_rule: bool,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// `solve` reports the materials of at most this many units it met without a table.
const MISSING_TABLE_UNITS: u32 = 6;

pub fn run(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = *game.position();
    let json = args.format == Format::Json;
    if pos.legal_moves().is_empty() {
        bail!(
            "the game is over in this position ({})",
            pos.outcome()
                .map_or("no legal move".into(), |o| o.to_string())
        );
    }
    let tablebase = args.tables.open(pos.rules(), json)?;
    // Ctrl-C stops the search as if its budget ran out (the numbers are printed and the
    // checkpoint saved), or the proof's minimisation as if its time were up.
    let interrupt = stop_on_ctrl_c(
        "interrupted: stopping the search or the proof's minimisation",
        None,
    );
    let options = job_options(args, &game, tablebase.as_ref(), &interrupt)?;
    // Outputs that may not be replaced (a symbolic link, a directory, a device, a FIFO)
    // are refused before the search, not after it.
    for path in [&args.proof, &args.checkpoint].into_iter().flatten() {
        antichess_io::check_target(path)?;
    }
    let mut printer = Printer::new(json);
    let outcome = solve_job(&pos, tablebase.as_ref(), &options, &mut |e| {
        printer.event(e)
    })?;
    printer.end_line();
    // (Interrupted after the search ended, in the proof's minimisation: nothing to resume.)
    if interrupt.load(Ordering::Relaxed)
        && outcome.solved.search.status == SearchStatus::Unknown
        && args.checkpoint.is_none()
        && !json
    {
        eprintln!("interrupted; with --checkpoint FILE a search can be resumed later");
    }
    // The result is printed even when the final checkpoint cannot be saved; the error
    // follows it (and the exit code says so).
    if json {
        print_json(&outcome.report)?;
    } else {
        print!("{}", solved_text(&outcome.solved, peak_memory()));
        if let (Some(path), Some(reason)) = (&args.proof, &outcome.report.proof_not_written) {
            println!("no proof written to {}: {reason}", path.display());
        }
    }
    if let Some(Err(e)) = outcome.saved {
        return Err(anyhow::Error::new(e)
            .context("the result above was found, but the final checkpoint was not saved"));
    }
    Ok(exit_code(!outcome.proof_rejected()))
}

/// The job's options from the arguments.
fn job_options(
    args: &SolveArgs,
    game: &antichess_core::Game,
    tablebase: Option<&Tablebase>,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<SolveJobOptions> {
    let pos = game.position();
    let mut search = SearchOptions::new(args.prover.unwrap_or(pos.turn()));
    search.max_nodes = args.nodes;
    search.max_time = args.time;
    search.threads = args.threads.max(1);
    search.lone_bishop_rule = !args.no_bishop_rule;
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        bail!("--epsilon {}: must be a number >= 0", args.epsilon);
    }
    search.epsilon = args.epsilon;
    search.initial = args.eval.initial_numbers()?;
    search.tablebase_units = tablebase.map_or(0, Tablebase::max_units);
    search.record_missing_units = MISSING_TABLE_UNITS;
    search.interrupt = Some(Arc::clone(interrupt));
    let mut prove = ProveOptions::new(search);
    // The file records the moves from the standard start position, when that is where
    // the game began.
    if args.position.fen.is_none() {
        prove.prolog = game.moves().to_vec();
    }
    prove.output = args
        .proof
        .clone()
        .map_or(ProofOutput::None, ProofOutput::File);
    // Ctrl-C during the minimisation ends it with the smallest proof so far.
    prove.minimize = minimize_within(args.minimize, args.minimize_nodes).map(|mut minimize| {
        minimize.stop = Some(Arc::clone(interrupt));
        minimize
    });
    prove.save_every = args.save_every;
    Ok(SolveJobOptions {
        prove,
        hash_bytes: args.hash,
        checkpoint: args.checkpoint.clone().map(|path| Checkpointing {
            path,
            every: args.checkpoint_every,
        }),
    })
}

/// The progress line on stderr (rewritten in place on a terminal) and the job's messages.
struct Printer {
    json: bool,
    tty: bool,
    /// Whether the progress line is open (written with '\r', no newline yet).
    line_open: bool,
}

impl Printer {
    fn new(json: bool) -> Printer {
        Printer {
            json,
            tty: std::io::stderr().is_terminal(),
            line_open: false,
        }
    }

    fn end_line(&mut self) {
        if std::mem::take(&mut self.line_open) {
            eprintln!();
        }
    }

    /// A message line (after the progress line, if open).
    fn message(&mut self, text: &str) {
        self.end_line();
        eprintln!("{text}");
    }

    fn event(&mut self, event: ResumeEvent<'_>) {
        if let ResumeEvent::Prove(ProveEvent::Search(p)) = &event {
            self.progress(p);
        } else if let Some(text) = event.message(self.json) {
            self.message(&text);
        }
    }

    fn progress(&mut self, p: &antichess_pns::Progress) {
        let line = progress_line(p);
        if self.tty {
            eprint!("\r{line}");
            self.line_open = true;
        } else {
            eprintln!("{line}");
        }
    }
}
