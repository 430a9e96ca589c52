//! The integration tests of antichess-book: the book store (SQLite and PostgreSQL), growing
//! and walking.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-book --test
//! integration book::` runs one file's tests).
//! A new test file needs its `mod` line here.

mod book;
mod book_pg;
mod walk;
