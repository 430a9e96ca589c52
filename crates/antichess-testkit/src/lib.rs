//! Helpers shared by the integration tests (`tests/*.rs`) of the workspace's crates, so that
//! each is written once:
//!
//! - [`temp_dir`]: a fresh temporary directory per test;
//! - [`random`]: deterministic random positions (playouts, sparse placements, a given
//!   material);
//! - [`full_checks`] and [`scaled`]: how large the long randomized tests and cross-checks
//!   run (`ANTICHESS_FULL_CHECKS`, `ANTICHESS_TEST_SCALE`);
//! - [`python_chess`]: whether python-chess, the independent oracle, can be used;
//! - [`pg_server`]: a throwaway PostgreSQL server.
//!
//! A dev-dependency only (`publish = false`), and only of integration tests: a crate's unit
//! tests are a separate copy of that crate, whose types are not the ones this crate uses.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod pg_server;
pub mod random;

use std::path::PathBuf;

/// `ANTICHESS_FULL_CHECKS=1` asks for the full versions of the long checks: every position
/// of lichess's tables in the oracle test of antichess-tb, the differential tests at
/// thirty times their size (unless `ANTICHESS_TEST_SCALE` says otherwise), and the
/// verification of the shipped proofs that need the 4-unit tables (antichess-cli's
/// `proofs_manifest` test, which then builds the whole 4-unit set). CI runs without it: the
/// samples, which fit in its time.
pub fn full_checks() -> bool {
    std::env::var("ANTICHESS_FULL_CHECKS").is_ok_and(|v| v == "1")
}

/// The multiplier of the randomized tests' sizes: `ANTICHESS_TEST_SCALE` if set (a
/// positive integer), else 30 with [`full_checks`], else 1.
///
/// # Panics
/// If `ANTICHESS_TEST_SCALE` is set but not a positive integer.
pub fn scale() -> usize {
    match std::env::var("ANTICHESS_TEST_SCALE") {
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => panic!("ANTICHESS_TEST_SCALE must be a positive integer, not {s:?}"),
        },
        Err(_) if full_checks() => 30,
        Err(_) => 1,
    }
}

/// `count` times [`scale`]: for example
/// `ANTICHESS_TEST_SCALE=50 cargo test --release -p antichess-core --test integration
/// differential_shakmaty::`.
pub fn scaled(count: usize) -> usize {
    count * scale()
}

/// A fresh, empty directory for one test: `antichess-test-<pid>/<name>` under the system's
/// temporary directory (emptied first if a directory of that name is left from an earlier
/// test of this process). Each test process has its own parent directory, so tests running
/// at once in different processes (cargo test's binaries, nextest's tests) never share one;
/// within a process, tests use different names.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("antichess-test-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// Whether `python3` can import `modules` (python-chess, e.g. `"chess"` or
/// `"chess.variant"`), the differential tests' independent oracle. Without it a test skips
/// with a message, except under CI (`CI` set), where it fails.
pub fn python_chess(modules: &str) -> bool {
    let probe = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output();
    if probe.is_ok_and(|o| o.status.success()) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "python3 with python-chess is required under CI (pip install chess)"
    );
    eprintln!("skipping: python3 with python-chess not found (pip install chess)");
    false
}
