//! The durable record: every proof in `proofs/` is listed in `proofs/manifest.json`
//! (docs/formats/proofs-manifest.md), verifies with the tables it relies on (the materials
//! its file records, built here from scratch into a temporary directory, as CI has none),
//! and has the figures the manifest gives: root position (from the line), prover, nodes,
//! bytes, tablebase leaves
//! and the tables recorded in the file (materials and checksums). A proof file that the
//! manifest does not list fails the test, as does a listed file that is missing.
//!
//! A proof that relies on tables of more than [`CI_UNITS`] units, or on bound tables, is
//! verified only with `ANTICHESS_FULL_CHECKS=1` (`.ci/run`'s full mode); otherwise its file
//! is decoded whole by `proof stats` and every figure but the verdict is checked (in full
//! mode, bound tables recorded as `MATERIAL:bound-w` are built with `tb build --bound
//! white`). The 4-unit tables of `e3-Nc6.proof`, `e3-c6.proof`, `e3-Nh6.proof` and
//! `e3-g5.proof` close over the whole 4-unit set (714 tables, 3.0 × 10^9 positions: about 9
//! minutes of the test on two cores, most of CI's test time), and `e3-g5.proof` also rests
//! on 204 five-unit bound tables (hours), so CI verifies those four in full mode only; by
//! default it builds [`SAMPLE_4_UNITS`] (with what they depend on: seconds) and checks that
//! they are the tables those proofs record, checksum for checksum, and verifies those
//! proofs' trees whole (every move legal, every reply of the opponent answered, every
//! repetition and game end right) with the tables built here judging the leaves they
//! cover and the other 4-unit leaves taken as wins ([`BuiltOrWon`]): only the verdict of
//! the 4-unit tables not built is left to full mode.

use crate::common::{antichess, json_of as json};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use antichess_testkit::{full_checks, temp_dir};

/// The tables built here where they cover a leaf; any other tablebase leaf a win for the
/// prover. For the proofs whose 4-unit tables CI does not build: their trees are checked
/// whole, their 4-unit leaves' verdicts in full mode only.
struct BuiltOrWon<'a> {
    tables: antichess_proof::TablebaseOracle<'a>,
    prover: antichess_core::Color,
}

impl antichess_proof::LeafOracle for BuiltOrWon<'_> {
    fn max_units(&self) -> u32 {
        32
    }

    fn probe(
        &self,
        pos: &antichess_core::Position,
    ) -> Result<Option<antichess_proof::LeafValue>, String> {
        use antichess_proof::LeafValue;
        // A table not built here is "missing" to the tables (an error or nothing): then
        // the leaf is the prover's.
        match self.tables.probe(pos) {
            Ok(Some(value)) => Ok(Some(value)),
            _ if pos.turn() == self.prover => Ok(Some(LeafValue::Win)),
            _ => Ok(Some(LeafValue::Loss)),
        }
    }

    fn best_move(
        &self,
        pos: &antichess_core::Position,
    ) -> Result<Option<antichess_core::Move>, String> {
        self.tables.best_move(pos)
    }
}

/// Tables of at most this many units are built for every run of the test, and the proofs
/// that rely on those only are verified by every run.
const CI_UNITS: u64 = 3;

/// 4-unit tables built by every run, whose checksums must be those that the proofs relying
/// on the 4-unit set record: a pawnless one and one with a pawn (whose promotions add five
/// pawnless 4-unit tables), so that a change of the generator or of the table format that
/// would make those proofs' records stale is noticed without the whole set.
const SAMPLE_4_UNITS: [&str; 2] = ["BBNb", "KBPk"];

fn proofs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs")
}

