//! `antichess book seed` (and `book new --seed`): proofs taken as given by a book. Each
//! proof file is verified first (with the tables of the book's rule set); a node of its
//! position is then won at once, now or when created later. The logic is
//! `antichess_book::seed`. Files are taken one by one: those that cannot be taken here
//! (skipped) or are not sound proofs (rejected) are reported and the others seeded all the
//! same; the command fails when a file is rejected or when none could be taken.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_book::{redact, seed_file, Book, BookError, SeedReport};
use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::common::args::default_tables_dir;
use crate::common::book::open;
use crate::common::output::Format;

/// Seed a book with proof files: each is verified, then every node of its root position
/// (now in the book or created later) is won at once, and `book prove` splices the proof
/// in.
///
/// Every file that can be taken is. A file that cannot be verified here (a table it
/// relies on is missing), that proves another prover's win or is under other rules, or
/// that cannot be read is skipped, and one that is not a proof in our compact format or
/// does not verify is rejected; each is named on stderr with the reason. The exit code is
/// 2 when a file was rejected or when no file could be taken (the others are seeded all
/// the same), 0 otherwise: files skipped beside others seeded are not a failure.
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

pub use crate::common::seeds::proof_files;

/// What seeding a list of files did: the proofs taken, the files skipped (they cannot be
/// taken here: a table they rely on is missing, they prove another prover's win or are
/// under other rules, they cannot be read) and the files rejected (they are not proofs in
/// our format, are damaged, or do not prove what they claim).
#[derive(Debug, Default)]
pub struct Seeding {
    pub seeded: Vec<(PathBuf, SeedReport)>,
    pub skipped: Vec<(PathBuf, String)>,
    pub rejected: Vec<(PathBuf, String)>,
}

impl Seeding {
    /// Whether the command fails: a file was rejected, or files were given and none was
    /// taken.
    pub fn failed(&self) -> bool {
        !self.rejected.is_empty() || self.seeded.is_empty() && !self.skipped.is_empty()
    }

    /// The files not taken, with the reasons, and when [`Seeding::failed`] a last line
    /// saying why, on stderr.
    pub fn print_problems(&self) {
        for (_, why) in &self.skipped {
            eprintln!("skipped: {why}");
        }
        for (_, why) in &self.rejected {
            eprintln!("rejected: {why}");
        }
        let total = self.seeded.len() + self.skipped.len() + self.rejected.len();
        if self.skipped.is_empty() && self.rejected.is_empty() {
            return;
        }
        let summary = format!(
            "seeded {} of {total} proof file{}; {} skipped, {} rejected",
            self.seeded.len(),
            if total == 1 { "" } else { "s" },
            self.skipped.len(),
            self.rejected.len()
        );
        if !self.rejected.is_empty() {
            eprintln!("error: {summary} (a rejected file is damaged or not a proof)");
        } else if self.seeded.is_empty() {
            eprintln!("error: {summary}: no proof could be taken");
        } else {
            eprintln!("{summary}");
        }
    }

    /// The JSON lists of the files skipped and rejected.
    pub fn problems_json(&self) -> (serde_json::Value, serde_json::Value) {
        let list = |v: &[(PathBuf, String)]| -> serde_json::Value {
            v.iter()
                .map(|(file, why)| json!({"file": file.display().to_string(), "reason": why}))
                .collect()
        };
        (list(&self.skipped), list(&self.rejected))
    }
}

/// Seeds `book` with `files`, verified with the tables in `tables` (or the default
/// directory of the book's rules if it exists): every file that can be taken is, the
/// others are listed with the reason (see [`Seeding`]). Errors of the book's store stop
/// the work.
pub fn seed_book(
    book: &mut Book,
    files: &[PathBuf],
    tables: Option<&Path>,
) -> anyhow::Result<Seeding> {
    let rules = book.meta().rules;
    let dir = tables.map_or_else(|| default_tables_dir(rules), Path::to_path_buf);
    let tablebase = if tables.is_some() || dir.is_dir() {
        Some(antichess_tb::Tablebase::open(&dir, rules)?)
    } else {
        None
    };
    let mut out = Seeding::default();
    for file in files {
        match seed_file(book, file, tablebase.as_ref()) {
            Ok(report) => out.seeded.push((file.clone(), report)),
            Err(e @ BookError::Seed { .. }) => {
                let rejection = matches!(&e, BookError::Seed { error, .. } if error.is_rejection());
                let list = if rejection {
                    &mut out.rejected
                } else {
                    &mut out.skipped
                };
                list.push((file.clone(), e.to_string()));
            }
            Err(e @ (BookError::Mismatch(_) | BookError::Io { .. })) => {
                out.skipped.push((file.clone(), e.to_string()));
            }
            Err(e) => {
                return Err(e).with_context(|| format!("seeding {}", redact(book.location())))
            }
        }
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
    if files.is_empty() {
        anyhow::bail!(
            "no proof file to seed with: {} hold{} no `.proof` file",
            args.proofs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if args.proofs.len() == 1 { "s" } else { "" }
        );
    }
    let mut book = open(&args.book)?;
    let seeding = seed_book(&mut book, &files, args.tables.as_deref())?;
    let root = book.root()?;
    if args.format == Format::Json {
        let (skipped, rejected) = seeding.problems_json();
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "seeds": seeds_json(&seeding.seeded),
                "skipped": skipped,
                "rejected": rejected,
                "root_status": root.status.to_string(),
            })
        );
    } else {
        print_seeds(&seeding.seeded);
        println!("root: {}", root.status);
    }
    seeding.print_problems();
    Ok(if seeding.failed() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
