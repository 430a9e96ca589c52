//! What the CLI tests share: run the `antichess` binary, show its output on failure, and
//! read its JSON.
#![allow(dead_code)]

use std::collections::BTreeMap;
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

/// Runs `antichess` with `args` and `ANTICHESS_TABLES` set to `tables`.
pub fn antichess_in(args: &[&str], tables: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .env("ANTICHESS_TABLES", tables)
        .output()
        .expect("runs")
}

/// The JSON value a run printed; the run must have succeeded.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

/// The table files (`.actb`) of a directory, by name, with their bytes.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "actb"))
        .filter(|p| !p.file_name().unwrap().to_str().unwrap().starts_with('.'))
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}
