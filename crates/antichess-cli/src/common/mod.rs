//! What the commands share, so that no command module imports another: argument groups
//! and value parsers, the output format and number conventions, table setup, progress
//! bars, the solve-and-prove step and the minimiser's summaries.

pub mod args;
pub mod book;
pub mod output;
pub mod parse;
pub mod progress;
pub mod report;
pub mod solving;
pub mod tables;
