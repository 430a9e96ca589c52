//! `antichess book prove`: a solved book turned into one verified proof file, and the
//! solved subtrees of a book (solved or not) into proof files of their own (`--subtrees`).
//! Arguments to [`antichess_book::jobs::book_prove`], its events and reports printed.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use antichess_book::jobs::book_prove::{
    book_prove, check_root, BookProveEvent, BookProveOptions, BookProveOutcome,
};
use antichess_book::jobs::prove::{ProofFileReport, SubtreeReport};
use antichess_book::{AssembleOptions, ProveEvent};
use clap::Args;

use crate::common::args::SearchTables;
use crate::common::book::{open, stop_on_ctrl_c};
use crate::common::output::{print_json, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::tables::solver_tables;

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

/// The leaves' progress on a terminal.
fn print_event(e: ProveEvent) {
    match e {
        ProveEvent::LeafSolved {
            leaves,
            proof_nodes,
            search_nodes,
            ..
        } => eprint!("\rleaves re-solved: {leaves} (last: {proof_nodes} proof nodes, {search_nodes} nodes searched)   "),
        ProveEvent::Minimizing {
            proof_nodes,
            searches,
        } => eprint!("\rminimising: {proof_nodes} proof nodes after {searches} searches              "),
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
    let tablebase = solver_tables(&args.tables.tables, rules, args.tables.tb_units, json_out)?;
    let options = options(args, tablebase.as_ref());
    let tty = std::io::stderr().is_terminal() && !json_out;
    let outcome = book_prove(&mut book, tablebase.as_ref(), &options, &mut |e| match e {
        BookProveEvent::Assembly(e) if tty => print_event(e),
        BookProveEvent::SubtreesWritten(subtrees) => {
            if tty {
                eprintln!();
            }
            if !json_out {
                print_subtrees(subtrees, args.subtree_depth);
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
                print_proof(&r, &leaf_dir);
            }
            Ok(if r.verified {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn print_subtrees(subtrees: &[SubtreeReport], depth: u32) {
    for s in subtrees {
        match (&s.file, &s.error) {
            (_, Some(e)) => println!(
                "subtree {}: not written, its proof could not be assembled: {e}",
                s.line
            ),
            (file, None) => println!(
                "subtree {}: {} ({} nodes, {} bytes, {})",
                s.line,
                file.clone().unwrap_or_default(),
                s.proof_nodes.unwrap_or_default(),
                s.bytes.unwrap_or_default(),
                match &s.rejected {
                    None => "verified".to_string(),
                    Some(e) => format!("verification FAILED: {e}"),
                }
            ),
        }
    }
    if subtrees.is_empty() {
        println!("no solved subtree within {depth} plies of the root");
    }
}

fn print_proof(r: &ProofFileReport, leaf_dir: &std::path::Path) {
    let (report, c) = (&r.report, &r.counts);
    println!(
        "pruned book: {} book nodes, {} leaves re-solved ({} nodes searched, {} re-searched by extraction) in {:.1} s",
        report.book_nodes, report.leaves, report.search_nodes, report.researched, report.seconds
    );
    if report.seeds_used > 0 {
        println!(
            "{} book nodes took their proofs from the book's seeds",
            report.seeds_used
        );
    }
    if report.leaves_reused > 0 {
        println!(
            "{} of the leaves' proofs read back from {} (saved by an earlier run)",
            report.leaves_reused,
            leaf_dir.display()
        );
    }
    if let Some(m) = &report.minimized {
        println!(
            "minimised: {} -> {} nodes ({} searches with {} positions, {} proved, {} switches)",
            report.assembled_nodes, c.total, m.searched, m.search_nodes, m.proved, m.switches
        );
    }
    println!(
        "proof: {} ({} nodes: {} prover, {} opponent, {} terminal, {} tablebase, {} references; {} bytes = {:.2} bytes/node)",
        r.proof_file,
        c.total,
        c.prover,
        c.opponent,
        c.terminal,
        c.tablebase,
        c.references,
        r.bytes,
        r.bytes as f64 / c.total.max(1) as f64
    );
    match &r.verdict.verdict {
        Ok(stats) => println!(
            "verified: the proof is valid ({} nodes, {} unfolded, depth {}) in {:.2} s",
            stats.counts.total,
            stats.unfolded_nodes,
            stats.max_depth,
            r.verdict.seconds.as_secs_f64()
        ),
        Err(e) => println!("verification FAILED: {e}"),
    }
}
