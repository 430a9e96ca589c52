//! `antichess proof extract`: the proof of a node inside a proof (the subtree reached by a
//! line of moves from its root), written atomically and verified before success is
//! reported. The job is `antichess_proof::jobs::ExtractPlan`; this module parses the
//! arguments, opens the tables and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_proof::jobs::{ExtractOptions, ExtractPlan};
use antichess_proof::TablebaseOracle;
use clap::Args;

use antichess_tb::verification_tables;

use super::write::{finish, print};

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
    let json = args.write.format == OutputFormat::Json;
    let options = ExtractOptions {
        moves: args.moves.clone(),
        output: args.write.output.clone(),
        verify: args.write.verify_options(),
    };
    let plan = ExtractPlan::prepare(&args.input, options)?;
    let tablebase = verification_tables(args.write.tables.as_deref(), plan.rules())?;
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    finish(plan.run(&oracle), json, print)
}
