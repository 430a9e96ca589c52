//! `antichess serve` as a job: [`launch`] checks the options, reads the write token (a
//! file, else `$ANTICHESS_TOKEN`), finds the front end (the pages built into the binary,
//! a directory built with npm on first use, or none), loads the books and proofs, then
//! binds the address and serves until Ctrl-C ([`crate::run`]). What it has to say (the
//! token's warnings, npm's output, the tables, books and proofs served, who may write,
//! where to browse) goes to the caller line by line; the CLI prints the lines on stderr.
//! The tables are the caller's to open (the CLI may build them first): [`launch`] asks for
//! them once the options, the token and the front end are in order.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use antichess_core::Rules;
use antichess_tb::Tablebase;

use crate::assets;
use crate::guard::{is_loopback, Token, WriteRule};
use crate::server::Limits;
use crate::state::{AppState, ServerConfig};

/// Where the pages come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebSource {
    /// No pages: the JSON API only.
    None,
    /// The pages built into the binary (cargo feature `embed-web`) unless
    /// `$ANTICHESS_WEB_DIR` names a directory; else that directory, or the repository's
    /// `web/`, built with npm if needed.
    Default,
    /// This front end's directory, built with npm if needed.
    Dir(PathBuf),
}

/// What [`launch`] serves.
#[derive(Debug)]
pub struct LaunchOptions {
    pub bind: SocketAddr,
    pub rules: Rules,
    /// Book locations (a file path or a database URL).
    pub books: Vec<String>,
    /// Proof files (either format).
    pub proofs: Vec<PathBuf>,
    pub web: WebSource,
    /// A file holding the write token; `None`: `$ANTICHESS_TOKEN`, if set.
    pub token_file: Option<PathBuf>,
    /// How often the books' roots are sampled (at least 0.1 s).
    pub sample_every: Duration,
    /// Longest search of `/api/solve` (zero: off), and how many may run at once.
    pub solve_limit: Duration,
    pub solvers: usize,
    /// Timeouts (above zero) and the cap on connections.
    pub limits: Limits,
}

/// The options' values that cannot be served, as the message to give.
fn check(options: &LaunchOptions) -> Result<(), String> {
    if options.sample_every < Duration::from_millis(100) {
        return Err(format!(
            "--sample-every {} s: at least 0.1 s",
            options.sample_every.as_secs_f64()
        ));
    }
    for (name, t) in [
        ("--header-timeout", options.limits.header_timeout),
        ("--body-timeout", options.limits.body_timeout),
    ] {
        if t.is_zero() {
            return Err(format!("{name} 0: give a time above 0, e.g. 10s"));
        }
    }
    Ok(())
}

/// "12 tables in DIR (complete up to 4 units)", or "none".
fn tables_text(tablebase: Option<&Tablebase>) -> String {
    tablebase.map_or_else(
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
    )
}

