//! Progress display for long jobs (indicatif bars on stderr; hidden when stderr is not a
//! terminal).

use std::sync::Mutex;

use antichess_tb::{BuildEvent, GenEvent};
use indicatif::{ProgressBar, ProgressStyle};

/// Shows a tablebase build as one bar over all positions to generate.
#[derive(Debug)]
pub struct BuildProgress {
    bar: ProgressBar,
    state: Mutex<(u64, String)>,
    quiet: bool,
}

impl BuildProgress {
    pub fn new(quiet: bool) -> BuildProgress {
        let bar = ProgressBar::hidden();
        BuildProgress {
            bar,
            state: Mutex::new((0, String::new())),
            quiet,
        }
    }

    pub fn event(&self, event: BuildEvent) {
        match event {
            BuildEvent::Planned {
                total,
                to_build,
                positions,
            } => {
                if to_build > 0 && !self.quiet {
                    self.bar
                        .set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    self.bar.set_length(positions);
                    self.bar.set_style(
                        ProgressStyle::with_template(
                            "{spinner} building tables [{bar:30}] {percent}% {msg} ({elapsed}, eta {eta})",
                        )
                        .expect("valid template")
                        .progress_chars("=> "),
                    );
                    self.bar.println(format!(
                        "building {to_build} of {total} tables ({positions} positions)"
                    ));
                }
            }
            BuildEvent::Started {
                material,
                number,
                positions,
            } => {
                let mut state = self
                    .state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                *state = (positions, format!("#{number} {material}"));
                self.bar.set_message(state.1.clone());
            }
            BuildEvent::Generation(GenEvent::Level { level, .. }) => {
                let state = self
                    .state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                self.bar.set_message(format!("{} level {level}", state.1));
            }
            BuildEvent::Finished { .. } => {
                let state = self
                    .state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                self.bar.inc(state.0);
            }
            BuildEvent::Generation(GenEvent::Initialised { .. }) | BuildEvent::Present(_) => {}
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
