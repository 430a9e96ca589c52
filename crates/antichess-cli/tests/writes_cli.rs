//! End-to-end tests of what the commands write (issue 36): outputs that are not regular
//! files (symbolic links, FIFOs, directories, device nodes) are refused and left as they
//! were by `solve --proof`, `proof convert`, `proof minimize -o` and `book prove -o`;
//! durations too long are refused by every option; a checkpoint's stale temporary files are
//! removed; `solve` prints its result before a failed final checkpoint and says when
//! `--proof` writes nothing; `proof convert` converts only what verifies and reports in
//! JSON, as `proof minimize` does.

use crate::common::{antichess, s, text};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use antichess_proof::{
    encode_reference, read_proof_file, write_atomic, ByteOrder, NodeKind, ReferenceOptions,
};
use antichess_testkit::temp_dir;

/// A position White wins in a few moves, proved without tables in a moment.
const FEN: &str = "8/1p2p1p1/8/8/8/8/3K4/8 w - - 0 1";

fn succeeds(args: &[&str]) -> Output {
    let out = antichess(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", text(&out));
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

/// `solve` of [`FEN`] without tables, with these arguments besides.
fn solve(more: &[&str]) -> Output {
    let mut args = vec!["solve", "--fen", FEN, "--tb-units", "0", "--hash", "16M"];
    args.extend(more);
    antichess(&args)
}

/// A proof of [`FEN`] at `dir/p.proof`.
fn proof_in(dir: &Path) -> PathBuf {
    let proof = dir.join("p.proof");
    let out = solve(&["--proof", s(&proof)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    proof
}

/// What a path is, without following a symbolic link: its kind and, for a symbolic link,
/// where it points; for a regular file, its bytes.
fn snapshot(path: &Path) -> (String, Option<PathBuf>, Option<Vec<u8>>) {
    let meta = std::fs::symlink_metadata(path).expect("still there");
    let t = meta.file_type();
    use std::os::unix::fs::FileTypeExt;
    let kind = if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "dir"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_char_device() {
        "char device"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    };
    (
        kind.to_string(),
        std::fs::read_link(path).ok(),
        t.is_file().then(|| std::fs::read(path).unwrap()),
    )
}

/// Makes a device node `path` like the one numbered `major`, `minor` (a copy of /dev/null
/// is 1, 3 and of /dev/full 1, 7), as root only; `false` (with a message) if it cannot.
fn device(path: &Path, minor: &str) -> bool {
    let made = Command::new("mknod")
        .args([s(path), "c", "1", minor])
        .output()
        .is_ok_and(|o| o.status.success());
    if !made {
        eprintln!(
            "skipped the device node {}: mknod needs root (and the right to make devices)",
            path.display()
        );
    }
    made
}

#[test]
fn outputs_that_are_not_regular_files_are_refused_and_left_alone() {
    let dir = temp_dir("writes-targets");
    let proof = proof_in(&dir);
    let book = dir.join("b.book");
    succeeds(&["book", "new", s(&book), "--fen", FEN]);
    succeeds(&[
        "book",
        "grow",
        s(&book),
        "--until-solved",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--search-nodes",
        "100000",
    ]);
    // The targets: a symbolic link to a file, one to nothing, a FIFO, a directory, and as
    // root copies of /dev/null and /dev/full (never the real ones).
    let kept = dir.join("kept");
    std::fs::write(&kept, b"kept").unwrap();
    let mut targets = vec![];
    let link = dir.join("link");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    targets.push((link, "symbolic link"));
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
    targets.push((dangling, "symbolic link"));
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    targets.push((fifo, "FIFO"));
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    targets.push((sub, "directory"));
    for (name, minor) in [("null", "3"), ("full", "7")] {
        let path = dir.join(name);
        if device(&path, minor) {
            targets.push((path, "character device"));
        }
    }
    for (target, what) in &targets {
        let before = snapshot(target);
        let t = s(target);
        let commands: [Vec<&str>; 4] = [
            vec![
                "solve",
                "--fen",
                FEN,
                "--tb-units",
                "0",
                "--hash",
                "16M",
                "--proof",
                t,
            ],
            vec!["proof", "convert", s(&proof), t, "--to", "reference"],
            vec![
                "proof",
                "minimize",
                s(&proof),
                "-o",
                t,
                "--time",
                "0",
                "--tb-units",
                "0",
                "--hash",
                "16M",
            ],
            vec![
                "book",
                "prove",
                s(&book),
                "-o",
                t,
                "--tb-units",
                "0",
                "--hash",
                "16M",
            ],
        ];
        for args in commands {
            let out = antichess(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
            assert!(
                stderr.contains(&format!("error: {t}"))
                    || stderr.contains(&format!("writing {t}: is")),
                "{args:?}: the message names the path\n{}",
                text(&out)
            );
            assert!(stderr.contains(what), "{args:?}\n{}", text(&out));
            assert!(!stderr.contains("panicked"), "{}", text(&out));
            assert_eq!(snapshot(target), before, "{args:?} changed {t}");
        }
    }
    assert_eq!(std::fs::read(&kept).unwrap(), b"kept");
    // Nothing was left beside them but the leaf directory of each `book prove`.
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    left.sort();
    assert_eq!(left, Vec::<String>::new());
    // A regular file is replaced as before.
    let out = dir.join("out.ref");
    std::fs::write(&out, b"old").unwrap();
    succeeds(&["proof", "convert", s(&proof), s(&out), "--to", "reference"]);
    assert_ne!(std::fs::read(&out).unwrap(), b"old");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_duration_option_refuses_what_is_too_long() {
    let cases: &[(&[&str], &str)] = &[
        (&["solve"], "--time"),
        (&["solve"], "--minimize"),
        (&["solve"], "--checkpoint-every"),
        (&["solve"], "--save-every"),
        (&["proof", "minimize", "p.proof", "-o", "q.proof"], "--time"),
        (
            &["proof", "minimize", "p.proof", "-o", "q.proof"],
            "--save-every",
        ),
        (
            &[
                "proof",
                "minimize",
                "p.proof",
                "-o",
                "q.proof",
                "--top-nodes",
                "2",
            ],
            "--top-time",
        ),
        (
            &["proof", "minimize", "p.proof", "-o", "q.proof"],
            "--global",
        ),
        (&["book", "grow", "b.book"], "--time"),
        (&["book", "grow", "b.book"], "--lease"),
        (&["book", "grow", "b.book"], "--retry"),
        (&["book", "grow", "b.book"], "--report-every"),
        (&["book", "prove", "b.book", "-o", "q.proof"], "--minimize"),
        (&["serve"], "--sample-every"),
        (&["serve"], "--solve-limit"),
        (&["bench", "solve"], "--time"),
        (&["bench", "solve"], "--minimize"),
        (&["bench", "book"], "--time"),
        (&["bench", "store"], "--time"),
    ];
    for (command, option) in cases {
        for value in ["1e20", "18446744073709551616s", "1e300h"] {
            let mut args = command.to_vec();
            args.extend([option, value]);
            let out = antichess(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
            assert!(
                stderr.contains(&format!("\"{value}\" is too long (at most 100 years)")),
                "{args:?}\n{}",
                text(&out)
            );
            assert!(
                !stderr.contains("panicked") && !stderr.contains("backtrace"),
                "{args:?}\n{}",
                text(&out)
            );
        }
    }
}

#[test]
fn stale_temporary_files_of_a_checkpoint_are_removed() {
    let dir = temp_dir("writes-stale");
    let ck = dir.join("ck");
    // What a save killed midway leaves (before and after the names changed), of processes
    // that are gone (pids above Linux's pid_max), and one of a live process (this test).
    let stale = [
        dir.join(".ck.tmp-4294967290"),
        dir.join(".ck.tmp-4294967291-7"),
    ];
    let live = dir.join(format!(".ck.tmp-{}-0", std::process::id()));
    let other = dir.join(".other.tmp-4294967290-0");
    for p in stale.iter().chain([&live, &other]) {
        std::fs::write(p, b"half a checkpoint").unwrap();
    }
    let out = solve(&["--checkpoint", s(&ck)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("removed 2 temporary file(s) left by an interrupted save"),
        "{}",
        text(&out)
    );
    assert!(stale.iter().all(|p| !p.exists()));
    assert!(live.exists() && other.exists() && ck.exists());
    // The run that resumes from it removes them too (one left since).
    std::fs::write(&stale[0], b"").unwrap();
    let out = solve(&["--checkpoint", s(&ck), "--format", "json"]);
    assert_eq!(json(&out)["result"], "proved");
    assert!(!stale[0].exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_prints_its_result_before_a_failed_final_checkpoint() {
    let dir = temp_dir("writes-final-checkpoint");
    // The checkpoint's directory does not exist: every save fails, the last one too.
    let ck = dir.join("missing").join("ck");
    let out = solve(&["--checkpoint", s(&ck)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("result: proved: white wins"),
        "{}",
        text(&out)
    );
    assert!(
        stderr.contains("the result above was found, but the final checkpoint was not saved")
            && stderr.contains(s(&ck)),
        "{}",
        text(&out)
    );
    let out = solve(&["--checkpoint", s(&ck), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let v = json(&out);
    assert_eq!(v["result"], "proved");
    assert_eq!(v["checkpoint"]["path"], s(&ck));
    assert!(
        v["checkpoint"]["error"].as_str().unwrap().contains(s(&ck)),
        "{v}"
    );
    // A checkpoint saved: its entries.
    let ck = dir.join("ck");
    let v = json(&solve(&["--checkpoint", s(&ck), "--format", "json"]));
    assert!(v["checkpoint"]["entries"].as_u64().unwrap() > 0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_says_when_it_writes_no_proof() {
    let dir = temp_dir("writes-no-proof");
    let proof = dir.join("q.proof");
    for (more, result) in [
        (&["--prover", "black"][..], "disproved"),
        (&["--nodes", "5"][..], "unknown"),
    ] {
        let mut args = vec!["--proof", s(&proof)];
        args.extend(more);
        let out = solve(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&format!(
                "no proof written to {}: the result is {result}",
                proof.display()
            )),
            "{}",
            text(&out)
        );
        args.extend(["--format", "json"]);
        let v = json(&solve(&args));
        assert_eq!(v["result"], result);
        assert_eq!(v["proof_not_written"], format!("the result is {result}"));
        assert!(!proof.exists());
    }
    // A proof written: no such key.
    let v = json(&solve(&["--proof", s(&proof), "--format", "json"]));
    assert!(v.get("proof_not_written").is_none(), "{v}");
    assert!(proof.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_converts_only_what_verifies() {
    let dir = temp_dir("writes-convert-rejected");
    let proof = proof_in(&dir);
    let tree = read_proof_file(&proof, None, &ReferenceOptions::default()).unwrap();
    // The first reference turned into one to an earlier terminal node, another position:
    // the verifier rejects it, in either format.
    let mut wrong = tree.clone();
    let (r, t) = wrong
        .nodes()
        .iter()
        .enumerate()
        .find_map(|(i, n)| match n.kind {
            NodeKind::Reference { target } => Some((i, target as usize)),
            _ => None,
        })
        .expect("the proof has references");
    let u = (1..r)
        .rev()
        .find(|&u| u != t && wrong.nodes()[u].kind == NodeKind::Terminal)
        .expect("a terminal node before it");
    wrong.nodes_mut()[r].kind = NodeKind::Reference { target: u as u32 };
    let reference = dir.join("wrong.ref");
    write_atomic(
        &reference,
        &encode_reference(&wrong, ByteOrder::Little).unwrap(),
    )
    .unwrap();
    // The compact format cannot express that one: there, a reference to the root (an
    // ancestor).
    wrong.nodes_mut()[r].kind = NodeKind::Reference { target: 0 };
    let compact = dir.join("wrong.proof");
    write_atomic(&compact, &antichess_proof::encode_compact(&wrong).unwrap()).unwrap();
    for (input, to, more) in [
        (&reference, "ours", &["--fen", FEN][..]),
        (&compact, "reference", &[][..]),
    ] {
        let mut verify = vec!["proof", "verify", s(input)];
        verify.extend(more);
        let out = antichess(&verify);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let output = dir.join("converted");
        let mut convert = vec!["proof", "convert", s(input), s(&output), "--to", to];
        convert.extend(more);
        let out = antichess(&convert);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with(&format!(
                "rejected: {} does not verify, not converted: node {r}",
                input.display()
            )),
            "{}",
            text(&out)
        );
        assert!(!output.exists());
        convert.extend(["--format", "json"]);
        let v = json(&antichess(&convert));
        assert_eq!(v["verified"], false);
        assert!(v["error"].as_str().unwrap().contains("does not verify"));
        assert!(!output.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_and_minimize_report_in_json() {
    let dir = temp_dir("writes-json");
    let proof = proof_in(&dir);
    let theirs = dir.join("p.ref");
    let v = json(&succeeds(&[
        "proof",
        "convert",
        s(&proof),
        s(&theirs),
        "--to",
        "reference",
        "--format",
        "json",
    ]));
    assert_eq!(v["input"], s(&proof));
    assert_eq!(v["output"], s(&theirs));
    assert_eq!(v["format"], "reference");
    assert_eq!(v["nodes_before"], v["nodes_after"]);
    assert!(v["nodes_before"].as_u64().unwrap() > 10, "{v}");
    let small = dir.join("small.proof");
    let v = json(&succeeds(&[
        "proof",
        "minimize",
        s(&proof),
        "-o",
        s(&small),
        "--nodes",
        "20000",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--json",
    ]));
    assert_eq!(v["input"], s(&proof));
    assert_eq!(v["output"], s(&small));
    assert_eq!(v["format"], "compact");
    assert_eq!(v["verified"], true);
    assert!(
        v["nodes_after"].as_u64() <= v["nodes_before"].as_u64(),
        "{v}"
    );
    assert_eq!(v["interrupted"], false);
    let _ = std::fs::remove_dir_all(&dir);
}
