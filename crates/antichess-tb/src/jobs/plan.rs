//! The size of a table build, before it starts: the plan's totals ([`PlanSize`]), the line
//! that announces them, the note for a build that is mostly dependencies of the tables
//! asked for ([`dependencies_note`]), the warnings for a large build (more than
//! [`LARGE_POSITIONS`] positions to generate) or one whose largest table is expected to
//! need more memory than the machine has available, and the dry run's report
//! ([`PlanReport`], the JSON of `tb build --dry-run`).
//!
//! Estimates: memory per position of the table being built (both sides to move) and file
//! bytes per position, from measurements (docs/benchmarks.md); positions count both sides
//! to move.

use std::path::Path;

use serde::Serialize;

use crate::build::{BuildOptions, PlanEntry};
use crate::material::Material;

/// Memory today's generator needs per position of the table being built (both sides to
/// move): 2.49 measured on KBNkr (a 16-bit word and a mark bit per position, plus the file
/// image while writing; docs/research/tb-memory.md), rounded up: the estimate `--dry-run`
/// shows.
pub const BYTES_PER_POSITION: u64 = 3;

/// The same for the royal-king generator (`antichess_tb::royal`): a 32-bit word per
/// position and the lists of each level; 195 MB measured for `KPkp` (8.5 M positions),
/// rounded up.
pub const ROYAL_BYTES_PER_POSITION: u64 = 24;

/// File bytes per position of an antichess table (exact or bound; both sides to move):
/// 0.40 measured on the whole 4-unit set (1.2 GB), 0.343 on KBNkr, 0.446 on KRNkp, 0.33
/// to 0.40 estimated over the 5-unit classes (docs/benchmarks.md). Royal-king tables have
/// no figure (no disk estimate).
pub const FILE_BYTES_PER_POSITION: f64 = 0.40;

/// A build of more positions than this (about an hour of one core at the measured rates,
/// and 4.5 GB of files) is announced as large.
pub const LARGE_POSITIONS: u64 = 10_000_000_000;

/// "812 kB", "34.1 MB", "2.10 GB" (powers of 1000).
#[must_use]
pub fn bytes_text(bytes: u64) -> String {
    let b = bytes as f64;
    if b < 1e6 {
        format!("{:.0} kB", b / 1e3)
    } else if b < 1e9 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.2} GB", b / 1e9)
    }
}

/// The totals of a plan.
#[derive(Debug, Clone)]
pub struct PlanSize {
    /// Tables of the plan.
    pub tables: usize,
    /// Tables to build (missing).
    pub to_build: usize,
    /// Positions of the tables to build.
    pub positions: u64,
    /// The largest table to build, with its positions.
    pub largest: Option<(Material, u64)>,
    /// Memory per position while a table is built.
    pub per_position: u64,
    /// Whether the disk estimate applies (antichess tables, not royal-king ones).
    pub disk_known: bool,
}

impl PlanSize {
    /// The totals of `rows` (material, positions, present); `royal`: royal-king tables.
    pub fn of(rows: impl IntoIterator<Item = (Material, u64, bool)>, royal: bool) -> PlanSize {
        let mut size = PlanSize {
            tables: 0,
            to_build: 0,
            positions: 0,
            largest: None,
            per_position: if royal {
                ROYAL_BYTES_PER_POSITION
            } else {
                BYTES_PER_POSITION
            },
            disk_known: !royal,
        };
        for (material, positions, present) in rows {
            size.tables += 1;
            if present {
                continue;
            }
            size.to_build += 1;
            size.positions += positions;
            if size.largest.is_none_or(|(_, p)| positions > p) {
                size.largest = Some((material, positions));
            }
        }
        size
    }

    /// The totals of a plan's entries.
    #[must_use]
    pub fn of_plan(plan: &[PlanEntry], royal: bool) -> PlanSize {
        PlanSize::of(rows(plan), royal)
    }

    /// The memory the largest table to build is expected to need.
    #[must_use]
    pub fn peak_memory(&self) -> u64 {
        self.largest.map_or(0, |(_, p)| p * self.per_position)
    }

    /// The files' expected size, when known.
    #[must_use]
    pub fn disk(&self) -> Option<u64> {
        self.disk_known
            .then(|| (self.positions as f64 * FILE_BYTES_PER_POSITION).round() as u64)
    }

    /// "342 tables needed, 12 present, 330 to build (…) in DIR"; `noun`: "tables",
    /// "bound tables".
    #[must_use]
    pub fn line(&self, noun: &str, dir: &Path) -> String {
        let largest = match self.largest {
            Some((m, _)) => format!(
                ", the largest ({}) needing ~{} at {} bytes per position",
                m.name(),
                bytes_text(self.peak_memory()),
                self.per_position
            ),
            None => String::new(),
        };
        let disk = self
            .disk()
            .filter(|_| self.to_build > 0)
            .map_or_else(String::new, |d| {
                format!(", about {} on disk", bytes_text(d))
            });
        format!(
            "{} {noun} needed, {} present, {} to build ({} positions{largest}{disk}) in {}",
            self.tables,
            self.tables - self.to_build,
            self.to_build,
            self.positions,
            dir.display()
        )
    }

