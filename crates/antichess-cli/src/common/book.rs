//! Helpers of the `book` commands: open a book, the moves of `--moves` from the root.

use antichess_book::Book;
use antichess_core::{play_move_text, Move};
use anyhow::Context;

/// Opens the book at a location (a file or a postgres:// URL).
pub fn open(location: &str) -> anyhow::Result<Book> {
    Ok(Book::open(location)?)
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
