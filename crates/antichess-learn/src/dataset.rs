//! The data set job, [`build_dataset`]: rows of features of positions whose winner is known,
//! taken from proof files, from PGN files of decided games and from tablebases.
//!
//! - **A proof file** is one source, named by the file's stem (`e3-c6`). Every node that is
//!   not a reference gives a row: the prover wins every position of a proof, so the label
//!   is 1 when the prover is to move and 0 otherwise; the cost is the size of the node's
//!   subtree in the proof (its nodes in preorder, itself included), a measure of how hard
//!   the win is to show. A position met twice in one proof gives one row (the first).
//!   A proof with more distinct positions than [`DatasetOptions::max_rows_per_source`]
//!   gives a deterministic sample: the positions whose key, mixed with the seed, hashes
//!   lowest, so the same files and seed always give the same rows.
//! - **A PGN file of games** is one source, named by its stem: every position of a decided
//!   game from ply [`DatasetOptions::games_skip_plies`] on, but not the last nor one with a
//!   single legal move, labelled by the game's result (module `games`); cost 0.
//! - **Tables** are one source, `tables`: for each material of at most
//!   [`DatasetOptions::table_units`] units whose table is present, random legal positions
//!   (drawn from the seed and the material, so adding tables changes no other material's
//!   draws), labelled by the table (draws are skipped); cost 0.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_eval::{features, FEATURE_COUNT};
use antichess_proof::{read_proof_file, NodeKind, ProofTree, ReferenceOptions};
use antichess_tb::{Material, Tablebase, Wdl};
use serde::Serialize;

use crate::games::PgnReader;
use crate::LearnError;

/// The name of the tables' source.
pub const TABLES_SOURCE: &str = "tables";

/// One position of the data set.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The features ([`antichess_eval::FEATURES`] order), from the side to move's view.
    pub features: [f32; FEATURE_COUNT],
    /// 1 if the side to move wins, 0 if it loses.
    pub label: f32,
    /// The size of the position's subtree in its proof (0 for a table or game position).
    pub cost: u64,
    /// Pieces on the board.
    pub units: u8,
    /// The source: a proof or PGN file's stem, or `tables`. Shared between the rows of a
    /// source.
    pub source: Arc<str>,
}

impl Row {
    /// A row of `pos`, labelled by whether the side to move wins.
    #[must_use]
    pub fn of(pos: &Position, wins: bool, cost: u64, source: Arc<str>) -> Row {
        Row {
            features: features(pos),
            label: if wins { 1.0 } else { 0.0 },
            cost,
            units: pos.board().occupied().count() as u8,
            source,
        }
    }
}

/// What [`build_dataset`] reads.
#[derive(Debug, Clone)]
pub struct DatasetOptions {
    /// Proof files (either format; a reference-format file is read with the default
    /// rules and prover). Each is one source, named by its file stem; two files of one stem
    /// are refused.
    pub proofs: Vec<PathBuf>,
    /// PGN files of played games, each holding any number of games. Each is one source,
    /// named by its file stem (a stem shared with a proof or another PGN file is refused).
    pub games: Vec<PathBuf>,
    /// The first ply of a game whose position gives a row (0: the start position on).
    pub games_skip_plies: u32,
    /// A directory of tablebase files to sample, if any.
    pub tables: Option<PathBuf>,
    /// The rules of the tables, and of the games without a `Variant` tag (the proofs carry
    /// their own).
    pub rules: Rules,
    /// The most units of a material the tables are sampled for.
    pub table_units: u32,
    /// Random positions drawn per material (draws and positions the tables do not answer
    /// are then skipped, and repeats counted once).
    pub table_samples: u32,
    /// The most rows a source gives (0: no limit).
    pub max_rows_per_source: u64,
    /// The seed of the samples.
    pub seed: u64,
}

impl Default for DatasetOptions {
    fn default() -> DatasetOptions {
        DatasetOptions {
            proofs: Vec::new(),
            games: Vec::new(),
            games_skip_plies: 4,
            tables: None,
            rules: Rules::INTERNATIONAL,
            table_units: 4,
            table_samples: 1000,
            max_rows_per_source: 0,
            seed: 1,
        }
    }
}

