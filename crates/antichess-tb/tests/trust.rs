//! A table must be the table it is opened for (issue 36): a file copied to another
//! material's name is refused wherever tables are opened, and `verify_table` checks a
//! table against the rules, so that a header edited to another material (checksum
//! recomputed) and a single flipped value (checksum recomputed) are reported.

use antichess_core::{Color, Position, Rules};
use antichess_tb::format::{checksum, file_name, TableData};
use antichess_tb::{build, verify_table, BuildOptions, Material, Strategy, Table, Tablebase, Wdl};
use antichess_testkit::temp_dir;

const RULES: Rules = Rules::INTERNATIONAL;

/// Builds K+Q v K and K+R v K (and what they need) into a fresh directory.
fn tables(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let options = BuildOptions {
        rules: RULES,
        dir: dir.clone(),
        threads: 1,
        strategy: Strategy::Auto,
    };
    let targets: Vec<Material> = ["KQk", "KRk"].iter().map(|s| s.parse().unwrap()).collect();
    build(&targets, &options, &|_| {}).unwrap();
    dir
}

fn material(name: &str) -> Material {
    name.parse().unwrap()
}

/// Writes a freshly computed checksum into a table image.
fn fix_checksum(bytes: &mut [u8]) {
    let sum = checksum(bytes);
    bytes[80..88].copy_from_slice(&sum.to_le_bytes());
}

const KRK: &str = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";

