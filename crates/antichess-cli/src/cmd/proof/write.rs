//! What the `proof` commands that write a proof and verify it (`join`, `extract`) share
//! with each other and with `proof verify`, `stats` and `convert`: the output's options
//! ([`WriteVerifiedArgs`]), the printing of a job's report (text
//! or JSON) and the exit of a rejected proof. The tables to verify with are
//! [`antichess_tb::verification_tables`].

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_proof::jobs::JobError;
use clap::Args;

use crate::common::output::{
    parse_format_of_proof_command, print_json_pretty, Format as OutputFormat,
};

/// The options of a command that writes a proof and verifies it (`join`, `extract`).
#[derive(Debug, Args)]
pub struct WriteVerifiedArgs {
    /// The proof to write (our compact format, atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Tablebase directory, to verify tablebase leaves (default:
    /// ~/.cache/antichess/tables/<rules> if it exists).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Verify by playing tablebase leaves out instead of trusting the tables.
    #[arg(long)]
    pub expand_tablebase_leaves: bool,

    /// Output: text, or one JSON object.
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,
}

impl WriteVerifiedArgs {
    /// The verifier's options.
    pub(super) fn verify_options(&self) -> antichess_proof::VerifyOptions {
        antichess_proof::VerifyOptions {
            expand_tablebase_leaves: self.expand_tablebase_leaves,
            ..antichess_proof::VerifyOptions::default()
        }
    }
}

/// Turns a job's result into an exit code: `ok` prints a success (exit 0); rejections
/// print the reason (in JSON, `{"verified": false, "error": reason}`) and exit 1; other
/// errors go up (exit 2).
pub(super) fn finish<T, E: Into<JobError>>(
    result: Result<T, E>,
    json: bool,
    ok: impl FnOnce(T, bool) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    match result.map_err(Into::into) {
        Ok(value) => {
            ok(value, json)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) if err.is_rejection() => Ok(rejected(json, &err.to_string())),
        Err(err) => Err(err.into()),
    }
}

/// Prints a report: its JSON (indented), or its text and a newline.
pub(super) fn print<T: serde::Serialize + std::fmt::Display>(
    report: T,
    json: bool,
) -> anyhow::Result<()> {
    print_report(report, json, "\n")
}

/// [`print`] for a report whose text is lines, each ending with a newline already.
pub(super) fn print_block<T: serde::Serialize + std::fmt::Display>(
    report: T,
    json: bool,
) -> anyhow::Result<()> {
    print_report(report, json, "")
}

fn print_report<T: serde::Serialize + std::fmt::Display>(
    report: T,
    json: bool,
    end: &str,
) -> anyhow::Result<()> {
    if json {
        print_json_pretty(&report)
    } else {
        print!("{report}{end}");
        Ok(())
    }
}

/// Prints why a proof was rejected (in JSON, `{"verified": false, "error": message}`);
/// the exit code 1.
pub(super) fn rejected(json: bool, message: &str) -> ExitCode {
    if json {
        println!(
            "{}",
            serde_json::json!({ "verified": false, "error": message })
        );
    } else {
        println!("rejected: {message}");
    }
    ExitCode::from(1)
}
