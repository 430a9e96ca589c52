//! Proof minimisation: before a proof is extracted, revisits the prover's nodes with the
//! largest subtrees and tries the other moves there, keeping whichever move has the
//! smallest proof.
//!
//! df-pn stops at the first proof it finds, and at a prover node that is usually the move
//! that was cheapest to *search*, not the one with the smallest proof tree. The minimiser
//! walks the current proof largest subtree first (a priority queue of prover nodes keyed by
//! subtree size, so the time goes where a better move saves most). At each node it extracts
//! the current move's subtree, then tries the other moves in order of their proof numbers:
//! a move the table already shows proved is extracted at once, another is searched with a
//! node budget proportional to the subtree it would replace (a proof much larger than that
//! budget would not be smaller anyway). Budgets start small (4 nodes per node) and grow
//! fourfold in each later round, while time remains: most improvements are cheap, and the
//! time limit then goes to harder ones. A move whose subtree is smaller replaces the old one
//! (recorded by the node's path key, which the extractor then follows) if the whole proof,
//! extracted again, is smaller too (the old subtree may share positions with the rest of
//! the proof); the prover nodes one level below the chosen move join the queue. All
//! choices of the proof are pinned when first made, so the new entries that the searches
//! add to the table do not change moves elsewhere. Sizes count the nodes of the extracted subtree, with
//! repeated positions shared as in the file.
//!
//! Every subtree extracted on the way also goes into a [`ProofPool`], which then chooses
//! the moves with the whole proof's sharing in view, and spends the time left on `deepen`:
//! alternatives that were *almost* smaller get their own prover nodes' moves searched. The
//! extractor's passes stop at half the time at the latest, so that the pool always gets
//! the other half. The proof written is the pool's if it is smaller than the extractor's,
//! so never larger than the one found. [`minimize_proof`] does the same for a proof given
//! as a tree (a file, a book's assembled proof), with passes of the pool itself instead of
//! the extractor's.
//! The pool's searches run over a table *seeded* with the proof's positions as proved
//! (`seed`), so they stop where they reach the proof and find alternatives that join it;
//! the proofs they find are cut off at positions the pool already has proofs of. Small
//! subtrees get exact searches (`exact_pass`): the smallest proof of the node that builds
//! on the rest of the proof, which df-pn's first proofs seldom are. With a time for it,
//! `global_phase` ends [`minimize_proof`]: exact searches of the other moves fill the
//! pool, and [`global`] chooses over all of it at once (an integer program).
//! Every phase ends at its [`Deadline`]: its share of the time (or of the work budget, the
//! positions its searches evaluate), or sooner when the stop flag
//! (`MinimizeOptions::stop`, Ctrl-C in the CLI) is raised; the searches under way then stop
//! too (not the extractor's re-searches, so the proof returned is always whole).
//!
//! Files: `extract` (the proof of a proved position, from the transposition table),
//! `passes` (the extractor's passes: [`extract_minimized`]), `phases` (the pool's phases:
//! [`minimize_proof`]), `pool` and `dag` (the union of proofs and a choice over it),
//! `exact` (smallest proofs of small subtrees), `global` (the integer program), `deadline`,
//! `options`, and `file` and `text` (the `proof minimize` job and its words). The imports go one way: passes → phases → extract, exact, global,
//! options → dag → pool, with `deadline` below them all.

mod dag;
mod deadline;
mod exact;
pub(crate) mod extract;
pub mod file;
mod global;
mod options;
mod passes;
mod phases;
mod pool;
pub mod summary;
pub mod text;

pub use extract::{extract_proof, extract_proof_at};
pub use global::GLOBAL_CHOICE;
pub use options::{MinimizeOptions, MinimizeProgress, MinimizeReport};
pub use passes::extract_minimized;
pub use phases::minimize_proof;
pub use pool::{PoolReport, ProofPool};
