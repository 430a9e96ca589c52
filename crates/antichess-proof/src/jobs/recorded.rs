//! The tables a proof file records, as what to build ([`RecordedTables`]): the exact
//! materials and the bound ones for each side, read from the compact header alone, in the
//! stages `tb build --from-proof` builds them; and that command's report
//! ([`RecordedBuildReport`]: each stage's build, then each recorded table compared with
//! the file built), so that checking a shipped proof starts from one command; the job
//! itself is [`build_recorded`].

use std::fmt;
use std::path::Path;

use antichess_core::{Color, Rules};
use antichess_tb::jobs::build::{
    build_tables, TablesBuildEvent, TablesBuildOptions, TablesBuildReport,
};
use antichess_tb::{BuildOptions, Material, TableKind, Tablebase};
use serde::Serialize;

use super::{FileHead, JobError};
use crate::{
    compare_tables, Format, LeafOracle, ReferenceOptions, TableCheck, TableRecord, TableStatus,
    TablebaseOracle,
};

/// The tables a proof relies on, sorted into what `tb build` builds: exact tables first
/// (their dependencies come with them), then bound tables for White, then for Black.
#[derive(Debug, Clone)]
pub struct RecordedTables {
    /// The proof's rule set (the tables must be built under it).
    pub rules: Rules,
    /// The side the proof proves a win for.
    pub prover: Color,
    /// The exact tables' materials, in the file's order.
    pub exact: Vec<Material>,
    /// The materials of the bound tables making White's wins sure.
    pub bound_white: Vec<Material>,
    /// The materials of the bound tables making Black's wins sure.
    pub bound_black: Vec<Material>,
    /// The records themselves (material and checksum), to compare with the tables built.
    pub records: Vec<TableRecord>,
}

impl RecordedTables {
    /// Reads the table list of the compact proof file `path` (its header only).
    ///
    /// # Errors
    /// The file cannot be read, is not in the compact format, is of version 1 (which
    /// records no tables) and has tablebase leaves, or names a table that is not a
    /// material. A file without tablebase leaves needs no table, whatever its version.
    pub fn read(path: &Path) -> Result<RecordedTables, JobError> {
        let head = FileHead::read(path, None, &ReferenceOptions::default())?;
        let header = match (head.format, head.header) {
            (Format::Compact, Some(header)) => header,
            _ => {
                return Err(JobError::Invalid(format!(
                    "{} is in the reference format, which records no tables: give the \
                     materials to build",
                    path.display()
                )))
            }
        };
        if header.counts.tablebase == 0 {
            // No tablebase leaf: no table needed, whatever the version.
            return RecordedTables::from_records(&[], header.rules, header.prover)
                .map_err(JobError::Invalid);
        }
        if header.version < 2 {
            return Err(JobError::Invalid(format!(
                "{} is a compact proof of version {}, which records no tables: its tablebase \
                 leaves have up to {} units (`antichess tb build --units {}` builds every \
                 table of that size)",
                path.display(),
                header.version,
                header.tablebase_units,
                header.tablebase_units
            )));
        }
        RecordedTables::from_records(&header.tables, header.rules, header.prover)
            .map_err(|e| JobError::Invalid(format!("{}: {e}", path.display())))
    }

    /// The records sorted by kind (`material` names such as `KRk` or `RPPpp:bound-w`).
    ///
    /// # Errors
    /// A record's material part is not a material (the message names it).
    pub fn from_records(
        records: &[TableRecord],
        rules: Rules,
        prover: Color,
    ) -> Result<RecordedTables, String> {
        let mut tables = RecordedTables {
            rules,
            prover,
            exact: Vec::new(),
            bound_white: Vec::new(),
            bound_black: Vec::new(),
            records: records.to_vec(),
        };
        for record in records {
            let (name, kind) = TableKind::split_record(&record.material);
            let material: Material = name
                .parse()
                .map_err(|e| format!("the recorded table {:?}: {e}", record.material))?;
            match kind {
                TableKind::Exact => tables.exact.push(material),
                TableKind::Bound(Color::White) => tables.bound_white.push(material),
                TableKind::Bound(Color::Black) => tables.bound_black.push(material),
            }
        }
        Ok(tables)
    }

    /// The tables the proof at `path` records, counted by kind, as a line for people.
    #[must_use]
    pub fn counts_line(&self, path: &Path) -> String {
        format!(
            "{} records {} tables: {} exact, {} bound for White, {} bound for Black",
            path.display(),
            self.len(),
            self.exact.len(),
            self.bound_white.len(),
            self.bound_black.len()
        )
    }

