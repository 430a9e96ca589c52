//! `antichess proof expand-leaves`: a proof whose tablebase leaves need tables of up to n
//! units made into one that needs smaller tables only. The job is
//! `antichess_book::jobs::expand_leaves_file` (each leaf of more than `--units` units
//! proved again and spliced in, the result written atomically and verified with the
//! smaller tables before success is reported); this module parses the arguments, opens
//! the tables (building the missing ones) and prints the progress and the report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use antichess_book::jobs::expand_leaves::{ExpandEvent, ExpandLeavesOptions, ExpandMethod};
use antichess_book::jobs::expand_leaves_file::{expand_leaves_file, read_input};
use anyhow::{bail, Context};
use clap::Args;

use crate::common::output::{
    parse_format_of_proof_command, print_json_pretty, Format as OutputFormat,
};
use crate::common::parse::{parse_nodes, parse_size};
use crate::common::tables::solver_tables_of;

#[derive(Debug, Args)]
pub struct ExpandArgs {
    /// The proof to read (either format).
    pub input: PathBuf,

    /// The proof to write (our compact format, atomically; verified before success).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Keep tablebase leaves of at most this many units; prove the others again with the
    /// tables of at most this many units (built first if missing).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub units: u32,

    /// Directory of table files (default: ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// The solver's transposition table (MB, or with a unit: 512M, 4G), kept from one leaf
    /// to the next.
    #[arg(long, value_parser = parse_size, default_value = "1G")]
    pub hash: usize,

    /// The most positions the search of one leaf may evaluate (a count, or 500K, 20M, 2G);
    /// a leaf not proved within it is played out from its table (see --method), or is an
    /// error naming it.
    #[arg(long, value_name = "N", value_parser = parse_nodes, default_value = "2M")]
    pub leaf_nodes: u64,

    /// How a leaf is proved again: `both` searches it within --leaf-nodes and, if that
    /// does not prove it, plays it out from its own table (the prover's moves are the
    /// table's best, every opponent move is followed down to --units units: no search,
    /// but a larger proof); `search` only searches; `playout` plays out every leaf whose
    /// table the directory has (and searches the others).
    #[arg(long, value_enum, default_value = "both")]
    pub method: ExpandMethod,

    /// Search threads per leaf.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,

    /// Save each leaf's new proof in this directory as soon as it is made, and use the
    /// saved ones instead of proving those leaves again, so that a run stopped by Ctrl-C
    /// (or killed) goes on where it was when run again (the files are named by position,
    /// as `book prove --leaf-dir` names them; the result is verified whatever they hold).
    #[arg(long, value_name = "DIR")]
    pub leaf_dir: Option<PathBuf>,

    /// Output: text, or one JSON object.
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,
}

pub fn run(args: &ExpandArgs) -> anyhow::Result<ExitCode> {
    antichess_io::check_target(&args.output)?;
    if args.units == 0 {
        bail!("--units 0: the leaves need tables of some size (2 to 5)");
    }
    let json = args.format == OutputFormat::Json;
    let tree = read_input(&args.input)?;
    // Every table of the directory (the ones of at most --units units built first if
    // missing): the search probes only those, playouts are guided by the larger ones, and
    // the result's leaves have at most --units units.
    let tablebase = solver_tables_of("--units", &args.tables, tree.rules(), args.units, json)?
        .context("--units 0: the leaves need tables of some size")?;
    let options = ExpandLeavesOptions {
        units: args.units,
        hash: args.hash,
        leaf_nodes: args.leaf_nodes,
        method: args.method,
        threads: args.threads,
        leaf_dir: args.leaf_dir.clone(),
    };
    let mut last_report = Instant::now();
    let mut on_event = |event: ExpandEvent<'_>| {
        if !json && last_report.elapsed().as_secs() >= 10 {
            last_report = Instant::now();
            eprintln!("{event}");
        }
    };
    let report = expand_leaves_file(tree, &tablebase, &options, &args.output, &mut on_event)?;
    if json {
        print_json_pretty(&report)?;
    } else {
        println!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}
