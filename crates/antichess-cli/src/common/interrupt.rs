//! Ctrl-C for the long jobs: the first raises a flag that the job polls (it stops as if its
//! budget ran out and keeps what it has), the second quits at once (exit code 130).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::ProgressBar;

/// A flag that the first Ctrl-C raises, printing `message` on stderr (above `bar`, if
/// given); the second quits at once.
pub fn stop_on_ctrl_c(message: &'static str, bar: Option<&ProgressBar>) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let bar = bar.cloned().unwrap_or_else(ProgressBar::hidden);
    // A second handler cannot be installed in one process; ignore that (tests).
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        bar.suspend(|| eprintln!("\n{message} (Ctrl-C again to quit at once)"));
    });
    stop
}
