//! `antichess proof`: verify proof files, print their statistics, convert between our
//! compact format and the reference solution's 6-byte format, join proofs of children into
//! the proof of their parent, prove tablebase leaves again with smaller tables, and index
//! verified proofs for the engine.
//!
//! Exit codes: 0 verified (or done), 1 the proof or file is rejected (the reason is
//! printed), 2 usage or I/O errors and proofs that cannot be checked (missing tables).

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_proof::jobs::{
    announced_nodes, convert_verified, table_warnings, ConvertOptions, FileHead, VerifyRejection,
    VerifyReport,
};
use antichess_proof::{
    detect_file_format, stats_file, verify_file, LeafOracle, TablebaseOracle, VerifyOptions,
};
use clap::{Args, Subcommand};
use indicatif::ProgressBar;

use crate::common::args::ReferenceArgs;
use crate::common::output::{
    parse_format_of_proof_command, print_json_pretty, Format as OutputFormat,
};
use crate::common::progress::stderr_bar;

mod expand;
mod extract;
mod index;
mod join;
mod minimize;
mod write;

use antichess_tb::verification_tables;
use write::{finish, print, print_block};

#[derive(Debug, Subcommand)]
pub enum ProofCommand {
    /// Verify a proof file: replay every move, check that every opponent move is present,
    /// that shared nodes are the same position and that every leaf is a win.
    Verify(VerifyArgs),
    /// Print node counts, depths and the size of the subtree below each root move.
    Stats(StatsArgs),
    /// Convert a proof file between our compact format and the reference format.
    Convert(ConvertArgs),
    /// Make a proof smaller: search other prover moves and keep the combination that makes
    /// the whole proof (shared positions counted once) smallest; the result is verified.
    /// Ctrl-C ends it early with the smallest proof found so far.
    Minimize(minimize::MinimizeArgs),
    /// Build the proof of a position from proofs of its children: one for every move
    /// where the opponent is to move, one (the smallest given) where the prover is.
    /// Positions the children share are written once; the result is verified. The output
    /// may not be one of the children.
    Join(join::JoinArgs),
    /// Write the proof of a node inside a proof: the subtree reached by --moves from its
    /// root (to cut a large proof into the proofs of its parts, which `proof join` puts
    /// together again); the result is verified.
    Extract(extract::ExtractArgs),
    /// Replace the tablebase leaves of more than --units units by proofs searched with the
    /// smaller tables, so that the proof can be checked where only those are built; the
    /// result is verified.
    ExpandLeaves(expand::ExpandArgs),
    /// Verify proof files and build the on-disk index the UCI engine looks them up in
    /// (once per file: an index already there is kept), so that the engine's first look at
    /// a proof costs milliseconds. A file that does not verify gets no index (exit 1).
    Index(index::IndexArgs),
}

/// How `proof verify` and `proof stats` read a proof file and print what they found.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// File format of the proof (default: detected from the magic bytes).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub proof_format: Option<antichess_proof::Format>,

    /// Output: text, or the statistics as one JSON object (json).
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,

    /// The same as --format json.
    #[arg(long, hide = true)]
    pub json: bool,

    #[command(flatten)]
    pub reference: ReferenceArgs,
}

impl ReadArgs {
    /// Whether to print JSON (`--format json` or its alias `--json`).
    fn json(&self) -> bool {
        self.json || self.format == OutputFormat::Json
    }
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The proof file.
    pub file: PathBuf,

    /// Tablebase directory, for tablebase leaves.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Play tablebase leaves out to the end of the game (prover: the tables' best move,
    /// opponent: every move) instead of trusting the tables.
    #[arg(long)]
    pub expand_tablebase_leaves: bool,

    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The proof file.
    pub file: PathBuf,

    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The proof file to read (format detected from the magic bytes).
    pub input: PathBuf,

    /// The file to write (atomically).
    pub output: PathBuf,

    /// The format to write.
    #[arg(long, value_enum)]
    pub to: antichess_proof::Format,

