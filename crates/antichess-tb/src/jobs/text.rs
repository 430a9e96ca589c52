//! A table build as text for people: the lines of `tb build` (and of every command that
//! builds the tables it needs first) on stderr, the start line, one line per table built
//! and the end line, with their durations ([`duration_text`]) and the tables named
//! ([`names`]); the summary line of a build ([`summary_line`]); and a dry run's rows
//! ([`PlanRow`]'s `Display`). Sizes in bytes are written by [`bytes_text`].

use std::fmt;
use std::path::Path;

use antichess_core::Rules;

use super::build::BuildSummary;
use super::plan::PlanRow;
use crate::{BuildReport, BuildTracker, Built, Material};

pub use super::plan::bytes_text;

/// The tables named in a build's lines before "and N more".
const NAMED: usize = 6;

/// "KRk, Kk, Kr and 3 more".
#[must_use]
pub fn names(materials: &[Material]) -> String {
    let mut out: Vec<String> = materials.iter().take(NAMED).map(Material::name).collect();
    if materials.len() > NAMED {
        let last = format!("and {} more", materials.len() - NAMED);
        out.push(last);
    }
    out.join(", ")
}

/// "1.2 s", "3 min 04 s", "2 h 01 min".
#[must_use]
pub fn duration_text(seconds: f64) -> String {
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

/// The estimate of the time left (", ~3 min 04 s left"), from the average rate so far,
/// or nothing before there is one.
#[must_use]
pub fn eta_text(state: &BuildTracker) -> String {
    state.eta_seconds().map_or_else(String::new, |left| {
        format!(", ~{} left", duration_text(left))
    })
}

/// The line of a table built (`state` counts it as done already): its number, time,
/// positions per second, file size, the peak memory while it was built and the time left.
#[must_use]
pub fn table_line(state: &BuildTracker, built: &Built) -> String {
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

/// The line when a build starts: how many tables of those needed are built, for which
/// rules, in which directory.
#[must_use]
pub fn planned_line(
    to_build: usize,
    total: usize,
    positions: u64,
    rules: Rules,
    dir: &Path,
) -> String {
    format!(
        "building {to_build} of the {total} tables needed ({positions} positions) for {rules} rules in {}",
        dir.display()
    )
}

/// The line when a build ends: what was built, for which rules, where, in how long (`None`
/// when nothing was built).
#[must_use]
pub fn built_line(report: &BuildReport, rules: Rules, dir: &Path) -> Option<String> {
    if report.built.is_empty() {
        return None;
    }
    let built: Vec<Material> = report.built.iter().map(|b| b.material).collect();
    Some(format!(
        "built {} table{} ({}) for {} rules in {} in {} ({} positions)",
        built.len(),
        if built.len() == 1 { "" } else { "s" },
        names(&built),
        rules,
        dir.display(),
        duration_text(report.seconds),
        report.positions
    ))
}

/// The line saying how many `noun` ("tables", "bound tables") were built, and how fast.
#[must_use]
pub fn summary_line(summary: &BuildSummary, noun: &str) -> String {
    format!(
        "{} {noun} built, {} already present, in {} ({:.1} s, {} positions, {:.2} M positions/s)",
        summary.built,
        summary.present,
        summary.dir,
        summary.seconds,
        summary.positions,
        summary.rate() / 1e6
    )
}

/// A dry run's row: material, kind (in a bound plan), positions, the memory expected,
/// present or to build.
impl fmt::Display for PlanRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Some(kind) => format!("{kind:<15} "),
            None => String::new(),
        };
        write!(
            f,
            "{:<10} {kind}{:>14} positions  ~{:>9}  {}",
            self.material,
            self.positions,
            bytes_text(self.memory_estimate),
            if self.status == "present" {
                "present"
            } else {
                "to build"
            }
        )
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
