//! What the CLI tests share: run the `antichess` binary, show its output on failure, and
//! read its JSON.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `antichess` with `args`.
pub fn antichess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .output()
        .expect("runs")
}

/// A run's exit status, stdout and stderr, for failure messages.
pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `antichess` with `args`, which must succeed; its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = antichess(args);
    assert!(out.status.success(), "{args:?}\n{}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `antichess` with `args`, which must succeed and print one JSON value.
pub fn json(args: &[&str]) -> serde_json::Value {
    let stdout = ok(args);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A path as a `&str` argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
