//! `antichess tb build` at scale, on small unit counts: `--dry-run` lists the plan without
//! building; every table built gets a log line (time, positions/s, file size, peak
//! memory, time left); a build killed with SIGKILL resumes, keeping the files already
//! written; a deleted file is built again and a truncated one is reported as damaged and
//! built again; the result is byte-identical to an uninterrupted build.

use crate::common::{antichess, files, s, text};

use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use antichess_testkit::temp_dir as temp;

fn ok(args: &[&str]) -> Output {
    let out = antichess(args);
    assert!(out.status.success(), "{args:?}\n{}", text(&out));
    out
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

#[test]
fn dry_run_lists_the_plan_and_builds_nothing() {
    let dir = temp("tb-dry-run").join("tables");
    let plan = json(&[
        "tb",
        "build",
        "--units",
        "3",
        "--dry-run",
        "--tables",
        s(&dir),
        "--format",
        "json",
    ]);
    let rows = plan["plan"].as_array().unwrap();
    assert_eq!(plan["tables"], rows.len());
    assert_eq!(plan["to_build"], rows.len());
    assert!(rows.len() > 10, "{plan}");
    assert!(rows.iter().all(|r| r["status"] == "missing"));
    // Build order: units never decrease.
    let units: Vec<u64> = rows.iter().map(|r| r["units"].as_u64().unwrap()).collect();
    assert!(units.windows(2).all(|w| w[0] <= w[1]), "{units:?}");
    let kr = rows
        .iter()
        .find(|r| r["material"] == "KRk")
        .expect("KRk planned");
    assert_eq!(kr["memory_estimate"], 3 * kr["positions"].as_u64().unwrap());
    let total: u64 = rows.iter().map(|r| r["positions"].as_u64().unwrap()).sum();
    assert_eq!(plan["positions"], total);
    assert!(!dir.exists(), "a dry run creates nothing");

    // After a build of part of it, the plan says what is present.
    ok(&["tb", "build", "KRk", "--tables", s(&dir)]);
    let out = ok(&[
        "tb",
        "build",
        "--units",
        "3",
        "--dry-run",
        "--tables",
        s(&dir),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let kr_line = stdout.lines().find(|l| l.starts_with("KRk ")).unwrap();
    assert!(kr_line.ends_with("present"), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.contains(&format!("{} tables needed", rows.len())) && last.contains("to build"),
        "{stdout}"
    );
}

#[test]
fn a_killed_or_damaged_build_resumes_and_logs_each_table() {
    let base = temp("tb-resume");
    let reference = base.join("reference");
    let dir = base.join("resumed");
    let targets = ["KKKk", "BBBk", "NNNk"];

    // The uninterrupted build: one line per table on stderr (not a terminal).
    let mut args = vec!["tb", "build", "--tables", s(&reference), "--threads", "1"];
    args.extend(targets);
    let out = ok(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = files(&reference);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(" positions in ") && l.contains("M positions/s"))
        .collect();
    assert_eq!(lines.len(), expected.len(), "{stderr}");
    let n = expected.len();
    assert!(lines[0].starts_with(&format!("#1/{n} ")), "{stderr}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("#") && l.contains("KKKk:")),
        "{stderr}"
    );
    if cfg!(target_os = "linux") {
        assert!(lines.iter().all(|l| l.contains("peak memory")), "{stderr}");
    }
    assert!(
        lines
            .last()
            .unwrap()
            .contains("100.0% of the positions done"),
        "{stderr}"
    );

    // Killed once a 4-unit table is written, then resumed.
    let mut args = vec!["tb", "build", "--tables", s(&dir), "--threads", "1"];
    args.extend(targets);
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let written = loop {
        let have = if dir.exists() {
            files(&dir)
        } else {
            BTreeMap::new()
        };
        if have.keys().any(|k| k.len() == "KKKvK.actb".len()) {
            break have.len();
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the build ended before it was killed"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no 4-unit table written"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let mut args = vec!["tb", "build", "--tables", s(&dir), "--format", "json"];
    args.extend(targets);
    let resumed = json(&args);
    let present = resumed["present"].as_u64().unwrap() as usize;
    assert!(present >= written && present < n, "{resumed}");
    assert_eq!(resumed["built"].as_u64().unwrap() as usize, n - present);
    assert!(files(&dir) == expected, "the resumed build differs");
    for row in resumed["tables"].as_array().unwrap() {
        if row["status"] == "built" {
            assert!(row["bytes"].as_u64().unwrap() > 128, "{row}");
        }
    }

    // A deleted file and a truncated one: built again, the damaged one reported.
    std::fs::remove_file(dir.join("KKvK.actb")).unwrap();
    let cut = dir.join("BBBvK.actb");
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    let mut args = vec!["tb", "build", "--tables", s(&dir)];
    args.extend(targets);
    let out = ok(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.starts_with(&format!("2 tables built, {} already present", n - 2)),
        "{}",
        text(&out)
    );
    assert!(
        stderr.contains("BBBk: corrupt tablebase file") && stderr.contains("building it again"),
        "{stderr}"
    );
    assert!(files(&dir) == expected, "the rebuilt files differ");
}

#[test]
fn bench_tablebase_times_a_pawnless_and_a_pawn_table() {
    let v = json(&[
        "bench",
        "tablebase",
        "--units",
        "2",
        "--table",
        "KRk",
        "--table",
        "KPk",
        "--threads",
        "1",
        "--format",
        "json",
    ]);
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2, "{v}");
    assert_eq!(v["table"], tables[0]);
    for (t, name) in tables.iter().zip(["KRk", "KPk"]) {
        assert_eq!(t["material"], name, "{t}");
        assert!(t["positions"].as_u64().unwrap() > 1000, "{t}");
        assert!(t["positions_per_second"].as_f64().unwrap() > 0.0, "{t}");
        let file = t["file_bytes"].as_u64().unwrap();
        assert!(file > 128, "{t}");
        let per = t["file_bytes_per_position"].as_f64().unwrap();
        assert!(
            (per - file as f64 / t["positions"].as_f64().unwrap()).abs() < 1e-9,
            "{t}"
        );
        if cfg!(target_os = "linux") {
            let peak = t["peak_memory_bytes"].as_u64().unwrap();
            let per = t["bytes_per_position"].as_f64().unwrap();
            assert!(
                (per - peak as f64 / t["positions"].as_f64().unwrap()).abs() < 1e-6,
                "{t}"
            );
        }
    }
    let out = ok(&[
        "bench",
        "tablebase",
        "--units",
        "2",
        "--table",
        "KPk",
        "--threads",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("KPk: "))
        .expect("a KPk line");
    assert!(
        line.contains("M positions/s") && line.contains("bytes per position"),
        "{stdout}"
    );
}

/// Issue 63: `tb build --from-book BOOK --top 3` planned 342 tables (3.6 × 10^10
/// positions) and started without a word about the size. A build now prints its plan's
/// totals on stderr before it starts (tables, positions, the largest table's memory, the
/// files' size), nothing when every table is there; a plan over 10^10 positions is
/// called large on stderr, by `--dry-run` too (which builds nothing).
#[test]
fn a_build_says_its_size_before_it_starts_and_a_large_one_says_so() {
    let dir = temp("tb-plan-size").join("tables");
    let out = ok(&["tb", "build", "KRk", "--tables", s(&dir), "--threads", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines[0].starts_with(
            "plan: 3 tables needed, 0 present, 3 to build (80640 positions, the largest (KRk) needing ~"
        ) && lines[0].contains(" at 3 bytes per position, about ")
            && lines[0].ends_with(&format!(" on disk) in {}", s(&dir))),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("building 3 of the 3 tables needed"),
        "{stderr}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    // Everything present: nothing to say.
    let out = ok(&["tb", "build", "KRk", "--tables", s(&dir)]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("plan:"),
        "{}",
        text(&out)
    );

    // The 5-unit set: large, said on stderr by a dry run, which builds nothing.
    let empty = temp("tb-plan-large").join("tables");
    let out = ok(&[
        "tb",
        "build",
        "--units",
        "5",
        "--dry-run",
        "--tables",
        s(&empty),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with(
            "2646 tables needed, 0 present, 2646 to build (476239783444 positions, the largest (BNPbn) needing ~2.06 GB at 3 bytes per position, about "
        ),
        "{last}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: a large build: 476.2 × 10^9 positions to generate"),
        "{stderr}"
    );
    let v = json(&[
        "tb",
        "build",
        "--units",
        "5",
        "--dry-run",
        "--tables",
        s(&empty),
        "--format",
        "json",
    ]);
    assert_eq!(v["largest"], "BNPbn", "{}", v["largest"]);
    let disk = v["disk_estimate"].as_u64().unwrap();
    assert!((150e9..250e9).contains(&(disk as f64)), "{disk}");
    assert!(!empty.exists(), "a dry run creates nothing");
    // A small plan is not large.
    let out = ok(&[
        "tb",
        "build",
        "--units",
        "3",
        "--dry-run",
        "--tables",
        s(&empty),
    ]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{}",
        text(&out)
    );
}

/// Issue 63: `tb build --from-book BOOK --top 3` planned 342 tables for the 3 asked for
/// and did not say that nearly all of them were dependencies. When the tables the ones
/// asked for need are more positions than those, a note on stderr says so, by a build
/// (after the plan's line) and by a dry run (whose listing is unchanged).
#[test]
fn a_plan_that_is_mostly_dependencies_says_so() {
    let note = "note: 1 table asked for (187488 positions to build); the other 11 are the \
                tables it needs (where captures and promotions lead): 360864 positions, 66% \
                of the build";
    let dir = temp("tb-plan-dependencies").join("tables");
    let out = ok(&["tb", "build", "KPk", "--dry-run", "--tables", s(&dir)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end(), note, "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 13, "{stdout}");
    assert!(!dir.exists(), "a dry run creates nothing");
    let out = ok(&["tb", "build", "KPk", "--tables", s(&dir), "--threads", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].starts_with("plan: 12 tables needed"), "{stderr}");
    assert_eq!(lines[1], note, "{stderr}");
    // The table asked for is most of its plan: no note.
    let out = ok(&[
        "tb",
        "build",
        "KRk",
        "--dry-run",
        "--tables",
        s(&temp("tb-plan-krk")),
    ]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("note:"),
        "{}",
        text(&out)
    );
}

/// Issue 63: the guide's `tb build --units 5 --dry-run | tail -1` line (the 4-unit set
/// present) had drifted from what the command prints. It must be that line: the counts and
/// positions with the 4-unit set's taken off, and the rest as printed on an empty
/// directory.
#[test]
fn the_guide_shows_what_the_5_unit_dry_run_prints() {
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide.md"),
    )
    .unwrap();
    let shown = guide
        .lines()
        .skip_while(|l| !l.starts_with("antichess tb build --units 5 --dry-run | tail -1"))
        .nth(1)
        .expect("the guide shows the 5-unit dry run")
        .strip_prefix("# ")
        .unwrap()
        .strip_suffix(" in …")
        .unwrap()
        .to_string();
    let empty = temp("tb-guide-plan").join("tables");
    let plan = |units: &str| {
        json(&[
            "tb",
            "build",
            "--units",
            units,
            "--dry-run",
            "--tables",
            s(&empty),
            "--format",
            "json",
        ])
    };
    let (five, four) = (plan("5"), plan("4"));
    let present = four["tables"].as_u64().unwrap();
    let tables = five["tables"].as_u64().unwrap();
    let positions = five["positions"].as_u64().unwrap() - four["positions"].as_u64().unwrap();
    let out = ok(&[
        "tb",
        "build",
        "--units",
        "5",
        "--dry-run",
        "--tables",
        s(&empty),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed = stdout.lines().last().unwrap();
    // "(N positions, the largest (M) needing ~X at 3 bytes per position, about D on disk)"
    let largest = printed
        .split(" positions, ")
        .nth(1)
        .unwrap()
        .split(", about ")
        .next()
        .unwrap();
    let expected = format!(
        "{tables} tables needed, {present} present, {} to build ({positions} positions, {largest}, about {:.2} GB on disk)",
        tables - present,
        positions as f64 * 0.40 / 1e9
    );
    assert_eq!(shown, expected);
}

/// `tb build --from-proof` on a shipped proof (1. e3 e5, which records two 3-unit tables):
/// the tables it records are built (with their dependencies) and compared with its
/// records, and `proof verify` then accepts it with them; another table's file under a
/// recorded table's name is refused by name. A proof of other rules than the tables asked for is
/// refused by name; a proof that records no table needs nothing built.
#[test]
fn from_proof_builds_the_tables_a_proof_records() {
    let dir = temp("tb-from-proof");
    let tables = dir.join("tables");
    let proofs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs");
    let e5 = proofs.join("e3-e5.proof");
    let build = || {
        antichess(&[
            "tb",
            "build",
            "--from-proof",
            s(&e5),
            "--tables",
            s(&tables),
        ])
    };
    let out = build();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("2 of the 2 tables") && text(&out).contains("proof verify"),
        "{}",
        text(&out)
    );
    assert!(tables.join("PPvR.actb").is_file() && tables.join("RPvR.actb").is_file());
    let verified = json(&[
        "proof",
        "verify",
        s(&e5),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    assert_eq!(verified["verified"], true, "{verified}");
    let statuses: Vec<&str> = verified["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["status"].as_str())
        .collect();
    assert_eq!(statuses, ["same", "same"], "{verified}");

    // Another table's file under PPr's name is refused by name, not overwritten; removed,
    // it is built again.
    std::fs::copy(tables.join("RPvR.actb"), tables.join("PPvR.actb")).unwrap();
    let refused = build();
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("not of PPr"), "{}", text(&refused));
    std::fs::remove_file(tables.join("PPvR.actb")).unwrap();
    let again = json(&[
        "tb",
        "build",
        "--from-proof",
        s(&e5),
        "--format",
        "json",
        "--tables",
        s(&tables),
    ]);
    assert_eq!(
        (again["recorded"].as_u64(), again["same"].as_u64()),
        (Some(2), Some(2)),
        "{again}"
    );

    let fics = antichess(&[
        "tb",
        "build",
        "--from-proof",
        s(&e5),
        "--rules",
        "fics",
        "--tables",
        s(&tables),
    ]);
    assert_eq!(fics.status.code(), Some(2), "{}", text(&fics));
    assert!(
        text(&fics).contains("under the rules international"),
        "{}",
        text(&fics)
    );

    let none = ok(&[
        "tb",
        "build",
        "--from-proof",
        s(&proofs.join("e3-d5.proof")),
        "--tables",
        s(&tables),
    ]);
    assert!(
        text(&none).contains("relies on no table"),
        "{}",
        text(&none)
    );
}
