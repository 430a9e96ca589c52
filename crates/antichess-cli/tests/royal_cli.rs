//! End-to-end tests of the royal-king rule sets `pritchard3` and `pritchard4` (Pritchard's
//! variants 3 and 4) through the `antichess` binary: perft, moves (SAN with `+`/`#`, bare
//! king and checkmate results), position validation, `solve` with a proof that records its
//! rule set and that `proof verify` replays under royal-king rules, `tb build`'s limits,
//! and the shipped first-move proofs of proofs/pritchard/.

use crate::common::{antichess, json_of as json, text};

use antichess_testkit::temp_dir as temp;
use std::process::Command;

/// White mates in one with Ra8#.
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";

/// White's only legal move, the compulsory capture Rxa8, mates.
const FORCED_MATE: &str = "r5k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";

#[test]
fn perft_differs_from_antichess_at_depth_four() {
    for rules in ["pritchard3", "pritchard4"] {
        let v = json(&antichess(&[
            "perft", "--rules", rules, "--depth", "4", "--format", "json",
        ]));
        assert_eq!(v["nodes"], 152_955, "{v}");
        assert_eq!(v["rules"], rules, "{v}");
    }
    let v = json(&antichess(&["perft", "--depth", "4", "--format", "json"]));
    assert_eq!(v["nodes"], 153_299, "{v}");
}

#[test]
fn moves_show_checks_mates_and_results() {
    let v = json(&antichess(&[
        "moves",
        "--rules",
        "pritchard3",
        "--fen",
        MATE_IN_ONE,
        "--format",
        "json",
    ]));
    let sans: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert!(sans.contains(&"Ra8#"), "{sans:?}");
    assert!(!sans.iter().any(|s| s.starts_with("O-O")), "{sans:?}");
    assert_eq!(v["check"], false);

    // After the mate: pritchard3 scores it for the mater, pritchard4 for the mated side.
    for (rules, result) in [("pritchard3", "1-0"), ("pritchard4", "0-1")] {
        let v = json(&antichess(&[
            "moves",
            "--rules",
            rules,
            "--fen",
            MATE_IN_ONE,
            "--moves",
            "Ra8#",
            "--format",
            "json",
        ]));
        assert_eq!(v["outcome"]["result"], result, "{rules}: {v}");
        assert!(
            v["outcome"]["reason"]
                .as_str()
                .unwrap()
                .contains("checkmated"),
            "{v}"
        );
        assert_eq!(v["check"], true);
    }

    // A bare king to move has won at once (its king could still move).
    let v = json(&antichess(&[
        "moves",
        "--rules",
        "pritchard4",
        "--fen",
        "7k/8/8/8/8/8/8/R3K3 b - - 0 1",
        "--format",
        "json",
    ]));
    assert_eq!(v["outcome"]["result"], "0-1", "{v}");
    assert!(v["outcome"]["reason"]
        .as_str()
        .unwrap()
        .contains("bare king"));
    // Under antichess rules the same position is an ordinary one.
    let v = json(&antichess(&[
        "moves",
        "--fen",
        "7k/8/8/8/8/8/8/R3K3 b - - 0 1",
        "--format",
        "json",
    ]));
    assert!(v["outcome"].is_null(), "{v}");
}

