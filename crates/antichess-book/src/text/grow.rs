//! The lines of `book grow`: the start line, the progress line (every few seconds, or a
//! spinner's message on a terminal) and the summary at the end.

use std::fmt::Write as _;
use std::path::Path;

use antichess_core::{Color, Rules};

use super::{number, ratio_text, SLOW_WRITE_SECONDS};
use crate::jobs::grow::{GrowProgress, GrowReport};
use crate::{GrowOptions, Node};

/// The line before the workers start: the book, its rules and prover, the searches'
/// settings and the root's numbers.
#[must_use]
pub fn started_line(
    shown: &str,
    rules: Rules,
    prover: Color,
    grow: &GrowOptions,
    root: &Node,
) -> String {
    format!(
        "growing {shown} ({rules} rules, prover {prover}): {} worker(s), {} nodes per search, hash {} MB each, tables up to {} units; root proof {} disproof {}",
        grow.workers,
        grow.search_nodes,
        grow.hash_bytes >> 20,
        grow.tablebase_units,
        number(root.proof),
        number(root.disproof)
    )
}

/// One progress snapshot of a growing book.
#[must_use]
pub fn progress_line(p: &GrowProgress) -> String {
    let failed = if p.proofs_failed > 0 {
        format!(
            "  {} proofs not kept (see the end of the run)",
            p.proofs_failed
        )
    } else {
        String::new()
    };
    let (root, counts) = (&p.root, &p.counts);
    format!(
        "{:>7.0}s  root proof {} disproof {} ratio {}  book {} nodes ({} open leaves, {} won, {} lost)  {} searches {:.2}/s  {:.0} nodes/s  {} leaves decided{}",
        p.seconds,
        number(root.proof),
        number(root.disproof),
        ratio_text(root),
        counts.nodes,
        counts.open_leaves,
        counts.won,
        counts.lost,
        p.searches,
        p.searches as f64 / p.seconds,
        p.nodes as f64 / p.seconds,
        p.decided,
        failed,
    )
}

/// The end of a run (or of a book `shown` solved already), each line ending in a newline;
/// `keep_proofs` is the directory the searches' proofs were kept in, if one was given.
#[must_use]
pub fn summary_text(r: &GrowReport, shown: &str, keep_proofs: Option<&Path>) -> String {
    let mut out = String::new();
    if r.already_solved {
        let _ = writeln!(
            out,
            "{} is already solved: root {} (proof {}, disproof {}), book {} nodes; nothing to grow{}",
            shown,
            r.status,
            number(r.proof),
            number(r.disproof),
            r.book_nodes,
            if r.won_root { " (`antichess book prove` writes its proof)" } else { "" }
        );
        return out;
    }
    if let Some(last) = &r.last {
        let _ = writeln!(out, "{}", progress_line(last));
    }
    let _ = writeln!(
        out,
        "{}: root {} (proof {}, disproof {}); {} searches in {:.1} s ({:.2} searches/s), book {} nodes",
        match r.end {
            "budget" => "budget spent",
            "stopped" => "stopped (run grow again to resume)",
            end => end,
        },
        r.status,
        number(r.proof),
        number(r.disproof),
        r.searches,
        r.seconds,
        r.searches as f64 / r.seconds.max(1e-9),
        r.book_nodes
    );
    if let (Some(dir), Some(kept)) = (keep_proofs, &r.proofs) {
        let _ = writeln!(
            out,
            "{} proofs of proved nodes kept in {}",
            kept.proofs_kept,
            dir.display()
        );
        if kept.proofs_not_kept > 0 {
            let _ = writeln!(
                out,
                "{} proved node(s) whose proof could not be extracted from the search's table \
                 (the book keeps them won; the assembly searches them again); the last: {}",
                kept.proofs_not_kept,
                kept.last_proof_error.clone().unwrap_or_default()
            );
        }
    }
    if r.store_retries > 0 {
        let _ = writeln!(
            out,
            "the store could not be reached (or stayed locked) {} time(s); the workers tried again",
            r.store_retries
        );
    }
    if r.longest_write_seconds >= SLOW_WRITE_SECONDS {
        let _ = writeln!(
            out,
            "the longest write of a search's result took {:.1} s (the other workers wait for the book meanwhile)",
            r.longest_write_seconds
        );
    }
    out
}