    /// How many tables the proof records.
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the proof records no table (it needs none).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What to build, in order: the exact tables (`None`), then the bound tables of each
    /// side that has any. The exact stage holds the recorded exact materials and, before
    /// any bound table, the materials of at most [`EXACT_UNDER_BOUND`] units that the bound
    /// materials' captures lead to: a bound table's values depend on whether the tables
    /// below it are exact or bound, and the shipped proofs' bound tables were built over
    /// the complete exact set of 4 units (`tb build --units 4`), as `prove` builds them.
    #[must_use]
    pub fn stages(&self) -> Vec<(Option<Color>, Vec<Material>)> {
        let mut exact = self.exact.clone();
        for bound in self.bound_white.iter().chain(&self.bound_black) {
            for next in bound.successors(&[]) {
                let next = next.canonical().0;
                if next.units() <= EXACT_UNDER_BOUND
                    && !exact.iter().any(|m| m.canonical().0 == next)
                {
                    exact.push(next);
                }
            }
        }
        [
            (None, exact),
            (Some(Color::White), self.bound_white.clone()),
            (Some(Color::Black), self.bound_black.clone()),
        ]
        .into_iter()
        .filter(|(_, materials)| !materials.is_empty())
        .collect()
    }
}

/// The largest materials built exact under a proof's bound tables (see
/// [`RecordedTables::stages`]).
pub const EXACT_UNDER_BOUND: u32 = 4;

/// A stage's name: `exact`, `bound-white` or `bound-black`.
#[must_use]
pub fn stage_name(side: Option<Color>) -> &'static str {
    match side {
        None => "exact",
        Some(Color::White) => "bound-white",
        Some(Color::Black) => "bound-black",
    }
}

/// One stage of `tb build --from-proof`: which tables, and its build's report.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedStage {
    /// [`stage_name`].
    pub tables: &'static str,
    /// The stage's build summary, or a dry run's plan.
    pub report: TablesBuildReport,
}

/// What `tb build --from-proof` did: its stages, then (unless a dry run) each recorded
/// table compared with the file in the directory. The text is the comparison's: a line
/// for each table that is not the recorded one, then the count.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedBuildReport {
    /// The proof file.
    pub proof: String,
    /// The tables directory.
    pub dir: String,
    /// How many tables the proof records.
    pub recorded: usize,
    /// How many of them the directory holds with the recorded checksum (`None`: a dry
    /// run, not compared).
    pub same: Option<usize>,
    /// The stages, in build order.
    pub stages: Vec<RecordedStage>,
    /// Each recorded table against the directory's (empty for a dry run).
    pub tables: Vec<TableCheck>,
}

impl RecordedBuildReport {
    /// The report of the stages run for `proof`, whose tables are `recorded`; with
    /// `oracle` (the directory's tables, after a build), each recorded table compared.
    #[must_use]
    pub fn new(
        proof: &Path,
        dir: &Path,
        recorded: &RecordedTables,
        stages: Vec<RecordedStage>,
        oracle: Option<&dyn LeafOracle>,
    ) -> RecordedBuildReport {
        let tables = oracle.map_or_else(Vec::new, |o| compare_tables(&recorded.records, o));
        let same = oracle.map(|_| {
            tables
                .iter()
                .filter(|c| c.status == TableStatus::Same)
                .count()
        });
        RecordedBuildReport {
            proof: proof.display().to_string(),
            dir: dir.display().to_string(),
            recorded: recorded.len(),
            same,
            stages,
            tables,
        }
    }

    /// Whether every recorded table is in the directory with its recorded checksum (a dry
    /// run: never).
    #[must_use]
    pub fn complete(&self) -> bool {
        self.same == Some(self.recorded)
    }
}

