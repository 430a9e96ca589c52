//! Tables on demand (issue 37, item 1): a book's searches record the materials they meet
//! without a table, `book tables` lists them, `tb build --from-book` builds the ones met
//! most, and the book's next searches use them.

mod common;

use common::{antichess, json, ok, s, text};

/// White king and rook against a black knight: 3 units, searched with the 2-unit tables
/// only.
const FEN: &str = "8/8/8/3n4/8/8/8/KR6 w - - 0 1";

#[test]
fn a_book_records_what_it_met_and_tb_build_builds_it() {
    let dir = antichess_testkit::temp_dir("book-tables-cli");
    let book = dir.join("krn.book");
    let tables = dir.join("tables");
    ok(&["book", "new", s(&book), "--fen", FEN]);
    let grow = [
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
        "2000",
        "--searches",
        "3",
        "--workers",
        "1",
    ];
    let out = antichess(&grow);
    assert!(out.status.success(), "{}", text(&out));

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
