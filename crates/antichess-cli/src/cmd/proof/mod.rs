//! `antichess proof`: verify proof files, print their statistics, convert between our
//! compact format and the reference solution's 6-byte format, join proofs of children into
//! the proof of their parent, prove tablebase leaves again with smaller tables, and index
//! verified proofs for the engine.
//!
//! Exit codes: 0 verified (or done), 1 the proof or file is rejected (the reason is
//! printed), 2 usage or I/O errors and proofs that cannot be checked (missing tables).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_core::Position;
use antichess_proof::{
    convert_file, detect_file_format, stats_file, verify_file, CompactHeader, Format, PagedFile,
    ProofError, ProofStats, ReferenceFile, ReferenceOptions, VerifyOptions,
};
use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::common::args::{ProofFormatArg, ReferenceArgs};
use crate::common::output::{parse_format_of_proof_command, Format as OutputFormat};

mod expand;
mod extract;
mod index;
mod join;
mod minimize;
mod write;

use write::{rejected, tables_to_verify};

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
    pub proof_format: Option<ProofFormatArg>,

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
    /// The file format: as given, else detected from `file`'s magic bytes.
    fn file_format(&self, file: &std::path::Path) -> anyhow::Result<Format> {
        match self.proof_format {
            Some(format) => Ok(format.into()),
            None => Ok(detect_file_format(file)?),
        }
    }

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
    pub to: ProofFormatArg,

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

/// Turns a library result into an exit code: rejections print the reason (in JSON,
/// `{"verified": false, "error": reason}`) and exit 1, other errors go up (exit 2).
fn finish<T>(
    result: Result<T, ProofError>,
    json: bool,
    ok: impl FnOnce(T) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    match result {
        Ok(value) => {
            ok(value)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) if err.is_rejection() => Ok(rejected(json, &err.to_string())),
        Err(err) => Err(err.into()),
    }
}

/// Total node count from the file's header, for the progress bar.
fn announced_nodes(args_file: &Path, format: Format, reference: &ReferenceOptions) -> Option<u64> {
    match format {
        Format::Compact => {
            let mut reader = BufReader::new(File::open(args_file).ok()?);
            CompactHeader::read(&mut reader)
                .ok()
                .map(|h| h.counts.total)
        }
        Format::Reference => {
            let paged = PagedFile::new(File::open(args_file).ok()?).ok()?;
            ReferenceFile::open(paged, reference.byte_order)
                .ok()
                .map(|f| f.node_count())
        }
    }
}

fn progress_bar(total: Option<u64>, what: &str) -> ProgressBar {
    match total {
        Some(total) if total >= 1 << 16 => {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{spinner}} {what} [{{bar:30}}] {{percent}}% {{human_pos}}/{{human_len}} nodes ({{elapsed}}, eta {{eta}})"
                ))
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        }
        _ => ProgressBar::hidden(),
    }
}

fn print_stats(stats: &ProofStats, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(stats)?);
    } else {
        print!("{stats}");
    }
    Ok(())
}

fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let reference = args.read.reference.options()?;
    let format = args.read.file_format(&args.file)?;
    let (header, tablebase) =
        verifier_tables(&args.file, format, &reference, args.tables.as_ref())?;
    let oracle: &dyn antichess_proof::LeafOracle = &tablebase
        .as_ref()
        .map(antichess_proof::TablebaseOracle::new);
    let options = VerifyOptions {
        expand_tablebase_leaves: args.expand_tablebase_leaves,
        reference,
        ..VerifyOptions::default()
    };
    // The tables the file records (version 2) against those given: the verdict is for
    // the tables given, but the user is told when they are not the proof's.
    let table_checks = header
        .as_ref()
        .filter(|h| h.version >= 2)
        .map(|h| antichess_proof::compare_tables(&h.tables, oracle));
    let json = args.read.json();
    if !json {
        for check in table_checks.iter().flatten() {
            if check.status != antichess_proof::TableStatus::Same {
                println!(
                    "warning: {} (the verdict below is for the tables given)",
                    check.describe()
                );
            }
        }
    }
    let bar = progress_bar(
        announced_nodes(&args.file, format, &options.reference),
        "verifying",
    );
    let result = verify_file(&args.file, Some(format), oracle, &options, &mut |nodes| {
        bar.set_position(nodes);
    });
    bar.finish_and_clear();
    if let (true, Err(err)) = (json, &result) {
        if err.is_rejection() {
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "verified": false,
                    "error": err.to_string(),
                    "tables": table_checks,
                }))?
            );
            return Ok(ExitCode::from(1));
        }
    }
    finish(result, json, |stats| {
        if json {
            let mut value = serde_json::to_value(&stats)?;
            value["verified"] = true.into();
            println!("{}", serde_json::to_string_pretty(&value)?);
            return Ok(());
        }
        println!(
            "verified: {} wins from {} under {} rules ({} nodes, {} format)",
            stats.prover, stats.root_fen, stats.rules, stats.counts.total, stats.format
        );
        print_stats(&stats, false)
    })
}

