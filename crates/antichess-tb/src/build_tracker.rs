//! Where a build stands, from its [`BuildEvent`]s: positions generated out of all to
//! generate (the table under way counted by the positions decided so far, an
//! underestimate: its draws are never decided), the table under way ("#2/13 KRk"), and
//! the time left estimated from the average rate since the build started. A display
//! (the CLI's bar and log lines) feeds it every event and shows what it says.

use std::time::Instant;

use crate::build::BuildEvent;
use crate::format::TableKind;
use crate::generate::GenEvent;

/// The state of a build as its events tell it.
#[derive(Debug, Default)]
pub struct BuildTracker {
    /// Positions of the tables finished.
    done: u64,
    /// Positions decided so far in the table being built.
    decided: u64,
    /// Positions of the table being built.
    positions: u64,
    /// All positions to generate.
    total: u64,
    /// "#2/13 KRk".
    current: String,
    to_build: usize,
    /// When the build started (a display may show several builds in turn).
    start: Option<Instant>,
}

impl BuildTracker {
    /// Takes one event of the build into account.
    pub fn update(&mut self, event: &BuildEvent) {
        match event {
            BuildEvent::Planned {
                to_build,
                positions,
                ..
            } => {
                if *to_build > 0 {
                    *self = BuildTracker {
                        total: *positions,
                        to_build: *to_build,
                        start: Some(Instant::now()),
                        ..BuildTracker::default()
                    };
                }
            }
            BuildEvent::Started {
                material,
                kind,
                number,
                positions,
            } => {
                self.positions = *positions;
                self.decided = 0;
                let kind = match kind {
                    TableKind::Exact => String::new(),
                    kind => format!(" ({kind})"),
                };
                self.current = format!("#{number}/{} {material}{kind}", self.to_build);
            }
            BuildEvent::Generation(
                GenEvent::Initialised { decided } | GenEvent::Level { decided, .. },
            ) => self.decided += decided,
            BuildEvent::Finished(_) => {
                self.done += self.positions;
                self.decided = 0;
                self.positions = 0;
            }
            BuildEvent::Damaged { .. } | BuildEvent::Present(_) => {}
        }
    }

    /// Positions generated so far, the table under way by its positions decided (at
    /// most `total`).
    #[must_use]
    pub fn position(&self) -> u64 {
        (self.done + self.decided.min(self.positions)).min(self.total)
    }

    /// All positions to generate.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The table under way: "#2/13 KRk", "#1/4 KRk (bound for white)".
    #[must_use]
    pub fn current(&self) -> &str {
        &self.current
    }

    /// The percentage of the positions in the tables finished.
    #[must_use]
    pub fn percent_done(&self) -> f64 {
        100.0 * self.done as f64 / self.total.max(1) as f64
    }

    fn elapsed(&self) -> f64 {
        self.start.map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    /// Seconds left at the average rate so far, the table under way counted by its
    /// positions decided (`None` in the first second, or before anything is done).
    #[must_use]
    pub fn eta_seconds(&self) -> Option<f64> {
        let done = self.done + self.decided.min(self.positions);
        let elapsed = self.elapsed();
        if done == 0 || self.total == 0 || elapsed < 1.0 {
            return None;
        }
        Some(self.total.saturating_sub(done) as f64 * elapsed / done as f64)
    }

    /// Seconds left at the average rate of the tables finished (`None`: nothing finished,
    /// or nothing left).
    #[must_use]
    pub fn left_seconds(&self) -> Option<f64> {
        (self.done > 0 && self.total > self.done)
            .then(|| (self.total - self.done) as f64 * self.elapsed() / self.done as f64)
    }
}
