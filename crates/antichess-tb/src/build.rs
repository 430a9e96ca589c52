//! Building a set of tables: the closure of what the requested tables' captures and
//! promotions lead to, in dependency order (fewer units first, then fewer pawns), skipping
//! tables already present (so an interrupted build resumes where it stopped: every file
//! is written under a temporary name and renamed when whole, and a file found is kept
//! after its header and checksum are checked; a damaged one is built again).
//!
//! [`plan`] says what a build would do without doing it; each table built reports its
//! time, positions, file size and the process's peak memory while it was built
//! ([`crate::memory`]).

use std::path::PathBuf;
use std::time::Instant;

use antichess_core::{PromotionRule, Role, Rules};

use antichess_core::Color;

use crate::format::TableKind;
use crate::generate::{generate, generate_kind, GenEvent, GenStats, Strategy};
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
    /// A table file was present but damaged (truncated, a bad checksum): it is built
    /// again. `reason` says what is wrong with it.
    Damaged { material: Material, reason: String },
    /// Generation of a table started (`number` counts from 1 among the tables to build).
    Started {
        material: Material,
        /// Exact, or a bound table ([`build_bounds`]).
        kind: TableKind,
        number: usize,
        positions: u64,
    },
    /// Progress inside the current table.
    Generation(GenEvent),
    /// A table was written: its figures.
    Finished(Built),
}

/// The figures of one table built.
#[derive(Debug, Clone)]
pub struct Built {
    pub material: Material,
    /// Exact, or a bound table ([`build_bounds`]).
    pub kind: TableKind,
    pub stats: GenStats,
    /// Generation and writing, in seconds.
    pub seconds: f64,
    /// The size of the file written.
    pub bytes: u64,
    /// The process's peak resident memory while the table was built (`None` where the
    /// system does not say, see [`crate::memory`]).
    pub peak_memory: Option<u64>,
}

/// One table of a [`plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanEntry {
    pub material: Material,
    /// Exact, or a bound table ([`bound_plan`]).
    pub kind: TableKind,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Whether a valid file is present (`false`: it would be built).
    pub present: bool,
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub built: Vec<Built>,
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

/// The tables `m`'s captures and promotions lead to, canonical, in build order.
#[must_use]
pub fn direct_dependencies(m: &Material, rules: Rules) -> Vec<Material> {
    if rules.is_royal() {
        let mut out = crate::royal::royal_successors(m, rules);
        sort_for_building(&mut out);
        return out;
    }
    let mut out: Vec<Material> = m
        .successors(promotion_roles(rules))
        .iter()
        .map(|n| n.canonical().0)
        .collect();
    sort_for_building(&mut out);
    out.dedup();
    out
}

