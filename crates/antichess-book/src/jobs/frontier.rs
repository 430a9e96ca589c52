//! `book save-frontier` and `book load-frontier`'s reports: what
//! [`crate::frontier`] saved or loaded, with the book and the file it was about.

use crate::frontier::{LoadReport, SaveReport};

/// What `book save-frontier` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FrontierSaved {
    pub book: String,
    /// The frontier file written.
    pub output: String,
    pub report: SaveReport,
}

/// What `book load-frontier` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FrontierLoaded {
    /// The frontier file read.
    pub file: String,
    pub book: String,
    pub report: LoadReport,
}
