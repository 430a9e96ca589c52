//! The tablebase benchmark (`antichess bench tablebase`): builds every table of at most
//! [`TablebaseBenchOptions::units`] units into a directory (a fresh temporary one unless
//! given, removed afterwards), then each of [`TablebaseBenchOptions::tables`] on its own
//! (its dependencies built first and not counted). The report gives positions per second
//! by number of units and in total, and per timed table its rate, the peak memory while it
//! was built, and its file's size; positions count both sides to move, times are seconds.
//! Options in ([`TablebaseBenchOptions`]), the builds' progress through one callback
//! ([`TablebaseBenchEvent`]), one report out ([`TablebaseBenchReport`]).

use std::path::PathBuf;

use antichess_core::Rules;
use serde::Serialize;

use crate::build::{build, dependencies, BuildEvent, BuildOptions, Built};
use crate::error::TbError;
use crate::material::Material;
use crate::memory::peak_resident;

/// What [`tablebase_bench`] builds.
#[derive(Debug, Clone)]
pub struct TablebaseBenchOptions {
    /// Every table with at most this many units is built.
    pub units: u32,
    /// Then each of these is built and timed on its own.
    pub tables: Vec<Material>,
    pub rules: Rules,
    /// Where to build (tables already there are not rebuilt); `None`: a fresh temporary
    /// directory, removed afterwards.
    pub dir: Option<PathBuf>,
    /// Worker threads (0 = all cores).
    pub threads: usize,
}

/// What [`tablebase_bench`] reports as it goes.
#[derive(Debug, Clone)]
pub enum TablebaseBenchEvent {
    /// Progress of the build under way.
    Build(BuildEvent),
    /// A build ended (the one of the unit set, or a timed table's).
    BuildEnded,
}

/// The tables of one number of units built by the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct UnitsRow {
    pub units: u32,
    pub tables: usize,
    pub positions: u64,
    pub seconds: f64,
    pub positions_per_second: f64,
}

/// One table timed on its own; all but `material` and `present` are absent when it was
/// present already (not built, not timed).
#[derive(Debug, Clone, Serialize)]
pub struct TableRow {
    pub material: String,
    pub present: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub built: Option<TableFigures>,
}

/// The figures of a table timed.
#[derive(Debug, Clone, Serialize)]
pub struct TableFigures {
    pub positions: u64,
    pub seconds: f64,
    pub positions_per_second: f64,
    /// The process's peak resident memory while it was built, when known.
    pub peak_memory_bytes: Option<u64>,
    pub bytes_per_position: Option<f64>,
    pub file_bytes: u64,
    pub file_bytes_per_position: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// In plies.
    pub max_dtc: u16,
}

impl TableFigures {
    fn of(built: &Built) -> TableFigures {
        let positions = built.stats.positions.max(1) as f64;
        TableFigures {
            positions: built.stats.positions,
            seconds: built.seconds,
            positions_per_second: built.stats.positions as f64 / built.seconds,
            peak_memory_bytes: built.peak_memory,
            bytes_per_position: built.peak_memory.map(|p| p as f64 / positions),
            file_bytes: built.bytes,
            file_bytes_per_position: built.bytes as f64 / positions,
            wins: built.stats.wins,
            draws: built.stats.draws,
            losses: built.stats.losses,
            max_dtc: built.stats.max_dtc,
        }
    }
}

/// What [`tablebase_bench`] measured (the JSON of `bench tablebase --format json`).
#[derive(Debug, Clone, Serialize)]
pub struct TablebaseBenchReport {
    pub rules: String,
    /// Worker threads used.
    pub threads: usize,
    pub dir: String,
    /// The unit set's tables built, by number of units (those with a table built).
    pub by_units: Vec<UnitsRow>,
    pub tables_built: usize,
    pub tables_present: usize,
    pub positions: u64,
    pub seconds: f64,
    pub positions_per_second: f64,
    /// The first of `tables` (absent, as `tables`, when none was asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<TableRow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<TableRow>,
    /// The process's peak resident memory at the end, when known.
    pub peak_memory_bytes: Option<u64>,
}