#[test]
fn positions_need_one_king_each_and_no_check_on_the_side_not_to_move() {
    for (fen, words) in [
        ("kk6/8/8/8/8/8/8/K7 w - - 0 1", "2 kings"),
        ("k6R/8/8/8/8/8/8/K7 w - - 0 1", "in check"),
        ("7k/8/8/8/8/8/8/R3K3 w - - 0 1", "bare king"),
    ] {
        let out = antichess(&["moves", "--rules", "pritchard3", "--fen", fen]);
        assert!(!out.status.success(), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(stderr.contains(words), "{fen}: {stderr}");
    }
    let out = antichess(&["moves", "--rules", "pritchard5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pritchard5"));
}

#[test]
fn solve_writes_a_proof_that_records_its_rules_and_verifies() {
    let dir = temp("royal-solve");
    for (rules, code, prover) in [("pritchard3", 8u8, "white"), ("pritchard4", 9, "black")] {
        let proof = dir.join(format!("{rules}.proof"));
        // White must mate: under pritchard3 White wins, under pritchard4 Black does.
        let v = json(&antichess(&[
            "solve",
            "--rules",
            rules,
            "--fen",
            FORCED_MATE,
            "--prover",
            prover,
            "--hash",
            "16M",
            "--nodes",
            "2M",
            "--proof",
            proof.to_str().unwrap(),
            "--format",
            "json",
        ]));
        assert_eq!(v["result"], "proved", "{rules}: {v}");
        assert_eq!(v["verified"], true, "{rules}: {v}");
        // The header's rules byte (docs/formats/proof.md, offset 10).
        let bytes = std::fs::read(&proof).unwrap();
        assert_eq!(bytes[10], code, "{rules}");

        let check = verify_json(&proof);
        assert_eq!(check["verified"], true, "{check}");
        assert_eq!(check["rules"], rules, "{check}");

        // The same tree in the reference format (which does not record the rules), read
        // back under each variant: a proof under its own, rejected under the other, whose
        // mate is scored for the other side.
        let reference = dir.join(format!("{rules}.ref"));
        let out = antichess(&[
            "proof",
            "convert",
            "--to",
            "reference",
            proof.to_str().unwrap(),
            reference.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out));
        let other = if rules == "pritchard3" {
            "pritchard4"
        } else {
            "pritchard3"
        };
        for (read_as, ok) in [(rules, true), (other, false)] {
            let out = antichess(&[
                "proof",
                "verify",
                reference.to_str().unwrap(),
                "--rules",
                read_as,
                "--prover",
                prover,
                "--fen",
                FORCED_MATE,
            ]);
            assert_eq!(
                out.status.success(),
                ok,
                "{rules} read as {read_as}: {}",
                text(&out)
            );
            if !ok {
                assert_eq!(out.status.code(), Some(1), "{}", text(&out));
                assert!(
                    String::from_utf8_lossy(&out.stdout)
                        .contains(&format!("under {read_as} rules")),
                    "{}",
                    text(&out)
                );
            }
        }
    }
    // A prover that cannot win is disproved.
    let v = json(&antichess(&[
        "solve",
        "--rules",
        "pritchard4",
        "--fen",
        FORCED_MATE,
        "--prover",
        "white",
        "--hash",
        "16M",
        "--nodes",
        "2M",
        "--format",
        "json",
    ]));
    assert_eq!(v["result"], "disproved", "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tb_build_needs_no_table_below_four_units_and_refuses_five() {
    // Royal tables exist up to 4 units (crates/antichess-cli/tests/royal_tb_cli.rs builds
    // one); with at most 3 units a side has a bare king, which the rules decide.
    let dir = temp("royal-tb");
    let v = json(&antichess(&[
        "tb",
        "build",
        "--units",
        "3",
        "--rules",
        "pritchard3",
        "--format",
        "json",
        "--tables",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(v["built"], 0, "{v}");
    let out = antichess(&[
        "tb",
        "build",
        "--units",
        "5",
        "--rules",
        "pritchard3",
        "--tables",
        dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pritchard3") && stderr.contains("at most 4"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_book_grows_and_proves_under_pritchard3() {
    let dir = temp("royal-book");
    let book = dir.join("f4.db");
    let proof = dir.join("f4.proof");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let out = antichess(&[
        "book",
        "new",
        &s(&book),
        "--rules",
        "pritchard3",
        "--moves",
        "f4",
        "--prover",
        "black",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("pritchard3"));
    let v = json(&antichess(&[
        "book",
        "grow",
        &s(&book),
        "--until-solved",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--search-nodes",
        "100000",
        "--format",
        "json",
    ]));
    assert_eq!(v["end"], "solved", "{v}");
    assert_eq!(v["status"], "win", "{v}");
    let v = json(&antichess(&[
        "book",
        "prove",
        &s(&book),
        "-o",
        &s(&proof),
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--format",
        "json",
    ]));
    assert_eq!(v["verified"], true, "{v}");
    let check = json(&antichess(&[
        "proof",
        "verify",
        &s(&proof),
        "--format",
        "json",
    ]));
    assert_eq!(check["verified"], true, "{check}");
    assert_eq!(check["rules"], "pritchard3", "{check}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_uci_engine_plays_under_the_royal_rule_sets() {
    use std::io::Write;
    use std::process::Stdio;
    for (rules, mates) in [("pritchard3", true), ("pritchard4", false)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let script = format!(
            "uci\nsetoption name Rules value {rules}\nisready\n\
             position fen {MATE_IN_ONE}\ngo depth 2\nisready\nquit\n"
        );
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("var pritchard3 var pritchard4"), "{stdout}");
        let best = stdout
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("{rules}: {stdout}"));
        assert_eq!(best.starts_with("a1a8"), mates, "{rules}: {stdout}");
    }
}

/// The proofs of docs/research/pritchard-first-moves.md (in proofs/pritchard/): each
/// verifies under the rule set its name says, from the position after its first move,
/// with Black as the prover and no table.
/// `antichess proof verify PATH --format json`, parsed.
fn verify_json(path: &std::path::Path) -> serde_json::Value {
    json(&antichess(&[
        "proof",
        "verify",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]))
}

#[test]
fn the_shipped_first_move_proofs_verify() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/pritchard");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("proofs/pritchard")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".proof"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 6, "{names:?}");
    for name in names {
        let (rules, first) = name
            .trim_end_matches(".proof")
            .split_once('-')
            .expect("RULES-MOVE.proof");
        let path = dir.join(&name);
        let v = verify_json(&path);
        assert_eq!(v["verified"], true, "{name}: {v}");
        assert_eq!(v["rules"], rules, "{name}");
        assert_eq!(v["prover"], "black", "{name}");
        assert_eq!(v["counts"]["tablebase"], 0, "{name}");
        let after = json(&antichess(&[
            "moves", "--moves", first, "--rules", rules, "--format", "json",
        ]));
        let part = |fen: &str| fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        assert_eq!(
            part(v["root_fen"].as_str().unwrap()),
            part(after["fen"].as_str().unwrap()),
            "{name}: the root is not the position after 1. {first}"
        );
    }
}
