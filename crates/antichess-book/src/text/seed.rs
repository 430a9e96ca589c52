//! The lines of `book seed` and `book new --seed`: one per proof seeded, and the files
//! not taken with the reasons (for stderr), with a last line saying why when seeding
//! failed. Every line ends in a newline.

use std::fmt::Write as _;

use crate::jobs::seed::{NewReport, Seeded, Seeding};

/// What `book new` says on stdout: the book created (root, rules, prover), a line per
/// proof seeded, and the root node with the command that grows the book.
#[must_use]
pub fn created_text(report: &NewReport) -> String {
    format!(
        "created {}: root {} ({} rules), proving a win for {}\n{}root node {} (a leaf: run `antichess book grow {}`)\n",
        report.book,
        report.root_fen,
        report.rules,
        report.prover,
        seeds_text(&report.seeding.seeds),
        report.root,
        report.book
    )
}

/// One line per proof seeded: the file, its size, the position, the book nodes won.
#[must_use]
pub fn seeds_text(seeds: &[Seeded]) -> String {
    let mut out = String::new();
    for r in seeds {
        let _ = writeln!(
            out,
            "seeded {} ({} nodes): {}; {} book node{} won now{}",
            r.file,
            r.proof_nodes,
            r.fen,
            r.won_now,
            if r.won_now == 1 { "" } else { "s" },
            if r.kept_earlier {
                " (the book keeps its smaller proof of this position)"
            } else {
                ""
            }
        );
    }
    out
}

/// The files not taken, with the reasons, and when [`Seeding::failed`] a last line saying
/// why (nothing when every file was taken).
#[must_use]
pub fn problems_text(s: &Seeding) -> String {
    let mut out = String::new();
    for n in &s.skipped {
        let _ = writeln!(out, "skipped: {}", n.reason);
    }
    for n in &s.rejected {
        let _ = writeln!(out, "rejected: {}", n.reason);
    }
    let total = s.seeds.len() + s.skipped.len() + s.rejected.len();
    if s.skipped.is_empty() && s.rejected.is_empty() {
        return out;
    }
    let summary = format!(
        "seeded {} of {total} proof file{}; {} skipped, {} rejected",
        s.seeds.len(),
        if total == 1 { "" } else { "s" },
        s.skipped.len(),
        s.rejected.len()
    );
    let _ = if !s.rejected.is_empty() {
        writeln!(
            out,
            "error: {summary} (a rejected file is damaged or not a proof)"
        )
    } else if s.seeds.is_empty() {
        writeln!(out, "error: {summary}: no proof could be taken")
    } else {
        writeln!(out, "{summary}")
    };
    out
}
