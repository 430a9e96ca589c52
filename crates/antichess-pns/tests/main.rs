//! The integration tests of antichess-pns: searches, proofs, checkpoints and tablebase use.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-pns --test
//! integration checkpoint::` runs one file's tests).
//! A new test file needs its `mod` line here.

mod checkpoint;
mod double_en_passant;
mod partial_tables;
mod prove;
mod solve;
