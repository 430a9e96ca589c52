//! Damaged books (issue 36, item 5, and the read-only item of 6), reproduced as the trial
//! did: a byte-level mutant of a small SQLite book that SQLite's own check flags (`book
//! check` must say so, `book grow` must refuse it); a deleted node row, a node that is its
//! own parent, a cycle of parents and a claim leased until the year 287,000 (`book grow`
//! must stop naming the node instead of waiting for ever: each run is killed after a
//! minute, which fails the test); and a book in a read-only directory, which `book show`
//! and `book check` open read-only (as root, where permissions do not bind, they run as the
//! user nobody).

use crate::common::{ok, s, text};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use antichess_testkit::temp_dir as temp;

/// How long a command may run before the test calls it hung.
const HANG: Duration = Duration::from_secs(60);

/// Runs `antichess` with `args`, killed after [`HANG`] (a panic: it hung).
fn antichess(args: &[&str]) -> Output {
    run(
        Command::new(env!("CARGO_BIN_EXE_antichess")).args(args),
        args,
    )
}

/// Runs a command, killed after [`HANG`] (a panic: it hung).
fn run(command: &mut Command, args: &[&str]) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let start = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > HANG {
            let _ = child.kill();
            let out = child.wait_with_output().expect("waits");
            panic!(
                "{args:?} still ran after {HANG:?} (killed): it hangs\n{}",
                text(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("waits")
}

/// Runs a command that must fail (exit code 1: `check` found problems; 2: an error);
/// returns its stdout and stderr.
fn fails(args: &[&str]) -> String {
    let out = antichess(args);
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{args:?}\n{}",
        text(&out)
    );
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const GROW: [&str; 8] = [
    "--tb-units",
    "0",
    "--hash",
    "16M",
    "--search-nodes",
    "2000",
    "--select",
    "best",
];

/// A small grown book (1. e3 Na6, the root's one move 2. Bxa6 expanded below it): node 1
/// is the root, node 2 its child 2. Bxa6, node 3 that node's first child. Its WAL is
/// checkpointed into the file, so that the file's bytes are the whole book.
fn small_book(dir: &Path) -> PathBuf {
    let book = dir.join("b.book");
    ok(&["book", "new", s(&book), "--moves", "e3 Na6"]);
    let mut args = vec!["book", "grow", s(&book), "--searches", "3"];
    args.extend(GROW);
    ok(&args);
    let conn = rusqlite::Connection::open(&book).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let parent: Option<i64> = conn
        .query_row("SELECT parent FROM nodes WHERE id = 3", [], |r| r.get(0))
        .unwrap();
    assert_eq!(parent, Some(2), "the book's layout changed");
    drop(conn);
    book
}

/// Runs SQL on a book without foreign key checks (as the sqlite3 shell does by default).
fn damage(book: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(book).unwrap();
    conn.execute_batch(&format!("PRAGMA foreign_keys = OFF; {sql}"))
        .unwrap();
}

fn grow_args(book: &Path) -> Vec<&str> {
    let mut args = vec!["book", "grow", s(book), "--searches", "5"];
    args.extend(GROW);
    args
}

/// `grow` on a damaged tree stops (within [`HANG`]) with a message naming `node`, and
/// `check` reports `check_says`.
fn stops_naming(book: &Path, node: &str, check_says: &str) {
    let out = fails(&grow_args(book));
    assert!(out.contains(node), "grow should name {node}:\n{out}");
    assert!(out.contains("book check"), "{out}");
    let out = fails(&["book", "check", s(book)]);
    assert!(
        out.contains(check_says),
        "check should say {check_says:?}:\n{out}"
    );
    assert!(out.contains("problem(s)"), "{out}");
}

#[test]
fn grow_stops_on_a_deleted_node_row() {
    let dir = temp("damage-deleted");
    let book = small_book(&dir);
    damage(&book, "DELETE FROM nodes WHERE id = 2");
    stops_naming(
        &book,
        "node 1 (the root): it is expanded but has no child for the move Bxa6",
        "node 3: its parent node 2 is missing",
    );
}

#[test]
fn grow_stops_on_a_node_that_is_its_own_parent() {
    let dir = temp("damage-self");
    let book = small_book(&dir);
    damage(&book, "UPDATE nodes SET parent = id WHERE id = 2");
    stops_naming(
        &book,
        "no child for the move Bxa6",
        "node 2: it is its own parent",
    );
}

#[test]
fn grow_stops_on_a_cycle_of_parents() {
    let dir = temp("damage-cycle");
    let book = small_book(&dir);
    damage(
        &book,
        "UPDATE nodes SET parent = 3 WHERE id = 2; UPDATE nodes SET parent = 2 WHERE id = 3",
    );
    stops_naming(
        &book,
        "no child for the move Bxa6",
        "nodes 2, 3: their parents form a cycle",
    );
}

#[test]
fn grow_stops_on_a_pin_inside_a_cycle() {
    let dir = temp("damage-pin-cycle");
    let book = small_book(&dir);
    ok(&["book", "pin", s(&book), "--moves", "Bxa6"]);
    damage(
        &book,
        "UPDATE nodes SET parent = 3 WHERE id = 2; UPDATE nodes SET parent = 2 WHERE id = 3",
    );
    let out = fails(&grow_args(&book));
    assert!(out.contains("pinned node 2"), "{out}");
    assert!(out.contains("cycle"), "{out}");
}

#[test]
fn grow_stops_on_a_lease_until_the_year_287000() {
    let dir = temp("damage-lease");
    let book = small_book(&dir);
    // Every open leaf claimed by a foreign worker until about the year 287,000.
    damage(
        &book,
        "UPDATE nodes SET claimed_by = 'elsewhere:1:0', lease_until = 9000000000000000 \
         WHERE expanded = 0 AND proof <> 0 AND disproof <> 0",
    );
    let out = fails(&grow_args(&book));
    assert!(
        out.contains("claimed by elsewhere:1:0 until the year 287"),
        "{out}"
    );
    assert!(out.contains("Bxa6 bxa6"), "the node's line: {out}");
    let out = fails(&["book", "check", s(&book)]);
    assert!(out.contains("a damaged claim"), "{out}");
}

/// The file offsets of the `nodes_parent` index's root page.
fn index_page(book: &Path) -> std::ops::Range<usize> {
    let conn = rusqlite::Connection::open(book).unwrap();
    let page_size: usize = conn
        .query_row("PRAGMA page_size", [], |r| r.get::<_, i64>(0))
        .unwrap() as usize;
    let root: usize = conn
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'nodes_parent'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap() as usize;
    (root - 1) * page_size..root * page_size
}

fn quick_check(book: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(book).unwrap();
    let mut stmt = conn.prepare("PRAGMA quick_check").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn a_damaged_index_page_is_not_sound_and_grow_refuses_it() {
    let dir = temp("damage-bytes");
    let book = small_book(&dir);
    let original = std::fs::read(&book).unwrap();
    let page = index_page(&book);
    // The first byte of the index's page whose inversion SQLite's quick check flags while
    // the book still opens and its rows read well (what `check` used to call sound).
    let mutant = dir.join("mutant.book");
    let mut found = None;
    for offset in page.clone() {
        let mut bytes = original.clone();
        bytes[offset] ^= 0xff;
        std::fs::write(&mutant, &bytes).unwrap();
        if quick_check(&mutant) == ["ok"] {
            continue;
        }
        let Ok(mut opened) = antichess_book::Book::open(s(&mutant)) else {
            continue;
        };
        if opened.check().is_ok_and(|p| p.is_empty()) {
            found = Some((offset, bytes));
            break;
        }
    }
    let (offset, bytes) = found.expect("a mutant of the index page that SQLite flags");
    std::fs::write(&mutant, &bytes).unwrap();
    let out = fails(&["book", "check", s(&mutant)]);
    assert!(out.contains("SQLite: "), "byte {offset}: {out}");
    assert!(out.contains("integrity_check: FAILED"), "{out}");
    assert!(!out.contains("sound"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&{
        let out = antichess(&["book", "check", s(&mutant), "--format", "json"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
    .unwrap();
    assert_eq!(v["sound"], false, "{v}");
    // Every writer refuses it, naming the file, and leaves its bytes as they were.
    let name = s(&mutant);
    for args in [
        grow_args(&mutant),
        vec!["book", "queue", name, "--moves", "Bxa6"],
        vec!["book", "pin", name, "--moves", "Bxa6"],
        vec!["book", "mark", name, "--moves", "Bxa6", "--as", "loss"],
    ] {
        let out = fails(&args);
        assert!(
            out.contains(&format!("{name} is damaged, so nothing was written to it")),
            "{args:?}: {out}"
        );
        assert!(out.contains("SQLite: "), "{out}");
        assert_eq!(std::fs::read(&mutant).unwrap(), bytes, "{args:?} wrote");
    }
    // The book it came from is sound.
    let out = ok(&["book", "check", s(&book)]);
    assert!(out.contains("integrity_check: ok"), "{out}");
    assert!(out.contains("sound"), "{out}");
}

/// Whether this process can write a file it made read-only (root can).
fn permissions_bind() -> bool {
    let dir = temp("damage-probe");
    let probe = dir.join("probe");
    std::fs::write(&probe, b"x").unwrap();
    set_mode(&probe, 0o444);
    let binds = std::fs::OpenOptions::new()
        .append(true)
        .open(&probe)
        .is_err();
    set_mode(&probe, 0o644);
    binds
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn show_and_check_read_a_book_in_a_read_only_directory() {
    let dir = temp("damage-readonly");
    let sub = dir.join("ro");
    std::fs::create_dir(&sub).unwrap();
    let book = small_book(&sub);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", book.display()));
    }
    let before = std::fs::read(&book).unwrap();
    set_mode(&book, 0o444);
    set_mode(&sub, 0o555);
    // As root, permissions do not bind: run the commands as the user nobody instead.
    let as_nobody = !permissions_bind();
    let read = |args: &[&str]| -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_antichess"));
        command.args(args);
        if as_nobody {
            use std::os::unix::process::CommandExt;
            command.uid(65534).gid(65534);
        }
        let out = run(&mut command, args);
        assert!(out.status.success(), "{args:?}\n{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = read(&["book", "show", s(&book)]);
    assert!(shown.contains("Bxa6"), "{shown}");
    let checked = read(&["book", "check", s(&book)]);
    assert!(checked.contains("sound"), "{checked}");
    let entries: Vec<_> = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    set_mode(&sub, 0o755);
    set_mode(&book, 0o644);
    // Nothing was written: no -wal or -shm file could be made (the book was opened
    // immutable), the bytes are the same.
    assert_eq!(entries, vec![std::ffi::OsString::from("b.book")]);
    assert_eq!(std::fs::read(&book).unwrap(), before);
}

fn json(args: &[&str]) -> serde_json::Value {
    let stdout = ok(args);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

/// Issue 35's leftovers: `--format json` on the commands that change a book says what was
/// done in one object.
#[test]
fn steering_and_transfer_commands_answer_json() {
    let dir = temp("json-steer");
    let book = dir.join("j.book");
    let b = s(&book);
    let v = json(&["book", "new", b, "--moves", "e3 Na6", "--format", "json"]);
    assert_eq!(v["created"], true, "{v}");
    assert_eq!(v["prover"], "white", "{v}");
    assert_eq!(v["root"], 1, "{v}");
    let mut args = vec!["book", "grow", b, "--searches", "3"];
    args.extend(GROW);
    ok(&args);
    let v = json(&["book", "queue", b, "--moves", "Bxa6", "--format", "json"]);
    assert_eq!(v["queued"]["id"], 2, "{v}");
    assert_eq!(v["queue"].as_array().unwrap().len(), 1, "{v}");
    let v = json(&["book", "queue", b, "--clear", "--format", "json"]);
    assert_eq!(v["cleared"], true, "{v}");
    assert_eq!(v["queue"].as_array().unwrap().len(), 0, "{v}");
    let v = json(&["book", "pin", b, "--moves", "Bxa6", "--format", "json"]);
    assert_eq!(v["pin"]["id"], 2, "{v}");
    let v = json(&["book", "pin", b, "--clear", "--format", "json"]);
    assert!(v["pin"].is_null(), "{v}");
    let v = json(&[
        "book", "mark", b, "--moves", "Bxa6", "--as", "loss", "--format", "json",
    ]);
    assert_eq!(v["node"]["marked"], true, "{v}");
    assert_eq!(v["root"]["status"], "marked loss", "{v}");
    assert_eq!(v["root"]["proof"], "inf", "{v}");
    json(&[
        "book", "mark", b, "--moves", "Bxa6", "--as", "none", "--format", "json",
    ]);
    let sub = dir.join("sub.book");
    let v = json(&[
        "book",
        "export",
        b,
        "--moves",
        "Bxa6",
        "-o",
        s(&sub),
        "--format",
        "json",
    ]);
    assert_eq!(v["node"]["id"], 2, "{v}");
    assert!(v["nodes"].as_u64().unwrap() > 1, "{v}");
    let v = json(&["book", "import", b, s(&sub), "--format", "json"]);
    assert!(v["kept"].as_u64().is_some(), "{v}");
    let copy = dir.join("copy.book");
    let v = json(&["book", "copy", b, s(&copy), "--format", "json"]);
    assert!(v["nodes"].as_u64().unwrap() > 1, "{v}");
    assert!(v["seconds"].as_f64().is_some(), "{v}");
}
