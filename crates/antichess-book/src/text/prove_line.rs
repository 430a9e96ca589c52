//! The lines of the `prove` job ([`crate::prove_line`]): one per event on stderr (the
//! tables and the searches' settings first, what was loaded, seeded and queued, the
//! progress every few seconds, the table rounds, the saves, the assembly), and the last
//! line of a run that proved the root or did not decide it.

use crate::prove_line::{ProveLineEvent, ProveLineOutcome, ProveLineReport};
use crate::GrowEnd;
use antichess_core::Color;

use super::frontier::{loaded_line, saved_line};
use super::number;

impl ProveLineEvent {
    /// The event's text (one line, two for [`ProveLineEvent::Started`]), or `None` for a
    /// frontier's progress, which a front end shows its own way (on a terminal only).
    #[must_use]
    pub fn text(&self) -> Option<String> {
        use ProveLineEvent as E;
        Some(match self {
            E::Started { .. } => self.started_text(),
            E::FrontierLoaded {
                file,
                location,
                report,
            } => loaded_line(file, location, report),
            E::Frontier(_) => return None,
            E::Pending(r) => format!(
                "pending proofs: {} seeded now that their tables exist ({} book node(s) won), {} still wait for tables{}",
                r.seeded,
                r.won,
                r.left,
                if r.dropped.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} did not verify and were dropped (the first: {})",
                        r.dropped.len(),
                        r.dropped[0]
                    )
                }
            ),
            E::BookOpened {
                location,
                resumed,
                counts,
            } => format!(
                "book: {location} ({}: {} nodes, {} searches so far)",
                if *resumed { "resumed" } else { "new" },
                counts.nodes,
                counts.searches
            ),
            E::Seeded { file, won_now } => format!(
                "seed {}: {won_now} book node(s) won at once",
                file.display()
            ),
            E::LineQueued { text, node, ahead } => format!(
                "line queued: {text} (at book node {node}{})",
                if *ahead == 0 {
                    String::new()
                } else {
                    format!(", {ahead} move(s) past the book's end")
                }
            ),
            E::LineNotQueued { text, error } => format!("line {text} not queued: {error}"),
            other => other.growth_text(),
        })
    }

    /// The run's first lines: the tables, and how the book's searches are set up.
    fn started_text(&self) -> String {
        let ProveLineEvent::Started {
            complete_units,
            units,
            tables_dir,
            tables_seconds,
            workers,
            search_nodes,
            hash_bytes,
            initial,
            selection,
            effort,
        } = self
        else {
            return String::new();
        };
        let larger = if units > complete_units {
            format!(", and some of up to {units} units")
        } else {
            String::new()
        };
        let effort = match effort {
            Some(e) => format!(
                ", the work spent weighed in from ply {} (fraction {})",
                e.min_depth, e.fraction
            ),
            None => String::new(),
        };
        format!(
            "tables: every table of up to {complete_units} units{larger} in {} ({tables_seconds:.1} s to build what was missing)\n\
             searches: {workers} workers, {search_nodes} positions each, a {} MB table each, initial numbers: {initial}; walk {selection:?}{effort}",
            tables_dir.display(),
            hash_bytes >> 20,
        )
    }

    /// The text of an event of the growth and the assembly.
    fn growth_text(&self) -> String {
        use ProveLineEvent as E;
        match self {
            E::TableRoundStarted { prover, materials } => format!(
                "tables: building bound tables for {prover} of the materials met most, beside the searches: {}",
                materials.join(", ")
            ),
            E::TableRoundStopped => "tables: the table round under way stops with the run (the tables it finished are kept)".to_string(),
            E::TableRoundFailed(message) => format!("warning: {message}"),
            E::TableRoundDone(built) => format!(
                "tables: {} bound table(s) built in {:.1} s beside the searches; probed from now on",
                built.tables, built.seconds
            ),
            E::Progress {
                seconds,
                root,
                counts,
                searches,
                decided,
                proofs_failed,
                hinted,
            } => format!(
                "{seconds:>6.0}s  root proof {} disproof {}{}  book {} nodes ({} won, {} lost, {} open leaves)  {searches} searches, {decided} leaves decided{}",
                number(root.proof),
                number(root.disproof),
                hinted.map_or(String::new(), |h| format!(" (record tree {})", number(h))),
                counts.nodes,
                counts.won,
                counts.lost,
                counts.open_leaves,
                if *proofs_failed > 0 {
                    format!(", {proofs_failed} proofs not kept (searched again at the assembly)")
                } else {
                    String::new()
                },
            ),
            E::FrontierSaved { file, report } => saved_line(file, report),
            E::ProofsNotExtracted { count, last } => format!(
                "warning: {count} proved node(s) whose proof could not be extracted from the search's table; the last: {last}"
            ),
            E::StoreRetry { retries, error } => format!(
                "warning: a worker could not write to the book and tries again (retry {retries}): {error}"
            ),
            E::Assembling => "the root is won: assembling the proof".to_string(),
            E::LeavesSolved(leaves) => format!("leaves re-solved: {leaves}"),
            _ => String::new(),
        }
    }
}

