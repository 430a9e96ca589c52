//! End-to-end tests of seeding books with proofs (`book new --seed`, `book seed`) and of
//! keeping a book's solved subtrees as proof files (`book prove --subtrees`): a seeded
//! book solves in fewer searches and its proof (with the seed spliced in) verifies; a
//! node of a seeded position is won at once; subtree proofs seed a new book and join into
//! the root's proof; seeds of another prover or that do not verify are refused.

use crate::common::{antichess_in as antichess, json_of as json, s, text};

use std::path::{Path, PathBuf};

use antichess_testkit::temp_dir;

/// The root of the books here: Black to move, 17 replies, one of them (3... Bb7) the hard
/// one.
const LINE: &str = "e3 Na6 Bxa6 bxa6 Qe2";

const SEARCH: [&str; 8] = [
    "--workers",
    "1",
    "--search-nodes",
    "20K",
    "--tb-units",
    "0",
    "--hash",
    "64M",
];

/// Grows `book` for at most `searches` searches; returns the JSON report.
fn grow(book: &Path, searches: u64, tables: &Path) -> serde_json::Value {
    let n = searches.to_string();
    let mut args = vec!["book", "grow", s(book)];
    args.extend(SEARCH);
    args.extend(["--searches", &n, "--format", "json"]);
    json(&antichess(&args, tables))
}

fn new_book(book: &Path, seeds: &[&Path], tables: &Path) -> serde_json::Value {
    let mut args = vec![
        "book",
        "new",
        s(book),
        "--moves",
        LINE,
        "--prover",
        "white",
        "--format",
        "json",
    ];
    if !seeds.is_empty() {
        args.push("--seed");
        args.extend(seeds.iter().map(|p| s(p)));
    }
    json(&antichess(&args, tables))
}

fn solve(line: &str, prover: &str, file: PathBuf, tables: &Path) -> PathBuf {
    let v = json(&antichess(
        &[
            "solve",
            "--moves",
            line,
            "--prover",
            prover,
            "--tb-units",
            "0",
            "--hash",
            "64M",
            "--proof",
            s(&file),
            "--format",
            "json",
        ],
        tables,
    ));
    assert_eq!(v["result"], "proved", "{v}");
    file
}

fn verify(file: &Path, tables: &Path) -> serde_json::Value {
    let v = json(&antichess(
        &["proof", "verify", s(file), "--format", "json"],
        tables,
    ));
    assert_eq!(v["verified"], true);
    v
}

#[test]
fn a_seeded_book_solves_in_fewer_searches_and_its_proof_verifies() {
    let dir = temp_dir("seed");
    let tables = dir.join("no-tables");
    // Unseeded.
    let plain = dir.join("plain.book");
    new_book(&plain, &[], &tables);
    let v = grow(&plain, 2000, &tables);
    assert_eq!(v["status"], "win", "{v}");
    let unseeded = v["searches"].as_u64().unwrap();

    // Seeded with the proof of the hard reply.
    let bb7 = solve(
        &format!("{LINE} Bb7"),
        "white",
        dir.join("bb7.proof"),
        &tables,
    );
    let seeded = dir.join("seeded.book");
    let v = new_book(&seeded, &[&bb7], &tables);
    assert!(v["seeds"][0]["proof_nodes"].as_u64().unwrap() > 100, "{v}");
    let v = grow(&seeded, 2000, &tables);
    assert_eq!(v["status"], "win", "{v}");
    let with_seed = v["searches"].as_u64().unwrap();
    assert!(
        with_seed * 2 < unseeded,
        "seeded: {with_seed} searches, unseeded: {unseeded}"
    );

    // The book's proof takes the seed's as it is, and verifies as a whole.
    let proof = dir.join("seeded.proof");
    let v = json(&antichess(
        &[
            "book",
            "prove",
            s(&seeded),
            "-o",
            s(&proof),
            "--tb-units",
            "0",
            "--hash",
            "64M",
            "--format",
            "json",
        ],
        &tables,
    ));
    assert_eq!(v["verified"], true, "{v}");
    assert!(v["seeds_used"].as_u64().unwrap() >= 1, "{v}");
    let stats = verify(&proof, &tables);
    let seed_nodes = verify(&bb7, &tables)["counts"]["total"].as_u64().unwrap();
    assert!(stats["counts"]["total"].as_u64().unwrap() > seed_nodes);
    let check = antichess(&["book", "check", s(&seeded)], &tables);
    assert!(check.status.success(), "{}", text(&check));
}