/// The tables that judge the tablebase leaves of the proof `file`: those of its rule set
/// in `tables`, else in the default directory if it exists (`None`: no tables).
/// The compact file's header (`None` for the reference format) and the tables that judge
/// tablebase leaves: those of the proof's rule set, from `tables`, else the default
/// directory if it exists.
fn verifier_tables(
    file: &Path,
    format: Format,
    reference: &ReferenceOptions,
    tables: Option<&PathBuf>,
) -> anyhow::Result<(
    Option<antichess_proof::CompactHeader>,
    Option<antichess_tb::Tablebase>,
)> {
    let header = match format {
        Format::Compact => {
            let mut file = std::io::BufReader::new(
                std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?,
            );
            Some(antichess_proof::CompactHeader::read(&mut file)?)
        }
        Format::Reference => None,
    };
    let rules = header.as_ref().map_or(reference.rules, |h| h.rules);
    Ok((header, tables_to_verify(tables, rules)?))
}

fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let reference = args.read.reference.options()?;
    let format = args.read.file_format(&args.file)?;
    let bar = progress_bar(announced_nodes(&args.file, format, &reference), "reading");
    let result = stats_file(&args.file, Some(format), &reference, &mut |nodes| {
        bar.set_position(nodes);
    });
    bar.finish_and_clear();
    let json = args.read.json();
    finish(result, json, |stats| print_stats(&stats, json))
}

fn convert(args: &ConvertArgs) -> anyhow::Result<ExitCode> {
    let reference = args.reference.options()?;
    let to: Format = args.to.into();
    let json = args.json || args.format == OutputFormat::Json;
    // An output that may not be replaced is refused before the work.
    antichess_io::check_target(&args.output)?;
    // Only a proof that verifies is converted: the readers build a tree from what they
    // read, and would otherwise turn a file the verifier rejects into one it accepts.
    let format = detect_file_format(&args.input)?;
    let (_, tablebase) = verifier_tables(&args.input, format, &reference, args.tables.as_ref())?;
    let oracle: &dyn antichess_proof::LeafOracle = &tablebase
        .as_ref()
        .map(antichess_proof::TablebaseOracle::new);
    let options = VerifyOptions {
        reference: reference.clone(),
        ..VerifyOptions::default()
    };
    let before = match verify_file(&args.input, Some(format), oracle, &options, &mut |_| {}) {
        Ok(stats) => stats.counts.total,
        Err(err) if err.is_rejection() => {
            let message = format!(
                "{} does not verify, not converted: {err}",
                args.input.display()
            );
            return Ok(rejected(json, &message));
        }
        Err(err) => {
            return Err(anyhow::Error::from(err).context(format!(
                "{} cannot be verified, so it is not converted",
                args.input.display()
            )))
        }
    };
    // Written in our format, the file records the tables its tablebase leaves were just
    // verified with (so a proof written before files recorded them gains the record).
    let result = if to == Format::Compact && tablebase.is_some() {
        antichess_proof::read_proof_file(&args.input, Some(format), &reference).and_then(
            |mut tree| {
                if tree.counts().tablebase > 0 {
                    tree.record_tables(oracle)?;
                }
                antichess_proof::write_proof_file(
                    &tree,
                    &args.output,
                    to,
                    reference.byte_order.unwrap_or_default(),
                )?;
                Ok(tree)
            },
        )
    } else {
        convert_file(&args.input, &args.output, to, &reference)
    };
    finish(result, json, |tree| {
        let counts = tree.counts();
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "input": args.input.display().to_string(),
                    "output": args.output.display().to_string(),
                    "format": to.name(),
                    "nodes_before": before,
                    "nodes_after": counts.total,
                    "verified": true,
                }))?
            );
        } else {
            println!(
                "wrote {} ({} format, {} nodes)",
                args.output.display(),
                to.name(),
                counts.total
            );
        }
        if to == Format::Reference
            && tree.prolog().is_empty()
            && !tree.root().same_position(&Position::start(tree.rules()))
        {
            eprintln!(
                "note: the reference format does not record the root; read it back with --fen \"{}\" --rules {} --prover {}",
                tree.root().fen(),
                tree.rules(),
                tree.prover()
            );
        }
        Ok(())
    })
}