/// Serves until Ctrl-C (see the module's comment); `tables` opens the tables to serve
/// (`None`: none), `on_line` gets each line to show.
///
/// # Errors
/// An option out of range (named as its flag), an unreadable token, a front end that
/// cannot be built, the tables' error, a book or proof that cannot be opened, an address
/// that cannot be bound: the message says which.
pub fn launch(
    options: LaunchOptions,
    tables: &mut dyn FnMut() -> Result<Option<Tablebase>, String>,
    on_line: &mut dyn FnMut(&str),
) -> Result<(), String> {
    check(&options)?;
    let token = match &options.token_file {
        Some(path) => Some(Token::from_file(path)?),
        None => Token::from_env()?,
    };
    let token = token.map(|(token, warnings)| {
        for w in warnings {
            on_line(&format!("warning: {w}"));
        }
        token
    });
    let exposed = !is_loopback(options.bind.ip());
    let rule = WriteRule::of(token.is_some(), exposed);
    let embedded_web = (options.web == WebSource::Default
        && std::env::var_os("ANTICHESS_WEB_DIR").is_none())
    .then(assets::embedded)
    .flatten();
    let web_dist = match &options.web {
        WebSource::None => None,
        _ if embedded_web.is_some() => None,
        WebSource::Default => Some(assets::ensure_built(&assets::default_web_dir(), on_line)?),
        WebSource::Dir(web) => Some(assets::ensure_built(web, on_line)?),
    };
    let tablebase = tables()?;
    let tables_text = tables_text(tablebase.as_ref());
    if !options.proofs.is_empty() {
        on_line(&format!(
            "loading {} proof file(s) (each verified, unless `antichess proof index` has \
             indexed it)",
            options.proofs.len()
        ));
    }
    let pages = options.web != WebSource::None;
    let solve_note = (exposed && !options.solve_limit.is_zero()).then(|| {
        format!(
            "note: the explorer's Solve (GET /api/solve) is open to every client: {} search(es) \
             of up to {} s at once; --solve-limit 0 turns it off",
            options.solvers,
            options.solve_limit.as_secs_f64()
        )
    });
    let config = ServerConfig {
        rules: options.rules,
        tablebase,
        books: options.books,
        proofs: options.proofs,
        proof_index: Some(antichess_proof::default_index_dir()),
        web_dist,
        embedded_web,
        sample_every: options.sample_every,
        solve_limit: options.solve_limit,
        solve_slots: options.solvers,
        token,
        limits: options.limits,
    };
    let state = AppState::new(config)?;
    let books: Vec<String> = state.books.iter().map(|b| b.name.clone()).collect();
    let proofs: Vec<String> = state
        .proofs
        .iter()
        .map(|p| format!("{} ({} nodes)", p.name, p.summary().counts.total))
        .collect();
    crate::run(state, options.bind, |addr| {
        on_line(&format!("tables: {tables_text}"));
        if !books.is_empty() {
            on_line(&format!("books: {}", books.join(", ")));
        }
        if !proofs.is_empty() {
            on_line(&format!("proofs: {}", proofs.join(", ")));
        }
        on_line(&rule.describe(addr));
        if let Some(note) = &solve_note {
            on_line(note);
        }
        if pages {
            on_line(&format!(
                "serving http://{addr}/ (explorer), /search, /tablebase; the API under /api/ — Ctrl-C to stop"
            ));
        } else {
            on_line(&format!(
                "serving the API on http://{addr}/api/ — Ctrl-C to stop"
            ));
        }
    })
    .map_err(|e| format!("serving: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> LaunchOptions {
        LaunchOptions {
            bind: "127.0.0.1:0".parse().unwrap(),
            rules: Rules::INTERNATIONAL,
            books: Vec::new(),
            proofs: Vec::new(),
            web: WebSource::None,
            token_file: None,
            sample_every: Duration::from_secs(5),
            solve_limit: Duration::from_secs(10),
            solvers: 1,
            limits: Limits::default(),
        }
    }

    #[test]
    fn options_out_of_range_are_refused_by_their_flags() {
        assert_eq!(check(&options()), Ok(()));
        let mut fast = options();
        fast.sample_every = Duration::from_millis(50);
        let err = launch(fast, &mut || Ok(None), &mut |_| {}).unwrap_err();
        assert_eq!(err, "--sample-every 0.05 s: at least 0.1 s");
        let mut zero = options();
        zero.limits.body_timeout = Duration::ZERO;
        let err = launch(zero, &mut || Ok(None), &mut |_| {}).unwrap_err();
        assert_eq!(err, "--body-timeout 0: give a time above 0, e.g. 10s");
        assert_eq!(tables_text(None), "none");
    }

    #[test]
    fn a_missing_token_file_is_named_before_anything_is_served() {
        let mut missing = options();
        missing.token_file = Some(PathBuf::from("/nonexistent/antichess-token"));
        let mut lines = Vec::new();
        let err = launch(missing, &mut || Ok(None), &mut |l| {
            lines.push(l.to_string())
        })
        .unwrap_err();
        assert!(err.contains("/nonexistent/antichess-token"), "{err}");
        assert!(lines.is_empty(), "{lines:?}");
    }
}
