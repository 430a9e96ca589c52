//! The integration tests of antichess-cli: the `antichess` command, run as a separate
//! process.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-cli --test
//! integration book_cli::` runs one file's tests), and `common/` holds what they share.
//! A new test file needs its `mod` line here.

mod common;

mod book_cli;
mod book_damage_cli;
mod book_pg_cli;
mod book_tables_cli;
mod cli;
mod join_cli;
mod learn_cli;
mod new_user_cli;
mod proof_cli;
mod proofs_manifest;
mod prove_cli;
mod royal_cli;
mod royal_tb_cli;
mod seed_cli;
mod serve_cli;
mod solve_cli;
mod tb_bound_cli;
mod tb_build_cli;
mod tb_cli;
mod tb_lasker_cli;
mod tb_queue_cli;
mod tb_trust_cli;
mod uci_cli;
mod writes_cli;
