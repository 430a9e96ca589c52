//! The integration tests of antichess-tb: tablebase generation, files, bounds, trust,
//! Lasker and royal tables, the lichess cross-check.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-tb --test
//! integration bound::` runs one file's tests).
//! A new test file needs its `mod` line here.

mod bound;
mod brute_force;
mod identical;
mod jobs;
mod lasker_ep;
mod lasker_identical;
mod lasker_paper;
// Empty without the feature `oracle` (`#![cfg]` in the file); .ci/run runs it with
// `--features oracle --test integration oracle::`.
mod oracle;
mod royal_tables;
mod slices;
mod trust;
