//! What the commands share, so that no command module imports another: argument groups
//! and value parsers, the output format and number conventions, table setup, progress
//! bars.

pub mod args;
pub mod book;
pub mod output;
pub mod parse;
pub mod progress;
pub mod tables;
