//! Building Lasker tables: the closure of what the requested tables' captures and
//! promotions (to queen, rook, bishop or knight) lead to, keeping both kings, in the build
//! order of the antichess tables (fewer units first, then fewer pawns), skipping tables
//! already present so that an interrupted build resumes. Each table is generated with
//! only the tables it probes in memory (docs/research/lasker-engine.md, "Memory").

use std::path::Path;
use std::time::Instant;

use antichess_core::Role;

use super::format::lasker_file_name;
use super::generate::{lasker_generate, LaskerGenStats};
use super::lasker_material_ok;
use super::probe::LaskerTablebase;
use crate::index::TableIndex;
use crate::material::{sort_for_building, Material};
use crate::TbError;

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Progress of a Lasker build.
#[derive(Debug, Clone)]
pub enum LaskerBuildEvent {
    /// `total` tables in the plan, `to_build` of them missing.
    Planned { total: usize, to_build: usize },
    /// Generation of a table started (`number` counts from 1).
    Started { material: Material, number: usize },
    /// A table was written.
    Finished {
        material: Material,
        stats: LaskerGenStats,
        seconds: f64,
    },
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct LaskerBuildReport {
    pub built: Vec<(Material, LaskerGenStats, f64)>,
    pub present_tables: Vec<Material>,
    pub seconds: f64,
}

/// The requested materials and every material with both kings they lead to, canonical,
/// in build order (the kings-only material needs no table and is left out).
pub fn lasker_dependencies(targets: &[Material]) -> Result<Vec<Material>, TbError> {
    let mut seen = std::collections::HashSet::new();
    let mut stack = Vec::new();
    for m in targets {
        if !lasker_material_ok(m) {
            return Err(TbError::Unsupported(format!(
                "{m}: a Lasker table needs exactly one king per side and at least one other man"
            )));
        }
        stack.push(m.canonical().0);
    }
    let mut out = Vec::new();
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        out.push(m);
        for next in m.successors(&PROMOTIONS) {
            if lasker_material_ok(&next) {
                stack.push(next.canonical().0);
            }
        }
    }
    sort_for_building(&mut out);
    Ok(out)
}

/// Bytes per position (both sides to move) the generator keeps while generating: a 16-bit
/// word and a mark bit (docs/research/lasker-engine.md, "Memory").
pub const LASKER_GEN_BYTES_PER_POSITION: f64 = 2.125;

/// The peak memory `lasker_generate` and the file writer are expected to need for
/// `material`, in bytes: while generating, the words and marks of its positions plus the
/// tables its captures and promotions lead to, loaded whole (two bytes per position);
/// while writing (those tables dropped), the codes (two bytes per position, compressed
/// without a copy) and the compressed image. En passant nodes (under 1 % of the
/// positions) and the compressed image are left out, so generating is the peak.
#[must_use]
pub fn lasker_memory_estimate(material: &Material) -> u64 {
    let positions = 2 * TableIndex::new(material).size();
    let mut children: Vec<Material> = material
        .successors(&PROMOTIONS)
        .into_iter()
        .filter(lasker_material_ok)
        .map(|m| m.canonical().0)
        .collect();
    children.sort();
    children.dedup();
    let loaded: u64 = children
        .iter()
        .map(|c| 2 * 2 * TableIndex::new(c).size())
        .sum();
    (positions as f64 * LASKER_GEN_BYTES_PER_POSITION) as u64 + loaded
}

/// Builds the requested Lasker tables and their dependencies into `dir`.
pub fn lasker_build(
    targets: &[Material],
    dir: &Path,
    threads: usize,
    progress: &(dyn Fn(LaskerBuildEvent) + Sync),
) -> Result<LaskerBuildReport, TbError> {
    let start = Instant::now();
    if let Some(m) = targets.iter().find(|m| m.units() > 5) {
        return Err(TbError::Unsupported(format!(
            "{m}: {} men; Lasker tables have at most 5",
            m.units()
        )));
    }
    let plan = lasker_dependencies(targets)?;
    if !crate::tablebase::existing_dir(dir)? {
        std::fs::create_dir_all(dir).map_err(|e| TbError::io(dir, e))?;
    }
    // Presence is read from the file names; a table is loaded (and its checksum checked)
    // only when a table being built probes it.
    let present = LaskerTablebase::open(dir)?;
    let mut report = LaskerBuildReport::default();
    let mut missing = Vec::new();
    for m in &plan {
        if present.contains(m) {
            report.present_tables.push(*m);
        } else {
            missing.push(*m);
        }
    }
    drop(present);
    progress(LaskerBuildEvent::Planned {
        total: plan.len(),
        to_build: missing.len(),
    });
    for (i, m) in missing.iter().enumerate() {
        let t = Instant::now();
        progress(LaskerBuildEvent::Started {
            material: *m,
            number: i + 1,
        });
        // A fresh view of the directory per table: it loads the tables this one probes
        // and is dropped before the file is written, so no table stays in memory from
        // one build to the next.
        let children = LaskerTablebase::open(dir)?;
        let (data, stats) = lasker_generate(m, &children, threads)?;
        drop(children);
        data.write(dir)?;
        debug_assert!(dir.join(lasker_file_name(m)).exists());
        drop(data);
        let seconds = t.elapsed().as_secs_f64();
        report.built.push((*m, stats, seconds));
        progress(LaskerBuildEvent::Finished {
            material: *m,
            stats,
            seconds,
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}
