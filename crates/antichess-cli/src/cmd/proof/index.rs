//! `antichess proof index`: builds ahead of time the on-disk index the UCI engine looks
//! proofs up in (`antichess_proof::index_proof_files`; docs/formats/proof-index.md): each
//! file is verified, then indexed; an index already there and valid is kept. Printing only.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_core::Rules;
use antichess_proof::{default_index_dir, index_proof_files};
use clap::Args;

use crate::common::output::{exit_code, parse_format_of_proof_command, Format as OutputFormat};
use antichess_tb::verification_tables;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Proof files, or directories of `*.proof` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,

    /// Tablebase directory, to verify tablebase leaves (default:
    /// ~/.cache/antichess/tables/<rules> if it exists).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Where the index files go (default: $ANTICHESS_PROOF_INDEX, else
    /// ~/.cache/antichess/proof-index, where the engine looks by default).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,

    /// Rule set of the proofs (a compact file for other rules is refused).
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    /// Output: text, or the report as one JSON array.
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,
}

pub fn run(args: &IndexArgs) -> anyhow::Result<ExitCode> {
    let dir = args.index_dir.clone().unwrap_or_else(default_index_dir);
    let tablebase = verification_tables(args.tables.as_deref(), args.rules)?;
    let oracle = tablebase
        .as_ref()
        .map(antichess_proof::TablebaseOracle::new);
    let json = args.format == OutputFormat::Json;
    let report = index_proof_files(&args.paths, args.rules, &dir, &oracle, &mut |done| {
        if !json {
            println!("{done}");
        }
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(exit_code(report.iter().all(|f| f.error.is_none())))
}