    /// What makes the build one to think about first: more than [`LARGE_POSITIONS`]
    /// positions to generate, or a largest table expected to need more memory than the
    /// machine has available.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.positions > LARGE_POSITIONS {
            out.push(format!(
                "a large build: {:.1} × 10^9 positions to generate{}, hours of work \
                 (`--dry-run` lists every table; Ctrl-C stops the build, and the same \
                 command goes on from the tables written)",
                self.positions as f64 / 1e9,
                self.disk().map_or_else(String::new, |d| format!(
                    " and about {} of files",
                    bytes_text(d)
                ))
            ));
        }
        if let (Some((m, _)), Some(available)) = (self.largest, memory_available()) {
            if self.peak_memory() > available {
                out.push(format!(
                    "the largest table, {}, is expected to need ~{} of memory while it is \
                     built; this machine has {} available",
                    m.name(),
                    bytes_text(self.peak_memory()),
                    bytes_text(available)
                ));
            }
        }
        out
    }
}

/// A plan's entries as (material, positions, present).
fn rows(plan: &[PlanEntry]) -> Vec<(Material, u64, bool)> {
    plan.iter()
        .map(|e| (e.material, e.positions, e.present))
        .collect()
}

/// The memory available for new work (MemAvailable of /proc/meminfo), if known.
#[must_use]
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A note for when the tables to build that were not asked for (dependencies of those that
/// were) are more positions than those asked for: how many tables were asked for, and how
/// much of the build the others are. `rows`: the plan (material, positions, present).
#[must_use]
pub fn dependencies_note(asked: &[Material], rows: &[(Material, u64, bool)]) -> Option<String> {
    let to_build = rows.iter().filter(|r| !r.2);
    let (mut asked_tables, mut asked_positions, mut other_tables, mut other_positions) =
        (0usize, 0u64, 0usize, 0u64);
    for (m, positions, _) in to_build {
        if asked.contains(m) {
            asked_tables += 1;
            asked_positions += positions;
        } else {
            other_tables += 1;
            other_positions += positions;
        }
    }
    if other_tables == 0 || other_positions <= asked_positions {
        return None;
    }
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let share = 100.0 * other_positions as f64 / (other_positions + asked_positions) as f64;
    Some(format!(
        "{} asked for ({asked_positions} positions to build); the other {other_tables} {} \
         the tables {} need{} (where captures and promotions lead): {other_positions} \
         positions, {share:.0}% of the build",
        plural(asked_tables, "table", "tables"),
        if other_tables == 1 { "is" } else { "are" },
        if asked_tables == 1 { "it" } else { "they" },
        if asked_tables == 1 { "s" } else { "" },
    ))
}

/// One table of a dry run's plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanRow {
    /// The material's name.
    pub material: String,
    /// Its units (kings included).
    pub units: u32,
    /// Its pawns.
    pub pawns: u32,
    /// Positions, both sides to move.
    pub positions: u64,
    /// The memory today's generator is expected to need to build it.
    pub memory_estimate: u64,
    /// `"present"` or `"missing"`.
    pub status: &'static str,
    /// The table's kind, in a bound build's plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// What a dry run found: the plan in build order and its totals (the JSON of `tb build
/// --dry-run`), with the line, the note and the warnings said beside it.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// The tables directory.
    pub dir: String,
    /// The rule set.
    pub rules: String,
    /// Tables of the plan.
    pub tables: usize,
    /// Tables missing.
    pub to_build: usize,
    /// Positions of the tables missing.
    pub positions: u64,
    /// The memory the largest table to build is expected to need.
    pub largest_memory_estimate: u64,
    /// The largest table to build.
    pub largest: Option<String>,
    /// The files' expected size, when known.
    pub disk_estimate: Option<u64>,
    /// Every table, in build order.
    pub plan: Vec<PlanRow>,
    /// The totals as one line ([`PlanSize::line`]).
    #[serde(skip)]
    pub summary: String,
    /// [`dependencies_note`] of an exact plan.
    #[serde(skip)]
    pub note: Option<String>,
    /// [`PlanSize::warnings`].
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl PlanReport {
    /// The report of `plan`, to be built with `options`; `asked`: the materials asked for
    /// (for the note), `None` for a bound plan.
    #[must_use]
    pub fn new(plan: &[PlanEntry], options: &BuildOptions, asked: Option<&[Material]>) -> Self {
        let bound = asked.is_none();
        let size = PlanSize::of_plan(plan, options.rules.is_royal());
        let noun = if bound { "bound tables" } else { "tables" };
        PlanReport {
            dir: options.dir.display().to_string(),
            rules: options.rules.to_string(),
            tables: plan.len(),
            to_build: size.to_build,
            positions: size.positions,
            largest_memory_estimate: size.peak_memory(),
            largest: size.largest.map(|(m, _)| m.name()),
            disk_estimate: size.disk(),
            plan: plan
                .iter()
                .map(|e| PlanRow {
                    material: e.material.name(),
                    units: e.material.units(),
                    pawns: e.material.pawns(),
                    positions: e.positions,
                    memory_estimate: e.positions * size.per_position,
                    status: if e.present { "present" } else { "missing" },
                    kind: bound.then(|| e.kind.to_string()),
                })
                .collect(),
            summary: size.line(noun, &options.dir),
            note: asked.and_then(|asked| dependencies_note(asked, &rows(plan))),
            warnings: size.warnings(),
        }
    }
}

/// The text of `tb build --dry-run` on stdout: a row per table (with its kind in a bound
/// plan), then the totals (the note and the warnings are said apart, on stderr).
impl std::fmt::Display for PlanReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for row in &self.plan {
            writeln!(f, "{row}")?;
        }
        writeln!(f, "{}", self.summary)
    }
}
