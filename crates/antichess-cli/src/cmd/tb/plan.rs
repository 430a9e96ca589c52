//! The size of a `tb build`: `--dry-run` lists the plan (every table needed, in build
//! order, with its positions, the memory today's generator is expected to need for it and
//! whether it is present) and its totals; a real build prints the totals on stderr before
//! it starts. Both warn on stderr when the build is large (more than [`LARGE_POSITIONS`]
//! positions to generate) or when its largest table is expected to need more memory than
//! the machine has available, so that a `--from-book --top 3` of 3.6 × 10^10 positions
//! does not start without a word. When most of the build is tables the ones asked for
//! depend on (the tables their captures and promotions lead to), a note on stderr says how
//! many were asked for and how much of the build the others are.
//!
//! Estimates: memory per position of the table being built (both sides to move) and file
//! bytes per position, from measurements (docs/benchmarks.md); positions count both sides
//! to move.

use std::process::ExitCode;

use antichess_tb::{dependencies, plan, BuildOptions, Material, PlanEntry, Tablebase};
use serde_json::json;

use crate::common::output::Format;
use crate::common::progress::bytes_text;

/// Memory today's generator needs per position of the table being built (both sides to
/// move): 2.49 measured on KBNkr (a 16-bit word and a mark bit per position, plus the file
/// image while writing; docs/research/tb-memory.md), rounded up: the estimate `--dry-run`
/// shows.
pub(super) const BYTES_PER_POSITION: u64 = 3;

/// The same for the royal-king generator (`antichess_tb::royal`): a 32-bit word per
/// position and the lists of each level; 195 MB measured for `KPkp` (8.5 M positions),
/// rounded up.
const ROYAL_BYTES_PER_POSITION: u64 = 24;

/// File bytes per position of an antichess table (exact or bound; both sides to move):
/// 0.40 measured on the whole 4-unit set (1.2 GB), 0.343 on KBNkr, 0.446 on KRNkp, 0.33
/// to 0.40 estimated over the 5-unit classes (docs/benchmarks.md). Royal-king tables have
/// no figure (no disk estimate).
const FILE_BYTES_PER_POSITION: f64 = 0.40;

/// A build of more positions than this (about an hour of one core at the measured rates,
/// and 4.5 GB of files) is announced as large.
pub(super) const LARGE_POSITIONS: u64 = 10_000_000_000;

