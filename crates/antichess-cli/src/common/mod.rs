//! What the commands share, so that no command module imports another: argument groups
//! and value parsers, the output format and number conventions, table setup, progress
//! bars, Ctrl-C.

pub mod args;
pub mod book;
pub mod interrupt;
pub mod output;
pub mod progress;
pub mod tables;

/// The value parsers of options (sides, durations, counts, node counts, sizes): the core
/// crate's.
pub use antichess_core::option_text as parse;
