//! Test data shared by the web crate's tests: the 3-unit tablebases, a proof of 1. e3 Na6
//! (solved here), and small books rooted at 1. e3 Na6 grown by a few searches. Tables and
//! proof are made once in Cargo's target temporary directory and reused; each book is a
//! fresh copy of a template.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use antichess_book::{grow, Book, GrowOptions, GrowStats, Selection};
use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_pns::{write_proof, SearchOptions, Solver};
use antichess_tb::{build, BuildOptions, Material, Tablebase};
use antichess_web::{AppState, ServerConfig};

pub const ROOT_MOVES: &str = "e2e3 b8a6";

pub struct Fixture {
    pub dir: PathBuf,
    pub tables: PathBuf,
    pub proof: PathBuf,
    pub book_template: PathBuf,
}

fn tablebase(tables: &Path) -> Tablebase {
    Tablebase::open(tables, Rules::INTERNATIONAL).unwrap()
}

fn make() -> Fixture {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("antichess-web-fixture");
    std::fs::create_dir_all(&dir).unwrap();
    let tables = dir.join("tables");
    let options = BuildOptions {
        rules: Rules::INTERNATIONAL,
        dir: tables.clone(),
        threads: 0,
        strategy: Default::default(),
    };
    build(&Material::all_up_to(3), &options, &|_| {}).unwrap();
    let tb = tablebase(&tables);
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), ROOT_MOVES).unwrap();
    let root = *game.position();

    let proof = dir.join("e3-na6.proof");
    if !proof.exists() {
        let solver = Solver::new(64 << 20, Some(&tb));
        let mut search = SearchOptions::new(Color::White);
        search.tablebase_units = tb.complete_units();
        let result = solver.search(&root, &search, &mut |_| {});
        assert_eq!(result.status.name(), "proved", "{result:?}");
        let tmp = dir.join(format!("e3-na6.proof.tmp-{}", std::process::id()));
        write_proof(&solver, &root, game.moves(), &search, None, &tmp).unwrap();
        std::fs::rename(&tmp, &proof).unwrap();
    }

    let book_template = dir.join(format!("template-{}.book", std::process::id()));
    let location = book_template.display().to_string();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{location}{suffix}"));
    }
    drop(Book::create(&location, &root, Color::White, game.moves()).unwrap());
    let options = GrowOptions {
        workers: 1,
        search_nodes: 20_000,
        hash_bytes: 16 << 20,
        max_searches: Some(30),
        selection: Selection::MostProving,
        tablebase_units: tb.complete_units(),
        ..GrowOptions::default()
    };
    grow(
        &location,
        Some(&tb),
        &options,
        &Arc::new(AtomicBool::new(false)),
        &GrowStats::default(),
    )
    .unwrap();
    Fixture {
        dir,
        tables,
        proof,
        book_template,
    }
}

/// The shared data (made on first use).
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(make)
}

/// A fresh copy of the template book, named `name` (its file stem is the book's name in the
/// API).
pub fn book_copy(name: &str) -> String {
    let f = fixture();
    let dir = f.dir.join(format!("books-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join(format!("{name}.book"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", target.display()));
    }
    std::fs::copy(&f.book_template, &target).unwrap();
    for suffix in ["-wal", "-shm"] {
        let from = format!("{}{suffix}", f.book_template.display());
        if Path::new(&from).exists() {
            std::fs::copy(&from, format!("{}{suffix}", target.display())).unwrap();
        }
    }
    target.display().to_string()
}

/// A server's configuration with the tables, the proof, and the given books.
pub fn config(books: Vec<String>, web_dist: Option<PathBuf>) -> ServerConfig {
    let f = fixture();
    let mut config = ServerConfig::new(Rules::INTERNATIONAL);
    config.tablebase = Some(tablebase(&f.tables));
    config.proofs = vec![f.proof.clone()];
    config.books = books;
    config.web_dist = web_dist;
    config.sample_every = std::time::Duration::from_millis(200);
    config
}

/// A server state with the tables, the proof, and the given books.
pub fn state(books: Vec<String>, web_dist: Option<PathBuf>) -> AppState {
    AppState::new(config(books, web_dist)).unwrap()
}