/// The totals of a plan.
#[derive(Debug, Clone)]
pub(super) struct Size {
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

impl Size {
    /// The totals of `rows` (material, positions, present).
    pub fn of(rows: impl IntoIterator<Item = (Material, u64, bool)>, royal: bool) -> Size {
        let mut size = Size {
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

    /// The memory the largest table to build is expected to need.
    pub fn peak_memory(&self) -> u64 {
        self.largest.map_or(0, |(_, p)| p * self.per_position)
    }

    /// The files' expected size, when known.
    pub fn disk(&self) -> Option<u64> {
        self.disk_known
            .then(|| (self.positions as f64 * FILE_BYTES_PER_POSITION).round() as u64)
    }

    /// "342 tables needed, 12 present, 330 to build (…) in DIR"; `noun`: "tables",
    /// "bound tables".
    pub fn line(&self, noun: &str, dir: &std::path::Path) -> String {
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

    /// Before a build: the plan's line and `note` (see [`dependencies_note`]) on stderr
    /// (not with JSON output, which keeps stderr quiet), then [`Size::warnings`]. Nothing
    /// when every table is present.
    pub fn announce(&self, noun: &str, dir: &std::path::Path, json: bool, note: Option<String>) {
        if self.to_build == 0 {
            return;
        }
        if !json {
            eprintln!("plan: {}", self.line(noun, dir));
            if let Some(note) = note {
                eprintln!("note: {note}");
            }
        }
        self.warn();
    }

    /// On stderr, each of [`Size::warnings`].
    pub fn warn(&self) {
        for warning in self.warnings() {
            eprintln!("warning: {warning}");
        }
    }

    /// What makes the build one to think about first: more than [`LARGE_POSITIONS`]
    /// positions to generate, or a largest table expected to need more memory than the
    /// machine has available.
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

/// The memory available for new work (MemAvailable of /proc/meminfo), if known.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Before an exact build: [`Size::announce`] of its plan, a table counted as present when
/// its file is there (the build checks each file again before it counts it).
pub(super) fn announce_exact(
    targets: &[Material],
    options: &BuildOptions,
    json: bool,
) -> anyhow::Result<()> {
    let tb = Tablebase::open(&options.dir, options.rules)?;
    let rows: Vec<(Material, u64, bool)> = dependencies(targets, options.rules)
        .into_iter()
        .map(|m| (m, antichess_tb::positions(&m), tb.contains(&m)))
        .collect();
    let note = dependencies_note(targets, &rows);
    Size::of(rows, options.rules.is_royal()).announce("tables", &options.dir, json, note);
    Ok(())
}

/// A note for when the tables to build that were not asked for (dependencies of those that
/// were) are more positions than those asked for: how many tables were asked for, and how
/// much of the build the others are. `rows`: the plan (material, positions, present).
pub(super) fn dependencies_note(
    asked: &[Material],
    rows: &[(Material, u64, bool)],
) -> Option<String> {
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

/// `tb build --dry-run`: the plan, built nothing.
pub(super) fn dry_run(
    targets: &[Material],
    options: &BuildOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let plan = plan(targets, options)?;
    print_plan(&plan, options, format, false);
    if format == Format::Text {
        let rows: Vec<_> = plan
            .iter()
            .map(|e| (e.material, e.positions, e.present))
            .collect();
        if let Some(note) = dependencies_note(targets, &rows) {
            eprintln!("note: {note}");
        }
    }
    Size::of(
        plan.iter().map(|e| (e.material, e.positions, e.present)),
        options.rules.is_royal(),
    )
    .warn();
    Ok(ExitCode::SUCCESS)
}

/// A dry run's plan on stdout: a row per table (with its kind when `bound`) and the
/// totals, as text or one JSON object.
pub(super) fn print_plan(plan: &[PlanEntry], options: &BuildOptions, format: Format, bound: bool) {
    let size = Size::of(
        plan.iter().map(|e| (e.material, e.positions, e.present)),
        options.rules.is_royal(),
    );
    let per_position = size.per_position;
    let status = |e: &PlanEntry| if e.present { "present" } else { "missing" };
    match format {
        Format::Json => println!(
            "{}",
            json!({
                "dir": options.dir.display().to_string(),
                "rules": options.rules.to_string(),
                "tables": plan.len(),
                "to_build": size.to_build,
                "positions": size.positions,
                "largest_memory_estimate": size.peak_memory(),
                "largest": size.largest.map(|(m, _)| m.name()),
                "disk_estimate": size.disk(),
                "plan": plan.iter().map(|e| {
                    let mut row = json!({
                        "material": e.material.name(),
                        "units": e.material.units(),
                        "pawns": e.material.pawns(),
                        "positions": e.positions,
                        "memory_estimate": e.positions * per_position,
                        "status": status(e),
                    });
                    if bound {
                        row["kind"] = e.kind.to_string().into();
                    }
                    row
                }).collect::<Vec<_>>(),
            })
        ),
        Format::Text => {
            for e in plan {
                let kind = if bound {
                    format!("{:<15} ", e.kind.to_string())
                } else {
                    String::new()
                };
                println!(
                    "{:<10} {kind}{:>14} positions  ~{:>9}  {}",
                    e.material.name(),
                    e.positions,
                    bytes_text(e.positions * per_position),
                    if e.present { "present" } else { "to build" }
                );
            }
            let noun = if bound { "bound tables" } else { "tables" };
            println!("{}", size.line(noun, &options.dir));
        }
    }
}
