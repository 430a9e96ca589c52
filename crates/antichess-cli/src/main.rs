//! The `antichess` command: thin subcommands over the library crates. It parses
//! arguments, opens files, shows progress and prints; the logic lives in the libraries.

#![forbid(unsafe_code)]

mod cmd;
mod common;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Losing chess (antichess) solver suite.
///
/// Positions are given with --fen (default: the start position) and/or --moves (a move
/// list in SAN or UCI, PGN move numbers and comments allowed, played from --fen). Rule sets
/// (--rules): international (lichess; default), fics, joint, vinciperdi, pritchard, and the
/// royal-king pritchard3 and pritchard4 (Pritchard's variants 3 and 4).
#[derive(Debug, Parser)]
#[command(name = "antichess", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Perft(cmd::perft::PerftArgs),
    Moves(cmd::moves::MovesArgs),
    Solve(cmd::solve::SolveArgs),
    /// Endgame tablebases: build, probe, statistics, verification.
    #[command(subcommand)]
    Tb(cmd::tb::TbCommand),
    /// Proof trees: verify, statistics, conversion between formats.
    #[command(subcommand)]
    Proof(cmd::proof::ProofCommand),
    /// Books: the upper-level tree of proof-number searches (new, grow, show, queue, pin,
    /// mark, export, import, copy, prove, check), in a SQLite file or a PostgreSQL database.
    #[command(subcommand)]
    Book(cmd::book::BookCommand),
    /// Benchmarks that print their figures: move generation, tablebase generation, solver,
    /// book, book store.
    #[command(subcommand)]
    Bench(cmd::bench::BenchCommand),
    Serve(cmd::serve::ServeArgs),
    Uci(cmd::uci::UciArgs),
    Prove(cmd::prove::ProveArgs),
    /// The learned evaluation: build a data set from proofs and tables, train the model,
    /// evaluate a position.
    #[command(subcommand)]
    Learn(cmd::learn::LearnCommand),
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Perft(args) => cmd::perft::run(&args),
        Command::Moves(args) => cmd::moves::run(&args),
        Command::Solve(args) => cmd::solve::run(&args),
        Command::Tb(command) => cmd::tb::run(&command),
        Command::Proof(command) => cmd::proof::run(&command),
        Command::Book(command) => cmd::book::run(&command),
        Command::Bench(command) => cmd::bench::run(&command),
        Command::Serve(args) => cmd::serve::run(&args),
        Command::Uci(args) => cmd::uci::run(&args),
        Command::Prove(args) => cmd::prove::run(&args),
        Command::Learn(command) => cmd::learn::run(&command),
    }
}

/// `antichess ... | head` closes the pipe early; printing then fails. Leave quietly instead
/// of reporting a panic (the output was not wanted any more).
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", common::output::describe(&err));
            ExitCode::from(2)
        }
    }
}
