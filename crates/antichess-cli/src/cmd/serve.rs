//! `antichess serve`: the browser app (explorer, search, tablebase pages) and its JSON API,
//! over the tables, books and proofs given. The job is `antichess_web::launch` (which reads
//! the write token, builds the front end if needed and starts the server, saying who may
//! write: read-only on an address that is not loopback without a token); this parses the
//! arguments, opens the tables (building them first if asked) and prints its lines on
//! stderr.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use antichess_core::Rules;
use antichess_tb::Tablebase;
use antichess_web::launch::{launch, LaunchOptions, WebSource};
use antichess_web::Limits;
use anyhow::Context;
use clap::Args;

use crate::common::args::default_tables_dir;
use crate::common::output::describe;
use crate::common::parse::parse_duration;
use crate::common::tables::solver_tables;

/// Serve the browser app and its JSON API: the explorer (/), the search page of a book
/// (/search) and the tablebase page (/tablebase). The front end (web/) is built with npm
/// the first time if needed.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (use 0.0.0.0:PORT to be reachable from other machines). On an
    /// address that is not loopback the server is read-only unless a token is given.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// A file holding the secret that writes (queue, pin, mark) must send as
    /// `Authorization: Bearer <token>`; $ANTICHESS_TOKEN holds it otherwise. With a token,
    /// writes need it on any address.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// Connections served at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections, value_parser = crate::common::parse::parse_connections)]
    pub max_connections: usize,

    /// A request's headers must arrive within this, else the connection is closed.
    #[arg(long, value_name = "T", default_value = "10s", value_parser = parse_duration, hide = true)]
    pub header_timeout: Duration,

    /// A request's body must arrive within this, else 408 and the connection is closed.
    #[arg(long, value_name = "T", default_value = "30s", value_parser = parse_duration, hide = true)]
    pub body_timeout: Duration,

    /// Directory of table files (default: ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Build missing tables with at most this many units first (0: build none); larger
    /// tables already in the directory are used too.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub tb_units: u32,

    /// A book to show and steer: a file path or a database URL (repeatable).
    #[arg(long = "book", value_name = "FILE|URL")]
    pub books: Vec<String>,

    /// A proof file to explore (either format; repeatable). It is read into memory, and
    /// verified first (its tablebase leaves judged by --tables) unless `antichess proof
    /// index` has indexed it: a proof that does not verify is refused, never shown.
    #[arg(long = "proof", value_name = "FILE")]
    pub proofs: Vec<PathBuf>,

    /// Rule set of the explorer's positions (books and proofs must use the same).
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    /// The front end's directory (default: the pages built into the binary by the cargo
    /// feature embed-web, else $ANTICHESS_WEB_DIR, else the repository's web/).
    #[arg(long, value_name = "DIR")]
    pub web_dir: Option<PathBuf>,

    /// Serve the JSON API only (no pages, no npm).
    #[arg(long, conflicts_with = "web_dir")]
    pub no_web: bool,

    /// How often the books' roots are sampled for the search page's plot.
    #[arg(long, value_name = "T", default_value = "5s", value_parser = parse_duration)]
    pub sample_every: Duration,

    /// Longest search the explorer's "Solve" (GET /api/solve) may run; a request may ask for
    /// less. 0 turns solving off.
    #[arg(long, value_name = "T", default_value = "10s", value_parser = parse_duration)]
    pub solve_limit: Duration,

    /// Searches of /api/solve that may run at once (each on one thread, with a table of
    /// up to 256 MB); a request beyond them is refused with 429.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::common::parse::parse_threads)]
    pub solvers: usize,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let options = LaunchOptions {
        bind: args.bind,
        rules: args.rules,
        books: args.books.clone(),
        proofs: args.proofs.clone(),
        web: match (&args.web_dir, args.no_web) {
            (_, true) => WebSource::None,
            (Some(dir), false) => WebSource::Dir(dir.clone()),
            (None, false) => WebSource::Default,
        },
        token_file: args.token_file.clone(),
        sample_every: args.sample_every,
        solve_limit: args.solve_limit,
        solvers: args.solvers,
        limits: Limits {
            header_timeout: args.header_timeout,
            body_timeout: args.body_timeout,
            max_connections: args.max_connections,
        },
    };
    launch(options, &mut || tables(args), &mut |line| {
        eprintln!("{line}")
    })
    .map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

/// The tables to serve: those of the directory with `--tb-units 0`, else those up to
/// `--tb-units` built first if missing.
fn tables(args: &ServeArgs) -> Result<Option<Tablebase>, String> {
    let tablebase = if args.tb_units == 0 {
        let dir = args
            .tables
            .clone()
            .unwrap_or_else(|| default_tables_dir(args.rules));
        Tablebase::open(&dir, args.rules)
            .with_context(|| format!("tables {}", dir.display()))
            .map(Some)
    } else {
        solver_tables(&args.tables, args.rules, args.tb_units, false)
    };
    tablebase.map_err(|e| describe(&e))
}
