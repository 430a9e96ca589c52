//! The integration tests of antichess-web: the JSON API, access control, the browser pages
//! and the embedded front end.
//!
//! One test binary (`integration`) for the crate: each file of `tests/` is a module of it,
//! declared here, so a test's name is `file::test` (`cargo test -p antichess-web --test
//! integration access::` runs one file's tests), and `common/` holds what they share.
//! A new test file needs its `mod` line here.

mod common;

mod access;
mod api;
mod browser;
// Empty without the feature `embed-web` (`#![cfg]` in the file).
mod embedded_web;
mod lasker_api;
