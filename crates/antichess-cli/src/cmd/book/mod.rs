//! `antichess book`: the upper-level tree of proof-number searches — create a book, grow
//! it with workers (resumable: stop it any time and run `grow` again), look at it, steer
//! it (queue, pin, mark), cut subtrees out and splice them back, copy it between stores,
//! and turn a solved book into a verified proof file. The logic lives in `antichess-book`;
//! one module per group of subcommands: [`grow`], [`show`] (show, check), [`steer`]
//! (queue, pin, mark), [`transfer`] (export, import, copy), [`prove`], [`seed`] (proofs
//! taken as given), [`tables`] (the materials its searches met without a table), [`frontier`] (its state
//! in one small file: save-frontier, load-frontier).
//!
//! A book is named by a location: a file path (a SQLite book) or a `postgres://` URL (a
//! PostgreSQL database, for workers on many machines); every command takes either.
//! `--moves` of the commands that name a node are played from the book's root (not from
//! the start position).

use std::process::ExitCode;

use antichess_book::jobs::seed::{seed_files, NewReport};
use antichess_book::seed_files::{check_prover, proof_files, seed_tables};
use antichess_book::text::seed::{created_text, problems_text};
use antichess_book::{redact, Book};
use antichess_core::{Color, Move};
use anyhow::Context;
use clap::{Args, Subcommand};

use crate::common::args::PositionArgs;
use crate::common::output::{print_json, Format};
use crate::common::parse::parse_color;

pub mod frontier;
mod grow;
mod prove;
pub mod seed;
mod show;
mod steer;
mod tables;
mod transfer;

use frontier::{LoadFrontierArgs, SaveFrontierArgs};
use grow::GrowArgs;
use prove::ProveArgs;
use seed::SeedArgs;
use show::{CheckArgs, ShowArgs};
use steer::{MarkArgs, PinArgs, QueueArgs};
use tables::TablesArgs;
use transfer::{CopyArgs, ExportArgs, ImportArgs};

#[derive(Debug, Subcommand)]
pub enum BookCommand {
    New(NewArgs),
    Grow(GrowArgs),
    Show(ShowArgs),
    Queue(QueueArgs),
    Pin(PinArgs),
    Mark(MarkArgs),
    Export(ExportArgs),
    Import(ImportArgs),
    Copy(CopyArgs),
    Prove(ProveArgs),
    Check(CheckArgs),
    Tables(TablesArgs),
    Seed(SeedArgs),
    SaveFrontier(SaveFrontierArgs),
    LoadFrontier(LoadFrontierArgs),
}

/// Create a book rooted at a position (given by --fen and/or --moves from the start).
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The book to create: a file (SQLite) or a postgres://user@host/db URL (the database
    /// is created if it does not exist and the user may; it must not hold a book).
    pub book: String,

    #[command(flatten)]
    pub position: PositionArgs,

    /// The side whose win the book is to prove (default: the side to move at the root).
    #[arg(long, value_parser = parse_color)]
    pub prover: Option<Color>,
    /// Seed the book with these proof files (or directories of them): see `book seed`.
    #[arg(long, value_name = "PROOF", num_args = 1..)]
    pub seed: Vec<std::path::PathBuf>,
    /// Tables to verify the seeds' tablebase leaves with (default:
    /// ~/.cache/antichess/tables/<rules> if it exists).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(command: &BookCommand) -> anyhow::Result<ExitCode> {
    match command {
        BookCommand::New(args) => run_new(args),
        BookCommand::Grow(args) => grow::run_grow(args),
        BookCommand::Show(args) => show::run_show(args),
        BookCommand::Queue(args) => steer::run_queue(args),
        BookCommand::Pin(args) => steer::run_pin(args),
        BookCommand::Mark(args) => steer::run_mark(args),
        BookCommand::Export(args) => transfer::run_export(args),
        BookCommand::Import(args) => transfer::run_import(args),
        BookCommand::Copy(args) => transfer::run_copy(args),
        BookCommand::Prove(args) => prove::run_prove(args),
        BookCommand::Check(args) => show::run_check(args),
        BookCommand::Tables(args) => tables::run_tables(args),
        BookCommand::Seed(args) => seed::run_seed(args),
        BookCommand::SaveFrontier(args) => frontier::run_save(args),
        BookCommand::LoadFrontier(args) => frontier::run_load(args),
    }
}

fn run_new(args: &NewArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = *game.position();
    let prolog: &[Move] = if args.position.fen.is_none() {
        game.moves()
    } else {
        &[]
    };
    let prover = args.prover.unwrap_or(pos.turn());
    // The seed files are listed (missing ones refused, and ones for another prover or
    // rule set) before the book is created.
    let files = proof_files(&args.seed)?;
    check_prover(&pos, args.prover, &args.seed, None)?;
    let mut book = Book::create(&args.book, &pos, prover, prolog)?;
    let tablebase = seed_tables(args.tables.as_deref(), book.meta().rules)?;
    let seeding = seed_files(&mut book, &files, tablebase.as_ref())
        .with_context(|| format!("seeding {}", redact(book.location())))?;
    let report = NewReport::of(&mut book, &pos, seeding)?;
    let exit = if report.seeding.failed() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    };
    if args.format == Format::Json {
        print_json(&report)?;
    } else {
        print!("{}", created_text(&report));
    }
    eprint!("{}", problems_text(&report.seeding));
    Ok(exit)
}
