//! `antichess proof expand-leaves`: a proof whose tablebase leaves need tables of up to n
//! units made into one that needs smaller tables only. Each leaf of more than `--units`
//! units is proved again, and its proof is spliced in where the leaf was
//! (`antichess_proof::expand_tablebase_leaves`): by the proof-number search with the
//! tables of at most `--units` units within a budget, else played out from its own table
//! when the tables directory has it (`antichess_proof::playout_proof`). The result is written atomically
//! and verified with the smaller tables before success is reported.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use antichess_pns::{extract_proof, SearchOptions, SearchStatus, Solver};
use antichess_proof::{
    expand_tablebase_leaves, playout_proof, read_proof_file, verify_file, write_proof_file,
    ByteOrder, Format, LeafOracle, ReferenceOptions, TablebaseOracle, VerifyOptions,
};
use anyhow::{bail, Context};
use clap::Args;

use antichess_book::leaves::{save, saved};

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
    let input_nodes = tree.len() as u64;
    let input_leaves = tree.counts().tablebase;
    // Every table of the directory (the ones of at most --units units built first if
    // missing): the search probes only those, playouts are guided by the larger ones, and
    // the result's leaves have at most --units units.
    let tablebase = solver_tables_of("--units", &args.tables, tree.rules(), args.units, json)?
        .context("--units 0: the leaves need tables of some size")?;
    let guide = TablebaseOracle::new(&tablebase);
    let prover = tree.prover();
    let mut played_out = 0u64;
    let mut search = SearchOptions::new(tree.prover());
    search.tablebase_units = args.units;
    search.max_nodes = Some(args.leaf_nodes);
    search.threads = args.threads.max(1);
    let solver = Solver::try_new(args.hash, Some(&tablebase))?;
    let start = Instant::now();
    let mut proved = 0u64;
    let mut positions = 0u64;
    let mut last_report = Instant::now();
    let mut reused = 0u64;
    let leaf_dir = args.leaf_dir.as_deref();
    let mut solve = |pos: &antichess_core::Position| -> Result<antichess_proof::ProofTree, String> {
        if let Some(tree) = leaf_dir.and_then(|dir| saved(dir, args.units, prover, pos)) {
            reused += 1;
            proved += 1;
            return Ok(tree);
        }
        // (An inner closure: its `return`s end the proof of this leaf.)
        let leaf = (|| -> Result<antichess_proof::ProofTree, String> {
            let has_table = matches!(guide.probe(pos), Ok(Some(_)));
            let mut failure = None;
            if args.method != Method::Playout || !has_table {
                let leaf_start = Instant::now();
                let result = solver.search(pos, &search, &mut |p| {
                    if !json && last_report.elapsed().as_secs() >= 10 {
                        last_report = Instant::now();
                        eprintln!(
                            "{:>6.0}s  {proved} leaves proved again; leaf {} for {:.0} s: proof {} disproof {}, {} positions",
                            start.elapsed().as_secs_f64(),
                            pos.fen(),
                            leaf_start.elapsed().as_secs_f64(),
                            p.proof,
                            p.disproof,
                            p.nodes
                        );
                    }
                });
                positions += result.nodes;
                if result.status == SearchStatus::Proved {
                    let (leaf, _) =
                        extract_proof(&solver, pos, &[], &search).map_err(|e| e.to_string())?;
                    proved += 1;
                    return Ok(leaf);
                }
                failure = Some(format!(
                    "not proved within {} positions (--leaf-nodes): {:?}",
                    args.leaf_nodes, result.status
                ));
            }
            match failure {
                Some(failure) if args.method == Method::Search || !has_table => Err(format!(
                    "{failure}, and no table of its material to play it out from"
                )),
                _ => {
                    let leaf = playout_proof(pos, prover, &guide, args.units)
                        .map_err(|e| e.to_string())?;
                    played_out += 1;
                    proved += 1;
                    if !json && last_report.elapsed().as_secs() >= 10 {
                        last_report = Instant::now();
                        eprintln!(
                            "{:>6.0}s  {proved} leaves proved again ({played_out} played out from their tables)",
                            start.elapsed().as_secs_f64()
                        );
                    }
                    Ok(leaf)
                }
            }
        })()?;
        if let Some(dir) = leaf_dir {
            save(dir, args.units, &leaf).map_err(|e| e.to_string())?;
        }
        Ok(leaf)
    };
    let (mut out, report) = expand_tablebase_leaves(tree, args.units, &mut solve)?;
    let seconds = start.elapsed().as_secs_f64();
    if out.counts().tablebase > 0 {
        out.record_tables(&guide)?;
    }
    write_proof_file(&out, &args.output, Format::Compact, ByteOrder::Little)?;
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
        value["input_nodes"] = input_nodes.into();
        value["input_tablebase_leaves"] = input_leaves.into();
        value["leaves_expanded"] = report.leaves_expanded.into();
        value["positions_searched"] = positions.into();
        value["leaves_played_out"] = played_out.into();
        value["leaves_reused"] = reused.into();
        value["seconds"] = seconds.into();
        value["tables_units"] = max_units.into();
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "wrote {}: {} nodes ({} bytes; the input had {input_nodes}), {} tablebase leaves of at most {max_units} units; {} leaves proved again in {seconds:.1} s ({reused} read back from --leaf-dir, {played_out} played out from their tables, the others searched: {positions} positions); verified",
            args.output.display(),
            stats.counts.total,
            stats.file_bytes.unwrap_or(0),
            stats.counts.tablebase,
            report.leaves_expanded,
        );
    }
    Ok(ExitCode::SUCCESS)
}
