//! `antichess book prove`: a solved book turned into one verified proof file, and the
//! solved subtrees of a book (solved or not) into proof files of their own (`--subtrees`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use antichess_book::{prove_subtrees, prove_to_file, redact, AssembleOptions, ProveEvent};
use anyhow::{bail, Context};
use clap::Args;
use serde_json::json;

use crate::common::args::SearchTables;
use crate::common::book::{open, stop_on_ctrl_c};
use crate::common::output::{number, Format};
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

pub fn run_prove(args: &ProveArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    // An output that cannot be written is refused before the leaves are re-solved.
    if let Some(output) = &args.output {
        antichess_io::check_target(output)?;
    }
    let mut book = open(&args.book)?;
    let root = book.root()?;
    if !root.status.is_win() && args.subtrees.is_none() {
        bail!(
            "the root of {} is not won yet (status {}, proof {}, disproof {}): grow it first",
            redact(&args.book),
            root.status,
            number(root.proof),
            number(root.disproof)
        );
    }
    let tablebase = solver_tables(
        &args.tables.tables,
        book.meta().rules,
        args.tables.tb_units,
        json_out,
    )?;
    let leaf_dir = args.leaf_dir.clone().unwrap_or_else(|| {
        let mut name = match (&args.output, &args.subtrees) {
            (Some(output), _) => output.clone().into_os_string(),
            (None, Some(dir)) => dir.join("leaves").into_os_string(),
            (None, None) => unreachable!("clap requires one"),
        };
        if args.output.is_some() {
            name.push(".leaves");
        }
        PathBuf::from(name)
    });
    let options = AssembleOptions {
        hash_bytes: args.hash,
        leaf_nodes: args.leaf_nodes,
        tablebase_units: tablebase
            .as_ref()
            .map_or(0, antichess_tb::Tablebase::max_units),
        lone_bishop_rule: !args.no_bishop_rule,
        minimize: args.minimize,
        minimize_work: None,
        // Ctrl-C stops the leaf under search (the saved ones are kept for the next run),
        // or ends the minimisation, and the proof is written as it then is.
        stop: Some(stop_on_ctrl_c(
            "stopping: a leaf being re-solved stops (the saved leaves are kept for the next run); a minimisation ends and the proof is written",
        )),
        leaf_dir: Some(leaf_dir.clone()),
        threads: args.threads,
    };
    let tty = std::io::stderr().is_terminal() && !json_out;
    let mut progress = |e: ProveEvent| {
        if !tty {
            return;
        }
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
    };
    let mut subtrees_out = Vec::new();
    if let Some(dir) = &args.subtrees {
        let written = prove_subtrees(
            &mut book,
            tablebase.as_ref(),
            &options,
            dir,
            args.subtree_depth,
            &mut progress,
        )
        .with_context(|| format!("writing the solved subtrees of {}", redact(&args.book)))?;
        if tty {
            eprintln!();
        }
        for s in &written {
            let (report, verified) = match &s.result {
                Ok(done) => done,
                Err(e) => {
                    if !json_out {
                        println!(
                            "subtree {}: not written, its proof could not be assembled: {e}",
                            s.line
                        );
                    }
                    subtrees_out.push(json!({
                        "line": s.line,
                        "file": null,
                        "error": e,
                        "verified": false,
                    }));
                    continue;
                }
            };
            if !json_out {
                println!(
                    "subtree {}: {} ({} nodes, {} bytes, {})",
                    s.line,
                    s.path.display(),
                    report.counts.total,
                    verified.bytes,
                    match &verified.verdict {
                        Ok(_) => "verified".to_string(),
                        Err(e) => format!("verification FAILED: {e}"),
                    }
                );
            }
            subtrees_out.push(json!({
                "line": s.line,
                "file": s.path.display().to_string(),
                "proof_nodes": report.counts.total,
                "bytes": verified.bytes,
                "verified": verified.verdict.is_ok(),
            }));
        }
        if !json_out && written.is_empty() {
            println!(
                "no solved subtree within {} plies of the root",
                args.subtree_depth
            );
        }
        if written
            .iter()
            .any(|s| s.result.as_ref().map_or(true, |(_, v)| v.verdict.is_err()))
        {
            return Ok(ExitCode::from(1));
        }
    }
    let Some(output) = args.output.as_ref().filter(|_| root.status.is_win()) else {
        if json_out {
            println!(
                "{}",
                json!({ "subtrees": subtrees_out, "proof_file": null, "root_won": root.status.is_win() })
            );
        } else if args.output.is_some() {
            println!(
                "the root is not won yet (status {}): no proof of the root written",
                root.status
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    let (report, verified) = prove_to_file(
        &mut book,
        tablebase.as_ref(),
        &options,
        output,
        &mut progress,
    )
    .with_context(|| format!("proving {}", redact(&args.book)))?;
    if tty {
        eprintln!();
    }
    if verified.verdict.is_ok() && args.leaf_dir.is_none() {
        std::fs::remove_dir_all(&leaf_dir)
            .with_context(|| format!("removing {}", leaf_dir.display()))?;
    }
    let c = &report.counts;
    if json_out {
        println!(
            "{}",
            json!({
                "proof_file": output.display().to_string(),
                "verified": verified.verdict.is_ok(),
                "error": verified.verdict.as_ref().err(),
                "proof_nodes": c.total,
                "bytes": verified.bytes,
                "book_nodes": report.book_nodes,
                "leaves": report.leaves,
                "leaves_reused": report.leaves_reused,
                "seeds_used": report.seeds_used,
                "subtrees": subtrees_out,
                "search_nodes": report.search_nodes,
                "assembled_nodes": report.assembled_nodes,
                "seconds": report.seconds,
                "counts": c,
            })
        );
    } else {
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
            output.display(),
            c.total,
            c.prover,
            c.opponent,
            c.terminal,
            c.tablebase,
            c.references,
            verified.bytes,
            verified.bytes as f64 / c.total.max(1) as f64
        );
        match &verified.verdict {
            Ok(stats) => println!(
                "verified: the proof is valid ({} nodes, {} unfolded, depth {}) in {:.2} s",
                stats.counts.total,
                stats.unfolded_nodes,
                stats.max_depth,
                verified.seconds.as_secs_f64()
            ),
            Err(e) => println!("verification FAILED: {e}"),
        }
    }
    Ok(if verified.verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