/// What kind of source a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A proof file.
    Proof,
    /// A PGN file of games.
    Games,
    /// Tablebase samples.
    Tables,
}

/// Progress of [`build_dataset`].
#[derive(Debug, Clone)]
pub enum DatasetEvent {
    /// A source is being read.
    SourceStarted {
        /// Its name.
        source: String,
        /// Its kind.
        kind: SourceKind,
        /// The proof or PGN file, or the tables directory.
        path: String,
    },
    /// A source is done.
    SourceFinished(SourceReport),
}

/// What one source gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceReport {
    /// Its name (a proof or PGN file's stem, or `tables`).
    pub source: String,
    /// Its kind.
    pub kind: SourceKind,
    /// The proof or PGN file, or the tables directory.
    pub path: String,
    /// Proof nodes read (references included), positions drawn from the tables, or plies
    /// of the decided games played.
    pub nodes: u64,
    /// Distinct positions with a known winner (before the sample); of games, the
    /// positions that give a row, a recurring position counted each time.
    pub positions: u64,
    /// Rows kept.
    pub rows: u64,
    /// Rows whose side to move wins.
    pub wins: u64,
    /// Rows whose side to move loses.
    pub losses: u64,
    /// Games read from a PGN file (`None` for other sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    /// Games of a PGN file skipped: drawn or unfinished (`None` for other sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_skipped: Option<u64>,
    /// Time spent on the source.
    pub seconds: f64,
}

/// What [`build_dataset`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetReport {
    /// Per source, in the order read (proofs as given, then PGN files as given, then the
    /// tables).
    pub sources: Vec<SourceReport>,
    /// All rows.
    pub rows: u64,
    /// Rows whose side to move wins.
    pub wins: u64,
    /// Rows whose side to move loses.
    pub losses: u64,
    /// The seed of the samples.
    pub seed: u64,
    /// The limit of rows per source (0: none).
    pub max_rows_per_source: u64,
    /// Time spent.
    pub seconds: f64,
}

/// Builds the data set: the rows of every proof in `options.proofs` (in order), then of
/// every PGN file in `options.games` (in order), then of the tables. See the module
/// documentation for what a row is.
///
/// # Errors
/// A proof file that cannot be read or replayed, a PGN file that cannot be read or holds a
/// game that cannot be played, two sources of one stem, tables that cannot be opened or
/// probed.
pub fn build_dataset(
    options: &DatasetOptions,
    on_event: &mut dyn FnMut(DatasetEvent),
) -> Result<(Vec<Row>, DatasetReport), LearnError> {
    let start = Instant::now();
    let mut names: HashMap<String, PathBuf> = HashMap::new();
    let mut planned = Vec::new();
    let files = options
        .proofs
        .iter()
        .map(|p| (p, SourceKind::Proof))
        .chain(options.games.iter().map(|p| (p, SourceKind::Games)));
    for (path, kind) in files {
        let name = source_name(path)?;
        if let Some(other) = names.insert(name.clone(), path.clone()) {
            return Err(LearnError::Invalid(format!(
                "{} and {} are both source \"{name}\" (sources are named by the file stem)",
                other.display(),
                path.display()
            )));
        }
        planned.push((name, path, kind));
    }
    if options.tables.is_some() && names.contains_key(TABLES_SOURCE) {
        return Err(LearnError::Invalid(format!(
            "a proof or PGN file is named \"{TABLES_SOURCE}\", the name of the tables' source"
        )));
    }
    let mut rows = Vec::new();
    let mut reports = Vec::new();
    for (name, path, kind) in planned {
        on_event(DatasetEvent::SourceStarted {
            source: name.clone(),
            kind,
            path: path.display().to_string(),
        });
        let report = if kind == SourceKind::Games {
            game_rows(path, &name, options, &mut rows)?
        } else {
            proof_rows(path, &name, options, &mut rows)?
        };
        on_event(DatasetEvent::SourceFinished(report.clone()));
        reports.push(report);
    }
    if let Some(dir) = &options.tables {
        on_event(DatasetEvent::SourceStarted {
            source: TABLES_SOURCE.to_string(),
            kind: SourceKind::Tables,
            path: dir.display().to_string(),
        });
        let report = table_rows(dir, options, &mut rows)?;
        on_event(DatasetEvent::SourceFinished(report.clone()));
        reports.push(report);
    }
    let wins = reports.iter().map(|r| r.wins).sum();
    let losses = reports.iter().map(|r| r.losses).sum();
    let report = DatasetReport {
        sources: reports,
        rows: rows.len() as u64,
        wins,
        losses,
        seed: options.seed,
        max_rows_per_source: options.max_rows_per_source,
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok((rows, report))
}

/// A proof or PGN file's source name: its stem.
fn source_name(path: &Path) -> Result<String, LearnError> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or_else(|| {
            LearnError::Invalid(format!(
                "{}: no file name to name the source",
                path.display()
            ))
        })
}

