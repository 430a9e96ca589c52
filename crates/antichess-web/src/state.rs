//! The server's state ([`AppState`]), built once at start from a [`ServerConfig`]: the rule
//! set, the tablebases, the proofs (loaded and indexed in memory) and the books (opened by
//! location; their nodes are read per request), where the front end's files are, the
//! write token and the limits on slow clients, and the file paths that answers must not
//! show.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use antichess_book::Location;
use antichess_core::Rules;
use antichess_tb::Tablebase;

use crate::access::{Token, WriteRule};
use crate::books::{display_location, BookHandle};
use crate::error::{ApiError, ApiResult};
use crate::proofs::LoadedProof;
use crate::server::Limits;
use antichess_proof::{load_verified, TablebaseOracle};

/// What `antichess serve` starts the server with.
#[derive(Debug)]
pub struct ServerConfig {
    /// Rules of the explorer's positions (books and proofs must use the same).
    pub rules: Rules,
    /// Tablebases for the explorer and the tablebase page (`None`: no tables).
    pub tablebase: Option<Tablebase>,
    /// Book locations (a file path or a database URL).
    pub books: Vec<String>,
    /// Proof files (either format). Each is verified when the server starts (its tablebase
    /// leaves judged by `tablebase`) unless `proof_index` holds its index, the record that
    /// it verified; one that does not verify is an error: none is shown unverified.
    pub proofs: Vec<PathBuf>,
    /// Where the proofs' indexes are looked for (`antichess proof index`; `None`: every
    /// proof is verified at the start).
    pub proof_index: Option<PathBuf>,
    /// The front end's built files (`web/dist`); `None`: the embedded files, if any, or
    /// the API only.
    pub web_dist: Option<PathBuf>,
    /// The front end built into the binary ([`crate::assets::embedded`]), served when
    /// `web_dist` is `None`.
    pub embedded_web: Option<crate::assets::EmbeddedFiles>,
    /// How often the books' roots are sampled for the search page's plot.
    pub sample_every: Duration,
    /// Longest search of `/api/solve` (zero: the endpoint is off).
    pub solve_limit: Duration,
    /// Searches of `/api/solve` running at once (more are refused).
    pub solve_slots: usize,
    /// The secret that writes must send as `Authorization: Bearer <token>` (`None`: writes
    /// are open on a loopback address and refused on any other).
    pub token: Option<Token>,
    /// Timeouts and the cap on connections.
    pub limits: Limits,
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
            proof_index: None,
            web_dist: None,
            embedded_web: None,
            sample_every: Duration::from_secs(5),
            solve_limit: Duration::from_secs(10),
            solve_slots: 1,
            token: None,
            limits: Limits::default(),
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
    pub embedded_web: Option<crate::assets::EmbeddedFiles>,
    pub sample_every: Duration,
    /// Longest search of `/api/solve` (zero: off).
    pub solve_limit: Duration,
    /// One permit per search of `/api/solve` that may run at once.
    pub solve_slots: Arc<tokio::sync::Semaphore>,
    /// The write token, if any.
    pub token: Option<Token>,
    pub limits: Limits,
    /// Whether the server is bound to an address that is not loopback (set by
    /// [`crate::serve_on`] from its listener; a router alone is not exposed).
    exposed: AtomicBool,
    /// Paths the server knows (as given and resolved), longest first, and the names that
    /// answers show instead.
    hidden_paths: Vec<(String, String)>,
}

/// The paths of `path` that an answer might contain (as given, absolute, resolved), each
/// with `name`.
fn path_forms(path: &Path, name: &str, into: &mut Vec<(String, String)>) {
    let mut forms = vec![path.to_path_buf()];
    if let Ok(cwd) = std::env::current_dir() {
        forms.push(cwd.join(path));
    }
    if let Ok(real) = std::fs::canonicalize(path) {
        forms.push(real);
    }
    for form in forms {
        let text = form.display().to_string();
        if !text.is_empty() && text != name {
            into.push((text, name.to_string()));
        }
    }
}

/// The name a path is shown by: its last component.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || "(a directory)".to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
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
        if let Some(tb) = &config.tablebase {
            if tb.rules() != config.rules {
                return Err(format!(
                    "the tables are for the {} rules, the server uses {}",
                    tb.rules(),
                    config.rules
                ));
            }
        }
        let mut proofs = Vec::new();
        let oracle = config.tablebase.as_ref().map(TablebaseOracle::new);
        let index_dir = config.proof_index.clone();
        for (id, path) in config.proofs.iter().enumerate() {
            let proof = load_verified(id, path, config.rules, index_dir.as_deref(), &oracle)
                .map_err(|e| {
                    format!(
                        "proof {}: not shown: only proofs that verify are ({e})",
                        path.display()
                    )
                })?;
            proofs.push(Arc::new(proof));
        }
        let mut hidden_paths = Vec::new();
        for book in &books {
            match Location::parse(&book.location) {
                Location::Sqlite(path) => path_forms(&path, &file_name(&path), &mut hidden_paths),
                Location::Postgres(url) => {
                    hidden_paths.push((url.clone(), book.public_location()));
                    hidden_paths.push((display_location(&url), book.public_location()));
                }
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }
        for path in &config.proofs {
            path_forms(path, &file_name(path), &mut hidden_paths);
        }
        if let Some(dir) = config.tablebase.as_ref().and_then(Tablebase::dir) {
            path_forms(dir, &file_name(dir), &mut hidden_paths);
        }
        hidden_paths.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        hidden_paths.dedup();
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
            embedded_web: config.embedded_web,
            sample_every: config.sample_every,
            solve_limit: config.solve_limit,
            solve_slots: Arc::new(tokio::sync::Semaphore::new(config.solve_slots.max(1))),
            token: config.token,
            limits: config.limits,
            exposed: AtomicBool::new(false),
            hidden_paths,
        })
    }

    /// Marks the server as bound to an address that is not loopback (never undone).
    pub fn set_exposed(&self) {
        self.exposed.store(true, Ordering::SeqCst);
    }

    /// Whether the server is bound to an address that is not loopback.
    pub fn exposed(&self) -> bool {
        self.exposed.load(Ordering::SeqCst)
    }

    /// Who may write now.
    pub fn write_rule(&self) -> WriteRule {
        WriteRule::of(self.token.is_some(), self.exposed())
    }

    /// `text` with every path the server knows (books, proofs, tables) replaced by its
    /// name, for answers: a client learns no file path.
    pub fn hide_paths(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (path, name) in &self.hidden_paths {
            if out.contains(path.as_str()) {
                out = out.replace(path.as_str(), name);
            }
        }
        out
    }

    /// The book called `name` (404 naming the loaded books if there is none).
    pub fn book(&self, name: &str) -> ApiResult<&Arc<BookHandle>> {
        self.books.iter().find(|b| b.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.books.iter().map(|b| b.name.as_str()).collect();
            ApiError::not_found(if names.is_empty() {
                format!(
                    "no book named \"{name}\": the server has no book (start it with --book FILE)"
                )
            } else {
                format!(
                    "no book named \"{name}\"; the server has {}",
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