#[test]
fn seeds_win_existing_nodes_and_subtrees_carry_a_line_over_runs() {
    let dir = temp_dir("seed-runs");
    let tables = dir.join("no-tables");
    // A first run that does not finish.
    let first = dir.join("first.book");
    new_book(&first, &[], &tables);
    let v = grow(&first, 60, &tables);
    assert_eq!(v["status"], "unknown", "{v}");

    // Its solved subtrees as proof files.
    let sub = dir.join("sub");
    let v = json(&antichess(
        &[
            "book",
            "prove",
            s(&first),
            "--subtrees",
            s(&sub),
            "--tb-units",
            "0",
            "--hash",
            "64M",
            "--format",
            "json",
        ],
        &tables,
    ));
    let written = v["subtrees"].as_array().unwrap();
    assert!(!written.is_empty(), "{v}");
    for w in written {
        assert_eq!(w["verified"], true, "{w}");
        verify(Path::new(w["file"].as_str().unwrap()), &tables);
    }

    // An existing node is won by a seed of its position: the hard reply, whose node the
    // first run created.
    let bb7 = solve(
        &format!("{LINE} Bb7"),
        "white",
        dir.join("bb7.proof"),
        &tables,
    );
    let v = json(&antichess(
        &["book", "seed", s(&first), s(&bb7), "--format", "json"],
        &tables,
    ));
    assert_eq!(v["seeds"][0]["won_now"], 1, "{v}");

    // A second book, seeded with the first run's subtrees and the hard reply, needs no
    // search below them.
    let second = dir.join("second.book");
    let v = new_book(&second, &[&sub, &bb7], &tables);
    assert_eq!(
        v["seeds"].as_array().unwrap().len(),
        written.len() + 1,
        "{v}"
    );
    let v = grow(&second, 2000, &tables);
    assert_eq!(v["status"], "win", "{v}");

    // When every reply has a proof, `proof join` makes the root's.
    let replies = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "proof"))
        .count();
    // (One worker: the first run's searches are the same every time; they solve every
    // reply but 3... Bb7.)
    assert_eq!(replies, 16);
    {
        let mut args = vec!["proof", "join"];
        let files: Vec<PathBuf> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "proof"))
            .chain([bb7.clone()])
            .collect();
        args.extend(files.iter().map(|p| s(p)));
        let out = dir.join("root.proof");
        args.extend(["-o", s(&out), "--format", "json"]);
        let v = json(&antichess(&args, &tables));
        assert_eq!(v["verified"], true, "{v}");
    }

    // Seeds that are not proofs for this book are refused.
    let black = solve("d3", "black", dir.join("d3.proof"), &tables);
    let out = antichess(&["book", "seed", s(&second), s(&black)], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("win for black") && text(&out).contains("d3.proof"),
        "{}",
        text(&out)
    );
    let mut bytes = std::fs::read(&bb7).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let broken = dir.join("broken.proof");
    std::fs::write(&broken, bytes).unwrap();
    let out = antichess(&["book", "seed", s(&second), s(&broken)], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("does not verify"), "{}", text(&out));
}

