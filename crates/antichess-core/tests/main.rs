//! The integration tests of antichess-core: rules, notation, perft and the differential
//! checks against other move generators.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-core --test
//! integration differential_orthodox::` runs one file's tests).
//! A new test file needs its `mod` line here.

mod differential_orthodox;
mod differential_python_chess;
mod differential_royal;
mod differential_shakmaty;
mod game_rules;
mod jobs;
mod notation;
mod perft;
mod perft_royal;
