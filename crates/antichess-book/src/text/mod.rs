//! The book's jobs as text for people: the lines `antichess book grow`, `book prove`,
//! `book save-frontier` / `load-frontier`, `book show` / `check`, `book seed`, `book
//! pin` / `mark` / `export` / `import` / `copy` / `tables`, `bench book` / `store` and
//! `prove` print of their events and reports ([`grow`], [`book_prove`], [`frontier`],
//! [`show`], [`seed`], [`steering`], [`bench`], [`prove_line`]), so that every front end
//! words them alike. The JSON of the same reports is their `Serialize`. Proof and
//! disproof numbers are written as [`number`] does (`inf` for infinity); times are in
//! seconds.

pub mod bench;
pub mod book_prove;
pub mod frontier;
pub mod grow;
pub mod prove_line;
pub mod seed;
pub mod show;
pub mod steering;

use crate::Node;

pub use antichess_pns::prove::text::number;

/// A write of one search's result this long is told of at the end of a run (it holds the
/// book's lock: the other workers wait), in seconds.
pub const SLOW_WRITE_SECONDS: f64 = 10.0;

/// A node's ratio as text: `inf` for a won node.
#[must_use]
pub fn ratio_text(node: &Node) -> String {
    if node.proof == 0 {
        "inf".into()
    } else {
        format!("{:.3}", node.ratio())
    }
}
