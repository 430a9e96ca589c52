//! Where a line's book lives and how a run starts on it: the cache directory and the
//! book's name, each worker's table size, and the book opened (created, resumed, or built
//! from the frontier file), seeded and given its queued lines.

use std::path::{Path, PathBuf};

use antichess_core::{play_move_text, Color, Move, Position};

use super::{ProveLineEvent, ProveLineOptions};
use crate::frontier::{load_frontier, read_header};
use crate::{seed_file, Book, BookError, Result};

/// The cache directory of books: `cache` if given, else `$XDG_CACHE_HOME/antichess/books`,
/// else `~/.cache/antichess/books`.
#[must_use]
pub fn books_dir(cache: Option<&Path>) -> PathBuf {
    if let Some(dir) = cache {
        return dir.to_path_buf();
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(|d| PathBuf::from(d).join("antichess/books"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/antichess/books"))
        })
        .unwrap_or_else(|| PathBuf::from("books"))
}

/// The book's name: rules, prover and the line from the start position in SAN (`prolog`),
/// or the root's key for a root given by a FEN (`None`), e.g.
/// `international-white-e3-c6.book`.
#[must_use]
pub fn book_name(root: &Position, prolog: Option<&[Move]>, prover: Color) -> String {
    let line = match prolog {
        Some(prolog) => {
            let mut pos = Position::start(root.rules());
            let mut parts = vec![];
            for &m in prolog {
                parts.push(pos.san(m));
                pos = pos.play(m);
            }
            if parts.is_empty() {
                "start".to_string()
            } else {
                parts.join("-")
            }
        }
        None => format!("fen-{:016x}", root.key()),
    };
    let name = format!("{}-{}-{line}", root.rules(), prover.name());
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-=+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.book")
}

/// Each worker's transposition table: `hash`, or half the memory available (at the first
/// call: the workers' tables are not counted again later) shared by the `workers`, at
/// most 4G and at least 256M each.
#[must_use]
pub fn worker_hash(hash: Option<usize>, workers: usize) -> usize {
    static AVAILABLE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    if let Some(hash) = hash {
        return hash;
    }
    let available = AVAILABLE.get_or_init(memory_available);
    let share = available.map_or(256 << 20, |a| a / 2 / workers.max(1) as u64);
    usize::try_from(share.clamp(256 << 20, 4 << 30)).unwrap_or(256 << 20)
}

/// The memory available for new work (MemAvailable of /proc/meminfo), if known.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The book a run works on.
pub(super) struct Opened {
    pub location: String,
    pub resumed: bool,
    pub from_frontier: bool,
    /// Seed files taken.
    pub seeded: usize,
}

impl Opened {
    pub fn path(&self) -> PathBuf {
        PathBuf::from(&self.location)
    }
}

/// Opens the line's book (created, resumed, or built from the frontier file), seeds it
/// and queues the lines.
pub(super) fn open_book(
    options: &ProveLineOptions,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<Opened> {
    let dir = &options.cache;
    std::fs::create_dir_all(dir).map_err(|source| BookError::Io {
        context: format!("creating {}", dir.display()),
        source,
    })?;
    let (root, prover) = (&options.root, options.prover);
    let path = dir.join(book_name(root, options.prolog.as_deref(), prover));
    let location = path.display().to_string();
    let resumed = path.exists();
    let frontier = options.frontier.as_ref().filter(|f| !resumed && f.exists());
    let mut book = if let Some(file) = frontier {
        from_frontier(options, file, &location, on_event)?
    } else if resumed {
        let book = Book::open_for_writing(&location)?;
        if book.meta().prover != prover || !book.root_position().same_position(root) {
            return Err(BookError::Mismatch(format!(
                "{location} is a book of another position or prover: remove it or give --cache"
            )));
        }
        book
    } else {
        Book::create(
            &location,
            root,
            prover,
            options.prolog.as_deref().unwrap_or(&[]),
        )?
    };
    on_event(ProveLineEvent::BookOpened {
        location: location.clone(),
        resumed,
        counts: book.counts()?,
    });
    if resumed {
        retry_pending(&mut book, options, on_event)?;
    }
    let seeded = seed(options, &mut book, on_event)?;
    queue_lines(&options.lines, &mut book, on_event)?;
    Ok(Opened {
        location,
        resumed,
        from_frontier: frontier.is_some(),
        seeded,
    })
}

/// The book built from the frontier file `file`, which must be of this line.
fn from_frontier(
    options: &ProveLineOptions,
    file: &Path,
    location: &str,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<Book> {
    let header = read_header(file)?;
    let frontier_root = Position::from_fen(&header.root_fen, header.rules)
        .map_err(|e| BookError::Input(e.to_string()))?;
    let root = &options.root;
    if header.prover != options.prover
        || header.rules != root.rules()
        || !frontier_root.same_position(root)
    {
        return Err(BookError::Mismatch(format!(
            "{} is the frontier of a book of another position, prover or rule set ({} to win from {} under {} rules)",
            file.display(),
            header.prover,
            header.root_fen,
            header.rules
        )));
    }
    let tables = options.tablebase.as_ref();
    let report = load_frontier(file, location, tables, &mut |e| {
        on_event(ProveLineEvent::Frontier(e));
    })?;
    on_event(ProveLineEvent::FrontierLoaded {
        file: file.to_path_buf(),
        location: location.to_string(),
        report,
    });
    Book::open_for_writing(location)
}

/// Seeds the proofs of the book that waited for tables and now have them
/// (`crate::pending`), and says so when any wait or were taken.
pub(super) fn retry_pending(
    book: &mut Book,
    options: &ProveLineOptions,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<()> {
    let report = crate::pending::retry_pending(book, options.tablebase.as_ref())?;
    if report.seeded > 0 || report.left > 0 || !report.dropped.is_empty() {
        on_event(ProveLineEvent::Pending(report));
    }
    Ok(())
}

/// Seeds the book with the proof files; how many were taken.
fn seed(
    options: &ProveLineOptions,
    book: &mut Book,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<usize> {
    for file in &options.seeds {
        let report = seed_file(book, file, options.tablebase.as_ref())
            .map_err(|e| BookError::Input(format!("seeding from {}: {e}", file.display())))?;
        if report.won_now > 0 {
            on_event(ProveLineEvent::Seeded {
                file: file.clone(),
                won_now: report.won_now,
            });
        }
    }
    Ok(options.seeds.len())
}

/// Queues the known lines (a resumed run meets its line decided, or grown: an event, not
/// an error).
fn queue_lines(
    lines: &[String],
    book: &mut Book,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<()> {
    for text in lines {
        let line = play_move_text(*book.root_position(), text).map_err(|e| {
            BookError::Input(format!(
                "--line \"{text}\": --moves \"{text}\" (played from the book's root): {e}"
            ))
        })?;
        match book.queue_line(line.moves()) {
            Ok((node, ahead)) => on_event(ProveLineEvent::LineQueued {
                text: text.clone(),
                node: node.id,
                ahead: ahead.len(),
            }),
            Err(e) => on_event(ProveLineEvent::LineNotQueued {
                text: text.clone(),
                error: e.to_string(),
            }),
        }
    }
    Ok(())
}
