//! `book show` and `book check` as text: a node with its line, numbers and children
//! ([`ShowReport`]'s `Display`), and the book's structure with its problems
//! ([`CheckReport`]'s `Display`). Every line ends in a newline.

use std::fmt;

use super::number;
use crate::jobs::show::{CheckReport, NodeReport, ShowReport};
use crate::jobs::Ratio;

/// A ratio as text: `inf` for a won node.
fn ratio_text(n: &NodeReport) -> String {
    match n.ratio {
        Ratio::Finite(r) => format!("{r:.3}"),
        Ratio::Inf(s) => s.to_string(),
    }
}

/// The book's counts, the node and its children.
impl fmt::Display for ShowReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        let c = &r.counts;
        writeln!(
            f,
            "book: {} ({} rules, proving a win for {}); root {}",
            r.book, r.rules, r.prover, r.root_fen
        )?;
        writeln!(
        f,
        "counts: {} nodes, {} leaves ({} open), {} won, {} lost, {} claimed, {} searches, {} queued{}",
        c.nodes, c.leaves, c.open_leaves, c.won, c.lost, c.claimed, c.searches, c.queued,
        r.pin.map_or(String::new(), |p| format!(", walk pinned at node {p}"))
    )?;
        let node = &r.node;
        writeln!(f, "node {}: {}", node.id, r.line)?;
        writeln!(f, "  fen: {}", node.fen)?;
        writeln!(
        f,
        "  {} to move ({}); status {}; proof {} disproof {} ratio {}{}; subtree ~{}; {} search(es){}{}",
        r.turn,
        if r.prover_to_move { "prover" } else { "opponent" },
        node.status,
        number(node.proof),
        number(node.disproof),
        ratio_text(node),
        node.hinted
            .map_or(String::new(), |h| format!("; record tree proof {}", number(h))),
        node.size,
        node.searches,
        node.transposition_of.map_or(String::new(), |t| format!("; transposition of node {t}")),
        node.claimed_by
            .as_ref()
            .map_or(String::new(), |w| format!("; claimed by {w}"))
    )?;
        if r.children.is_empty() {
            writeln!(f, "  (a leaf)")?;
            return Ok(());
        }
        let hinted = |n: &NodeReport| {
            n.hinted
                .map_or(String::new(), |h| format!(" {:>11}", number(h)))
        };
        writeln!(
            f,
            "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}{}",
            "move",
            "uci",
            "proof",
            "disproof",
            "ratio",
            "status",
            "subtree",
            "searches",
            if node.hinted.is_some() {
                format!(" {:>11}", "record")
            } else {
                String::new()
            }
        )?;
        for c in &r.children {
            writeln!(
                f,
                "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}{}{}",
                c.san.clone().unwrap_or_default(),
                c.uci.clone().unwrap_or_default(),
                number(c.proof),
                number(c.disproof),
                ratio_text(c),
                c.status,
                c.size,
                c.searches,
                hinted(c),
                if c.expanded { "  +" } else { "" }
            )?;
        }
        writeln!(
            f,
            "  (+: expanded in the book{})",
            if node.hinted.is_some() {
                "; record: the proof number of the record's tree below the move, by --hints"
            } else {
                ""
            }
        )?;
        Ok(())
    }
}

/// The integrity check, and the problems or "sound".
impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "integrity: {}: {}",
            r.integrity_check,
            if r.integrity_ok { "ok" } else { "FAILED" }
        )?;
        let nodes = r
            .nodes
            .map_or_else(|| "nodes unknown".into(), |n| format!("{n} nodes"));
        if r.sound {
            writeln!(f, "{}: sound ({nodes})", r.book)?;
        } else {
            for p in &r.problems {
                writeln!(f, "{p}")?;
            }
            writeln!(f, "{}: {} problem(s) ({nodes})", r.book, r.problems.len())?;
        }
        Ok(())
    }
}