/// SplitMix64's finaliser: the hash of the samples.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The sample hash of a position key under `seed`.
pub(crate) fn sample_hash(key: u64, seed: u64) -> u64 {
    mix(key ^ mix(seed))
}

/// The rows a source keeps of those it offers, in one pass: at most `limit` (0: all), those
/// of lowest [`sample_hash`], a tie going to the row offered first; kept in the order
/// offered. Of distinct positions (distinct hashes: the hash is a bijection of the key)
/// this is the proofs' and the tables' sample; a position offered several times (a game
/// position) is kept as often as it was offered, up to the limit.
pub(crate) struct Sample {
    limit: u64,
    offered: u64,
    /// With a limit: the rows kept so far, the highest (hash, order) on top.
    heap: std::collections::BinaryHeap<Candidate>,
    /// Without a limit: every row.
    all: Vec<Row>,
}

/// A row waiting in a [`Sample`], ordered by (hash, order offered).
struct Candidate {
    hash: u64,
    order: u64,
    row: Row,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Candidate) -> bool {
        (self.hash, self.order) == (other.hash, other.order)
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Candidate) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Candidate) -> std::cmp::Ordering {
        (self.hash, self.order).cmp(&(other.hash, other.order))
    }
}

impl Sample {
    /// A sample of at most `limit` rows (0: no limit).
    pub(crate) fn new(limit: u64) -> Sample {
        Sample {
            limit,
            offered: 0,
            heap: std::collections::BinaryHeap::new(),
            all: Vec::new(),
        }
    }

