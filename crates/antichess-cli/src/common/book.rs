//! Helpers of the `book` commands: open a book, the moves of `--moves` from the root,
//! and the Ctrl-C flag of the long book jobs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use antichess_book::Book;
use antichess_core::{play_move_text, Move};
use anyhow::Context;

/// Opens the book at a location (a file or a postgres:// URL).
pub fn open(location: &str) -> anyhow::Result<Book> {
    Ok(Book::open(location)?)
}

/// The first `top` materials of at most `max_units` units a book's searches met most
/// without a table (for `tb build --from-book`); the book's rule set must be `rules`.
pub fn missing_materials(
    location: &str,
    top: usize,
    max_units: u32,
    rules: antichess_core::Rules,
) -> anyhow::Result<Vec<antichess_tb::Material>> {
    let mut out = Vec::new();
    for (name, _) in antichess_book::prove_line::materials_met(location, rules)? {
        if out.len() == top {
            break;
        }
        let m: antichess_tb::Material = name
            .parse()
            .with_context(|| format!("material {name:?} recorded in the book"))?;
        if m.units() <= max_units {
            out.push(m);
        }
    }
    Ok(out)
}

/// The moves `text` from the book's root.
pub fn moves_from_root(book: &Book, text: Option<&str>) -> anyhow::Result<Vec<Move>> {
    match text {
        None => Ok(Vec::new()),
        Some(text) => Ok(play_move_text(*book.root_position(), text)
            .with_context(|| format!("--moves \"{text}\" (played from the book's root)"))?
            .moves()
            .to_vec()),
    }
}

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// A flag that the first Ctrl-C raises (printing `message`); the second quits at once.
pub fn stop_on_ctrl_c(message: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // A second handler cannot be installed in one process; ignore that (tests).
    let _ = ctrlc::set_handler(move || {
        if INTERRUPTS.fetch_add(1, Relaxed) == 0 {
            flag.store(true, Relaxed);
            eprintln!("\n{message} (Ctrl-C again to quit at once)");
        } else {
            std::process::exit(130);
        }
    });
    stop
}
