//! `antichess tb build --queue` on PostgreSQL, against a throwaway server on loopback (see
//! `antichess_testkit::pg_server`; skipped without Debian's postgresql package unless
//! ANTICHESS_REQUIRE_POSTGRES=1): three worker processes share one queue and one tables
//! directory, one of them is killed with SIGKILL while it builds a table; the others take
//! that table over and finish. Every table is built exactly once, except the killed
//! worker's, built again once; the set is complete and byte-identical to a single-process
//! `tb build`; a worker started afterwards finds nothing to do; a done table whose file
//! is then deleted or truncated is built again by the next worker; a worker with other
//! rules is refused.

use crate::common::{files, s, text};

use antichess_testkit::pg_server;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use antichess_book::tbqueue::{log, status};
use antichess_testkit::temp_dir as temp;

/// Small 4-unit tables (about 0.8 M positions each) and, through their captures, 2- and
/// 3-unit ones.
const TARGETS: [&str; 4] = ["KKKk", "BBBk", "NNNk", "RRRk"];

fn worker(url: &str, dir: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_antichess"));
    c.args(["tb", "build", "--queue", url, "--tables", s(dir)])
        .args(["--threads", "1", "--format", "json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn spawn(url: &str, dir: &Path) -> Child {
    worker(url, dir, &TARGETS).spawn().unwrap()
}

fn finish(child: Child) -> serde_json::Value {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

/// "host:pid:" — the prefix of a process's worker names.
fn worker_prefix(pid: u32) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    format!("{host}:{pid}:")
}

#[test]
fn pg_queue_workers_one_killed_build_every_table_once() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let url = server.url("tbqueue");
    let dir = temp("tbqueue-shared");
    let single = temp("tbqueue-single");

    // The victim starts alone; two more workers join; the victim is killed while it
    // builds one of the 4-unit tables.
    let mut victim = spawn(&url, &dir);
    let victim_name = worker_prefix(victim.id());
    let others = [spawn(&url, &dir), spawn(&url, &dir)];
    let start = Instant::now();
    let killed_table = loop {
        let building = status(&url).ok().and_then(|rows| {
            rows.into_iter().find(|r| {
                r.status == "building"
                    && r.material.len() == 4
                    && r.worker
                        .as_deref()
                        .is_some_and(|w| w.starts_with(&victim_name))
            })
        });
        if let Some(row) = building {
            break row.material;
        }
        if victim.try_wait().unwrap().is_some() {
            let out = victim.wait_with_output().unwrap();
            panic!(
                "the victim finished before it could be killed while building a 4-unit table\n{}",
                text(&out)
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the victim never built a 4-unit table"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    victim.kill().unwrap();
    victim.wait().unwrap();
    let reports: Vec<serde_json::Value> = others.into_iter().map(finish).collect();
    let reclaimed: u64 = reports
        .iter()
        .map(|r| r["reclaimed"].as_u64().unwrap())
        .sum();
    assert_eq!(reclaimed, 1, "{reports:?}");

    // Every row done; built once, the killed worker's table twice.
    let rows = status(&url).unwrap();
    assert!(rows.len() >= 8, "{rows:?}");
    for r in &rows {
        assert_eq!(r.status, "done", "{r:?}");
        let attempts = if r.material == killed_table { 2 } else { 1 };
        assert_eq!(r.attempts, attempts, "{r:?}");
        assert!(
            !r.worker.as_deref().unwrap().starts_with(&victim_name) || r.material != killed_table,
            "{r:?}"
        );
    }
    let attempts = log(&url).unwrap();
    for r in &rows {
        let of: Vec<_> = attempts
            .iter()
            .filter(|a| a.material == r.material)
            .collect();
        let finished: Vec<_> = of.iter().filter(|a| a.outcome.is_some()).collect();
        assert_eq!(finished.len(), 1, "{of:?}");
        assert!(
            matches!(finished[0].outcome.as_deref(), Some("built" | "found")),
            "{of:?}"
        );
        if r.material == killed_table {
            // The victim's attempt never ended; the table was then built (or, had it
            // died between the rename and the update, found whole) by another worker.
            assert_eq!(of.len(), 2, "{of:?}");
            assert!(of[0].worker.starts_with(&victim_name) && of[0].outcome.is_none());
            assert!(!of[1].worker.starts_with(&victim_name), "{of:?}");
        } else {
            assert_eq!(finished[0].outcome.as_deref(), Some("built"), "{of:?}");
        }
    }

    // The same tables from one process: the same files, byte for byte.
    let mut args = vec!["tb", "build", "--tables", s(&single), "--format", "json"];
    args.extend(TARGETS);
    let out = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let expected = files(&single);
    assert_eq!(expected.len(), rows.len());
    assert!(
        files(&dir) == expected,
        "the queue's files differ from one process's"
    );

    // A worker started now has nothing to do.
    let late = finish(spawn(&url, &dir));
    assert_eq!(late["built"], 0, "{late}");
    assert_eq!(late["tables"], rows.len(), "{late}");

    // A done table whose file is deleted, and one whose file is truncated, are built
    // again by the next worker (which is given no materials: it only helps).
    let gone = dir.join("KKvK.actb");
    let cut = dir.join(format!("{}vK.actb", &killed_table[..3]));
    std::fs::remove_file(&gone).unwrap();
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = worker(&url, &dir, &[]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["built"], 2, "{again}");
    assert!(files(&dir) == expected, "the rebuilt files differ");
    let rows = status(&url).unwrap();
    for r in &rows {
        assert_eq!(r.status, "done");
        let rebuilt = r.material == "KKk" || r.material == killed_table;
        assert!(!rebuilt || r.attempts >= 2, "{r:?}");
    }

    // The queue builds international tables: a worker with other rules is refused.
    let out = worker(&url, &dir, &["--rules", "fics"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("builds international tables") && stderr.contains("--rules fics"),
        "{stderr}"
    );
}