impl fmt::Display for RecordedBuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.recorded == 0 {
            return write!(f, "{} relies on no table: nothing to build", self.proof);
        }
        let Some(same) = self.same else {
            return write!(
                f,
                "{} records {} tables (a dry run: nothing built, nothing compared)",
                self.proof, self.recorded
            );
        };
        for check in self.tables.iter().filter(|c| c.status != TableStatus::Same) {
            writeln!(f, "{}", check.describe())?;
        }
        write!(
            f,
            "{same} of the {} tables {} records are in {} with the recorded checksum",
            self.recorded, self.proof, self.dir
        )?;
        if self.complete() {
            write!(
                f,
                ": `antichess proof verify {} --tables {}` checks it",
                self.proof, self.dir
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(material: &str) -> TableRecord {
        TableRecord {
            material: material.to_string(),
            checksum: 1,
        }
    }

    #[test]
    fn records_sort_into_exact_and_each_sides_bound_tables() {
        let records = [
            record("KRk"),
            record("RPPpp:bound-w"),
            record("BNk"),
            record("KNPkp:bound-b"),
            record("RPPPk:bound-w"),
        ];
        let tables =
            RecordedTables::from_records(&records, Rules::INTERNATIONAL, Color::White).unwrap();
        let names = |m: &[Material]| m.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(names(&tables.exact), ["KRk", "BNk"]);
        assert_eq!(names(&tables.bound_white), ["RPPpp", "RPPPk"]);
        assert_eq!(names(&tables.bound_black), ["KNPkp"]);
        assert_eq!(tables.len(), 5);
        let stages = tables.stages();
        let sides: Vec<_> = stages.iter().map(|(side, _)| *side).collect();
        assert_eq!(sides, [None, Some(Color::White), Some(Color::Black)]);
        // Before the bound tables, the exact tables their captures lead to (of at most 4
        // units): RPPpp's captures give RPPp, RPpp, PPpp; KNPkp's give NPkp, KPkp, KNkp,
        // KNPp and KNPk; RPPPk's RPPP (one side bare: no table) and PPPk, RPPk.
        let exact = names(&stages[0].1);
        assert_eq!(exact[..2], ["KRk", "BNk"]);
        for m in ["RPPp", "KNPk", "KPkp", "RPPk"] {
            assert!(exact.iter().any(|e| e.as_str() == m), "{m} in {exact:?}");
        }
        assert!(exact.iter().all(|e| e.len() <= 4), "{exact:?}");
        assert_eq!(names(&stages[1].1), ["RPPpp", "RPPPk"]);
    }

    #[test]
    fn a_record_that_is_no_material_is_named() {
        let err = RecordedTables::from_records(
            &[record("KRk"), record("XYZ:bound-w")],
            Rules::INTERNATIONAL,
            Color::White,
        )
        .unwrap_err();
        assert!(err.contains("\"XYZ:bound-w\""), "{err}");
        let none = RecordedTables::from_records(&[], Rules::INTERNATIONAL, Color::Black).unwrap();
        assert!(none.is_empty() && none.stages().is_empty());
        assert_eq!(stage_name(Some(Color::Black)), "bound-black");
    }
}

/// What [`build_recorded`] tells as it goes.
#[derive(Debug)]
pub enum RecordedBuildEvent<'a> {
    /// The proof's tables, read before anything is built.
    Read(&'a RecordedTables),
    /// A stage begins: its build's options.
    Stage(&'a TablesBuildOptions),
    /// An event of that stage's build.
    Build(TablesBuildEvent),
    /// The stage ended with this report.
    Built(&'a TablesBuildOptions, &'a TablesBuildReport),
}

/// `tb build --from-proof`: builds the tables the compact proof at `path` records, stage
/// by stage ([`RecordedTables::stages`], each a [`build_tables`] job with `build`'s
/// directory, rules and threads; a dry run plans them), then compares each recorded
/// table with the file in the directory.
///
/// # Errors
/// The proof's table list cannot be read ([`RecordedTables::read`]); the proof's rules are
/// not `build.rules`; a build fails; the tables built cannot be opened.
pub fn build_recorded(
    path: &Path,
    build: &BuildOptions,
    dry_run: bool,
    on_event: &(dyn Fn(RecordedBuildEvent<'_>) + Sync),
) -> Result<RecordedBuildReport, JobError> {
    let recorded = RecordedTables::read(path)?;
    if recorded.rules != build.rules {
        return Err(JobError::Invalid(format!(
            "{} is a proof under the rules {}, the tables asked for are {}: give --rules {}",
            path.display(),
            recorded.rules,
            build.rules,
            recorded.rules
        )));
    }
    on_event(RecordedBuildEvent::Read(&recorded));
    let mut stages = Vec::new();
    for (side, materials) in recorded.stages() {
        let options = TablesBuildOptions {
            build: build.clone(),
            targets: materials,
            bound: side.map(|side| vec![side]),
            dry_run,
        };
        on_event(RecordedBuildEvent::Stage(&options));
        let report =
            build_tables(&options, &|e| on_event(RecordedBuildEvent::Build(e))).map_err(|e| {
                JobError::context(format!("building the tables of {}", path.display()), e)
            })?;
        on_event(RecordedBuildEvent::Built(&options, &report));
        stages.push(RecordedStage {
            tables: stage_name(side),
            report,
        });
    }
    let tablebase = if dry_run || recorded.is_empty() {
        None
    } else {
        let opened = Tablebase::open(&build.dir, build.rules);
        Some(opened.map_err(|e| JobError::context(format!("{}", build.dir.display()), e))?)
    };
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    Ok(RecordedBuildReport::new(
        path,
        &build.dir,
        &recorded,
        stages,
        oracle.as_ref().map(|o| o as &dyn LeafOracle),
    ))
}
