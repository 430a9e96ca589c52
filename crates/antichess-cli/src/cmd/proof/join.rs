//! `antichess proof join`: the proof of a position from proofs of its children (all of
//! them where the opponent is to move, one where the prover is), written atomically and
//! verified before success is reported. The work is `antichess_proof::join_files`.
//! An output that is one of the children (the same file, by its canonical path or, on
//! Unix, its device and inode) is refused before anything is read: the join would
//! replace a proof it was given.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_proof::{join_files, JoinParent, ProofError, TablebaseOracle};
use anyhow::Context;
use clap::Args;

use crate::common::output::Format as OutputFormat;

#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The child proofs (files of either format; a reference-format file needs --fen and
    /// is read with the default rules and prover).
    #[arg(required = true, value_name = "CHILD")]
    pub children: Vec<PathBuf>,

    /// The parent position as a FEN (default: the parent the children's recorded lines
    /// share).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// The parent as moves from the FEN or the start position, e.g. "e3" (default: the
    /// parent the children's recorded lines share).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    #[command(flatten)]
    pub write: super::write::WriteVerifiedArgs,
}

pub fn run(args: &JoinArgs) -> anyhow::Result<ExitCode> {
    let existing = antichess_io::check_target(&args.write.output)?;
    if existing.is_some() {
        refuse_an_input_as_output(&args.write.output, &args.children)?;
    }
    let json = args.write.format == OutputFormat::Json;
    // The rules: those of the first child (every child must share them).
    let first = antichess_proof::read_proof_file(
        &args.children[0],
        None,
        &antichess_proof::ReferenceOptions::default(),
    )
    .with_context(|| format!("reading {}", args.children[0].display()))?;
    let rules = first.rules();
    let parent = if args.fen.is_some() || args.moves.is_some() {
        let start = match &args.fen {
            Some(fen) => antichess_core::Position::from_fen(fen, rules)
                .with_context(|| format!("--fen \"{fen}\""))?,
            None => antichess_core::Position::start(rules),
        };
        let game = match &args.moves {
            Some(moves) => antichess_core::play_move_text(start, moves).context("--moves")?,
            None => antichess_core::Game::new(start),
        };
        // A line from the start position is recorded in the file.
        let prolog = if args.fen.is_none() {
            game.moves().to_vec()
        } else {
            Vec::new()
        };
        JoinParent::Given(*game.position(), prolog)
    } else {
        JoinParent::FromChildren
    };
    let tablebase = super::write::tables_to_verify(args.write.tables.as_ref(), rules)?;
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    let options = args.write.verify_options();
    match join_files(
        &args.children,
        parent,
        &args.write.output,
        &oracle,
        &options,
    ) {
        Ok(report) => {
            let stats = &report.stats;
            if json {
                let used: Vec<_> = report
                    .used
                    .iter()
                    .map(|(san, path)| serde_json::json!({"move": san, "file": path.display().to_string()}))
                    .collect();
                let mut value = serde_json::to_value(stats)?;
                value["verified"] = true.into();
                value["output"] = args.write.output.display().to_string().into();
                value["children"] = used.into();
                value["child_nodes"] = report.child_nodes.into();
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                println!(
                    "wrote {}: {} wins from {} ({} nodes, {} bytes; the children's proofs have {} nodes together), verified",
                    args.write.output.display(),
                    stats.prover,
                    report.root_fen,
                    stats.counts.total,
                    stats.file_bytes.unwrap_or(0),
                    report.child_nodes
                );
                for (san, path) in &report.used {
                    println!("  {san}: {}", path.display());
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(err @ ProofError::Join(_)) => Err(err.into()),
        Err(err) if err.is_rejection() => {
            let message = format!("the joined proof does not verify (not written): {err}");
            Ok(super::write::rejected(json, &message))
        }
        Err(err) => Err(err.into()),
    }
}

/// Refuses `output` when it is the same file as one of `children` (the output exists).
fn refuse_an_input_as_output(output: &Path, children: &[PathBuf]) -> anyhow::Result<()> {
    let out = std::fs::canonicalize(output)
        .with_context(|| format!("-o {}: resolving the path", output.display()))?;
    let out_meta = std::fs::metadata(&out).ok();
    for child in children {
        let Ok(path) = std::fs::canonicalize(child) else {
            continue; // (a missing child is reported when the children are read)
        };
        let same = path == out
            || match (&out_meta, std::fs::metadata(&path)) {
                (Some(a), Ok(b)) => same_inode(a, &b),
                _ => false,
            };
        if same {
            anyhow::bail!(
                "-o {}: it is the child proof {} given to the join, which writing would \
                 replace: write the joined proof to another file",
                output.display(),
                child.display()
            );
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}
