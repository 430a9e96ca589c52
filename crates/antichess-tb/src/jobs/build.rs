//! The `tb build` job for antichess tables: [`build_tables`] builds the tables asked for
//! (exact, or bound tables for the sides given) with their dependencies, or with
//! [`TablesBuildOptions::dry_run`] only lists its plan. Before a build it reports the
//! plan's size once ([`TablesBuildEvent::Planned`], when there is anything to build), then
//! the build's progress; it ends with one serializable report ([`BuildSummary`], the JSON
//! of `tb build`, or the dry run's [`PlanReport`]).

use antichess_core::Color;
use serde::Serialize;

use crate::build::{
    bound_plan, build, build_bounds, dependencies, plan, positions, BuildEvent, BuildOptions,
    BuildReport,
};
use crate::error::TbError;
use crate::format::TableKind;
use crate::jobs::plan::{dependencies_note, PlanReport, PlanSize};
use crate::material::Material;
use crate::tablebase::Tablebase;

/// What [`build_tables`] builds.
#[derive(Debug, Clone)]
pub struct TablesBuildOptions {
    /// Where and how.
    pub build: BuildOptions,
    /// The materials asked for (their dependencies come with them).
    pub targets: Vec<Material>,
    /// `None`: exact tables; else the bound tables making sure of these sides' wins
    /// (colours as the targets are written).
    pub bound: Option<Vec<Color>>,
    /// List the plan, build nothing.
    pub dry_run: bool,
}

/// What [`build_tables`] reports as it goes.
#[derive(Debug, Clone)]
pub enum TablesBuildEvent {
    /// Before a build with tables to build: the plan's totals ([`PlanSize::line`]), the
    /// [`dependencies_note`] of an exact build, and the [`PlanSize::warnings`].
    Planned {
        /// The totals as one line.
        summary: String,
        /// How much of the build are dependencies, when most of it.
        note: Option<String>,
        /// What makes the build one to think about first.
        warnings: Vec<String>,
    },
    /// Progress of the build.
    Build(BuildEvent),
}

/// How [`build_tables`] ended (as JSON: the plan or the summary itself).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum TablesBuildReport {
    /// A dry run's plan.
    Plan(PlanReport),
    /// What a build did.
    Built(BuildSummary),
}

/// One table of a build: present already, or built.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum BuildRow {
    /// Present (and valid) before the build.
    Present {
        /// The material's name.
        material: String,
        /// Positions, both sides to move.
        positions: u64,
        /// `"present"`.
        status: &'static str,
    },
    /// Built now.
    Built {
        /// The material's name.
        material: String,
        /// Exact, or which bound table.
        kind: String,
        /// Positions, both sides to move.
        positions: u64,
        /// `"built"`.
        status: &'static str,
        /// Generation and writing.
        seconds: f64,
        /// The file's size.
        bytes: u64,
        /// The process's peak resident memory while it was built, when known.
        peak_memory: Option<u64>,
    },
}

/// What a build did (the JSON of `tb build`): a row per table present or built.
#[derive(Debug, Clone, Serialize)]
pub struct BuildSummary {
    /// The tables directory.
    pub dir: String,
    /// The rule set.
    pub rules: String,
    /// Tables built.
    pub built: usize,
    /// Tables already present.
    pub present: usize,
    /// Positions generated.
    pub positions: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// The tables present, then those built.
    pub tables: Vec<BuildRow>,
}

impl BuildSummary {
    /// The summary of `report`, a build into `options.dir`.
    #[must_use]
    pub fn new(report: &BuildReport, options: &BuildOptions) -> BuildSummary {
        let mut tables: Vec<BuildRow> = report
            .present_tables
            .iter()
            .map(|m| BuildRow::Present {
                material: m.name(),
                positions: positions(m),
                status: "present",
            })
            .collect();
        tables.extend(report.built.iter().map(|b| BuildRow::Built {
            material: b.material.name(),
            kind: b.kind.to_string(),
            positions: b.stats.positions,
            status: "built",
            seconds: b.seconds,
            bytes: b.bytes,
            peak_memory: b.peak_memory,
        }));
        BuildSummary {
            dir: options.dir.display().to_string(),
            rules: options.rules.to_string(),
            built: report.built.len(),
            present: report.present,
            positions: report.positions,
            seconds: report.seconds,
            tables,
        }
    }

