//! The `tb verify` job: [`verify_tables`] checks a set of tables of a directory (every one,
//! bound tables included, or those named) with [`verify_table_kind`], one after the other
//! on a pool of the threads asked for, and reports each as it finishes ([`VerifyRow`]) and
//! all of them at the end ([`VerifyTablesReport`], the JSON of `tb verify --format json`).
//! A table that cannot be opened as its material (or whose smaller tables cannot) is a
//! failure of that table; the others are still verified. Seconds are wall-clock time.

use std::path::PathBuf;
use std::time::Instant;

use antichess_core::Rules;
use serde::Serialize;

use crate::format::TableKind;
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::verify::verify_table_kind;
use crate::TbError;

/// What [`verify_tables`] checks.
#[derive(Debug, Clone)]
pub struct VerifyTablesOptions {
    pub dir: PathBuf,
    pub rules: Rules,
    /// The tables (material and kind, colours as given); `None`: every table of the
    /// directory, exact and bound.
    pub tables: Option<Vec<(Material, TableKind)>>,
    /// Worker threads (0 = all cores).
    pub threads: usize,
}

/// How a table's verification ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyStatus {
    /// Every position agrees with its successors.
    Ok,
    /// Some positions disagree.
    Mismatch,
    /// The table (or one it needs) could not be read.
    Error,
}

/// One table verified.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyRow {
    /// The canonical material with the kind's suffix (`KRk`, `KRk.bw`).
    pub material: String,
    /// Positions checked (absent after an error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    pub status: VerifyStatus,
    /// With a mismatch: how many positions disagree, and the first of them described.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatches: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<String>>,
    /// With an error: what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub seconds: f64,
}

/// What [`verify_tables`] found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyTablesReport {
    pub dir: String,
    pub rules: String,
    /// No table failed.
    pub ok: bool,
    /// Tables that failed (mismatch or error).
    pub failed: usize,
    pub tables: Vec<VerifyRow>,
}

/// Verifies the tables `options` names, calling `on_row` as each is done.
///
/// # Errors
/// The directory cannot be read, holds no table (with `tables: None`), or lacks one of
/// the tables named; a failing table is not an error but a row of the report.
pub fn verify_tables(
    options: &VerifyTablesOptions,
    on_row: &mut dyn FnMut(&VerifyRow),
) -> Result<VerifyTablesReport, TbError> {
    let dir = &options.dir;
    let tb = Tablebase::open(dir, options.rules)?;
    let tables = match &options.tables {
        Some(tables) => tables.clone(),
        None => {
            let mut all: Vec<_> = tb
                .materials()
                .into_iter()
                .map(|m| (m, TableKind::Exact))
                .collect();
            all.extend(tb.bound_tables());
            all
        }
    };
    if tables.is_empty() {
        return Err(TbError::Unsupported(format!(
            "no tables in {}",
            dir.display()
        )));
    }
    for &(m, kind) in &tables {
        let present = match kind {
            TableKind::Exact => tb.contains(&m),
            TableKind::Bound(c) => tb.bound_table(&m, c).map_or(true, |t| t.is_some()),
        };
        if !present {
            let (canonical, swapped) = m.canonical();
            let which = match kind.swapped(swapped) {
                TableKind::Exact => String::new(),
                kind => format!("{kind} "),
            };
            return Err(TbError::Unsupported(format!(
                "no {which}table for {canonical} in {}",
                dir.display()
            )));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| TbError::Unsupported(e.to_string()))?;
    let mut rows = Vec::new();
    for (m, kind) in tables {
        let start = Instant::now();
        let result = pool.install(|| verify_table_kind(&tb, &m, kind));
        let seconds = start.elapsed().as_secs_f64();
        let (canonical, swapped) = m.canonical();
        let material = format!(
            "{}{}",
            canonical.name(),
            kind.swapped(swapped).record_suffix()
        );
        let row = match result {
            Ok(report) => VerifyRow {
                material,
                positions: Some(report.positions),
                status: if report.mismatches == 0 {
                    VerifyStatus::Ok
                } else {
                    VerifyStatus::Mismatch
                },
                mismatches: (report.mismatches > 0).then_some(report.mismatches),
                examples: (report.mismatches > 0).then_some(report.examples),
                error: None,
                seconds,
            },
            Err(err) => VerifyRow {
                material,
                positions: None,
                status: VerifyStatus::Error,
                mismatches: None,
                examples: None,
                error: Some(err.to_string()),
                seconds,
            },
        };
        on_row(&row);
        rows.push(row);
    }
    let failed = rows.iter().filter(|r| r.status != VerifyStatus::Ok).count();
    Ok(VerifyTablesReport {
        dir: dir.display().to_string(),
        rules: options.rules.to_string(),
        ok: failed == 0,
        failed,
        tables: rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{build, BuildOptions};

    #[test]
    fn every_table_of_a_directory_verifies_and_a_missing_one_is_named() {
        let dir = std::env::temp_dir().join(format!("antichess-verify-set-{}", std::process::id()));
        let rules = Rules::INTERNATIONAL;
        let build_options = BuildOptions {
            rules,
            dir: dir.clone(),
            threads: 1,
            strategy: Default::default(),
        };
        build(&["KRk".parse().unwrap()], &build_options, &|_| {}).unwrap();
        let mut options = VerifyTablesOptions {
            dir: dir.clone(),
            rules,
            tables: None,
            threads: 1,
        };
        let mut seen = 0;
        let report = verify_tables(&options, &mut |_| seen += 1).unwrap();
        assert!(report.ok && report.failed == 0, "{report:?}");
        assert_eq!(seen, report.tables.len());
        assert!(report.tables.iter().any(|r| r.material == "KRk"));
        let json = serde_json::to_value(&report.tables[0]).unwrap();
        assert_eq!(json["status"], "ok");
        assert!(json.get("error").is_none() && json.get("mismatches").is_none());
        options.tables = Some(vec![("KQk".parse().unwrap(), TableKind::Exact)]);
        let err = verify_tables(&options, &mut |_| {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("no table for KQk in {}", dir.display())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
