//! The job's interface: its options, its events and its report (which serializes as the
//! `prove` command's JSON), and the assembly options it derives from its options.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Color, Move, Position};
use antichess_pns::InitialNumbers;
use antichess_tb::Tablebase;
use serde::Serialize;

use super::rounds::{GrownTables, TablesMet};
use crate::frontier::{FrontierEvent, LoadReport, SaveReport};
use crate::select::{Effort, Selection};
use crate::{AssembleOptions, BookCounts, GrowEnd, Hints, Node};

/// What [`prove_line`] is asked to do.
#[derive(Debug)]
pub struct ProveLineOptions {
    /// The position whose win is to be proved.
    pub root: Position,
    /// The moves from the start position to `root`, when it was given so (they name the
    /// book); `None` for a root given by a FEN.
    pub prolog: Option<Vec<Move>>,
    pub prover: Color,
    /// The proof file to write.
    pub output: PathBuf,
    /// Where the books live (see [`books_dir`]).
    pub cache: PathBuf,
    pub workers: usize,
    /// Node budget of one book search.
    pub search_nodes: u64,
    /// Each worker's transposition table (see [`worker_hash`]).
    pub hash_bytes: usize,
    pub selection: Selection,
    pub effort: Option<Effort>,
    pub initial: InitialNumbers,
    pub hints: Option<Arc<Hints>>,
    /// The tables, opened (every table in `tables_dir`), if any.
    pub tablebase: Option<Tablebase>,
    pub tables_dir: PathBuf,
    /// The complete sets asked for: a table round builds materials of one unit more.
    pub units: u32,
    /// Seconds the caller spent building the missing tables (for the report).
    pub tables_seconds: f64,
    /// Proof files to seed the book with.
    pub seeds: Vec<PathBuf>,
    /// Known lines (move text from the root) to queue first.
    pub lines: Vec<String>,
    /// Stop growing after this long from `started` (the book is kept).
    pub time: Option<Duration>,
    /// Stop growing after this many searches in this run.
    pub searches: Option<u64>,
    /// Write the proof as assembled, without minimising it with the time left.
    pub no_minimize: bool,
    /// Table rounds: the K materials met most, built beside the searches (0: off).
    pub grow_tables: usize,
    pub tables_every: u64,
    pub tables_met: TablesMet,
    /// The program whose `tb build --bound` builds a table round in a child process.
    pub table_builder: PathBuf,
    /// The frontier file that carries the run across machines.
    pub frontier: Option<PathBuf>,
    pub frontier_every: Duration,
    /// How often a [`ProveLineEvent::Progress`] is sent while the book grows.
    pub report_every: Duration,
    /// Raised (Ctrl-C): the searches stop, their numbers are written, the run ends.
    pub stop: Arc<AtomicBool>,
    /// When the run began (the time limit and the report's seconds count from it).
    pub started: Instant,
}

impl ProveLineOptions {
    /// The first event: the tables and the searches' settings.
    pub(super) fn started_event(&self) -> ProveLineEvent {
        let tables = self.tablebase.as_ref();
        ProveLineEvent::Started {
            complete_units: tables.map_or(0, Tablebase::complete_units),
            units: tables.map_or(0, Tablebase::max_units),
            tables_dir: self.tables_dir.clone(),
            tables_seconds: self.tables_seconds,
            workers: self.workers,
            search_nodes: self.search_nodes,
            hash_bytes: self.hash_bytes,
            initial: self.initial.describe(),
            selection: self.selection,
            effort: self.effort,
        }
    }
}