#[test]
fn a_table_copied_to_another_name_is_refused() {
    let dir = tables("renamed");
    let kqk = dir.join(file_name(&material("KQk")));
    let krk = dir.join(file_name(&material("KRk")));
    std::fs::copy(&kqk, &krk).unwrap();

    // Opened directly as K+R v K: the error names the file and both materials.
    let err = Table::open(&krk, &material("KRk"), RULES)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("KRvK.actb") && err.contains("table of KQk, not of KRk"),
        "{err}"
    );
    // Either orientation names the same table.
    assert!(Table::open(&krk, &material("Kkr"), RULES).is_err());
    // As what it holds, the file opens.
    Table::open(&krk, &material("KQk"), RULES).unwrap();

    // Through the tablebase (what probe, solve, the verifier and the web use).
    let tb = Tablebase::open(&dir, RULES).unwrap();
    let pos = Position::from_fen(KRK, RULES).unwrap();
    let err = tb.probe_wdl(&pos).unwrap_err().to_string();
    assert!(err.contains("not of KRk"), "{err}");
    let err = tb.probe(&pos.swap_colors()).unwrap_err().to_string();
    assert!(err.contains("not of KRk"), "{err}");
    let err = verify_table(&tb, &material("KRk")).unwrap_err().to_string();
    assert!(err.contains("not of KRk"), "{err}");
    // K+Q v K itself is untouched.
    assert_eq!(verify_table(&tb, &material("KQk")).unwrap().mismatches, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_header_edited_to_another_material_fails_verification() {
    let dir = tables("edited");
    let kqk = dir.join(file_name(&material("KQk")));
    let krk = dir.join(file_name(&material("KRk")));
    let mut bytes = std::fs::read(&kqk).unwrap();
    assert_eq!(&bytes[16..20], b"KQk\0");
    bytes[16..19].copy_from_slice(b"KRk");
    fix_checksum(&mut bytes);
    std::fs::write(&krk, &bytes).unwrap();

    // The header now says K+R v K with a valid checksum: it opens (only the content can
    // tell), and verification against the rules finds that it is wrong.
    let tb = Tablebase::open(&dir, RULES).unwrap();
    let report = verify_table(&tb, &material("KRk")).unwrap();
    assert!(report.mismatches > 0, "{report:?}");
    assert!(
        report.examples[0].contains("successors give"),
        "{:?}",
        report.examples
    );
    // The example starts with a FEN of the table's material.
    let fen = report.examples[0].split(": ").next().unwrap();
    let pos = Position::from_fen(fen, RULES).unwrap();
    assert_eq!(
        Material::from_board(pos.board()).canonical().0,
        material("KRk")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_flipped_value_fails_verification() {
    let dir = tables("flipped");
    let krk = dir.join(file_name(&material("KRk")));
    let mut bytes = std::fs::read(&krk).unwrap();
    // The first canonical decided position with White to move: flip its WDL to a draw
    // (a DTC of 0 there would be noticed too; a draw is the quietest lie).
    let table = Table::open(&krk, &material("KRk"), RULES).unwrap();
    let index = table.index();
    let idx = (0..index.size())
        .find(|&i| {
            let board = index.decode(i);
            index.is_canonical(i, &board)
                && index.encode(&board) == i
                && table.wdl_code(Color::White, i) != 1
        })
        .unwrap();
    let fen = Position::from_board_unchecked(index.decode(idx), Color::White, RULES).fen();
    drop(table);
    let at = 128 + (idx / 4) as usize;
    let shift = 2 * (idx % 4);
    bytes[at] = (bytes[at] & !(3 << shift)) | (1 << shift);
    fix_checksum(&mut bytes);
    std::fs::write(&krk, &bytes).unwrap();

    let tb = Tablebase::open(&dir, RULES).unwrap();
    let report = verify_table(&tb, &material("KRk")).unwrap();
    assert!(report.mismatches >= 1, "{report:?}");
    assert!(
        report.examples.iter().any(|e| e.starts_with(&fen)),
        "{fen} not in {:?}",
        report.examples
    );

    // The invalid code 3 (read as a draw by probes) is reported as such.
    bytes[at] |= 3 << shift;
    fix_checksum(&mut bytes);
    std::fs::write(&krk, &bytes).unwrap();
    let tb = Tablebase::open(&dir, RULES).unwrap();
    let report = verify_table(&tb, &material("KRk")).unwrap();
    assert!(
        report
            .examples
            .iter()
            .any(|e| e.contains("invalid WDL code 3")),
        "{:?}",
        report.examples
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_symlink_loop_as_the_tables_directory_is_named() {
    let dir = temp_dir("loop");
    let looped = dir.join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let options = BuildOptions {
        rules: RULES,
        dir: looped.clone(),
        threads: 1,
        strategy: Strategy::Auto,
    };
    let err = build(&[material("Kk")], &options, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("loop") && err.contains("symbolic link") && !err.contains("File exists"),
        "{err}"
    );
    let err = Tablebase::open(&looped, RULES).unwrap_err().to_string();
    assert!(err.contains("symbolic link"), "{err}");
    // A dangling link is named as such; a file is not a directory.
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
    let err = Tablebase::open(&dangling, RULES).unwrap_err().to_string();
    assert!(err.contains("a symbolic link to nothing"), "{err}");
    let file = dir.join("file");
    std::fs::write(&file, b"x").unwrap();
    let err = Tablebase::open(&file, RULES).unwrap_err().to_string();
    assert!(err.contains("not a directory"), "{err}");
    // A looping table file in a directory: its use names it.
    let tables = dir.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let entry = tables.join("KvK.actb");
    std::os::unix::fs::symlink(&entry, &entry).unwrap();
    let tb = Tablebase::open(&tables, RULES).unwrap();
    let err = tb.table(&material("Kk")).unwrap_err().to_string();
    assert!(
        err.contains("KvK.actb") && err.contains("symbolic link"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A forged DTC of 65535 (the largest a file can hold) on every decided position of K+R v K
/// with White to move: the verifier reports it and a probe of Black's moves, which adds one
/// ply to each, answers instead of overflowing.
#[test]
fn a_forged_largest_dtc_is_reported_without_overflow() {
    let dir = tables("dtc-max");
    let krk = dir.join(file_name(&material("KRk")));
    let table = Table::open(&krk, &material("KRk"), RULES).unwrap();
    let wdl = [Color::White, Color::Black].map(|side| {
        table
            .wdl_all(side)
            .into_iter()
            .map(Wdl::code)
            .collect::<Vec<u8>>()
    });
    let mut dtc = [Color::White, Color::Black].map(|side| table.dtc_all(side).unwrap());
    drop(table);
    for (code, d) in wdl[0].iter().zip(dtc[0].iter_mut()) {
        if *code != Wdl::Draw.code() {
            *d = u16::MAX;
        }
    }
    let data = TableData {
        material: material("KRk"),
        rules: RULES,
        wdl,
        dtc,
    };
    std::fs::write(&krk, data.to_bytes().unwrap()).unwrap();

    let tb = Tablebase::open(&dir, RULES).unwrap();
    let report = verify_table(&tb, &material("KRk")).unwrap();
    assert!(report.mismatches >= 1, "{report:?}");
    let pos = Position::from_fen("8/8/8/8/8/2k5/8/KR6 b - - 0 1", RULES).unwrap();
    let moves = tb.probe_moves(&pos).unwrap();
    assert!(!moves.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
