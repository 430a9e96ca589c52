//! SQLite books: arbitrary bytes written to a file and opened as a book, read-only (as
//! `book show`, `book check` and the web app open it) and for writing (which runs SQLite's
//! quick check first); when it opens, the check (the store's integrity check, then the
//! structure) and the reads of the root, its children, the line to it, the pin, the
//! queue and the counts. None may panic or hang.
#![no_main]
use std::path::PathBuf;
use std::sync::OnceLock;

use antichess_book::Book;
use libfuzzer_sys::fuzz_target;

/// The file the inputs are written to (one per process).
fn file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("antichess-fuzz-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        dir.join("fuzz.book")
    })
}

fn read(book: &mut Book) {
    let _ = book.check_all();
    let _ = book.counts();
    let _ = book.pinned();
    let _ = book.queue();
    let _ = book.search_log();
    if let Ok(root) = book.root() {
        let _ = book.line_to(root.id);
        if let Ok(children) = book.children(root.id) {
            for child in children.iter().take(8) {
                let _ = book.line_to(child.id);
                let _ = book.position(child);
            }
        }
    }
    let _ = book.find(&[]);
}

fuzz_target!(|data: &[u8]| {
    let path = file();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    std::fs::write(path, data).expect("writes the input");
    let location = path.to_str().expect("a UTF-8 temporary path");
    if let Ok(mut book) = Book::open_read_only(location) {
        read(&mut book);
    }
    if let Ok(mut book) = Book::open_for_writing(location) {
        read(&mut book);
    }
});
