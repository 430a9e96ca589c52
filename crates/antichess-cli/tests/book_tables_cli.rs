//! Tables on demand (issue 37, item 1): a book's searches record the materials they meet
//! without a table, `book tables` lists them, `tb build --from-book` builds the ones met
//! most, and the book's next searches use them.

use crate::common::{antichess, json, ok, s, text};

/// White king and rook against a black knight: 3 units, searched with the 2-unit tables
/// only.
const FEN: &str = "8/8/8/3n4/8/8/8/KR6 w - - 0 1";

/// Grows `book` by `searches` small searches of one worker, with the 2-unit tables.
fn grow(book: &std::path::Path, tables: &std::path::Path, searches: u32) {
    let searches = searches.to_string();
    let out = antichess(&[
        "book",
        "grow",
        s(book),
        "--tables",
        s(tables),
        "--tb-units",
        "2",
        "--hash",
        "16M",
        "--search-nodes",
        "2000",
        "--searches",
        &searches,
        "--workers",
        "1",
    ]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_book_records_what_it_met_and_tb_build_builds_it() {
    let dir = antichess_testkit::temp_dir("book-tables-cli");
    let book = dir.join("krn.book");
    let tables = dir.join("tables");
    ok(&["book", "new", s(&book), "--fen", FEN]);
    grow(&book, &tables, 3);

    let listed = json(&[
        "book",
        "tables",
        s(&book),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    let materials = listed["materials"].as_array().expect("materials");
    let krn = materials
        .iter()
        .find(|m| m["material"] == "KRn")
        .unwrap_or_else(|| panic!("KRn not recorded: {listed}"));
    assert_eq!(krn["units"], 3);
    assert!(krn["positions"].as_u64().unwrap() > 0, "{listed}");
    assert_eq!(krn["table"], "missing");
    // A material with bound tables only is listed as such (here in a copy of the
    // directory: the exact table is built below).
    let bound_dir = dir.join("bound-tables");
    std::fs::create_dir_all(&bound_dir).unwrap();
    for entry in std::fs::read_dir(&tables).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, bound_dir.join(path.file_name().unwrap())).unwrap();
    }
    ok(&[
        "tb",
        "build",
        "--bound",
        "white",
        "KRn",
        "--tables",
        s(&bound_dir),
    ]);
    let with_bound = json(&[
        "book",
        "tables",
        s(&book),
        "--tables",
        s(&bound_dir),
        "--format",
        "json",
    ]);
    let krn_bound = with_bound["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["material"] == "KRn")
        .unwrap()
        .clone();
    assert_eq!(krn_bound["table"], "bound", "{with_bound}");
    assert!(krn_bound["bytes"].as_u64().unwrap() > 0, "{with_bound}");
    // Most met first.
    let counts: Vec<u64> = materials
        .iter()
        .map(|m| m["positions"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");

    // Build the material met most; it is then present, with its size on disk.
    let first = materials[0]["material"].as_str().unwrap().to_string();
    let built = json(&[
        "tb",
        "build",
        "--from-book",
        s(&book),
        "--top",
        "1",
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    assert!(built.to_string().contains(&first), "{built}");
    let listed = json(&[
        "book",
        "tables",
        s(&book),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    let row = listed["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["material"] == first.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["table"], "present", "{listed}");
    assert!(row["bytes"].as_u64().unwrap() > 0);

    // A book of another rule set is refused by name.
    let out = antichess(&[
        "tb",
        "build",
        "--from-book",
        s(&book),
        "--rules",
        "fics",
        "--tables",
        s(&tables),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--rules international"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Books record materials of up to 6 units; `book tables --units` and `tb build
/// --from-book --units` filter them, and `--from-book` takes at most 5 units by default.
#[test]
fn six_unit_materials_are_recorded_and_filtered_by_units() {
    let dir = antichess_testkit::temp_dir("book-tables-six");
    let book = dir.join("six.book");
    let tables = dir.join("tables");
    // White king, rook, knight and bishop against a black knight and bishop: 6 units.
    ok(&[
        "book",
        "new",
        s(&book),
        "--fen",
        "7n/7b/8/8/8/8/8/KRNB4 w - - 0 1",
    ]);
    grow(&book, &tables, 2);
    let units_of = |extra: &[&str]| -> Vec<u64> {
        let mut args = vec!["book", "tables", s(&book), "--tables", s(&tables)];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        json(&args)["materials"]
            .as_array()
            .expect("materials")
            .iter()
            .map(|m| m["units"].as_u64().unwrap())
            .collect()
    };
    let all = units_of(&[]);
    assert!(all.contains(&6), "no 6-unit material recorded: {all:?}");
    let five = units_of(&["--units", "5"]);
    assert!(!five.is_empty() && five.iter().all(|&u| u <= 5), "{five:?}");
    assert_eq!(five.len(), all.iter().filter(|&&u| u <= 5).count());

    // --from-book plans only materials of at most 5 units unless told: a dry run lists
    // no 6-unit table by default, and one with --units 6.
    let plan = |extra: &[&str]| -> Vec<u64> {
        let mut args = vec!["tb", "build", "--from-book", s(&book), "--top", "1"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--tables", s(&tables), "--dry-run", "--format", "json"]);
        let plan = json(&args);
        plan["plan"]
            .as_array()
            .unwrap_or_else(|| panic!("no plan in {plan}"))
            .iter()
            .map(|t| t["units"].as_u64().unwrap())
            .collect()
    };
    let default = plan(&[]);
    assert!(default.iter().all(|&u| u <= 5), "{default:?}");
    let six = plan(&["--units", "6"]);
    assert!(six.contains(&6), "{six:?}");
    // A limit below every recorded material is an error that names it.
    let out = antichess(&[
        "tb",
        "build",
        "--from-book",
        s(&book),
        "--units",
        "1",
        "--tables",
        s(&tables),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at most 1 units"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A frontier proof whose tables this machine lacks waits in the book: `book
/// load-frontier` says so, and `prove`, resuming the book where the tables exist, seeds it.
#[test]
fn a_frontier_proof_waits_for_its_tables_and_prove_seeds_it() {
    let dir = antichess_testkit::temp_dir("pending-cli");
    let tables = dir.join("tables");
    let fen = "8/p7/8/8/8/8/1PP4p/K7 w - - 0 1";
    let book = dir.join("kpp.book");
    ok(&["book", "new", s(&book), "--fen", fen, "--prover", "white"]);
    let out = antichess(&[
        "book",
        "grow",
        s(&book),
        "--tables",
        s(&tables),
        "--tb-units",
        "2",
        "--hash",
        "16M",
        "--search-nodes",
        "40",
        "--searches",
        "12",
        "--workers",
        "1",
        "--select",
        "best",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let frontier = dir.join("kpp.frontier");
    let saved = json(&[
        "book",
        "save-frontier",
        s(&book),
        "-o",
        s(&frontier),
        "--tables",
        s(&tables),
        "--tb-units",
        "2",
        "--format",
        "json",
    ]);
    assert!(saved["report"]["proofs"].as_u64().unwrap() > 0, "{saved}");
    // Loaded without tables: every proof with a tablebase leaf waits.
    let empty = dir.join("no-tables");
    std::fs::create_dir_all(&empty).unwrap();
    let loaded = dir.join("loaded.book");
    let out = ok(&[
        "book",
        "load-frontier",
        s(&frontier),
        "-o",
        s(&loaded),
        "--tables",
        s(&empty),
        "--tb-units",
        "0",
    ]);
    assert!(out.contains("rest on tables not built here"), "{out}");
    // `prove` on that book (its cache) with the tables: the waiting proofs are seeded.
    let cache = dir.join("cache");
    let run = |tables: &std::path::Path, units: &str| {
        antichess(&[
            "prove",
            "--fen",
            fen,
            "--prover",
            "white",
            "-o",
            s(&dir.join("kpp.proof")),
            "--cache",
            s(&cache),
            "--frontier",
            s(&frontier),
            "--tables",
            s(tables),
            "--units",
            units,
            "--workers",
            "1",
            "--search-nodes",
            "40",
            "--hash",
            "16M",
            "--searches",
            "1",
            "--no-minimize",
        ])
    };
    let first = run(&empty, "0");
    let err = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(
        err.contains("rest on tables not built here"),
        "{}",
        text(&first)
    );
    let second = run(&tables, "2");
    let err = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(
        err.contains("pending proofs:") && err.contains("seeded now that their tables exist"),
        "{}",
        text(&second)
    );
    assert!(err.contains(", 0 still wait for tables"), "{err}");
    assert!(!err.contains("pending proofs: 0 seeded"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