/// The note of a run whose longest write of a search's result took
/// [`super::SLOW_WRITE_SECONDS`] or more (the other workers wait for the book meanwhile);
/// `None` otherwise.
#[must_use]
pub fn slow_write_note(report: &ProveLineReport) -> Option<String> {
    (report.longest_write_seconds >= super::SLOW_WRITE_SECONDS).then(|| {
        format!(
            "note: the longest write of a search's result took {:.1} s (book node {}); the other workers wait for the book meanwhile",
            report.longest_write_seconds, report.longest_write_node
        )
    })
}

/// The last line of a run, by its outcome: [`open_text`], that `prover` does not win from
/// `fen`, or [`proved_text`] (the run took `seconds`).
#[must_use]
pub fn end_text(report: &ProveLineReport, prover: Color, fen: &str, seconds: f64) -> String {
    match report.outcome {
        ProveLineOutcome::Open => open_text(report),
        ProveLineOutcome::Disproved => format!("disproved: {prover} does not win from {fen}"),
        ProveLineOutcome::Proved => proved_text(report, prover, fen, seconds),
    }
}

/// The last line of a run that did not decide the root.
#[must_use]
pub fn open_text(report: &ProveLineReport) -> String {
    let written = report.subtrees.as_ref().map_or(0, |s| s.written);
    format!(
        "not proved yet after {} searches in this run ({}): root proof {} disproof {}; the book is kept in {}, run the same command to go on{}",
        report.searches,
        match report.end {
            GrowEnd::Stopped => "stopped",
            GrowEnd::Budget => "time is up",
            GrowEnd::Solved => "solved",
        },
        number(report.root.proof),
        number(report.root.disproof),
        report.book,
        match &report.subtrees {
            Some(sub) if written > 0 => {
                format!("; {written} solved subtrees written to {}", sub.dir.display())
            }
            _ => String::new(),
        }
    )
}

/// The last line of a run that proved the root: `prover` wins from `fen`, the run took
/// `seconds`.
#[must_use]
pub fn proved_text(report: &ProveLineReport, prover: Color, fen: &str, seconds: f64) -> String {
    let proof_nodes = report.proof_nodes.unwrap_or(0);
    let assembled = report.assembled_nodes.unwrap_or(0);
    format!(
        "proved: {prover} wins from {fen} ({} searches in all, {} book nodes); proof {} ({proof_nodes} nodes{}, {} bytes), {} in {seconds:.1} s",
        report.searches_in_all,
        report.book_nodes,
        report.proof_file.as_deref().unwrap_or(std::path::Path::new("")).display(),
        if report.minimized == Some(true) {
            format!(", {assembled} before minimising")
        } else {
            String::new()
        },
        report.bytes.unwrap_or(0),
        match &report.error {
            None => "verified".to_string(),
            Some(e) => format!("verification FAILED: {e}"),
        },
    )
}
