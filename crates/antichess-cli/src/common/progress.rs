//! Progress display for tablebase builds: one bar on stderr when it is a terminal, and a
//! line when a build starts and when it ends (what is built, where, how long it took),
//! terminal or not; with [`BuildProgress::table_lines`], also one line per table built
//! (time, positions/s, file size, peak memory, the time left), for logs. Where the build
//! stands and the time left are [`antichess_tb::BuildTracker`]'s.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use antichess_core::Rules;
use antichess_tb::{
    BuildEvent, BuildOptions, BuildReport, BuildTracker, Built, GenEvent, Material,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The tables named in a build's lines before "and N more".
const NAMED: usize = 6;

/// Where a build writes: named in its start and end lines.
#[derive(Debug, Clone)]
struct Place {
    dir: PathBuf,
    rules: Rules,
}

/// Shows a tablebase build: one bar over all positions to generate (on a terminal), and
/// the start and end lines (with [`BuildProgress::at`]).
#[derive(Debug)]
pub struct BuildProgress {
    bar: ProgressBar,
    state: Mutex<BuildTracker>,
    quiet: bool,
    terminal: bool,
    place: Option<Place>,
    /// One line per table built.
    table_lines: bool,
}

/// "KRk, Kk, Kr and 3 more".
fn names(materials: &[Material]) -> String {
    let mut out: Vec<String> = materials.iter().take(NAMED).map(Material::name).collect();
    if materials.len() > NAMED {
        let last = format!("and {} more", materials.len() - NAMED);
        out.push(last);
    }
    out.join(", ")
}

/// "1.2 s", "3 min 04 s".
fn duration_text(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else {
        let s = seconds.round() as u64;
        if s < 3600 {
            format!("{} min {:02} s", s / 60, s % 60)
        } else {
            format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
        }
    }
}

pub use antichess_tb::jobs::plan::bytes_text;

impl BuildProgress {
    /// A display that prints nothing at all when `quiet` (JSON output).
    pub fn new(quiet: bool) -> BuildProgress {
        BuildProgress {
            bar: ProgressBar::hidden(),
            state: Mutex::new(BuildTracker::default()),
            quiet,
            terminal: std::io::stderr().is_terminal(),
            place: None,
            table_lines: false,
        }
    }

    /// Also prints one line per table built: its number, time, positions per second,
    /// file size, the peak memory while it was built and the estimated time left.
    #[must_use]
    pub fn table_lines(mut self) -> BuildProgress {
        self.table_lines = true;
        self
    }

    /// Prints a line on stderr above the bar.
    fn line(&self, text: &str) {
        if self.terminal {
            self.bar.suspend(|| eprintln!("{text}"));
        } else {
            eprintln!("{text}");
        }
    }

    /// Also prints a line when tables are to be built and one when they are: what, for
    /// which rules, in which directory, and (at the end) how long it took.
    #[must_use]
    pub fn at(mut self, options: &BuildOptions) -> BuildProgress {
        self.place = Some(Place {
            dir: options.dir.clone(),
            rules: options.rules,
        });
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, BuildTracker> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Our own estimate of the time left, from the average rate so far (indicatif's
    /// estimate follows the recent steps, and a build's steps are whole tables of very
    /// different sizes: it jumps).
    fn eta(state: &BuildTracker) -> String {
        state.eta_seconds().map_or_else(String::new, |left| {
            format!(", ~{} left", duration_text(left))
        })
    }

    /// The line of a table built (the state counts it as done already).
    fn table_line(state: &BuildTracker, built: &Built) -> String {
        let rate = built.stats.positions as f64 / built.seconds.max(1e-9) / 1e6;
        let peak = built
            .peak_memory
            .map_or_else(String::new, |p| format!(", peak memory {}", bytes_text(p)));
        let left = state.left_seconds().map_or_else(String::new, |left| {
            format!(", ~{} left", duration_text(left))
        });
        format!(
            "{}: {} positions in {} ({rate:.2} M positions/s), {}{peak}; {:.1}% of the positions done{left}",
            state.current(),
            built.stats.positions,
            duration_text(built.seconds),
            bytes_text(built.bytes),
            state.percent_done(),
        )
    }

    fn show(&self, state: &BuildTracker, level: Option<u16>) {
        self.bar.set_position(state.position());
        let level = level.map_or_else(String::new, |l| format!(" level {l}"));
        // The estimate before the message, which is cut to the terminal's width.
        self.bar.set_prefix(Self::eta(state));
        self.bar.set_message(format!("{}{level}", state.current()));
    }

    /// A build's plan: the start line, and the bar (on a terminal) over its positions.
    fn planned(&self, total: usize, to_build: usize, positions: u64) {
        if to_build == 0 {
            return;
        }
        if let Some(place) = &self.place {
            eprintln!(
                "building {to_build} of the {total} tables needed ({positions} positions) for {} rules in {}",
                place.rules,
                place.dir.display()
            );
        } else if self.terminal {
            eprintln!("building {to_build} of {total} tables ({positions} positions)");
        }
        if self.terminal {
            // Style and length first, then the terminal: a bar drawn before it
            // has its style stays on the screen as a second bar.
            self.bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} building tables [{bar:24}] {percent:>3}% {elapsed_precise}{prefix}  {wide_msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            self.bar.reset();
            self.bar.set_length(positions);
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(250));
        }
    }

    /// Shows one event of a build (nothing when quiet).
    pub fn event(&self, event: BuildEvent) {
        if self.quiet {
            return;
        }
        let mut state = self.state();
        state.update(&event);
        match event {
            BuildEvent::Planned {
                total,
                to_build,
                positions,
            } => {
                drop(state);
                self.planned(total, to_build, positions);
            }
            BuildEvent::Started { .. } | BuildEvent::Generation(GenEvent::Initialised { .. }) => {
                self.show(&state, None);
            }
            BuildEvent::Generation(GenEvent::Level { level, .. }) => {
                self.show(&state, Some(level));
            }
            BuildEvent::Finished(built) => {
                if self.table_lines {
                    self.line(&Self::table_line(&state, &built));
                }
                self.show(&state, None);
            }
            BuildEvent::Damaged { material, reason } => {
                self.line(&format!("{material}: {reason}; building it again"));
            }
            BuildEvent::Present(_) => {}
        }
    }

    /// Clears the bar; with [`BuildProgress::at`], prints what was built, where and in
    /// how long (nothing when every table was present).
    pub fn finish(&self, report: Option<&BuildReport>) {
        self.bar.finish_and_clear();
        let (Some(place), Some(report)) = (&self.place, report) else {
            return;
        };
        if self.quiet || report.built.is_empty() {
            return;
        }
        let built: Vec<Material> = report.built.iter().map(|b| b.material).collect();
        eprintln!(
            "built {} table{} ({}) for {} rules in {} in {} ({} positions)",
            built.len(),
            if built.len() == 1 { "" } else { "s" },
            names(&built),
            place.rules,
            place.dir.display(),
            duration_text(report.seconds),
            report.positions
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_durations() {
        let m: Vec<Material> = ["Kk", "Kr", "KRk"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(names(&m), "Kk, Kr, KRk");
        let many: Vec<Material> = m.iter().cycle().take(8).copied().collect();
        assert!(names(&many).ends_with(", and 2 more"), "{}", names(&many));
        assert_eq!(duration_text(1.25), "1.2 s");
        assert_eq!(duration_text(184.0), "3 min 04 s");
        assert_eq!(duration_text(7260.0), "2 h 01 min");
        assert_eq!(bytes_text(812_000), "812 kB");
        assert_eq!(bytes_text(34_123_456), "34.1 MB");
        assert_eq!(bytes_text(2_100_000_000), "2.10 GB");
    }
}
