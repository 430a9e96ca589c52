//! What the commands share, so that no command module imports another: argument groups
//! and value parsers, the output format and number conventions, table setup, progress
//! bars, the solve-and-prove step, the minimiser's summaries and the seeds of a new book.

pub mod args;
pub mod book;
pub mod output;
pub mod parse;
pub mod progress;
pub mod report;
pub mod seeds;
pub mod solving;
pub mod tables;
