//! Building a set of tables: the closure of what the requested tables' captures and
//! promotions lead to, in dependency order (fewer units first, then fewer pawns), skipping
//! tables already present (so an interrupted build resumes where it stopped).

use std::path::PathBuf;
use std::time::Instant;

use antichess_core::{PromotionRule, Role, Rules};

use crate::generate::{generate, GenEvent, GenStats, Strategy};
use crate::material::{sort_for_building, Material};
use crate::tablebase::Tablebase;
use crate::TbError;

/// Where and how to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub rules: Rules,
    pub dir: PathBuf,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Propagation strategy (the default chooses per table; the others exist for tests).
    pub strategy: Strategy,
}

/// Progress of a build.
#[derive(Debug, Clone)]
pub enum BuildEvent {
    /// The plan: `total` tables needed, `to_build` of them missing, with `positions`
    /// positions (both sides to move) to generate.
    Planned {
        total: usize,
        to_build: usize,
        positions: u64,
    },
    /// A table was already present and valid.
    Present(Material),
    /// Generation of a table started (`number` counts from 1 among the tables to build).
    Started {
        material: Material,
        number: usize,
        positions: u64,
    },
    /// Progress inside the current table.
    Generation(GenEvent),
    /// A table was written.
    Finished {
        material: Material,
        stats: GenStats,
        seconds: f64,
    },
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub built: Vec<(Material, GenStats, f64)>,
    /// Tables of the plan already present (and valid): their number, and which.
    pub present: usize,
    pub present_tables: Vec<Material>,
    pub positions: u64,
    pub seconds: f64,
}

fn promotion_roles(rules: Rules) -> &'static [Role] {
    match rules.promotion {
        PromotionRule::Any => &Role::PROMOTIONS,
        PromotionRule::QueenOnly => &[Role::Queen],
    }
}

/// The requested materials and everything they depend on, canonical, in build order.
#[must_use]
pub fn dependencies(targets: &[Material], rules: Rules) -> Vec<Material> {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
    let mut out = Vec::new();
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        out.push(m);
        for next in m.successors(promotion_roles(rules)) {
            stack.push(next.canonical().0);
        }
    }
    sort_for_building(&mut out);
    out
}

/// Builds the requested tables (and their dependencies) into `options.dir`.
pub fn build(
    targets: &[Material],
    options: &BuildOptions,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, TbError> {
    let start = Instant::now();
    if options.rules.is_royal() {
        return Err(TbError::Unsupported(format!(
            "tables for {}: the royal-king rule sets (pritchard3, pritchard4) have no \
             tablebase generator yet; search without tables (--tb-units 0)",
            options.rules
        )));
    }
    if let Some(m) = targets
        .iter()
        .find(|m| m.units() > crate::format::MAX_UNITS)
    {
        return Err(TbError::Unsupported(format!(
            "{m}: {} units; tables have at most {}",
            m.units(),
            crate::format::MAX_UNITS
        )));
    }
    let plan = dependencies(targets, options.rules);
    if !crate::tablebase::existing_dir(&options.dir)? {
        std::fs::create_dir_all(&options.dir).map_err(|e| TbError::io(&options.dir, e))?;
    }
    let mut tb = Tablebase::open(&options.dir, options.rules)?;
    let mut report = BuildReport::default();
    let mut missing = Vec::new();
    for m in &plan {
        // Loading checks the header, the rules and the checksum.
        if tb.table(m)?.is_some() {
            report.present += 1;
            report.present_tables.push(*m);
            progress(BuildEvent::Present(*m));
        } else {
            missing.push(*m);
        }
    }
    let positions: u64 = missing
        .iter()
        .map(|m| 2 * crate::index::TableIndex::new(m).size())
        .sum();
    progress(BuildEvent::Planned {
        total: plan.len(),
        to_build: missing.len(),
        positions,
    });
    for (i, m) in missing.iter().enumerate() {
        let t = Instant::now();
        progress(BuildEvent::Started {
            material: *m,
            number: i + 1,
            positions: 2 * crate::index::TableIndex::new(m).size(),
        });
        let (data, stats) = generate(
            m,
            options.rules,
            &tb,
            options.threads,
            options.strategy,
            &|e| progress(BuildEvent::Generation(e)),
        )?;
        let written = Instant::now();
        let path = data.write(&options.dir)?;
        if std::env::var_os("ANTICHESS_TB_TIMING").is_some() {
            eprintln!("{m}: written in {:?}", written.elapsed());
        }
        drop(data);
        tb.add_file(m, path);
        let seconds = t.elapsed().as_secs_f64();
        report.positions += stats.positions;
        report.built.push((*m, stats, seconds));
        progress(BuildEvent::Finished {
            material: *m,
            stats,
            seconds,
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}
