//! The integration tests of antichess-proof: proof trees, the checker, subtrees and
//! tablebase leaves.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-proof --test
//! integration bound_playout::` runs one file's tests), and `common/` holds what they share.
//! A new test file needs its `mod` line here.

mod common;

mod bound_playout;
mod checker;
mod disk_index;
mod jobs;
mod proof;
mod subtree;
mod tables;
