//! The prove pipeline's results as text for people: a solve's result block
//! ([`Solved::text`]: the verdict, the root's numbers, the moves best first, the main line,
//! the materials met without a table, the written proof), the search's progress line
//! ([`progress_line`]); `solve` prints them; the figures are the search's own.
//! Proof and disproof numbers are written with [`number`] (`inf` for infinity).

use std::fmt::Write as _;

use super::{ProofOutcome, Solved};
use crate::minimize::summary::minimize_summary;
use crate::search::{Progress, SearchStatus, INF};

/// A proof or disproof number as text: `inf` for infinity.
#[must_use]
pub fn number(n: u32) -> String {
    if n == INF {
        "inf".to_string()
    } else {
        n.to_string()
    }
}

/// The materials met without a table named in [`Solved::text`] before "…".
const MISSING_NAMED: usize = 8;

impl Solved {
    /// The result as lines of text (each ending in a newline): position, verdict, the
    /// root's numbers, nodes and speed, the moves, the main line, the materials met
    /// without a table, the peak memory if known (`peak_memory`, bytes), and the proof.
    #[must_use]
    pub fn text(&self, peak_memory: Option<u64>) -> String {
        let (s, r) = (self, &self.search);
        let mut out = String::new();
        let _ = writeln!(out, "position: {} ({} rules)", s.root.fen(), s.root.rules());
        let verdict = match r.status {
            SearchStatus::Proved => format!("proved: {} wins", s.prover),
            SearchStatus::Disproved => format!("disproved: {} cannot force a win", s.prover),
            SearchStatus::Unknown => "unknown: the budget ran out".to_string(),
        };
        let _ = writeln!(out, "result: {verdict}");
        // The root's proof number is less than the size of any proof written as a tree
        // (tested: `root_proof_numbers_never_exceed_the_smallest_proof`).
        let bound = if r.status == SearchStatus::Unknown && r.proof < INF {
            format!(
                " (a proof would have at least {} nodes written as a tree)",
                u64::from(r.proof) + 1
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "root: proof {}, disproof {}{bound}",
            number(r.proof),
            number(r.disproof)
        );
        let seconds = r.elapsed.as_secs_f64();
        let _ = writeln!(
            out,
            "nodes: {} ({} expanded) in {:.2} s, {:.0} nodes/s; hash {} MB, {:.0}% used",
            r.nodes,
            r.expansions,
            seconds,
            r.nodes as f64 / seconds.max(1e-9),
            s.hash_bytes >> 20,
            100.0 * s.tt_usage
        );
        out += &self.moves_text();
        if !s.main_line.is_empty() {
            let line = antichess_core::pgn::format_moves(&s.root, &s.main_line);
            let _ = writeln!(out, "main line: {line}");
        }
        if !r.missing_tables.is_empty() {
            let top: Vec<String> = r
                .missing_tables
                .iter()
                .take(MISSING_NAMED)
                .map(|m| format!("{} {}", m.material, m.positions))
                .collect();
            let more = if r.missing_tables.len() > MISSING_NAMED {
                ", …"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "met without a table (positions): {}{more}",
                top.join(", ")
            );
        }
        if let Some(peak) = peak_memory {
            let _ = writeln!(out, "peak memory: {:.0} MB", peak as f64 / 1e6);
        }
        if let Some(p) = &s.proof {
            out += &p.text();
        }
        out
    }

    /// The root's moves with their numbers, best first for the side to move (a header and
    /// a row per move; empty without moves).
    #[must_use]
    pub fn moves_text(&self) -> String {
        let (s, r) = (self, &self.search);
        let mut out = String::new();
        if r.moves.is_empty() {
            return out;
        }
        let _ = writeln!(out, "moves ({} to move):", s.root.turn());
        let mut moves = r.moves.clone();
        if s.root.turn() == s.prover {
            moves.sort_by_key(|m| (m.proof, std::cmp::Reverse(m.disproof)));
        } else {
            moves.sort_by_key(|m| (m.disproof, std::cmp::Reverse(m.proof)));
        }
        let _ = writeln!(
            out,
            "  {:<8} {:<6} {:>10} {:>10} {:>12}",
            "move", "uci", "proof", "disproof", "work"
        );
        for m in &moves {
            let _ = writeln!(
                out,
                "  {:<8} {:<6} {:>10} {:>10} {:>12}",
                s.root.san(m.mv),
                m.mv.to_string(),
                number(m.proof),
                number(m.disproof),
                m.work
            );
        }
        out
    }
}

impl ProofOutcome {
    /// The verifier's verdict: `Ok`, or why it rejected the proof (or "not verified").
    ///
    /// # Errors
    /// The rejection's text, when the proof was rejected or not verified.
    pub fn verdict_text(&self) -> std::result::Result<(), String> {
        match &self.verdict {
            Some(Ok(_)) => Ok(()),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("not verified".to_string()),
        }
    }