/// A run's stdout as JSON, whatever its exit code.
fn json_any(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

/// Issue 63: `book seed` refused a whole directory when some of its files needed tables
/// it lacked. Now every file that can be taken is: one that cannot be verified here is
/// skipped and named with the reason (exit 0 when others were seeded), one that is not a
/// proof or does not verify is rejected (exit 2, the others seeded all the same), and
/// nothing taken is a failure. A path that is not a regular file is named for what it is.
#[test]
fn seeding_a_directory_takes_what_it_can_and_names_what_it_skips() {
    let dir = temp_dir("seed-dir");
    let tables = dir.join("no-tables");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs");
    let proofs = dir.join("proofs");
    std::fs::create_dir_all(&proofs).unwrap();
    // d5 and d6 end the game on every line; e5 relies on 3-unit tables, which are not here.
    for reply in ["d5", "d6", "e5"] {
        let name = format!("e3-{reply}.proof");
        std::fs::copy(shipped.join(&name), proofs.join(&name)).unwrap();
    }
    let book = dir.join("e3.book");
    let new = |book: &Path| {
        antichess(
            &["book", "new", s(book), "--moves", "e3", "--prover", "white"],
            &tables,
        )
    };
    let out = new(&book);
    assert!(out.status.success(), "{}", text(&out));
    let seed = |book: &Path, paths: &[&Path], json: bool| {
        let mut args = vec!["book", "seed", s(book)];
        args.extend(paths.iter().map(|p| s(p)));
        if json {
            args.extend(["--format", "json"]);
        }
        antichess(&args, &tables)
    };

    let out = seed(&book, &[&proofs], true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v = json_any(&out);
    assert_eq!(v["seeds"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["rejected"].as_array().unwrap().len(), 0, "{v}");
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{v}");
    assert!(
        skipped[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("e3-e5.proof"),
        "{v}"
    );
    let reason = skipped[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("cannot be verified here")
            && reason.contains("tablebase leaves cannot be checked without tables"),
        "{reason}"
    );
    // In text, the skipped file on stderr with its reason, and a summary.
    let out = seed(&book, &[&proofs], false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skipped: ")
            && err.contains("e3-e5.proof: the seed proof cannot be verified here"),
        "{err}"
    );
    assert!(
        err.contains("seeded 2 of 3 proof files; 1 skipped, 0 rejected"),
        "{err}"
    );
    assert!(!err.contains("error"), "{err}");

    // Nothing could be taken: a failure, with the reason.
    let other = dir.join("other.book");
    assert!(new(&other).status.success());
    let out = seed(&other, &[&proofs.join("e3-e5.proof")], false);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no proof could be taken"),
        "{}",
        text(&out)
    );

    // A damaged file is rejected (exit 2); the others are seeded all the same.
    let mut bytes = std::fs::read(proofs.join("e3-d6.proof")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let damaged = dir.join("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    std::fs::write(damaged.join("e3-d6.proof"), bytes).unwrap();
    std::fs::copy(proofs.join("e3-d5.proof"), damaged.join("e3-d5.proof")).unwrap();
    std::fs::write(damaged.join("notes.proof"), "not a proof\n").unwrap();
    let out = seed(&other, &[&damaged], true);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let v = json_any(&out);
    assert_eq!(v["seeds"].as_array().unwrap().len(), 1, "{v}");
    let rejected = v["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), 2, "{v}");
    let reasons: Vec<&str> = rejected
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("e3-d6.proof: the seed proof does not verify")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("notes.proof: not a proof file in our compact format")),
        "{reasons:?}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("2 rejected"),
        "{}",
        text(&out)
    );

    // Not a regular file: named for what it is, not as missing (issue 63).
    let out = seed(&other, &[Path::new("/dev/zero")], false);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/dev/zero: a character device, not a regular file"),
        "{err}"
    );
    assert!(!err.contains("no such"), "{err}");
    // A directory without proofs: nothing to seed with.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = seed(&other, &[&empty], false);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("holds no `.proof` file"),
        "{}",
        text(&out)
    );
}

/// Issue 63: the prover defaults to the side to move, Black after `--moves e3`; a book
/// created with White's proofs as seeds was created first and failed after. Now the seeds
/// are checked first: refused at once, saying which `--prover` to give, and no book is
/// left behind.
#[test]
fn book_new_refuses_seeds_of_the_other_prover_before_creating_the_book() {
    let dir = temp_dir("seed-new-prover");
    let tables = dir.join("no-tables");
    let d5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-d5.proof");
    let book = dir.join("e3.book");
    let out = antichess(
        &["book", "new", s(&book), "--moves", "e3", "--seed", s(&d5)],
        &tables,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "e3-d5.proof: the proof proves a win for white, but the book would prove one for black"
        ) && err.contains("give --prover white"),
        "{err}"
    );
    assert!(!book.exists());
    // With the prover given, the book is made and seeded.
    let v = json(&antichess(
        &[
            "book",
            "new",
            s(&book),
            "--moves",
            "e3",
            "--seed",
            s(&d5),
            "--prover",
            "white",
            "--format",
            "json",
        ],
        &tables,
    ));
    assert_eq!(v["seeds"].as_array().unwrap().len(), 1, "{v}");
}
