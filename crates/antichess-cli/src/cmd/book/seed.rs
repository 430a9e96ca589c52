//! `antichess book seed` (and `book new --seed`): proofs taken as given by a book. Each
//! proof file is verified first (with the tables of the book's rule set); a node of its
//! position is then won at once, now or when created later. The logic is
//! `antichess_book::seed`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_book::{redact, seed_file, Book, SeedReport};
use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::common::args::default_tables_dir;
use crate::common::book::open;
use crate::common::output::Format;

/// Seed a book with proof files: each is verified, then every node of its root position
/// (now in the book or created later) is won at once, and `book prove` splices the proof
/// in.
#[derive(Debug, Args)]
pub struct SeedArgs {
    pub book: String,

    /// Proof files (our compact format), or directories whose `.proof` files are taken.
    #[arg(required = true, value_name = "PROOF")]
    pub proofs: Vec<PathBuf>,

    /// Tables to verify tablebase leaves with (default: ~/.cache/antichess/tables/<rules>
    /// if it exists).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// The proof files named: files as given, directories' `.proof` files in name order.
pub fn proof_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("reading {}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "proof") && p.is_file())
                .collect();
            found.sort();
            out.extend(found);
        } else if path.is_file() {
            out.push(path.clone());
        } else {
            anyhow::bail!("{}: no such proof file or directory", path.display());
        }
    }
    Ok(out)
}

/// Seeds `book` with `files`, verified with the tables in `tables` (or the default
/// directory of the book's rules if it exists).
pub fn seed_book(
    book: &mut Book,
    files: &[PathBuf],
    tables: Option<&Path>,
) -> anyhow::Result<Vec<(PathBuf, SeedReport)>> {
    let rules = book.meta().rules;
    let dir = tables.map_or_else(|| default_tables_dir(rules), Path::to_path_buf);
    let tablebase = if tables.is_some() || dir.is_dir() {
        Some(antichess_tb::Tablebase::open(&dir, rules)?)
    } else {
        None
    };
    let mut out = Vec::new();
    for file in files {
        let report = seed_file(book, file, tablebase.as_ref())
            .with_context(|| format!("seeding {}", redact(book.location())))?;
        out.push((file.clone(), report));
    }
    Ok(out)
}

/// Prints what seeding did.
pub fn print_seeds(seeds: &[(PathBuf, SeedReport)]) {
    for (file, r) in seeds {
        println!(
            "seeded {} ({} nodes): {}; {} book node{} won now{}",
            file.display(),
            r.proof_nodes,
            r.fen,
            r.won_now,
            if r.won_now == 1 { "" } else { "s" },
            if r.kept_earlier {
                " (the book keeps its smaller proof of this position)"
            } else {
                ""
            }
        );
    }
}

/// The JSON form of what seeding did.
pub fn seeds_json(seeds: &[(PathBuf, SeedReport)]) -> serde_json::Value {
    seeds
        .iter()
        .map(|(file, r)| {
            json!({
                "file": file.display().to_string(),
                "fen": r.fen,
                "proof_nodes": r.proof_nodes,
                "won_now": r.won_now,
                "kept_earlier": r.kept_earlier,
            })
        })
        .collect()
}

pub fn run_seed(args: &SeedArgs) -> anyhow::Result<ExitCode> {
    let files = proof_files(&args.proofs)?;
    let mut book = open(&args.book)?;
    let seeds = seed_book(&mut book, &files, args.tables.as_deref())?;
    let root = book.root()?;
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "seeds": seeds_json(&seeds),
                "root_status": root.status.to_string(),
            })
        );
    } else {
        print_seeds(&seeds);
        println!("root: {}", root.status);
    }
    Ok(ExitCode::SUCCESS)
}
