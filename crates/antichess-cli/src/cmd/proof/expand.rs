//! `antichess proof expand-leaves`: a proof whose tablebase leaves need tables of up to n
//! units made into one that needs smaller tables only. The job is
//! `antichess_book::jobs::expand_leaves` (each leaf of more than `--units` units proved
//! again and spliced in); this module reads the input, opens the tables, prints the
//! progress, writes the result atomically and verifies it with the smaller tables before
//! success is reported.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use antichess_book::jobs::expand_leaves::{
    expand_leaves, ExpandEvent, ExpandLeavesOptions, ExpandMethod,
};
use antichess_proof::{
    read_proof_file, verify_file, write_proof_file, ByteOrder, Format, LeafOracle,
    ReferenceOptions, TablebaseOracle, VerifyOptions,
};
use anyhow::{bail, Context};
use clap::Args;

use crate::common::output::{parse_format_of_proof_command, Format as OutputFormat};
use crate::common::parse::{parse_nodes, parse_size};
use crate::common::tables::solver_tables_of;

/// How `expand-leaves` proves a leaf again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    Both,
    Search,
    Playout,
}

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
    pub method: Method,

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
    let tree = read_proof_file(&args.input, None, &ReferenceOptions::default())
        .with_context(|| format!("reading {}", args.input.display()))?;
    if tree.is_empty() {
        bail!("{}: the proof has no nodes", args.input.display());
    }
    // Every table of the directory (the ones of at most --units units built first if
    // missing): the search probes only those, playouts are guided by the larger ones, and
    // the result's leaves have at most --units units.
    let tablebase = solver_tables_of("--units", &args.tables, tree.rules(), args.units, json)?
        .context("--units 0: the leaves need tables of some size")?;
    let options = ExpandLeavesOptions {
        units: args.units,
        hash: args.hash,
        leaf_nodes: args.leaf_nodes,
        method: match args.method {
            Method::Both => ExpandMethod::Both,
            Method::Search => ExpandMethod::Search,
            Method::Playout => ExpandMethod::Playout,
        },
        threads: args.threads,
        leaf_dir: args.leaf_dir.clone(),
    };
    let mut last_report = Instant::now();
    let (out, report) = expand_leaves(tree, &tablebase, &options, &mut |event| {
        if json || last_report.elapsed().as_secs() < 10 {
            return;
        }
        last_report = Instant::now();
        match event {
            ExpandEvent::Searching {
                proved,
                leaf,
                leaf_seconds,
                progress,
                seconds,
            } => eprintln!(
                "{seconds:>6.0}s  {proved} leaves proved again; leaf {} for {leaf_seconds:.0} s: proof {} disproof {}, {} positions",
                leaf.fen(),
                progress.proof,
                progress.disproof,
                progress.nodes
            ),
            ExpandEvent::PlayedOut {
                proved,
                played_out,
                seconds,
            } => eprintln!(
                "{seconds:>6.0}s  {proved} leaves proved again ({played_out} played out from their tables)"
            ),
        }
    })?;
    write_proof_file(&out, &args.output, Format::Compact, ByteOrder::Little)?;
    let guide = TablebaseOracle::new(&tablebase);
    let oracle: &dyn LeafOracle = &guide;
    let stats = match verify_file(
        &args.output,
        Some(Format::Compact),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    ) {
        Ok(stats) => stats,
        Err(e) => {
            let _ = std::fs::remove_file(&args.output);
            bail!("the expanded proof does not verify (not kept): {e}");
        }
    };
    let max_units = out.tablebase_units()?;
    if json {
        let mut value = serde_json::to_value(&stats)?;
        value["verified"] = true.into();
        value["output"] = args.output.display().to_string().into();
        for (key, field) in serde_json::to_value(&report)?
            .as_object()
            .expect("a report is an object")
        {
            value[key] = field.clone();
        }
        value["tables_units"] = max_units.into();
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "wrote {}: {} nodes ({} bytes; the input had {}), {} tablebase leaves of at most {max_units} units; {} leaves proved again in {:.1} s ({} read back from --leaf-dir, {} played out from their tables, the others searched: {} positions); verified",
            args.output.display(),
            stats.counts.total,
            stats.file_bytes.unwrap_or(0),
            report.input_nodes,
            stats.counts.tablebase,
            report.leaves_expanded,
            report.seconds,
            report.leaves_reused,
            report.leaves_played_out,
            report.positions_searched,
        );
    }
    Ok(ExitCode::SUCCESS)
}