/// Runs the benchmark (see the module's comment).
///
/// # Errors
/// A build's error (an unwritable directory, a material the rules have no table for).
pub fn tablebase_bench(
    options: &TablebaseBenchOptions,
    on_event: &(dyn Fn(TablebaseBenchEvent) + Sync),
) -> Result<TablebaseBenchReport, TbError> {
    let (dir, temporary) = match &options.dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("antichess-bench-tb-{}", std::process::id())),
            true,
        ),
    };
    let result = run(options, &dir, on_event);
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

fn run(
    options: &TablebaseBenchOptions,
    dir: &std::path::Path,
    on_event: &(dyn Fn(TablebaseBenchEvent) + Sync),
) -> Result<TablebaseBenchReport, TbError> {
    let build_options = BuildOptions {
        rules: options.rules,
        dir: dir.to_path_buf(),
        threads: options.threads,
        strategy: Default::default(),
    };
    let progress = |e: BuildEvent| on_event(TablebaseBenchEvent::Build(e));
    let report = build(
        &Material::all_up_to(options.units),
        &build_options,
        &progress,
    )?;
    on_event(TablebaseBenchEvent::BuildEnded);
    let by_units = (2..=options.units)
        .filter_map(|n| {
            let (tables, positions, seconds) = report
                .built
                .iter()
                .filter(|b| b.material.units() == n)
                .fold((0usize, 0u64, 0f64), |acc, b| {
                    (acc.0 + 1, acc.1 + b.stats.positions, acc.2 + b.seconds)
                });
            (tables > 0).then(|| UnitsRow {
                units: n,
                tables,
                positions,
                seconds,
                positions_per_second: positions as f64 / seconds.max(1e-9),
            })
        })
        .collect();
    let mut tables = Vec::new();
    for &m in &options.tables {
        let deps: Vec<Material> = dependencies(&[m], options.rules)
            .into_iter()
            .filter(|d| *d != m.canonical().0)
            .collect();
        build(&deps, &build_options, &progress)?;
        let one = build(&[m], &build_options, &progress)?;
        on_event(TablebaseBenchEvent::BuildEnded);
        let built = one.built.first().map(TableFigures::of);
        tables.push(TableRow {
            material: one.built.first().map_or(m, |b| b.material).name(),
            present: built.is_none(),
            built,
        });
    }
    Ok(TablebaseBenchReport {
        rules: options.rules.to_string(),
        threads: if options.threads == 0 {
            rayon::current_num_threads()
        } else {
            options.threads
        },
        dir: dir.display().to_string(),
        by_units,
        tables_built: report.built.len(),
        tables_present: report.present,
        positions: report.positions,
        seconds: report.seconds,
        positions_per_second: report.positions as f64 / report.seconds.max(1e-9),
        table: tables.first().cloned(),
        tables,
        peak_memory_bytes: peak_resident(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_builds_the_unit_set_times_a_table_and_removes_its_directory() {
        let options = TablebaseBenchOptions {
            units: 2,
            tables: vec!["KRk".parse().unwrap()],
            rules: Rules::INTERNATIONAL,
            dir: None,
            threads: 1,
        };
        let ended = std::sync::atomic::AtomicUsize::new(0);
        let report = tablebase_bench(&options, &|e| {
            if matches!(e, TablebaseBenchEvent::BuildEnded) {
                ended.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .unwrap();
        assert_eq!(ended.into_inner(), 2);
        assert_eq!(report.by_units[0].units, 2);
        assert_eq!(report.tables_built, report.by_units[0].tables);
        let table = report.table.as_ref().unwrap();
        assert_eq!(table.material, "KRk");
        assert!(!table.present);
        assert!(table.built.as_ref().unwrap().positions > 1000);
        assert!(!std::path::Path::new(&report.dir).exists());
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["tables"][0]["material"], "KRk");
        assert_eq!(json["tables"][0]["present"], false);
        assert!(json["tables"][0]["file_bytes"].as_u64().unwrap() > 0);
    }
}
