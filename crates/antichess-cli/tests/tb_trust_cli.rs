//! Issue 36, the tables: a table copied to another material's name is refused by `tb
//! probe`, `solve` and `tb verify`; `tb verify` checks tables against the rules (a header
//! edited to another material, or one flipped value, with the checksum recomputed, is
//! reported); a proof file records the tables it relies on and `proof verify` says when it
//! is given other ones; a symbolic link loop as `--tables` is named; `tb build` and
//! `tb verify` speak JSON.

use crate::common::antichess;

use std::path::{Path, PathBuf};
use std::process::Output;

use antichess_testkit::temp_dir;

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)))
}

/// K+R against K, White to move: White wins, a K+Q table taken for K+R's says it loses
/// (the trial's position).
const KRK: &str = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
/// K+R against K, White to move: White wins, but read in a K+Q table (the queen on the
/// rook's square) every White move loses.
const KRK_QUEEN_LOSES: &str = "8/8/8/4R3/8/2k5/8/K7 w - - 0 1";

/// Builds every table of at most 3 units (what `solve` uses by default) into `dir`.
fn build_three_units(dir: &Path) {
    let out = antichess(&["tb", "build", "--units", "3", "--tables", s(dir)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A copy of the directory `from` at `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Writes a freshly computed checksum into a table image.
fn fix_checksum(bytes: &mut [u8]) {
    let sum = antichess_tb::format::checksum(bytes);
    bytes[80..88].copy_from_slice(&sum.to_le_bytes());
}

fn solve(fen: &str, tables: &Path, proof: &Path) -> Output {
    antichess(&[
        "solve",
        "--fen",
        fen,
        "--prover",
        "black",
        "--tables",
        s(tables),
        "--proof",
        s(proof),
        "--hash",
        "16M",
    ])
}

#[test]
fn tables_are_checked_against_their_names_and_the_rules() {
    let root = temp_dir("trust");
    let good = root.join("good");
    build_three_units(&good);

    // `tb build --format json`: a row per table of the plan, all present now.
    let out = antichess(&[
        "tb",
        "build",
        "KRk",
        "--tables",
        s(&good),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    assert_eq!(v["built"], 0);
    let rows = v["tables"].as_array().unwrap();
    let krk = rows.iter().find(|r| r["material"] == "KRk").unwrap();
    assert_eq!(krk["status"], "present");
    assert!(krk["positions"].as_u64().unwrap() > 0);
    // `tb verify --format json` on good tables.
    let out = antichess(&[
        "tb",
        "verify",
        "KRk",
        "Kk",
        "--tables",
        s(&good),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let v = json(&out);
    assert_eq!(v["ok"], true);
    assert_eq!(v["tables"][0]["material"], "KRk");
    assert_eq!(v["tables"][0]["status"], "ok");

    // 1. K+Q v K copied to K+R v K's name: refused by probe, solve and verify.
    let renamed = root.join("renamed");
    copy_dir(&good, &renamed);
    std::fs::copy(good.join("KQvK.actb"), renamed.join("KRvK.actb")).unwrap();
    let out = antichess(&["tb", "probe", "--fen", KRK, "--tables", s(&renamed)]);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("KRvK.actb") && err.contains("holds the table of KQk, not of KRk"),
        "{err}"
    );
    let proof = root.join("renamed.proof");
    let out = solve(KRK, &renamed, &proof);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(!all.contains("proved: black wins"), "{all}");
    assert!(all.contains("not of KRk"), "{all}");
    assert!(!proof.exists());
    let out = antichess(&["tb", "verify", "--all", "--tables", s(&renamed)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("KRk: error: ") && stdout.contains("not of KRk"),
        "{stdout}"
    );
    assert!(stdout.contains("KQk: ok"), "{stdout}");
    let out = antichess(&[
        "tb",
        "verify",
        "--all",
        "--tables",
        s(&renamed),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["ok"], false);
    let row = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["material"] == "KRk")
        .unwrap()
        .clone();
    assert_eq!(row["status"], "error");
    assert!(
        row["error"].as_str().unwrap().contains("not of KRk"),
        "{row}"
    );

    // 2. The same file with its header edited to say KRk (checksum recomputed): it opens,
    // so solve believes it, but `tb verify` checks it against the rules...
    let edited = root.join("edited");
    copy_dir(&good, &edited);
    let mut bytes = std::fs::read(good.join("KQvK.actb")).unwrap();
    bytes[16..19].copy_from_slice(b"KRk");
    fix_checksum(&mut bytes);
    std::fs::write(edited.join("KRvK.actb"), &bytes).unwrap();
    let out = antichess(&["tb", "verify", "KRk", "--tables", s(&edited)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("KRk: ") && stdout.contains("disagree with their successors"),
        "{stdout}"
    );
    assert!(stdout.contains("successors give"), "{stdout}");
    // ... and the proof written with it records the table, so that `proof verify` with
    // the good tables says which table differs (and rejects the proof).
    let proof = root.join("edited.proof");
    let out = solve(KRK_QUEEN_LOSES, &edited, &proof);
    assert!(
        text(&out.stdout).contains("proved: black wins"),
        "{}",
        text(&out.stdout)
    );
    let out = antichess(&["proof", "stats", s(&proof)]);
    assert!(
        text(&out.stdout).contains("table KRk: recorded checksum"),
        "{}",
        text(&out.stdout)
    );
    let out = antichess(&["proof", "verify", s(&proof), "--tables", s(&edited)]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(
        !text(&out.stdout).contains("warning"),
        "{}",
        text(&out.stdout)
    );
    let out = antichess(&["proof", "verify", s(&proof), "--tables", s(&good)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("warning: table KRk differs from the one the proof was written with"),
        "{stdout}"
    );
    assert!(stdout.contains("rejected: "), "{stdout}");
    let out = antichess(&[
        "proof",
        "verify",
        s(&proof),
        "--tables",
        s(&good),
        "--format",
        "json",
    ]);
    let v = json(&out);
    assert_eq!(v["verified"], false);
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 1, "{v}");
    assert_eq!(tables[0]["material"], "KRk");
    assert_eq!(tables[0]["status"], "different");
    assert_eq!(
        tables[0]["recorded"].as_str().unwrap(),
        format!(
            "{:016x}",
            u64::from_le_bytes(bytes[80..88].try_into().unwrap())
        )
    );
    assert_ne!(tables[0]["found"], tables[0]["recorded"]);
    // Without the table at all: missing.
    let without = root.join("without");
    copy_dir(&good, &without);
    std::fs::remove_file(without.join("KRvK.actb")).unwrap();
    let out = antichess(&["proof", "verify", s(&proof), "--tables", s(&without)]);
    assert!(!out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("warning: table KRk (recorded checksum ")
            && stdout.contains("is missing from the tables given"),
        "{stdout}"
    );

    // 3. One value flipped (checksum recomputed): `tb verify` names the position.
    let flipped = root.join("flipped");
    copy_dir(&good, &flipped);
    let mut bytes = std::fs::read(good.join("KRvK.actb")).unwrap();
    // A position that probes read (not an unused duplicate index of a symmetric one)
    // won by White to move: made a draw.
    let material: antichess_tb::Material = "KRk".parse().unwrap();
    let table = antichess_tb::Table::open(
        &good.join("KRvK.actb"),
        &material,
        antichess_core::Rules::INTERNATIONAL,
    )
    .unwrap();
    let index = table.index();
    let white = antichess_core::Color::White;
    let idx = (0..index.size())
        .find(|&i| {
            let board = index.decode(i);
            index.is_canonical(i, &board)
                && index.encode(&board) == i
                && table.wdl_code(white, i) == 2
        })
        .unwrap();
    let at = 128 + (idx / 4) as usize;
    bytes[at] ^= 3 << (2 * (idx % 4)); // win (2) -> draw (1)
    fix_checksum(&mut bytes);
    std::fs::write(flipped.join("KRvK.actb"), &bytes).unwrap();
    let out = antichess(&[
        "tb",
        "verify",
        "KRk",
        "--tables",
        s(&flipped),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let v = json(&out);
    let row = &v["tables"][0];
    assert_eq!(row["status"], "mismatch", "{v}");
    assert!(row["mismatches"].as_u64().unwrap() >= 1);
    let example = row["examples"][0].as_str().unwrap();
    assert!(example.contains(" w - - 0 1: stored"), "{example}");

    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_symlink_loop_as_the_tables_directory_is_named() {
    let root = temp_dir("trust-loop");
    let looped: PathBuf = root.join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    for args in [
        &["tb", "probe", "--fen", KRK, "--tables", s(&looped)][..],
        &["tb", "build", "Kk", "--tables", s(&looped)][..],
        &["tb", "verify", "--all", "--tables", s(&looped)][..],
    ] {
        let out = antichess(args);
        assert!(!out.status.success(), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(s(&looped))
                && err.contains("symbolic link")
                && !err.contains("File exists"),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