    /// Tablebase directory, for tablebase leaves: the input is verified before it is
    /// converted (default: ~/.cache/antichess/tables/<rules> if it exists). Converted to
    /// our format, the file records these tables (materials and checksums).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Output: text, or a JSON object (input, output, format, nodes before and after).
    #[arg(long, value_name = "text|json", default_value = "text", value_parser = parse_format_of_proof_command)]
    pub format: OutputFormat,

    /// The same as --format json.
    #[arg(long, hide = true)]
    pub json: bool,

    #[command(flatten)]
    pub reference: ReferenceArgs,
}

pub fn run(command: &ProofCommand) -> anyhow::Result<ExitCode> {
    match command {
        ProofCommand::Verify(args) => verify(args),
        ProofCommand::Stats(args) => stats(args),
        ProofCommand::Convert(args) => convert(args),
        ProofCommand::Minimize(args) => minimize::run(args),
        ProofCommand::Join(args) => join::run(args),
        ProofCommand::Extract(args) => extract::run(args),
        ProofCommand::ExpandLeaves(args) => expand::run(args),
        ProofCommand::Index(args) => index::run(args),
    }
}

fn progress_bar(total: Option<u64>, what: &str) -> ProgressBar {
    match total {
        Some(total) if total >= 1 << 16 => stderr_bar(
            Some(total),
            &format!("{{spinner}} {what} [{{bar:30}}] {{percent}}% {{human_pos}}/{{human_len}} nodes ({{elapsed}}, eta {{eta}})"),
        ),
        _ => ProgressBar::hidden(),
    }
}

fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let reference = args.read.reference.options()?;
    let head = FileHead::read(&args.file, args.read.proof_format, &reference)?;
    let tablebase = verification_tables(args.tables.as_deref(), head.rules())?;
    let oracle: &dyn LeafOracle = &tablebase.as_ref().map(TablebaseOracle::new);
    let options = VerifyOptions {
        expand_tablebase_leaves: args.expand_tablebase_leaves,
        reference,
        ..VerifyOptions::default()
    };
    // The tables the file records (version 2) against those given: the verdict is for
    // the tables given, but the user is told when they are not the proof's.
    let table_checks = head.table_checks(oracle);
    let json = args.read.json();
    if !json {
        for warning in table_warnings(table_checks.as_deref()) {
            println!("{warning}");
        }
    }
    let bar = progress_bar(head.announced_nodes(), "verifying");
    let result = verify_file(
        &args.file,
        Some(head.format),
        oracle,
        &options,
        &mut |nodes| {
            bar.set_position(nodes);
        },
    );
    bar.finish_and_clear();
    match result {
        Err(err) if json && err.is_rejection() => {
            print_json_pretty(&VerifyRejection::new(&err, table_checks))?;
            Ok(ExitCode::from(1))
        }
        result => finish(result.map(VerifyReport::new), json, print_block),
    }
}

fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let reference = args.read.reference.options()?;
    let format = match args.read.proof_format {
        Some(format) => format,
        None => detect_file_format(&args.file)?,
    };
    let bar = progress_bar(announced_nodes(&args.file, format, &reference), "reading");
    let result = stats_file(&args.file, Some(format), &reference, &mut |nodes| {
        bar.set_position(nodes);
    });
    bar.finish_and_clear();
    finish(result, args.read.json(), |stats, json| {
        if json {
            println!("{}", serde_json::to_string_pretty(&stats)?);
        } else {
            print!("{stats}");
        }
        Ok(())
    })
}

fn convert(args: &ConvertArgs) -> anyhow::Result<ExitCode> {
    let reference = args.reference.options()?;
    // An output that may not be replaced is refused before the work.
    antichess_io::check_target(&args.output)?;
    let input = FileHead::read(&args.input, None, &reference)?;
    let tablebase = verification_tables(args.tables.as_deref(), input.rules())?;
    let oracle: &dyn LeafOracle = &tablebase.as_ref().map(TablebaseOracle::new);
    let options = ConvertOptions {
        output: args.output.clone(),
        to: args.to,
    };
    let result = convert_verified(&input, oracle, tablebase.is_some(), &options);
    finish(
        result,
        args.json || args.format == OutputFormat::Json,
        |report, json| {
            print(&report, json)?;
            if let Some(note) = report.note() {
                eprintln!("{note}");
            }
            Ok(())
        },
    )
}