/// The requested materials and everything they depend on, canonical, in build order.
///
/// Under a royal rule set, materials without a table (a bare king, or not one king per
/// side: decided by the rules) are left out, targets included.
#[must_use]
pub fn dependencies(targets: &[Material], rules: Rules) -> Vec<Material> {
    if rules.is_royal() {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<Material> = targets
            .iter()
            .filter(|m| crate::royal::royal_table_ok(m))
            .map(|m| m.canonical().0)
            .collect();
        while let Some(m) = stack.pop() {
            if seen.insert(m) {
                stack.extend(crate::royal::royal_successors(&m, rules));
            }
        }
        let mut out: Vec<Material> = seen.into_iter().collect();
        sort_for_building(&mut out);
        return out;
    }
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

/// Checks that `units` (an option given as `flag`, which the error names) is the size of
/// complete table sets that a solver can have built under `rules`: 0 (no tables) or 2 to
/// 5 (to [`ROYAL_MAX_UNITS`](crate::ROYAL_MAX_UNITS) under the royal-king rules).
///
/// # Errors
/// Another number, with the range allowed.
pub fn check_set_units(flag: &str, rules: Rules, units: u32) -> Result<(), String> {
    if units == 0 {
        return Ok(());
    }
    if rules.is_royal() && !(2..=crate::royal::ROYAL_MAX_UNITS).contains(&units) {
        return Err(format!(
            "{flag} {units}: choose 0 (no tables) or 2 to {} under {rules} (positions \
             with a bare king need no table)",
            crate::royal::ROYAL_MAX_UNITS
        ));
    }
    if !(2..=5).contains(&units) {
        return Err(format!("{flag} {units}: choose 0 (no tables) or 2 to 5"));
    }
    Ok(())
}

/// Refuses targets of more units than a table may have, and rule sets without a
/// generator.
fn check_targets(targets: &[Material], rules: Rules) -> Result<(), TbError> {
    if rules.is_royal() {
        if let Some(m) = targets
            .iter()
            .find(|m| m.units() > crate::royal::ROYAL_MAX_UNITS)
        {
            return Err(TbError::Unsupported(format!(
                "{m}: {} units; {rules} tables have at most {} (positions with a bare \
                 king need none)",
                m.units(),
                crate::royal::ROYAL_MAX_UNITS
            )));
        }
        return Ok(());
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
    Ok(())
}

/// Checks the targets and opens (creating it if needed) the build directory.
fn open_dir(targets: &[Material], options: &BuildOptions) -> Result<Tablebase, TbError> {
    check_targets(targets, options.rules)?;
    if !crate::tablebase::existing_dir(&options.dir)? {
        std::fs::create_dir_all(&options.dir).map_err(|e| TbError::io(&options.dir, e))?;
    }
    Tablebase::open(&options.dir, options.rules)
}

/// Whether `m`'s file in `tb` is present and valid: `Ok(None)` if missing,
/// `Ok(Some(reason))` if damaged (it may be rebuilt), an error if it cannot be used and
/// must not be overwritten (a table of other rules or another material under its name).
fn check_present(tb: &Tablebase, m: &Material) -> Result<Option<Option<String>>, TbError> {
    match tb.table(m) {
        Ok(Some(_)) => Ok(Some(None)),
        Ok(None) => Ok(None),
        Err(e @ TbError::Corrupt { .. }) => Ok(Some(Some(e.to_string()))),
        Err(e) => Err(e),
    }
}

/// Positions of a material's table, both sides to move.
#[must_use]
pub fn positions(m: &Material) -> u64 {
    2 * crate::index::TableIndex::new(m).size()
}

/// What [`build`] would do: every table of the plan in build order, with its positions
/// and whether a valid file is already present (files are checked as [`build`] checks
/// them). Creates nothing.
pub fn plan(targets: &[Material], options: &BuildOptions) -> Result<Vec<PlanEntry>, TbError> {
    check_targets(targets, options.rules)?;
    // A missing directory holds nothing; it is not created.
    let tb = Tablebase::open(&options.dir, options.rules)?;
    dependencies(targets, options.rules)
        .into_iter()
        .map(|m| {
            Ok(PlanEntry {
                material: m,
                kind: TableKind::Exact,
                positions: positions(&m),
                present: matches!(check_present(&tb, &m)?, Some(None)),
            })
        })
        .collect()
}

/// Builds the requested tables (and their dependencies) into `options.dir`.
pub fn build(
    targets: &[Material],
    options: &BuildOptions,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, TbError> {
    let start = Instant::now();
    let mut tb = open_dir(targets, options)?;
    let plan = dependencies(targets, options.rules);
    let mut report = BuildReport::default();
    let mut missing = Vec::new();
    for m in &plan {
        // Loading checks the header, the rules and the checksum.
        match check_present(&tb, m)? {
            Some(None) => {
                report.present += 1;
                report.present_tables.push(*m);
                progress(BuildEvent::Present(*m));
            }
            Some(Some(reason)) => {
                progress(BuildEvent::Damaged {
                    material: *m,
                    reason,
                });
                missing.push(*m);
            }
            None => missing.push(*m),
        }
    }
    let total: u64 = missing.iter().map(positions).sum();
    progress(BuildEvent::Planned {
        total: plan.len(),
        to_build: missing.len(),
        positions: total,
    });
    for (i, m) in missing.iter().enumerate() {
        progress(BuildEvent::Started {
            material: *m,
            kind: TableKind::Exact,
            number: i + 1,
            positions: positions(m),
        });
        let built = build_one(m, options, &mut tb, progress)?;
        report.positions += built.stats.positions;
        report.built.push(built.clone());
        progress(BuildEvent::Finished(built));
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Generates one table whose dependencies are all in `tb`, writes it atomically into
/// `options.dir` and registers it in `tb`.
pub fn build_one(
    m: &Material,
    options: &BuildOptions,
    tb: &mut Tablebase,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<Built, TbError> {
    check_targets(std::slice::from_ref(m), options.rules)?;
    let t = Instant::now();
    crate::memory::reset_peak();
    if options.rules.is_royal() {
        let (data, stats) = crate::royal::royal_generate(m, options.rules, tb, options.threads)?;
        let path = data.write(&options.dir)?;
        drop(data);
        return finish(m, TableKind::Exact, stats, t, path, tb);
    }
    let (data, stats) = generate(
        m,
        options.rules,
        tb,
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
    finish(m, TableKind::Exact, stats, t, path, tb)
}

/// Registers a written table and reports its figures.
fn finish(
    m: &Material,
    kind: TableKind,
    stats: GenStats,
    t: Instant,
    path: PathBuf,
    tb: &mut Tablebase,
) -> Result<Built, TbError> {
    let peak_memory = crate::memory::peak_resident();
    let bytes = std::fs::metadata(&path)
        .map_err(|e| TbError::io(&path, e))?
        .len();
    tb.add_kind_file(m, kind, path);
    Ok(Built {
        material: *m,
        kind,
        stats,
        seconds: t.elapsed().as_secs_f64(),
        bytes,
        peak_memory,
    })
}

/// The bound tables a bound build of `targets` (each a material and the colour whose wins
/// must be sure, in that material's colours as given) needs, canonical, in build order:
/// the targets and, recursively, every material their captures lead to that has no exact
/// table in `tb` (promotions are left open: they need no table). Targets with an exact
/// table are left out (a bound adds nothing to it).
#[must_use]
pub fn bound_dependencies(
    targets: &[(Material, Color)],
    tb: &Tablebase,
) -> Vec<(Material, TableKind)> {
    let canonical = |m: &Material, c: Color| {
        let (m, swapped) = m.canonical();
        (m, if swapped { c.other() } else { c })
    };
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<(Material, Color)> = targets
        .iter()
        .filter(|(m, _)| !tb.contains(m))
        .map(|(m, c)| canonical(m, *c))
        .collect();
    let mut out = Vec::new();
    while let Some((m, c)) = stack.pop() {
        if !seen.insert((m, c)) {
            continue;
        }
        out.push((m, c));
        for next in m.successors(&[]) {
            if !tb.contains(&next) {
                stack.push(canonical(&next, c));
            }
        }
    }
    let mut materials: Vec<Material> = out.iter().map(|(m, _)| *m).collect();
    sort_for_building(&mut materials);
    materials.dedup();
    let mut ordered = Vec::new();
    for m in materials {
        for c in Color::ALL {
            if seen.contains(&(m, c)) {
                ordered.push((m, TableKind::Bound(c)));
            }
        }
    }
    ordered
}

/// The plan of a bound build of `targets` in `options.dir` ([`bound_dependencies`]):
/// each table with its positions and whether it is present. With `check_files`, a table
/// is present when its file loads (header, rules, checksum: what a build checks first);
/// without, when a file is there (the build checks it again).
///
/// # Errors
/// The directory cannot be read.
pub fn bound_plan(
    targets: &[(Material, Color)],
    options: &BuildOptions,
    check_files: bool,
) -> Result<Vec<PlanEntry>, TbError> {
    let tb = Tablebase::open(&options.dir, options.rules)?;
    Ok(bound_dependencies(targets, &tb)
        .into_iter()
        .map(|(m, kind)| PlanEntry {
            material: m,
            kind,
            positions: positions(&m),
            present: match kind {
                TableKind::Bound(c) if check_files => {
                    tb.bound_table(&m, c).ok().flatten().is_some()
                }
                TableKind::Bound(c) => tb.has_bound_table(&m, c),
                TableKind::Exact => tb.contains(&m),
            },
        })
        .collect())
}

/// Builds bound tables ([`TableKind::Bound`]): for each target, the bound table for the
/// colour given (in the target's colours as written) and the bound tables of the
/// materials without an exact table its captures lead to ([`bound_dependencies`]), into
/// `options.dir`, skipping those present. Antichess rules only.
pub fn build_bounds(
    targets: &[(Material, Color)],
    options: &BuildOptions,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, TbError> {
    if options.rules.is_royal() {
        return Err(TbError::Unsupported(format!(
            "bound tables are built for antichess rules, not {}",
            options.rules
        )));
    }
    let start = Instant::now();
    let materials: Vec<Material> = targets.iter().map(|(m, _)| *m).collect();
    let mut tb = open_dir(&materials, options)?;
    let plan = bound_dependencies(targets, &tb);
    let mut report = BuildReport::default();
    let mut missing = Vec::new();
    for &(m, kind) in &plan {
        let TableKind::Bound(c) = kind else {
            unreachable!("a bound plan")
        };
        match tb.bound_table(&m, c) {
            Ok(Some(_)) => {
                report.present += 1;
                report.present_tables.push(m);
                progress(BuildEvent::Present(m));
            }
            Ok(None) => missing.push((m, kind)),
            Err(e @ TbError::Corrupt { .. }) => {
                progress(BuildEvent::Damaged {
                    material: m,
                    reason: e.to_string(),
                });
                missing.push((m, kind));
            }
            Err(e) => return Err(e),
        }
    }
    let total: u64 = missing.iter().map(|(m, _)| positions(m)).sum();
    progress(BuildEvent::Planned {
        total: plan.len(),
        to_build: missing.len(),
        positions: total,
    });
    for (i, &(m, kind)) in missing.iter().enumerate() {
        progress(BuildEvent::Started {
            material: m,
            kind,
            number: i + 1,
            positions: positions(&m),
        });
        let t = Instant::now();
        crate::memory::reset_peak();
        let (data, stats) = generate_kind(
            &m,
            options.rules,
            kind,
            &tb,
            options.threads,
            options.strategy,
            &|e| progress(BuildEvent::Generation(e)),
        )?;
        let path = data.write(&options.dir)?;
        drop(data);
        let built = finish(&m, kind, stats, t, path, &mut tb)?;
        report.positions += built.stats.positions;
        report.built.push(built.clone());
        progress(BuildEvent::Finished(built));
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}
