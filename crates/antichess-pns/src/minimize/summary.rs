//! What a minimisation did, in one line of text: after a solve or a `book prove`
//! ([`minimize_summary`], from a [`MinimizeReport`]), after `proof minimize`
//! ([`file_summary`], from a [`MinimizeFileReport`]), with the global phase's part
//! ([`global_summary`]) and the exact searches' ([`gave_up`]). Times in seconds.

use super::file::MinimizeFileReport;
use super::{MinimizeReport, PoolReport};

/// One line on what the minimiser did.
#[must_use]
pub fn minimize_summary(m: &MinimizeReport) -> String {
    format!(
        "minimised: {} -> {} nodes in {:.1} s ({} passes, {} budget rounds, {} prover nodes revisited, {} alternatives searched with {} nodes, {} proved, {} moves replaced, {} rejected{})",
        m.nodes_before,
        m.nodes_after,
        m.elapsed.as_secs_f64(),
        m.passes,
        m.rounds + 1,
        m.revisited,
        m.searched,
        m.search_nodes,
        m.proved,
        m.replaced,
        m.rejected,
        if m.interrupted {
            "; interrupted (Ctrl-C): the proof is the smallest found so far"
        } else if m.timed_out {
            "; stopped at half the time"
        } else {
            ""
        }
    ) + &m.pool.map_or(String::new(), |p| {
        format!(
            "\nproof pool: {} positions, {} prover moves; best DAG from the minimiser's choices {} nodes, from tree costs {} nodes ({} switches); then {} near misses and {} kicks in {} rounds, {} nodes explored, {} searches with {} nodes, {} proved, {} exact searches in {:.1} s with {} nodes found {} smaller{}: {} nodes",
            p.positions, p.prover_moves, p.from_first, p.from_tree_costs, p.switches,
            p.near_misses, p.kicks, p.deep_rounds + 1, p.explored, p.searched, p.search_nodes, p.proved,
            p.exact_searched, p.exact_millis as f64 / 1000.0, p.exact_nodes, p.exact_found,
            gave_up(&p), p.after_deepening
        )
    })
}

/// What the global phase did (empty if it did not run).
#[must_use]
pub fn global_summary(report: &PoolReport) -> String {
    if report.global_runs == 0 && report.alternatives_searched == 0 {
        return String::new();
    }
    let failed = if report.global_failed > 0 {
        format!(" ({} failed in the solver)", report.global_failed)
    } else {
        String::new()
    };
    format!(
        "; global phase: {} other moves searched with {} positions, {} proved; {} integer programs{failed} in {:.1} s made it smaller {} times (the last: {} positions, {})",
        report.alternatives_searched,
        report.alternatives_nodes,
        report.alternatives_found,
        report.global_runs,
        report.global_millis as f64 / 1000.0,
        report.global_found,
        report.global_positions,
        if report.global_optimal {
            format!(
                "optimal over the pool: no proof from the pool has fewer than {} nodes",
                report.global_bound
            )
        } else if report.global_bound > 1 {
            format!(
                "stopped by its time limit or Ctrl-C; no proof from the pool has fewer than {} nodes",
                report.global_bound
            )
        } else {
            "stopped by its time limit or Ctrl-C before a lower bound".to_string()
        }
    )
}

/// How many exact searches gave up, and the smallest node weight at which one did (below
/// it, every node searched has no smaller proof that builds on the rest of the proof).
/// Also how many prover nodes no exact search looked at before the time ran out.
#[must_use]
pub fn gave_up(report: &PoolReport) -> String {
    let mut text = if report.exact_gave_up == 0 {
        if report.exact_searched == 0 {
            String::new()
        } else {
            ", every one finished".to_string()
        }
    } else {
        format!(
            ", {} gave up (the smallest at a move freeing {} nodes)",
            report.exact_gave_up,
            report.exact_gave_up_min - 1
        )
    };
    if report.exact_unreached > 0 {
        text += &format!(
            ", {} prover nodes not searched in time",
            report.exact_unreached
        );
    }
    text
}

/// The line of figures of a `proof minimize` run.
#[must_use]
pub fn file_summary(report: &MinimizeFileReport) -> String {
    let pool = &report.pool;
    format!(
        "minimised: {} -> {} nodes in {:.1} s ({} nodes explored, {} searches with {} positions, {} proved, {} switches, {} near misses, {} kicks, {} alternatives minimised on their own, {} exact searches in {:.1} s with {} positions found {} smaller{}{}; pool of {} positions)",
        report.nodes_before,
        report.nodes_after,
        report.seconds,
        pool.explored,
        pool.searched,
        pool.search_nodes,
        pool.proved,
        pool.switches,
        pool.near_misses,
        pool.kicks,
        pool.top_minimized,
        pool.exact_searched,
        pool.exact_millis as f64 / 1000.0,
        pool.exact_nodes,
        pool.exact_found,
        gave_up(pool),
        global_summary(pool),
        pool.positions
    )
}
