//! `antichess book seed` (and `book new --seed`): proofs taken as given by a book. Each
//! proof file is verified first (with the tables of the book's rule set); a node of its
//! position is then won at once, now or when created later. The logic is
//! `antichess_book::seed` and [`antichess_book::jobs::seed`]; this prints its report. Files are taken one by one: those that cannot be taken here
//! (skipped) or are not sound proofs (rejected) are reported and the others seeded all the
//! same; the command fails when a file is rejected or when none could be taken.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_book::jobs::seed::seed_job;
use antichess_book::redact;
use antichess_book::seed_files::seed_tables;
use antichess_book::text::seed::{problems_text, seeds_text};
use anyhow::Context;
use clap::Args;

use crate::common::book::open;
use crate::common::output::{print_json, Format};

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

pub fn run_seed(args: &SeedArgs) -> anyhow::Result<ExitCode> {
    let files = antichess_book::seed_files::proof_files(&args.proofs)?;
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
    let tablebase = seed_tables(args.tables.as_deref(), book.meta().rules)?;
    let report = seed_job(&mut book, &files, tablebase.as_ref())
        .with_context(|| format!("seeding {}", redact(book.location())))?;
    if args.format == Format::Json {
        print_json(&report)?;
    } else {
        print!("{}", seeds_text(&report.seeding.seeds));
        println!("root: {}", report.root_status);
    }
    eprint!("{}", problems_text(&report.seeding));
    Ok(if report.seeding.failed() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
