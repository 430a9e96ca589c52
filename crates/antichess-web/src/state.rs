//! The server's state ([`AppState`]), built once at start from a [`ServerConfig`]: the rule
//! set, the tablebases, the proofs (loaded and indexed in memory) and the books (opened by
//! location; their nodes are read per request), and where the front end's files are.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use antichess_book::Location;
use antichess_core::Rules;
use antichess_tb::Tablebase;

use crate::books::{display_location, BookHandle};
use crate::error::{ApiError, ApiResult};
use crate::proofs::LoadedProof;

/// What `antichess serve` starts the server with.
#[derive(Debug)]
pub struct ServerConfig {
    /// Rules of the explorer's positions (books and proofs must use the same).
    pub rules: Rules,
    /// Tablebases for the explorer and the tablebase page (`None`: no tables).
    pub tablebase: Option<Tablebase>,
    /// Book locations (a file path or a database URL).
    pub books: Vec<String>,
    /// Proof files (either format).
    pub proofs: Vec<PathBuf>,
    /// The front end's built files (`web/dist`); `None`: the API only.
    pub web_dist: Option<PathBuf>,
    /// How often the books' roots are sampled for the search page's plot.
    pub sample_every: Duration,
    /// Longest search of `/api/solve` (zero: the endpoint is off).
    pub solve_limit: Duration,
    /// Searches of `/api/solve` running at once (more are refused).
    pub solve_slots: usize,
}

impl ServerConfig {
    /// The API alone, no tables, books or proofs.
    #[must_use]
    pub fn new(rules: Rules) -> ServerConfig {
        ServerConfig {
            rules,
            tablebase: None,
            books: Vec::new(),
            proofs: Vec::new(),
            web_dist: None,
            sample_every: Duration::from_secs(5),
            solve_limit: Duration::from_secs(10),
            solve_slots: 1,
        }
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub rules: Rules,
    pub tablebase: Option<Arc<Tablebase>>,
    /// Every material of at most this many units has a table (0: not even all 2-unit ones).
    pub tables_units: u32,
    pub books: Vec<Arc<BookHandle>>,
    pub proofs: Vec<Arc<LoadedProof>>,
    pub web_dist: Option<PathBuf>,
    pub sample_every: Duration,
    /// Longest search of `/api/solve` (zero: off).
    pub solve_limit: Duration,
    /// One permit per search of `/api/solve` that may run at once.
    pub solve_slots: Arc<tokio::sync::Semaphore>,
}

/// The name of a book in URLs: its file stem (or database name), made unique.
fn book_name(location: &str, taken: &[Arc<BookHandle>]) -> String {
    let base = match Location::parse(location) {
        Location::Sqlite(path) => path
            .file_stem()
            .map_or_else(|| "book".to_string(), |s| s.to_string_lossy().into_owned()),
        Location::Postgres(url) => url
            .rsplit('/')
            .next()
            .and_then(|s| s.split('?').next())
            .filter(|s| !s.is_empty())
            .unwrap_or("postgres")
            .to_string(),
        #[allow(unreachable_patterns)]
        _ => "book".to_string(),
    };
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let mut name = clean.clone();
    let mut n = 2;
    while taken.iter().any(|b| b.name == name) {
        name = format!("{clean}-{n}");
        n += 1;
    }
    name
}

impl AppState {
    /// Loads the proofs and opens the books (each checked); the first problem is an error
    /// naming the file.
    pub fn new(config: ServerConfig) -> Result<AppState, String> {
        let mut books: Vec<Arc<BookHandle>> = Vec::new();
        for location in &config.books {
            let name = book_name(location, &books);
            let handle = BookHandle::open(name, location)
                .map_err(|e| format!("book {}: {e}", display_location(location)))?;
            if handle.meta.rules != config.rules {
                return Err(format!(
                    "book {} uses the {} rules, the server {} (give --rules {})",
                    display_location(location),
                    handle.meta.rules,
                    config.rules,
                    handle.meta.rules
                ));
            }
            books.push(Arc::new(handle));
        }
        let mut proofs = Vec::new();
        for (id, path) in config.proofs.iter().enumerate() {
            proofs.push(Arc::new(LoadedProof::load(id, path, config.rules)?));
        }
        if let Some(tb) = &config.tablebase {
            if tb.rules() != config.rules {
                return Err(format!(
                    "the tables are for the {} rules, the server uses {}",
                    tb.rules(),
                    config.rules
                ));
            }
        }
        let tables_units = config
            .tablebase
            .as_ref()
            .map_or(0, Tablebase::complete_units);
        Ok(AppState {
            rules: config.rules,
            tables_units,
            tablebase: config.tablebase.map(Arc::new),
            books,
            proofs,
            web_dist: config.web_dist,
            sample_every: config.sample_every,
            solve_limit: config.solve_limit,
            solve_slots: Arc::new(tokio::sync::Semaphore::new(config.solve_slots.max(1))),
        })
    }

    /// The book called `name` (404 naming the loaded books if there is none).
    pub fn book(&self, name: &str) -> ApiResult<&Arc<BookHandle>> {
        self.books.iter().find(|b| b.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.books.iter().map(|b| b.name.as_str()).collect();
            ApiError::not_found(if names.is_empty() {
                format!(
                    "no book named {name:?}: the server has no book (start it with --book FILE)"
                )
            } else {
                format!(
                    "no book named {name:?}; the server has {}",
                    names.join(", ")
                )
            })
        })
    }

    /// The book a request names, or the first one when it names none.
    pub fn book_or_default(&self, name: Option<&str>) -> ApiResult<Option<&Arc<BookHandle>>> {
        match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => self.book(name).map(Some),
            None => Ok(self.books.first()),
        }
    }
}