/// What [`prove_line`] tells while it works, in order.
#[derive(Debug)]
pub enum ProveLineEvent {
    /// The tables the searches probe (every table of up to `complete_units`, some of up
    /// to `units`) and the searches' settings.
    Started {
        complete_units: u32,
        units: u32,
        tables_dir: PathBuf,
        tables_seconds: f64,
        workers: usize,
        search_nodes: u64,
        hash_bytes: usize,
        /// The initial numbers, described.
        initial: String,
        selection: Selection,
        effort: Option<Effort>,
    },
    /// The book was built from the frontier file.
    FrontierLoaded {
        file: PathBuf,
        location: String,
        report: LoadReport,
    },
    /// Progress of a frontier load or save.
    Frontier(FrontierEvent),
    /// Proofs that wait in the book for tables this machine lacks (`crate::pending`):
    /// those seeded now that their tables exist, and those still waiting.
    Pending(crate::pending::PendingReport),
    /// The book, new or resumed, before this run's searches.
    BookOpened {
        location: String,
        resumed: bool,
        counts: BookCounts,
    },
    /// A seed proof won book nodes at once.
    Seeded { file: PathBuf, won_now: u64 },
    /// A `--line` was queued at a book node, with moves past the book's end.
    LineQueued {
        text: String,
        node: i64,
        ahead: usize,
    },
    /// A line was not queued (decided, or grown already on a resumed run).
    LineNotQueued { text: String, error: String },
    /// A table round starts beside the searches.
    TableRoundStarted {
        prover: Color,
        materials: Vec<String>,
    },
    /// The table round under way stops with the run.
    TableRoundStopped,
    /// A table round ended badly (the run goes on without its tables).
    TableRoundFailed(String),
    /// A table round is done: its tables are probed from now on.
    TableRoundDone(GrownTables),
    /// The book's state, every `report_every`.
    Progress {
        seconds: f64,
        root: Node,
        counts: BookCounts,
        searches: u64,
        decided: u64,
        proofs_failed: u64,
        /// With hints: the proof number of the record's tree at the root
        /// ([`crate::hints::hinted_proof`]), measured again after ten times what its last
        /// measure took (the last value in between).
        hinted: Option<u32>,
    },
    /// A frontier file was written.
    FrontierSaved { file: PathBuf, report: SaveReport },
    /// Proved nodes whose proof could not be extracted, and the last error.
    ProofsNotExtracted { count: u64, last: String },
    /// A worker could not write to the book (locked past the busy timeout, or the store
    /// unreachable) and tries again (`retries` so far in the run).
    StoreRetry { retries: u64, error: String },
    /// The root is won: the proof is assembled.
    Assembling,
    /// Leaves re-solved so far (every 100).
    LeavesSolved(u64),
}

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProveLineOutcome {
    /// Not decided: the book is kept.
    Open,
    /// The prover does not win.
    Disproved,
    /// Proved: the proof was written (and verified, or not: see the report).
    Proved,
}

/// The table rounds of a run, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct TablesGrownReport {
    pub rounds: u64,
    pub tables: usize,
    pub seconds: f64,
    pub met: TablesMet,
}

/// The root's state, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct RootReport {
    pub status: String,
    #[serde(serialize_with = "crate::jobs::number")]
    pub proof: u32,
    #[serde(serialize_with = "crate::jobs::number")]
    pub disproof: u32,
}

/// The frontier writes of a run, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct FrontierReport {
    pub file: PathBuf,
    pub saves: u32,
    pub last: SaveReport,
}

/// The solved subtrees written when the run ends unsolved.
#[derive(Debug, Clone, Serialize)]
pub struct SubtreesReport {
    pub dir: PathBuf,
    pub written: usize,
}

/// What [`prove_line`] did.
#[derive(Debug, Clone, Serialize)]
pub struct ProveLineReport {
    pub book: String,
    pub resumed: bool,
    pub workers: usize,
    pub search_nodes: u64,
    pub hash_bytes: usize,
    /// The walk's selection, as debug text.
    pub walk: String,
    pub from_frontier: bool,
    pub seeds: usize,
    pub tables_units: u32,
    pub tables_complete_units: u32,
    pub tables_seconds: f64,
    pub tables_grown: TablesGrownReport,
    /// Searches in this run.
    pub searches: u64,
    pub searches_in_all: u64,
    pub book_nodes: u64,
    pub root: RootReport,
    pub grow_seconds: f64,
    pub proofs_not_kept: u64,
    /// Times a worker found the book locked or unreachable and tried again.
    pub store_retries: u64,
    /// The longest write of one search's result (seconds) and the book node it was for.
    pub longest_write_seconds: f64,
    pub longest_write_node: i64,
    pub proof_file: Option<PathBuf>,
    pub verified: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontier: Option<FrontierReport>,
    pub solved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtrees: Option<SubtreesReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assembled_nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimized: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Why the written proof did not verify.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip)]
    pub outcome: ProveLineOutcome,
    /// How the growth ended.
    #[serde(skip)]
    pub end: GrowEnd,
}

/// How the leaves are re-solved: their proofs kept beside the book, so a stopped prove
/// goes on from them too.
pub(super) fn prove_options(
    options: &ProveLineOptions,
    units: u32,
    minimize: Option<Duration>,
    book: &Path,
) -> AssembleOptions {
    AssembleOptions {
        hash_bytes: options.hash_bytes.max(64 << 20),
        tablebase_units: units,
        minimize,
        stop: Some(options.stop.clone()),
        leaf_dir: Some(crate::leaves::leaf_dir(book)),
        threads: options.workers,
        ..AssembleOptions::default()
    }
}

/// How a frontier save assembles the won subtrees' proofs: from the leaf proofs the
/// workers kept, a leaf that was not kept searched again within a few searches' budget.
pub(super) fn frontier_options(
    options: &ProveLineOptions,
    units: u32,
    book: &Path,
) -> AssembleOptions {
    AssembleOptions {
        hash_bytes: 64 << 20,
        leaf_nodes: Some(options.search_nodes.saturating_mul(4)),
        tablebase_units: units,
        leaf_dir: Some(crate::leaves::leaf_dir(book)),
        ..AssembleOptions::default()
    }
}