/// The first four fields of a FEN (board, side, castling, en passant).
fn position_part(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Whether a proof relies on exact tables of at most [`CI_UNITS`] units only: by the
/// tables its file records, else (a file without a list) by its largest tablebase leaf. (A
/// leaf with an en-passant capture to make counts one unit more than the tables it needs.)
fn small_tables_only(e: &serde_json::Value) -> bool {
    let tables = e["tables"].as_array().expect("tables");
    if tables.is_empty() {
        return e["tablebase_units"].as_u64().expect("tablebase_units") <= CI_UNITS;
    }
    tables.iter().all(|t| {
        let material = t["material"].as_str().expect("material");
        !material.contains(':') && material.len() as u64 <= CI_UNITS
    })
}

#[test]
fn every_shipped_proof_is_in_the_manifest_and_verifies_with_its_figures() {
    let dir = proofs_dir();
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("proofs/manifest.json"),
    )
    .expect("the manifest is JSON");
    assert_eq!(manifest["manifest"], 1, "manifest version");
    let rules = manifest["rules"].as_str().expect("rules");
    let entries = manifest["proofs"].as_array().expect("proofs");
    assert!(!entries.is_empty());

    // Every .proof file is listed, once.
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".proof"))
        .collect();
    let listed: Vec<String> = entries
        .iter()
        .map(|e| e["file"].as_str().expect("file").to_string())
        .collect();
    let listed_set: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(listed.len(), listed_set.len(), "a file listed twice");
    let unlisted: Vec<_> = on_disk.difference(&listed_set).collect();
    assert!(
        unlisted.is_empty(),
        "proof files not in proofs/manifest.json: {unlisted:?}"
    );
    let missing: Vec<_> = listed_set.difference(&on_disk).collect();
    assert!(missing.is_empty(), "listed but missing: {missing:?}");

    // The tables the proofs rely on, built from scratch: the materials their files record
    // (with what those depend on), not a whole n-unit set.
    let verified_here = |e: &serde_json::Value| full_checks() || small_tables_only(e);
    let materials: BTreeSet<String> = entries
        .iter()
        .filter(|e| verified_here(e))
        .flat_map(|e| e["tables"].as_array().expect("tables").iter())
        .map(|t| t["material"].as_str().expect("material").to_string())
        .collect();
    let tables = temp_dir("manifest").join("tables");
    // Exact tables by their material, then (they use the exact ones where they exist)
    // bound ones (`KRPPk:bound-w`) with `--bound`: `None` sorts first.
    let mut by_kind: BTreeMap<Option<&str>, Vec<&str>> = BTreeMap::new();
    for m in &materials {
        let (material, bound) = match m.split_once(':') {
            Some((material, "bound-w")) => (material, Some("white")),
            Some((material, "bound-b")) => (material, Some("black")),
            Some(_) => panic!("a table kind the test does not know: {m}"),
            None => (m.as_str(), None),
        };
        by_kind.entry(bound).or_default().push(material);
    }
    for (bound, list) in &by_kind {
        let mut args = vec!["tb", "build"];
        args.extend(list.iter().copied());
        if let Some(side) = bound {
            args.extend(["--bound", side]);
        }
        args.extend([
            "--rules",
            rules,
            "--tables",
            tables.to_str().unwrap(),
            "--format",
            "json",
        ]);
        json(&antichess(&args));
    }

    // Outside full mode, a sample of the 4-unit tables that the proofs not verified here
    // record: built, and the same (checksum) as recorded by every such proof listing them.
    if !full_checks() {
        let mut args = vec!["tb", "build"];
        args.extend(SAMPLE_4_UNITS);
        args.extend([
            "--rules",
            rules,
            "--tables",
            tables.to_str().unwrap(),
            "--format",
            "json",
        ]);
        json(&antichess(&args));
        let tablebase = antichess_tb::Tablebase::open(&tables, rules.parse().unwrap()).unwrap();
        for material in SAMPLE_4_UNITS {
            let table = tablebase
                .table(&material.parse().unwrap())
                .unwrap()
                .unwrap_or_else(|| panic!("{material}: not built"));
            let built = antichess_proof::hex_checksum(table.header().checksum);
            let mut recorded_by = Vec::new();
            for e in entries.iter().filter(|e| !verified_here(e)) {
                let file = e["file"].as_str().unwrap();
                for t in e["tables"].as_array().expect("tables") {
                    if t["material"] == material {
                        assert_eq!(t["checksum"], built.as_str(), "{file}: {material}");
                        recorded_by.push(file);
                    }
                }
            }
            assert!(
                !recorded_by.is_empty(),
                "{material}: no proof verified only in full mode records it (choose another sample)"
            );
            eprintln!("{material}: checksum {built}, as recorded by {recorded_by:?}");
        }
    }

    for e in entries {
        let file = e["file"].as_str().unwrap();
        let path = dir.join(file);
        let verify = verified_here(e);
        let v = if verify {
            json(&antichess(&[
                "proof",
                "verify",
                path.to_str().unwrap(),
                "--tables",
                tables.to_str().unwrap(),
                "--format",
                "json",
            ]))
        } else {
            let tablebase = antichess_tb::Tablebase::open(&tables, rules.parse().unwrap()).unwrap();
            let prover = if e["prover"] == "white" {
                antichess_core::Color::White
            } else {
                antichess_core::Color::Black
            };
            let oracle = BuiltOrWon {
                tables: antichess_proof::TablebaseOracle::new(&tablebase),
                prover,
            };
            let stats = antichess_proof::verify_file(
                &path,
                None,
                &oracle,
                &antichess_proof::VerifyOptions::default(),
                &mut |_| {},
            )
            .unwrap_or_else(|err| panic!("{file}: the tree does not verify: {err}"));
            assert_eq!(Some(stats.counts.total), e["nodes"].as_u64(), "{file}");
            eprintln!(
                "{file}: relies on tables of {} units; its tree verified with the {CI_UNITS}-unit tables and the sample, its other 4-unit leaves' verdicts with ANTICHESS_FULL_CHECKS=1 only",
                e["tablebase_units"]
            );
            json(&antichess(&[
                "proof",
                "stats",
                path.to_str().unwrap(),
                "--format",
                "json",
            ]))
        };
        if verify {
            assert_eq!(v["verified"], true, "{file}");
        }
        assert_eq!(v["rules"], rules, "{file}");
        assert_eq!(v["prover"], e["prover"], "{file}");
        assert_eq!(v["counts"]["total"], e["nodes"], "{file}: nodes");
        assert_eq!(
            v["counts"]["tablebase"], e["tablebase_leaves"],
            "{file}: tablebase leaves"
        );
        assert_eq!(v["tablebase_units"], e["tablebase_units"], "{file}");
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert_eq!(Some(bytes), e["bytes"].as_u64(), "{file}: bytes");
        assert_eq!(v["file_bytes"].as_u64(), Some(bytes), "{file}");
        // The root is the position the line reaches.
        let line = e["moves"].as_str().expect("moves");
        let reached = json(&antichess(&[
            "moves", "--moves", line, "--rules", rules, "--format", "json",
        ]));
        assert_eq!(
            position_part(v["root_fen"].as_str().unwrap()),
            position_part(reached["fen"].as_str().unwrap()),
            "{file}: the root is not the position after {line}"
        );
        // The tables recorded in the file are the manifest's, and the ones built here.
        let recorded: Vec<(String, String)> = v["tables"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|c| {
                        let status = if verify { "same" } else { "not_checked" };
                        assert_eq!(c["status"], status, "{file}: {c}");
                        (
                            c["material"].as_str().unwrap().to_string(),
                            c["recorded"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let manifest_tables: Vec<(String, String)> = e["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .map(|t| {
                (
                    t["material"].as_str().unwrap().to_string(),
                    t["checksum"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(recorded, manifest_tables, "{file}: tables");
        // How it was made.
        for key in ["command", "commit", "date"] {
            assert!(
                e["made"][key].as_str().is_some_and(|s| !s.is_empty()),
                "{file}: made.{key}"
            );
        }
    }
}

/// Issue 63: proofs/README.md's list of the replies to 1. e3 still to prove had drifted
/// from what proofs/ holds. It must name exactly the replies the manifest has no proof
/// of, with their count, in the sentence and in `proof join`'s message it shows.
#[test]
fn the_readme_names_the_replies_still_missing() {
    let dir = proofs_dir();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let proved: BTreeSet<String> = manifest["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            let moves: Vec<&str> = e["moves"].as_str()?.split_whitespace().collect();
            (moves.len() == 2 && moves[0] == "e3").then(|| moves[1].to_string())
        })
        .collect();
    let replies = json(&antichess(&["moves", "--moves", "e3", "--format", "json"]));
    let replies: BTreeSet<String> = replies["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(replies.len(), 20);
    let missing: BTreeSet<&String> = replies.difference(&proved).collect();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    const WORDS: [&str; 21] = [
        "No",
        "One",
        "Two",
        "Three",
        "Four",
        "Five",
        "Six",
        "Seven",
        "Eight",
        "Nine",
        "Ten",
        "Eleven",
        "Twelve",
        "Thirteen",
        "Fourteen",
        "Fifteen",
        "Sixteen",
        "Seventeen",
        "Eighteen",
        "Nineteen",
        "Twenty",
    ];
    let here = format!(
        "{} replies are here; {} are not: 1. e3 ",
        WORDS[proved.len()],
        WORDS[missing.len()].to_lowercase()
    );
    let at = readme
        .find(&here)
        .unwrap_or_else(|| panic!("proofs/README.md does not say \"{here}\""));
    let listed: BTreeSet<String> = readme[at + here.len()..]
        .split(" (")
        .next()
        .unwrap()
        .split(", ")
        .map(|m| m.trim().to_string())
        .collect();
    let missing_owned: BTreeSet<String> = missing.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        listed, missing_owned,
        "the README's list of missing replies"
    );
    let join_line = readme
        .lines()
        .find(|l| l.contains("no proof given for"))
        .expect("the README shows proof join's message");
    let (count, moves) = join_line
        .split("no proof given for ")
        .nth(1)
        .unwrap()
        .split_once(" of its 20 moves: ")
        .unwrap();
    assert_eq!(count, missing.len().to_string(), "{join_line}");
    let shown: BTreeSet<String> = moves.split(", ").map(str::to_string).collect();
    assert_eq!(shown, missing_owned, "{join_line}");
}
