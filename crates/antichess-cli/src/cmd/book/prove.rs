//! `antichess book prove`: a solved book turned into one verified proof file, and the
//! solved subtrees of a book (solved or not) into proof files of their own (`--subtrees`).
//! Arguments to [`antichess_book::jobs::book_prove`], its events and reports printed.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use antichess_book::jobs::book_prove::{
    book_prove, check_root, BookProveEvent, BookProveOptions, BookProveOutcome,
};
use antichess_book::text::book_prove::{progress_text, proof_text, subtrees_text};
use antichess_book::AssembleOptions;
use clap::Args;

use crate::common::args::SearchTables;
use crate::common::book::open;
use crate::common::interrupt::stop_on_ctrl_c;
use crate::common::output::{exit_code, print_json, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};

/// Turn a solved book into one proof file: keep one winning prover move per node (the
/// cheapest), re-solve each leaf with proof output, assemble and write the proof, and
/// verify it.
#[derive(Debug, Args)]
pub struct ProveArgs {
    pub book: String,

    /// The proof file to write (our compact format). May be left out with --subtrees.
    #[arg(short, long, value_name = "FILE", required_unless_present = "subtrees")]
    pub output: Option<PathBuf>,

    /// Also write the proof of every solved subtree near the root into this directory
    /// (each won node down to --subtree-depth whose parent is not won, verified; named by
    /// its line, e.g. e3-c6-Bb5.proof), so that a line that takes several runs keeps what
    /// each run solved: seed the next book with them (`book seed`, `book new --seed`).
    /// The root need not be won.
    #[arg(long, value_name = "DIR")]
    pub subtrees: Option<PathBuf>,

    /// How deep below the root --subtrees looks, in plies.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub subtree_depth: u32,

    /// Transposition table of the leaves' solver (of each thread's): MB, or with a unit
    /// (512M, 4G).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub hash: usize,

    /// Threads re-solving leaves, each with a solver and table of its own.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_threads)]
    pub threads: usize,

    #[command(flatten)]
    pub tables: SearchTables,

    /// Node budget of one leaf's re-solve (a count, or 500K, 20M, 2G; default: none).
    #[arg(long, value_name = "N", value_parser = parse_nodes)]
    pub leaf_nodes: Option<u64>,

    /// Turn off the lone opposite-bishop rule.
    #[arg(long)]
    pub no_bishop_rule: bool,

    /// Then spend up to this long making the proof smaller, as `antichess proof minimize`
    /// does (seconds, or with a unit: 90s, 10m). Ctrl-C ends it sooner, and the proof is
    /// written.
    #[arg(long, value_name = "T", value_parser = parse_duration)]
    pub minimize: Option<std::time::Duration>,

    /// Save each re-solved leaf's proof in this directory and read saved ones back, so
    /// that a prove stopped by Ctrl-C (or killed) goes on where it was when run again
    /// (give the directory `book grow --keep-proofs` wrote to use the proofs it kept).
    /// Default: OUTPUT.leaves, removed once the proof is written and verified; a
    /// directory given here is kept.
    #[arg(long, value_name = "DIR")]
    pub leaf_dir: Option<PathBuf>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// The job's options from the arguments.
fn options(args: &ProveArgs, tablebase: Option<&antichess_tb::Tablebase>) -> BookProveOptions {
    let assemble = AssembleOptions {
        hash_bytes: args.hash,
        leaf_nodes: args.leaf_nodes,
        tablebase_units: tablebase.map_or(0, antichess_tb::Tablebase::max_units),
        lone_bishop_rule: !args.no_bishop_rule,
        minimize: args.minimize,
        minimize_work: None,
        // Ctrl-C stops the leaf under search (the saved ones are kept for the next run),
        // or ends the minimisation, and the proof is written as it then is.
        stop: Some(stop_on_ctrl_c(
            "stopping: a leaf being re-solved stops (the saved leaves are kept for the next run); a minimisation ends and the proof is written",
            None,
        )),
        leaf_dir: args.leaf_dir.clone(),
        threads: args.threads,
    };
    BookProveOptions {
        assemble,
        output: args.output.clone(),
        subtrees: args.subtrees.clone(),
        subtree_depth: args.subtree_depth,
    }
}

pub fn run_prove(args: &ProveArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    // An output that cannot be written is refused before the leaves are re-solved.
    if let Some(output) = &args.output {
        antichess_io::check_target(output)?;
    }
    let mut book = open(&args.book)?;
    check_root(&mut book, args.subtrees.is_some())?;
    let rules = book.meta().rules;
    let tablebase = args.tables.open(rules, json_out)?;
    let options = options(args, tablebase.as_ref());
    let tty = std::io::stderr().is_terminal() && !json_out;
    let outcome = book_prove(&mut book, tablebase.as_ref(), &options, &mut |e| match e {
        BookProveEvent::Assembly(e) if tty => eprint!("\r{}", progress_text(&e)),
        BookProveEvent::SubtreesWritten(subtrees) => {
            if tty {
                eprintln!();
            }
            if !json_out {
                print!("{}", subtrees_text(subtrees, args.subtree_depth));
            }
        }
        BookProveEvent::Assembly(_) => {}
    })?;
    match outcome {
        BookProveOutcome::SubtreeRejected(_) => Ok(ExitCode::from(1)),
        BookProveOutcome::NoProof(report, status) => {
            if json_out {
                print_json(&report)?;
            } else if args.output.is_some() {
                println!("the root is not won yet (status {status}): no proof of the root written");
            }
            Ok(ExitCode::SUCCESS)
        }
        BookProveOutcome::Proof(r, leaf_dir) => {
            if tty {
                eprintln!();
            }
            if json_out {
                print_json(&r)?;
            } else {
                print!("{}", proof_text(&r, &leaf_dir));
            }
            Ok(exit_code(r.verified))
        }
    }
}
