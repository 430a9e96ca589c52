//! `antichess serve`: the browser app (explorer, search, tablebase pages) and its JSON API,
//! over the tables, books and proofs given. The logic lives in `antichess-web`; this opens
//! the files, reads the write token, builds the front end if needed and starts the server,
//! saying on stderr who may write (read-only on an address that is not loopback without a
//! token).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use antichess_core::Rules;
use antichess_tb::Tablebase;
use antichess_web::guard::is_loopback;
use antichess_web::{assets, AppState, Limits, ServerConfig, Token, WriteRule};
use anyhow::{bail, Context};
use clap::Args;

use crate::common::args::default_tables_dir;
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
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections, value_parser = parse_connections)]
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

    /// A proof file to explore (either format; repeatable). It is read into memory.
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

/// A number of connections, from 1 to 65536.
fn parse_connections(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=65536).contains(&n) => Ok(n),
        _ => Err(format!("\"{s}\" is not a count from 1 to 65536")),
    }
}

/// The write token: `--token-file`, else `$ANTICHESS_TOKEN`, else none; with the
/// warnings to print.
fn token(args: &ServeArgs) -> anyhow::Result<Option<(Token, Vec<String>)>> {
    match &args.token_file {
        Some(path) => Ok(Some(Token::from_file(path).map_err(anyhow::Error::msg)?)),
        None => Token::from_env().map_err(anyhow::Error::msg),
    }
}

pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    if args.sample_every < Duration::from_millis(100) {
        bail!(
            "--sample-every {} s: at least 0.1 s",
            args.sample_every.as_secs_f64()
        );
    }
    for (name, t) in [
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
    ] {
        if t.is_zero() {
            bail!("{name} 0: give a time above 0, e.g. 10s");
        }
    }
    let token = token(args)?;
    let token = token.map(|(token, warnings)| {
        for w in warnings {
            eprintln!("warning: {w}");
        }
        token
    });
    let exposed = !is_loopback(args.bind.ip());
    let rule = WriteRule::of(token.is_some(), exposed);
    // The pages built into the binary (feature embed-web) unless a directory is named.
    let embedded_web =
        (!args.no_web && args.web_dir.is_none() && std::env::var_os("ANTICHESS_WEB_DIR").is_none())
            .then(assets::embedded)
            .flatten();
    let web_dist = if args.no_web || embedded_web.is_some() {
        None
    } else {
        let web = args.web_dir.clone().unwrap_or_else(assets::default_web_dir);
        let dist = assets::ensure_built(&web, &mut |line| eprintln!("{line}"))
            .map_err(anyhow::Error::msg)?;
        Some(dist)
    };
    let tablebase = if args.tb_units == 0 {
        let dir = args
            .tables
            .clone()
            .unwrap_or_else(|| default_tables_dir(args.rules));
        Some(
            Tablebase::open(&dir, args.rules)
                .with_context(|| format!("tables {}", dir.display()))?,
        )
    } else {
        solver_tables(&args.tables, args.rules, args.tb_units, false)?
    };
    let tables_text = tablebase.as_ref().map_or_else(
        || "none".to_string(),
        |tb| {
            format!(
                "{} tables in {} (complete up to {} units)",
                tb.materials().len(),
                tb.dir()
                    .map_or_else(String::new, |d| d.display().to_string()),
                tb.complete_units()
            )
        },
    );
    if !args.proofs.is_empty() {
        eprintln!("loading {} proof file(s)", args.proofs.len());
    }
    let config = ServerConfig {
        rules: args.rules,
        tablebase,
        books: args.books.clone(),
        proofs: args.proofs.clone(),
        web_dist,
        embedded_web,
        sample_every: args.sample_every,
        solve_limit: args.solve_limit,
        solve_slots: args.solvers,
        token,
        limits: Limits {
            header_timeout: args.header_timeout,
            body_timeout: args.body_timeout,
            max_connections: args.max_connections,
        },
    };
    let state = AppState::new(config).map_err(anyhow::Error::msg)?;
    let books: Vec<String> = state.books.iter().map(|b| b.name.clone()).collect();
    let proofs: Vec<String> = state
        .proofs
        .iter()
        .map(|p| format!("{} ({} nodes)", p.name, p.summary().counts.total))
        .collect();
    let pages = !args.no_web;
    let solve_note = (exposed && !args.solve_limit.is_zero()).then(|| {
        format!(
            "note: the explorer's Solve (GET /api/solve) is open to every client: {} search(es) \
             of up to {} s at once; --solve-limit 0 turns it off",
            args.solvers,
            args.solve_limit.as_secs_f64()
        )
    });
    antichess_web::run(state, args.bind, |addr| {
        eprintln!("tables: {tables_text}");
        if !books.is_empty() {
            eprintln!("books: {}", books.join(", "));
        }
        if !proofs.is_empty() {
            eprintln!("proofs: {}", proofs.join(", "));
        }
        eprintln!("{}", rule.describe(addr));
        if let Some(note) = &solve_note {
            eprintln!("{note}");
        }
        if pages {
            eprintln!(
                "serving http://{addr}/ (explorer), /search, /tablebase; the API under /api/ — Ctrl-C to stop"
            );
        } else {
            eprintln!("serving the API on http://{addr}/api/ — Ctrl-C to stop");
        }
    })
    .context("serving")?;
    Ok(ExitCode::SUCCESS)
}
