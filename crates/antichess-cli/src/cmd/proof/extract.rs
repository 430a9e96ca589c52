//! `antichess proof extract`: the proof of a node inside a proof (the subtree reached by a
//! line of moves from its root), written atomically and verified before success is
//! reported. The work is `antichess_proof::extract_file`.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_proof::{extract_file, ProofError, TablebaseOracle};
use anyhow::Context;
use clap::Args;

use crate::common::output::Format as OutputFormat;

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The proof to cut from (either format; a reference-format file is read with the
    /// default rules and prover).
    #[arg(value_name = "PROOF")]
    pub input: PathBuf,

    /// The node: moves from the proof's root, e.g. "Nd4 exd4 e5" (the proof's own move
    /// where the prover moves, any reply where the opponent does).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: String,

    #[command(flatten)]
    pub write: super::write::WriteVerifiedArgs,
}

pub fn run(args: &ExtractArgs) -> anyhow::Result<ExitCode> {
    antichess_io::check_target(&args.write.output)?;
    let json = args.write.format == OutputFormat::Json;
    let source = antichess_proof::read_proof_file(
        &args.input,
        None,
        &antichess_proof::ReferenceOptions::default(),
    )
    .with_context(|| format!("reading {}", args.input.display()))?;
    let rules = source.rules();
    let game = antichess_core::play_move_text(*source.root(), &args.moves)
        .with_context(|| format!("--moves \"{}\" from the proof's root", args.moves))?;
    let line = game.moves().to_vec();
    let source_nodes = source.len() as u64;
    let tablebase = super::write::tables_to_verify(args.write.tables.as_ref(), rules)?;
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    let options = args.write.verify_options();
    match extract_file(source, &line, &args.write.output, &oracle, &options) {
        Ok(stats) => {
            if json {
                let mut value = serde_json::to_value(&stats)?;
                value["verified"] = true.into();
                value["output"] = args.write.output.display().to_string().into();
                value["source_nodes"] = source_nodes.into();
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                println!(
                    "wrote {}: {} wins from {} ({} nodes, {} bytes; the source has {} nodes), verified",
                    args.write.output.display(),
                    stats.prover,
                    game.position().fen(),
                    stats.counts.total,
                    stats.file_bytes.unwrap_or(0),
                    source_nodes
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(err @ ProofError::Join(_)) => Err(err.into()),
        Err(err) if err.is_rejection() => {
            let message = format!("the extracted proof does not verify (not written): {err}");
            Ok(super::write::rejected(json, &message))
        }
        Err(err) => Err(err.into()),
    }
}