    /// Positions generated per second.
    #[must_use]
    pub fn rate(&self) -> f64 {
        self.positions as f64 / self.seconds.max(1e-9)
    }
}

/// Builds the tables of `options` (or lists their plan), reporting through `on_event`.
///
/// # Errors
/// A material the rules have no table for, the directory cannot be read or written, or a
/// table fails to build.
pub fn build_tables(
    options: &TablesBuildOptions,
    on_event: &(dyn Fn(TablesBuildEvent) + Sync),
) -> Result<TablesBuildReport, TbError> {
    let build_options = &options.build;
    let progress = |e: BuildEvent| on_event(TablesBuildEvent::Build(e));
    let Some(sides) = &options.bound else {
        if options.dry_run {
            let plan = plan(&options.targets, build_options)?;
            return Ok(TablesBuildReport::Plan(PlanReport::new(
                &plan,
                build_options,
                Some(&options.targets),
            )));
        }
        // A table counts as present when its file is there (the build checks it again).
        let tb = Tablebase::open(&build_options.dir, build_options.rules)?;
        let rows: Vec<(Material, u64, bool)> = dependencies(&options.targets, build_options.rules)
            .into_iter()
            .map(|m| (m, positions(&m), tb.contains(&m)))
            .collect();
        let note = dependencies_note(&options.targets, &rows);
        let size = PlanSize::of(rows, build_options.rules.is_royal());
        announce(&size, "tables", note, build_options, on_event);
        let report = build(&options.targets, build_options, &progress)?;
        return Ok(TablesBuildReport::Built(BuildSummary::new(
            &report,
            build_options,
        )));
    };
    let pairs: Vec<(Material, Color)> = options
        .targets
        .iter()
        .flat_map(|m| sides.iter().map(move |&c| (*m, c)))
        .collect();
    // (A dry run checks each file as the build will; before a build, a file that is there
    // counts, the build checking it again.)
    let plan = bound_plan(&pairs, build_options, options.dry_run)?;
    if options.dry_run {
        return Ok(TablesBuildReport::Plan(PlanReport::new(
            &plan,
            build_options,
            None,
        )));
    }
    let size = PlanSize::of_plan(&plan, false);
    announce(&size, "bound tables", None, build_options, on_event);
    let report = build_bounds(&pairs, build_options, &progress)?;
    Ok(TablesBuildReport::Built(BuildSummary::new(
        &report,
        build_options,
    )))
}

/// [`TablesBuildEvent::Planned`], when there is anything to build.
fn announce(
    size: &PlanSize,
    noun: &str,
    note: Option<String>,
    options: &BuildOptions,
    on_event: &(dyn Fn(TablesBuildEvent) + Sync),
) {
    if size.to_build > 0 {
        on_event(TablesBuildEvent::Planned {
            summary: size.line(noun, &options.dir),
            note,
            warnings: size.warnings(),
        });
    }
}

/// Whose wins a bound table makes sure (`tb build --bound`, `tb verify --bound`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum BoundSide {
    /// White's wins are sure (promotions count against White): what proving a White win
    /// needs.
    White,
    /// Black's wins are sure.
    Black,
    /// Both bound tables.
    Both,
}

impl BoundSide {
    /// The bound tables of one side: the prover's.
    #[must_use]
    pub fn of(prover: Color) -> BoundSide {
        match prover {
            Color::White => BoundSide::White,
            Color::Black => BoundSide::Black,
        }
    }

    /// The sides whose bound tables are meant.
    #[must_use]
    pub fn colors(self) -> &'static [Color] {
        match self {
            BoundSide::White => &[Color::White],
            BoundSide::Black => &[Color::Black],
            BoundSide::Both => &Color::ALL,
        }
    }
}

/// The tables of `kind` a bound build of `sides` asks for, as [`crate::verify_tables`]
/// names them: each material once per side.
#[must_use]
pub fn bound_kinds(materials: &[Material], sides: &[Color]) -> Vec<(Material, TableKind)> {
    materials
        .iter()
        .flat_map(|&m| sides.iter().map(move |&c| (m, TableKind::Bound(c))))
        .collect()
}
