//! Progress display for tablebase builds: one bar on stderr when it is a terminal, and a
//! line when a build starts and when it ends (what is built, where, how long it took),
//! terminal or not; with [`BuildProgress::table_lines`], also one line per table built
//! (time, positions/s, file size, peak memory, the time left), for logs. Where the build
//! stands and the time left are [`antichess_tb::BuildTracker`]'s, the lines' text
//! [`antichess_tb::jobs::text`]'s. Also the bars' style ([`bar_style`], [`stderr_bar`]).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use antichess_core::Rules;
use antichess_tb::jobs::text::{built_line, eta_text, planned_line, table_line};
use antichess_tb::{BuildEvent, BuildOptions, BuildReport, BuildTracker, GenEvent};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar's style from `template` (indicatif's), its bar drawn with `=> `.
pub fn bar_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

/// A bar of `len` steps (`None`: a spinner) on stderr, in `template`'s style.
pub fn stderr_bar(len: Option<u64>, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    bar.set_style(bar_style(template));
    bar
}

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

    fn show(&self, state: &BuildTracker, level: Option<u16>) {
        self.bar.set_position(state.position());
        let level = level.map_or_else(String::new, |l| format!(" level {l}"));
        // The estimate before the message, which is cut to the terminal's width.
        self.bar.set_prefix(eta_text(state));
        self.bar.set_message(format!("{}{level}", state.current()));
    }

    /// A build's plan: the start line, and the bar (on a terminal) over its positions.
    fn planned(&self, total: usize, to_build: usize, positions: u64) {
        if to_build == 0 {
            return;
        }
        if let Some(place) = &self.place {
            eprintln!(
                "{}",
                planned_line(to_build, total, positions, place.rules, &place.dir)
            );
        } else if self.terminal {
            eprintln!("building {to_build} of {total} tables ({positions} positions)");
        }
        if self.terminal {
            // Style and length first, then the terminal: a bar drawn before it
            // has its style stays on the screen as a second bar.
            self.bar.set_style(bar_style(
                "{spinner} building tables [{bar:24}] {percent:>3}% {elapsed_precise}{prefix}  {wide_msg}",
            ));
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
                    self.line(&table_line(&state, &built));
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
        if self.quiet {
            return;
        }
        if let Some(line) = built_line(report, place.rules, &place.dir) {
            eprintln!("{line}");
        }
    }
}
