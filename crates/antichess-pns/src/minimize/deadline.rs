//! [`Deadline`]: when a minimisation, or one of its phases, ends.
//!
//! Two budgets, either or both: a time (the users' budget: "minimise for ten minutes") and
//! *work*, the positions the minimiser's own searches have evaluated (df-pn searches of
//! other moves and exact searches; not the extractor's re-searches), plus the positions
//! its steps without a search walk (a whole proof extracted again to compare, the pool's
//! passes and kicks in its last phase), so that no phase runs unbounded. Work is the same on
//! every machine, so a minimisation with a work budget and no time limit does the same
//! searches and gives the same proof everywhere, as fast as the machine allows: that is
//! what tests use. Phases that take "half the time left" take half the work left too. The
//! stop flag (Ctrl-C) ends every deadline at once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When a minimisation (or one of its phases) ends: at an instant, after an amount of
/// work, or sooner when the stop flag is raised. Deadlines derived from one another share
/// the work counter.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    /// `None`: no time limit.
    at: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
    /// Positions evaluated so far by the searches of this minimisation.
    spent: Arc<AtomicU64>,
    /// The count of `spent` at which the deadline passes (`None`: no work limit).
    work: Option<u64>,
}

impl Deadline {
    /// `time` from now (`None` or a time too long to represent: no time limit), after
    /// `work` positions (`None`: no work limit), or when `stop` is raised.
    pub(crate) fn new(
        time: Option<Duration>,
        work: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
    ) -> Deadline {
        Deadline {
            at: time.and_then(|t| Instant::now().checked_add(t)),
            stop,
            spent: Arc::new(AtomicU64::new(0)),
            work,
        }
    }

    /// A deadline of its own for a later phase (`time`, `work`), with the same stop flag
    /// and work counter.
    pub(crate) fn then(&self, time: Option<Duration>, work: Option<u64>) -> Deadline {
        let spent = self.spent();
        Deadline {
            at: time.and_then(|t| Instant::now().checked_add(t)),
            stop: self.stop.clone(),
            spent: Arc::clone(&self.spent),
            work: work.map(|w| spent.saturating_add(w)),
        }
    }

    /// Records `positions` evaluated by a search.
    pub(crate) fn spend(&self, positions: u64) {
        self.spent.fetch_add(positions, Ordering::Relaxed);
    }

    /// Positions evaluated so far (by every deadline sharing the counter).
    pub(crate) fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// Whether the stop flag was raised.
    pub(crate) fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The stop flag, if any.
    #[cfg_attr(not(feature = "mip"), allow(dead_code))]
    pub(crate) fn stop_flag(&self) -> Option<&AtomicBool> {
        self.stop.as_deref()
    }

    /// Whether the time or the work is up (or the stop flag raised).
    pub(crate) fn passed(&self) -> bool {
        self.stopped()
            || self.at.is_some_and(|at| Instant::now() >= at)
            || self.work.is_some_and(|w| self.spent() >= w)
    }

    /// The time left (none once stopped; `None`: no time limit).
    pub(crate) fn left(&self) -> Option<Duration> {
        if self.stopped() {
            return Some(Duration::ZERO);
        }
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    /// The work left (none once stopped; `None`: no work limit).
    pub(crate) fn work_left(&self) -> Option<u64> {
        if self.stopped() {
            return Some(0);
        }
        self.work.map(|w| w.saturating_sub(self.spent()))
    }

    /// The positions one search may evaluate: `nodes`, or the work left if less (at least
    /// one), so that a work budget holds within a search and not only between searches.
    pub(crate) fn search_budget(&self, nodes: u64) -> u64 {
        self.work_left()
            .map_or(nodes, |left| nodes.min(left.max(1)))
    }

    /// Whether at most `time` and at most `work` are left (a missing limit is never
    /// short).
    pub(crate) fn at_most_left(&self, time: Duration, work: Option<u64>) -> bool {
        self.left().is_some_and(|left| left <= time)
            || matches!((self.work_left(), work), (Some(left), Some(w)) if left <= w)
    }

    /// The same deadline, ending at `fraction` of the way from `start` (when the
    /// minimisation began, with `total` its time) for time, and of the whole work budget.
    pub(crate) fn share(&self, start: Instant, total: Duration, fraction: f64) -> Deadline {
        Deadline {
            at: self
                .at
                .and_then(|_| start.checked_add(total.mul_f64(fraction))),
            stop: self.stop.clone(),
            spent: Arc::clone(&self.spent),
            work: self.work.map(|w| (w as f64 * fraction) as u64),
        }
    }

    /// Halfway between now and this deadline (now if it has passed), for time and work.
    pub(crate) fn halfway(&self) -> Deadline {
        let now = Instant::now();
        let spent = self.spent();
        Deadline {
            at: self
                .at
                .map(|at| now + at.saturating_duration_since(now) / 2),
            stop: self.stop.clone(),
            spent: Arc::clone(&self.spent),
            work: self.work.map(|w| spent + w.saturating_sub(spent) / 2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Deadline;
    use std::time::{Duration, Instant};

    #[test]
    fn work_budgets_pass_by_the_positions_spent_and_halve_like_time() {
        let d = Deadline::new(None, Some(1000), None);
        assert!(!d.passed());
        assert_eq!(d.left(), None);
        let half = d.halfway();
        d.spend(499);
        assert!(!half.passed());
        half.spend(1);
        assert!(half.passed() && !d.passed());
        let share = d.share(Instant::now(), Duration::ZERO, 0.5);
        assert!(share.passed());
        let later = d.then(None, Some(10));
        d.spend(500);
        assert!(d.passed() && later.passed());
        assert!(d.at_most_left(Duration::ZERO, Some(0)));
        // No limit at all: never passes; an absurd time is no limit.
        let never = Deadline::new(Some(Duration::MAX), None, None);
        never.spend(u64::MAX);
        assert!(!never.passed());
    }
}