    /// Offers the row `make` builds, of sample hash `hash` (built only if kept for now).
    pub(crate) fn offer(&mut self, hash: u64, make: impl FnOnce() -> Row) {
        let order = self.offered;
        self.offered += 1;
        if self.limit == 0 {
            self.all.push(make());
            return;
        }
        if self.heap.len() as u64 == self.limit {
            // A later row loses a tie: only a lower hash displaces the top.
            if self.heap.peek().is_some_and(|top| hash >= top.hash) {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Candidate {
            hash,
            order,
            row: make(),
        });
    }

    /// The rows offered so far.
    pub(crate) fn offered(&self) -> u64 {
        self.offered
    }

    /// Appends the kept rows to `rows` in the order offered, showing each to `count`; how
    /// many.
    pub(crate) fn finish(self, rows: &mut Vec<Row>, mut count: impl FnMut(&Row)) -> u64 {
        let kept = if self.limit == 0 {
            self.all
        } else {
            let mut kept = self.heap.into_vec();
            kept.sort_unstable_by_key(|c| c.order);
            kept.into_iter().map(|c| c.row).collect()
        };
        let n = kept.len() as u64;
        for row in kept {
            count(&row);
            rows.push(row);
        }
        n
    }
}

/// For each node, the number of nodes of its subtree in preorder (itself included).
fn subtree_sizes(tree: &ProofTree) -> Vec<u64> {
    let nodes = tree.nodes();
    let n = nodes.len();
    let mut sizes = vec![0u64; n];
    // (node, children left)
    let mut open: Vec<(usize, u32)> = Vec::new();
    for i in 0..n {
        if let Some(top) = open.last_mut() {
            top.1 -= 1;
        }
        let leaf = match nodes[i].kind {
            NodeKind::Prover => {
                open.push((i, 1));
                false
            }
            NodeKind::Opponent { children } if children > 0 => {
                open.push((i, u32::from(children)));
                false
            }
            _ => true,
        };
        if leaf {
            sizes[i] = 1;
            // Close every internal node whose last child's subtree ends here.
            while let Some(&(j, 0)) = open.last() {
                sizes[j] = (i + 1 - j) as u64;
                open.pop();
            }
        }
    }
    sizes
}

/// The rows of one proof file, appended to `rows`.
fn proof_rows(
    path: &Path,
    name: &str,
    options: &DatasetOptions,
    rows: &mut Vec<Row>,
) -> Result<SourceReport, LearnError> {
    let start = Instant::now();
    let proof_error = |source| LearnError::Proof {
        path: path.display().to_string(),
        source,
    };
    let tree = read_proof_file(path, None, &ReferenceOptions::default()).map_err(proof_error)?;
    let prover = tree.prover();
    let nodes = tree.nodes();
    let sizes = subtree_sizes(&tree);
    // First pass: the distinct positions' sample hashes, to find the sample's threshold.
    let mut seen: HashSet<u64> = HashSet::new();
    let mut hashes: Vec<u64> = Vec::new();
    tree.for_each_position(|i, pos, _| {
        if !matches!(nodes[i].kind, NodeKind::Reference { .. }) && seen.insert(pos.key()) {
            hashes.push(sample_hash(pos.key(), options.seed));
        }
        Ok(())
    })
    .map_err(proof_error)?;
    let positions = hashes.len() as u64;
    let limit = options.max_rows_per_source;
    let threshold = if limit > 0 && positions > limit {
        let k = limit as usize - 1;
        *hashes.select_nth_unstable(k).1
    } else {
        u64::MAX
    };
    drop(hashes);
    // Second pass: the rows.
    seen.clear();
    let source: Arc<str> = Arc::from(name);
    let (mut wins, mut losses, mut kept) = (0u64, 0u64, 0u64);
    tree.for_each_position(|i, pos, _| {
        if matches!(nodes[i].kind, NodeKind::Reference { .. }) || !seen.insert(pos.key()) {
            return Ok(());
        }
        if sample_hash(pos.key(), options.seed) > threshold {
            return Ok(());
        }
        let prover_to_move = pos.turn() == prover;
        if prover_to_move {
            wins += 1;
        } else {
            losses += 1;
        }
        kept += 1;
        rows.push(Row::of(pos, prover_to_move, sizes[i], source.clone()));
        Ok(())
    })
    .map_err(proof_error)?;
    Ok(SourceReport {
        source: name.to_string(),
        kind: SourceKind::Proof,
        path: path.display().to_string(),
        nodes: nodes.len() as u64,
        positions,
        rows: kept,
        wins,
        losses,
        games: None,
        games_skipped: None,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The rows of one PGN file, appended to `rows`.
fn game_rows(
    path: &Path,
    name: &str,
    options: &DatasetOptions,
    rows: &mut Vec<Row>,
) -> Result<SourceReport, LearnError> {
    let start = Instant::now();
    let display = path.display().to_string();
    let file = File::open(path).map_err(|e| LearnError::io(format!("reading {display}"), e))?;
    let mut reader = PgnReader::new(BufReader::with_capacity(1 << 16, file), &display);
    let source: Arc<str> = Arc::from(name);
    let mut sample = Sample::new(options.max_rows_per_source);
    let (mut games, mut skipped, mut plies) = (0u64, 0u64, 0u64);
    while let Some(game) = reader.next_game()? {
        games += 1;
        let error = |message: String| LearnError::Game {
            path: display.clone(),
            game: game.number,
            line: game.line,
            message,
        };
        let rules = game.rules(options.rules).map_err(error)?;
        let Some(winner) = game.winner().map_err(error)? else {
            skipped += 1;
            continue;
        };
        let first = match game.tag("FEN") {
            Some(fen) => Position::from_fen(fen, rules)
                .map_err(|e| error(format!("FEN tag \"{fen}\": {e}")))?,
            None => Position::start(rules),
        };
        let played = play_move_text(first, &game.movetext).map_err(|e| error(e.to_string()))?;
        let end = played.position();
        if !end.has_legal_move() && end.no_move_outcome().winner() != Some(winner) {
            return Err(error(format!(
                "the result is {} but the game ends in {} where, under the {} rules, the \
                 result is {} (is the Variant tag right?)",
                if winner == Color::White { "1-0" } else { "0-1" },
                end.fen(),
                rules,
                end.no_move_outcome().pgn()
            )));
        }
        let mut pos = first;
        for (ply, &m) in played.moves().iter().enumerate() {
            plies += 1;
            if ply as u64 >= u64::from(options.games_skip_plies) && pos.count_moves() != 1 {
                sample.offer(sample_hash(pos.key(), options.seed), || {
                    Row::of(&pos, pos.turn() == winner, 0, source.clone())
                });
            }
            pos.play_mut(m);
        }
    }
    let positions = sample.offered();
    let (mut wins, mut losses) = (0u64, 0u64);
    let kept = sample.finish(rows, |row| {
        if row.label > 0.5 {
            wins += 1;
        } else {
            losses += 1;
        }
    });
    Ok(SourceReport {
        source: name.to_string(),
        kind: SourceKind::Games,
        path: display,
        nodes: plies,
        positions,
        rows: kept,
        wins,
        losses,
        games: Some(games),
        games_skipped: Some(skipped),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A small deterministic generator (SplitMix64).
#[derive(Debug, Clone)]
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0.wrapping_sub(0x9e37_79b9_7f4a_7c15))
    }

    /// A number below `n` (`n` > 0; the bias is negligible for the small `n` used here).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The rows of the tables, appended to `rows`.
fn table_rows(
    dir: &Path,
    options: &DatasetOptions,
    rows: &mut Vec<Row>,
) -> Result<SourceReport, LearnError> {
    let start = Instant::now();
    let tb = Tablebase::open(dir, options.rules)
        .map_err(|e| LearnError::Tables(format!("{}: {e}", dir.display())))?;
    let source: Arc<str> = Arc::from(TABLES_SOURCE);
    let mut seen: HashSet<u64> = HashSet::new();
    let (mut drawn, mut wins, mut losses) = (0u64, 0u64, 0u64);
    let mut candidates: Vec<Row> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();
    for material in Material::all_up_to(options.table_units) {
        if !tb.contains(&material) {
            continue;
        }
        let mut rng = SplitMix(mix(options.seed) ^ mix(material.key()));
        for _ in 0..options.table_samples {
            let Some(pos) = material
                .random_position(options.rules, None, &mut |n| rng.below(n))
                .ok()
            else {
                break;
            };
            drawn += 1;
            if !seen.insert(pos.key()) {
                continue;
            }
            let wdl = tb.probe_wdl(&pos).map_err(|e| {
                LearnError::Tables(format!("{}: probing {}: {e}", dir.display(), pos.fen()))
            })?;
            let wins = match wdl {
                Some(Wdl::Win) => true,
                Some(Wdl::Loss) => false,
                Some(Wdl::Draw) | None => continue,
            };
            hashes.push(sample_hash(pos.key(), options.seed));
            candidates.push(Row::of(&pos, wins, 0, source.clone()));
        }
    }
    let positions = candidates.len() as u64;
    let limit = options.max_rows_per_source;
    let threshold = if limit > 0 && positions > limit {
        let mut sorted = hashes.clone();
        *sorted.select_nth_unstable(limit as usize - 1).1
    } else {
        u64::MAX
    };
    let mut kept = 0u64;
    for (row, hash) in candidates.into_iter().zip(hashes) {
        if hash > threshold {
            continue;
        }
        if row.label > 0.5 {
            wins += 1;
        } else {
            losses += 1;
        }
        kept += 1;
        rows.push(row);
    }
    Ok(SourceReport {
        source: TABLES_SOURCE.to_string(),
        kind: SourceKind::Tables,
        path: dir.display().to_string(),
        nodes: drawn,
        positions,
        rows: kept,
        wins,
        losses,
        games: None,
        games_skipped: None,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../proofs")
            .join(name)
    }

    #[test]
    fn a_small_proof_gives_rows_of_both_labels() {
        let options = DatasetOptions {
            proofs: vec![shipped("e3-d5.proof")],
            ..DatasetOptions::default()
        };
        let mut events = Vec::new();
        let (rows, report) = build_dataset(&options, &mut |e| events.push(e)).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(report.sources.len(), 1);
        let source = &report.sources[0];
        assert_eq!(source.source, "e3-d5");
        assert_eq!(source.nodes, 33);
        assert_eq!(source.rows, rows.len() as u64);
        assert!(source.wins > 0 && source.losses > 0, "{source:?}");
        assert!(rows.iter().any(|r| r.label == 1.0));
        assert!(rows.iter().any(|r| r.label == 0.0));
        // The root (White to move after 1. e3 d5) is the whole proof.
        assert_eq!(rows[0].cost, 33);
        assert_eq!(rows[0].label, 1.0);
        assert!(rows.iter().all(|r| r.cost >= 1 && &*r.source == "e3-d5"));
    }

    #[test]
    fn the_sample_is_deterministic_and_bounded() {
        let options = DatasetOptions {
            proofs: vec![shipped("e3-Na6.proof")],
            max_rows_per_source: 100,
            seed: 7,
            ..DatasetOptions::default()
        };
        let (a, report) = build_dataset(&options, &mut |_| {}).unwrap();
        let (b, _) = build_dataset(&options, &mut |_| {}).unwrap();
        assert_eq!(a.len(), 100);
        assert!(report.sources[0].positions > 100);
        assert_eq!(a, b);
        let other = DatasetOptions { seed: 8, ..options };
        let (c, _) = build_dataset(&other, &mut |_| {}).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn two_sources_of_one_name_are_refused() {
        let options = DatasetOptions {
            proofs: vec![shipped("e3-d5.proof"), shipped("e3-d5.proof")],
            ..DatasetOptions::default()
        };
        let e = build_dataset(&options, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("both source \"e3-d5\""), "{e}");
    }

    #[test]
    fn tables_give_labelled_samples() {
        let dir =
            std::env::temp_dir().join(format!("antichess-learn-tables-{}", std::process::id()));
        let build = antichess_tb::BuildOptions {
            rules: Rules::INTERNATIONAL,
            dir: dir.clone(),
            threads: 1,
            strategy: Default::default(),
        };
        // The 2-unit tables only (they build in a moment); the 3-unit materials have none.
        antichess_tb::build(&Material::all_up_to(2), &build, &|_| {}).unwrap();
        let options = DatasetOptions {
            tables: Some(dir.clone()),
            table_units: 3,
            table_samples: 20,
            ..DatasetOptions::default()
        };
        let (rows, report) = build_dataset(&options, &mut |_| {}).unwrap();
        let (again, _) = build_dataset(&options, &mut |_| {}).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(rows, again);
        let source = &report.sources[0];
        assert_eq!(source.source, TABLES_SOURCE);
        assert!(source.wins > 0 && source.losses > 0, "{source:?}");
        assert!(rows.iter().all(|r| r.cost == 0 && r.units == 2));
        assert!(source.positions <= 20 * Material::all_up_to(2).len() as u64);
        // Every row agrees with the tables.
        assert_eq!(source.rows, rows.len() as u64);
    }

    #[test]
    fn random_positions_have_the_material() {
        let material = Material::all_up_to(3)[5];
        let mut rng = SplitMix(3);
        for _ in 0..50 {
            let pos = material
                .random_position(Rules::INTERNATIONAL, None, &mut |n| rng.below(n))
                .unwrap();
            assert_eq!(pos.board().occupied().count(), material.units());
        }
    }
}