    /// The written proof as lines of text: where, how large, minimised, verified.
    #[must_use]
    pub fn text(&self) -> String {
        let p = self;
        let mut out = format!(
            "proof: {} ({} nodes, {} tablebase leaves, {} bytes = {:.2} bytes/node, written in {:.1} s)\n",
            p.path.clone().unwrap_or_default().display(),
            p.counts.total,
            p.counts.tablebase,
            p.bytes,
            p.bytes as f64 / p.counts.total.max(1) as f64,
            p.elapsed.as_secs_f64()
        );
        if let Some(m) = &p.minimized {
            out += &minimize_summary(m);
            out.push('\n');
        }
        match self.verdict_text() {
            Ok(()) => out += "verified: the proof is valid\n",
            Err(e) => {
                let _ = writeln!(out, "verification FAILED: {e}");
            }
        }
        out
    }
}

/// The search's progress line: seconds, the root's numbers, nodes, speed, the table's use.
#[must_use]
pub fn progress_line(p: &Progress) -> String {
    format!(
        "{:>6.1}s  proof {:>10}  disproof {:>10}  nodes {:>12}  {:>9.0} nodes/s  hash {:>3.0}% used",
        p.elapsed.as_secs_f64(),
        number(p.proof),
        number(p.disproof),
        p.nodes,
        p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9),
        100.0 * p.tt_usage
    )
}

/// The result of a solve as lines of text: [`Solved::text`].
#[must_use]
pub fn solved_text(solved: &Solved, peak_memory: Option<u64>) -> String {
    solved.text(peak_memory)
}

impl super::resume::ResumeEvent<'_> {
    /// The event as a message line on its own for people: the checkpoint's removals, loads
    /// and saves (not when `quiet`), the proof's saves, and the failed saves as warnings
    /// (even when `quiet`). `None` for the search's progress (see [`progress_line`]) and
    /// the minimisation's.
    #[must_use]
    pub fn message(&self, quiet: bool) -> Option<String> {
        use super::resume::ResumeEvent;
        use super::ProveEvent;
        use crate::prove::job::error_text;
        Some(match self {
            ResumeEvent::TempsRemoved { path, count } if !quiet => format!(
                "removed {count} temporary file(s) left by an interrupted save of {}",
                path.display()
            ),
            ResumeEvent::Resumed {
                path,
                entries,
                nodes,
                seconds,
                load_seconds,
            } if !quiet => format!(
                "resuming from {}: {entries} entries, {nodes} nodes and {seconds:.0} s searched before (loaded in {load_seconds:.1} s)",
                path.display()
            ),
            ResumeEvent::Saved {
                path,
                entries,
                seconds,
            } if !quiet => format!(
                "checkpoint saved to {} ({entries} entries in {seconds:.1} s)",
                path.display()
            ),
            ResumeEvent::NotSaved(e) => format!("warning: {}", error_text(*e)),
            ResumeEvent::Prove(ProveEvent::Saved { nodes, path }) => format!(
                "saved the proof so far ({nodes} nodes) to {}",
                path.display()
            ),
            ResumeEvent::Prove(ProveEvent::NotSaved(e)) => format!(
                "warning: the proof so far was not saved: {}",
                error_text(*e)
            ),
            _ => return None,
        })
    }
}
