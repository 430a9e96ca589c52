//! The proofs the engine plays from: loading the `Proofs` option (one proof file, or every
//! `*.proof` file of a directory), finding where they are by default, and the move a proof
//! gives in a position.
//!
//! Each file is looked up through its on-disk index (`antichess_proof::ProofIndex`, docs/
//! formats/proof-index.md): positions identified by board, side to move and en passant, so
//! that other move orders are found too. In a position of a proof:
//!
//! - where the prover is to move, the engine plays the proof's move;
//! - where the opponent is to move, it plays the reply whose subtree in the proof is the
//!   largest (references unfolded): the longest resistance.
//!
//! **Distance.** The proof also bounds how long the game lasts: following it, the prover
//! wins within the height of the position's node (the longest line of its subtree to a
//! leaf). When every leaf below is a game end (no tablebase leaf), that height in moves is
//! reported as `score mate N`: a proved bound ("wins in at most N moves"), which may exceed
//! the shortest win. The index holds every internal position's height, so nothing is walked
//! at play time.
//!
//! **Proofs found in the game.** A win the engine's df-pn search proves is extracted,
//! verified and kept here ([`ProofSet::keep`]) beside the files, in memory, as one whose
//! root the game passed through, so that the next moves follow it whatever their time; the
//! engine drops it at `ucinewgame` or when the game no longer passes through its root
//! ([`ProofSet::forget_kept`]).
//!
//! **Default location** ([`default_proofs_path`]): the environment variable
//! `ANTICHESS_PROOFS`; else `proofs/` in the current directory (running from a checkout);
//! else the `proofs/` directory of the source tree the binary was built from (its path is
//! recorded at compile time, so a binary installed with `cargo install --path` from a
//! checkout finds the shipped proofs while the checkout exists). None of them: no proofs.
//!
//! **Only verified proofs are played.** Loading the option reads only each file's header
//! (its root position, prover and rules), so `isready` is answered at once whatever the
//! set's size. A file is opened the first time the engine is asked about a position that
//! may follow from its root ([`may_follow`]: a test on pawns and material that never
//! rejects a position play can reach, so a proof that has the position is always
//! consulted). Opening a file hashes it and maps its index from the index directory (the
//! `ProofIndex` option; default `antichess_proof::default_index_dir`,
//! `~/.cache/antichess/proof-index`): milliseconds. Without a valid index, the file is
//! verified (its tablebase leaves with the engine's `Tables`) and indexed, once: the index
//! is kept on disk for every later start (the shipped set: see docs/benchmarks.md). A file
//! that does not verify, or whose tablebase leaves the engine's tables cannot judge, gets
//! no index: it is named in an `info string` and never consulted. Files whose root the
//! game passed through are asked first, so a game that follows a proof from its root opens
//! that file alone.
//!
//! **Opening never costs a game on time.** A file is opened (and, the first time, verified
//! and indexed) on a background thread, one at a time; [`ProofSet::choose`] waits for it
//! only while its caller is willing to (the engine: for a file whose root the game passed
//! through, half the move's time budget; for any other file, not at all; without limit
//! when the move has no time limit). Until its index is ready a file is skipped (the engine
//! plays as it would without it) and it is consulted from the move its index is ready.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Bitboard, Color, Move, Position, Role, Rules, Square};
use antichess_proof::loaded::{check_rules, file_name};
use antichess_proof::{
    detect_file_format, open_or_build_index, CompactHeader, Format, IndexSource, LoadedProof,
    PagedFile, ProofError, ProofIndex, ProofPlay, ReferenceFile, ReferenceOptions, TablebaseOracle,
};
use antichess_tb::Tablebase;

use crate::UciError;

/// The environment variable that names the default proofs (a file or a directory).
pub const PROOFS_ENV: &str = "ANTICHESS_PROOFS";

/// The shipped `proofs/` directory as seen from the source tree at compile time.
const SOURCE_PROOFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proofs");

/// Where the proofs are by default (see the module documentation).
#[must_use]
pub fn default_proofs_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(PROOFS_ENV) {
        return Some(PathBuf::from(path));
    }
    let here = PathBuf::from("proofs");
    if has_proof_files(&here) {
        return Some(here);
    }
    let source = PathBuf::from(SOURCE_PROOFS);
    if has_proof_files(&source) {
        return Some(source.canonicalize().unwrap_or(source));
    }
    None
}

fn has_proof_files(dir: &Path) -> bool {
    proof_files(dir).is_ok_and(|files| !files.is_empty())
}

/// The `*.proof` files of a directory, sorted by name.
fn proof_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "proof"))
        .collect();
    files.sort();
    Ok(files)
}

/// What a proof says to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofMove {
    pub mv: Move,
    /// The move the proof plays after `mv` (the expected reply), when it has one.
    pub reply: Option<Move>,
    /// The proof's file name.
    pub proof: String,
    /// The side to move is the proof's prover (it wins).
    pub winning: bool,
    /// Nodes of the proof file below the position (a position the proof shares is counted
    /// once).
    pub nodes: u64,
    /// Moves of the side to move until the game ends, at most, following the proof
    /// (`None`: the subtree has tablebase leaves, or is too deep to record).
    pub moves_to_end: Option<u32>,
}

/// One proof file of the set.
#[derive(Debug)]
struct Entry {
    /// File name (without directories).
    name: String,
    path: PathBuf,
    /// The proof's root (from the header).
    root: Position,
    state: State,
    /// Found by the engine in this game ([`ProofSet::keep`]), not read from a file.
    kept: bool,
}

/// What a proof is looked up in.
#[derive(Debug)]
enum Source {
    /// A file's on-disk index.
    Index(ProofIndex),
    /// A proof found in the game, in memory.
    Loaded(Box<LoadedProof>),
}

impl Source {
    fn play(&self, pos: &Position) -> Option<ProofPlay> {
        match self {
            Source::Index(index) => index.play(pos),
            Source::Loaded(proof) => proof.play(pos),
        }
    }
}

/// What the background thread hands back: the index and how it was had, or why the file
/// is not used.
type Opened = Result<(ProofIndex, IndexSource), String>;

#[derive(Debug)]
enum State {
    /// Header read; not opened yet.
    Unread,
    /// Being opened (or verified and indexed) on a background thread, started then.
    Opening(Receiver<Opened>, Instant),
    /// Ready for lookups.
    Ready(Source),
    /// Not verified or not readable (reported once); never consulted again.
    Failed,
}

/// The proofs of the `Proofs` option, opened as the game reaches them.
#[derive(Debug, Default)]
pub struct ProofSet {
    entries: Vec<Entry>,
    rules: Rules,
    /// Where the index files are.
    index_dir: PathBuf,
    /// The tables that judge tablebase leaves when a file is verified.
    tables: Option<Arc<Tablebase>>,
}

impl ProofSet {
    /// Opens `path` (a proof file or a directory of `*.proof` files) for `rules`, with the
    /// index files in `index_dir`: reads the header of each file. Files that cannot be used
    /// are skipped; the errors name them.
    #[must_use]
    pub fn load(path: &Path, rules: Rules, index_dir: &Path) -> (ProofSet, Vec<UciError>) {
        let mut set = ProofSet {
            entries: Vec::new(),
            rules,
            index_dir: index_dir.to_path_buf(),
            tables: None,
        };
        let mut errors = Vec::new();
        let files = if path.is_dir() {
            match proof_files(path) {
                Ok(files) => files,
                Err(e) => {
                    errors.push(UciError::Load {
                        what: format!("proofs directory {}", path.display()),
                        message: e.to_string(),
                    });
                    Vec::new()
                }
            }
        } else if path.exists() {
            vec![path.to_path_buf()]
        } else {
            errors.push(UciError::Load {
                what: format!("proofs {}", path.display()),
                message: "no such file or directory".into(),
            });
            Vec::new()
        };
        for file in files {
            match open_entry(&file, rules) {
                Ok(entry) => set.entries.push(entry),
                Err(message) => errors.push(load_error(&message)),
            }
        }
        (set, errors)
    }

    /// The tables that judge tablebase leaves when a file is verified (`None`: a proof
    /// with tablebase leaves cannot be verified, and is not used unless its index exists).
    pub fn set_tables(&mut self, tables: Option<Arc<Tablebase>>) {
        self.tables = tables;
    }

    /// Names of the proofs.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// Names of the proofs ready for lookups (their index opened) so far.
    #[must_use]
    pub fn indexed(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| matches!(e.state, State::Ready(..)))
            .map(|e| e.name.as_str())
            .collect()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Starts opening entry `i` on a background thread: its index is mapped, or the file
    /// verified and indexed first.
    fn start_indexing(&mut self, i: usize) {
        let entry = &mut self.entries[i];
        let (send, receive) = std::sync::mpsc::channel();
        let path = entry.path.clone();
        let rules = self.rules;
        let dir = self.index_dir.clone();
        let tables = self.tables.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("index {}", entry.name))
            .spawn(move || {
                // The receiver may be gone (the set was replaced): nothing to do then.
                let _ = send.send(open_index(&path, rules, &dir, tables.as_deref()));
            });
        entry.state = match spawned {
            Ok(_) => State::Opening(receive, Instant::now()),
            // No thread to be had: the file is not used (a move must not wait for it).
            Err(_) => State::Failed,
        };
    }

    /// Whether some file is being opened.
    fn busy(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e.state, State::Opening(..)))
    }

    /// Takes entry `i`'s index if it is ready, waiting for it while `patience` says so
    /// (asked every few milliseconds); reports the outcome once.
    fn collect(&mut self, i: usize, patience: &dyn Fn() -> bool, report: &mut dyn FnMut(String)) {
        let entry = &mut self.entries[i];
        let State::Opening(receive, started) = &entry.state else {
            return;
        };
        let started = *started;
        let result = loop {
            let waited = if patience() {
                receive.recv_timeout(Duration::from_millis(5))
            } else {
                receive.try_recv().map_err(|e| match e {
                    TryRecvError::Empty => RecvTimeoutError::Timeout,
                    TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                })
            };
            match waited {
                Ok(result) => break result,
                Err(RecvTimeoutError::Disconnected) => {
                    break Err(format!("proof {}: indexing stopped", entry.path.display()))
                }
                Err(RecvTimeoutError::Timeout) if patience() => {}
                Err(RecvTimeoutError::Timeout) => return,
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        match result {
            Ok((index, source)) => {
                let header = index.header();
                let what = match source {
                    IndexSource::Found => "its index opened".to_string(),
                    IndexSource::Built { replaced } => format!(
                        "verified, {} nodes, and its index written{}",
                        header.proof_nodes,
                        replaced.map_or(String::new(), |why| format!(
                            " (the index found was not used: {why})"
                        ))
                    ),
                };
                report(format!(
                    "proof {}: indexed ({what}): {} positions, in {seconds:.2} s",
                    entry.name, header.positions
                ));
                entry.state = State::Ready(Source::Index(index));
            }
            Err(message) => {
                report(load_error(&message).to_string());
                entry.state = State::Failed;
            }
        }
    }

    /// The order in which proofs are asked about `pos`: first those whose root is `pos` or
    /// a position of the game before it (`path`: their keys, oldest first), the latest
    /// first; then the others in file order.
    fn order(&self, pos: &Position, path: &[u64]) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.entries.len());
        for key in std::iter::once(pos.key()).chain(path.iter().rev().copied()) {
            for (i, e) in self.entries.iter().enumerate() {
                if e.root.key() == key && !order.contains(&i) {
                    order.push(i);
                }
            }
        }
        for i in 0..self.entries.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        order
    }

    /// The move the first proof that has `pos` as an internal node gives, proofs taken in
    /// the order of [`ProofSet::order`] (`path`: the keys of the game's positions before
    /// `pos`, oldest first). Proofs are opened on the way, as far as the first that has
    /// `pos`: an unread one when `pos` may follow from its root; `report` gets a line for
    /// each. (A game that follows a proof from its root finds it before any other is read.)
    ///
    /// Opening runs on a background thread, one file at a time; `patience` is asked every
    /// few milliseconds whether to go on waiting for it (`&|| true`: wait until it is done).
    /// A file whose index is not ready when patience ends is passed over this time, with a
    /// line to `report`, and its opening goes on for the next call.
    pub fn choose(
        &mut self,
        pos: &Position,
        path: &[u64],
        patience: &dyn Fn() -> bool,
        report: &mut dyn FnMut(String),
    ) -> Option<ProofMove> {
        self.choose_with(pos, path, patience, patience, report)
    }

    /// [`ProofSet::choose`] with two patiences: `on_path` for a file whose root is `pos`
    /// or a position of the game before it (the game is in that proof's line, and a move
    /// that leaves the proof for want of its index may lose the game), `elsewhere` for the
    /// others, which hold `pos` only by a transposition from another first move (rare: the
    /// engine passes `&|| false` under a time limit, so that the indexing of a large proof
    /// of another line never eats a move's time; see `crate::think`).
    pub fn choose_with(
        &mut self,
        pos: &Position,
        path: &[u64],
        on_path: &dyn Fn() -> bool,
        elsewhere: &dyn Fn() -> bool,
        report: &mut dyn FnMut(String),
    ) -> Option<ProofMove> {
        let on_the_path = |root: &Position| {
            let key = root.key();
            key == pos.key() || path.contains(&key)
        };
        for i in self.order(pos, path) {
            let patience = if on_the_path(&self.entries[i].root) {
                on_path
            } else {
                elsewhere
            };
            if matches!(self.entries[i].state, State::Unread)
                && may_follow(&self.entries[i].root, pos)
                && !self.busy()
            {
                self.start_indexing(i);
            }
            if let State::Opening(_, started) = self.entries[i].state {
                self.collect(i, patience, report);
                if matches!(self.entries[i].state, State::Opening(..)) {
                    report(format!(
                        "proof {}: being indexed ({:.1} s so far); not consulted for this move",
                        self.entries[i].name,
                        started.elapsed().as_secs_f64()
                    ));
                    continue;
                }
            }
            let entry = &self.entries[i];
            let State::Ready(source) = &entry.state else {
                continue;
            };
            if let Some(hit) = answer(&entry.name, source, pos) {
                return Some(hit);
            }
        }
        None
    }

    /// Keeps a proof the engine found during the game (a df-pn search's, extracted and
    /// verified) beside the files, named `name`, and gives its move at its root. It is
    /// asked like a file whose root the game passed through, until [`ProofSet::forget_kept`]
    /// drops it. At most [`MAX_KEPT`] are kept (the oldest goes first).
    pub fn keep(&mut self, name: String, proof: LoadedProof) -> Option<ProofMove> {
        let kept: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].kept)
            .collect();
        if kept.len() >= MAX_KEPT {
            self.entries.remove(kept[0]);
        }
        let root = *proof.root();
        self.entries.push(Entry {
            name,
            path: PathBuf::new(),
            root,
            state: State::Ready(Source::Loaded(Box::new(proof))),
            kept: true,
        });
        let entry = self.entries.last()?;
        let State::Ready(source) = &entry.state else {
            return None;
        };
        answer(&entry.name, source, &root)
    }

    /// Drops the kept proofs whose root `keep_root` refuses (given the root's key); all of
    /// them with `|_| false` (a new game).
    pub fn forget_kept(&mut self, keep_root: impl Fn(u64) -> bool) {
        self.entries.retain(|e| !e.kept || keep_root(e.root.key()));
    }

    /// Names of the proofs kept from the game's searches.
    #[must_use]
    pub fn kept(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| e.kept)
            .map(|e| e.name.as_str())
            .collect()
    }
}

/// The proofs found in a game that are kept at most ([`ProofSet::keep`]).
pub const MAX_KEPT: usize = 8;

/// Opens the index of the proof file at `path`, or verifies and indexes it (on the
/// background thread); the error names the file and says why it is not used.
fn open_index(path: &Path, rules: Rules, dir: &Path, tables: Option<&Tablebase>) -> Opened {
    let oracle = tables.map(TablebaseOracle::new);
    open_or_build_index(path, rules, dir, &oracle).map_err(|e| {
        let hint = match e {
            ProofError::NeedTablebases { .. } => format!(
                "; give the engine the tables (option Tables), or build the index once with `antichess proof index {} --tables DIR`",
                path.display()
            ),
            _ => String::new(),
        };
        format!("proof {}: not used, it did not verify: {e}{hint}", path.display())
    })
}

/// What a proof says to play in `pos` (`None`: not one of its positions with a move to
/// play), with the move it expects next.
fn answer(name: &str, source: &Source, pos: &Position) -> Option<ProofMove> {
    let play = source.play(pos)?;
    if !pos.is_legal(play.mv) {
        return None;
    }
    let next = pos.play(play.mv);
    let reply = source
        .play(&next)
        .map(|p| p.mv)
        .filter(|m| next.is_legal(*m));
    Some(ProofMove {
        mv: play.mv,
        reply,
        proof: name.to_string(),
        winning: play.prover_to_move,
        nodes: play.nodes,
        moves_to_end: play.plies_to_end.map(|h| h.div_ceil(2)),
    })
}

/// The explorer's wording of a load error, for the engine's options.
fn load_error(message: &str) -> UciError {
    UciError::Load {
        what: "proof".into(),
        message: message
            .replace("the server uses", "the engine uses")
            .replace("(--rules)", "(options Rules and UCI_Variant)"),
    }
}

/// Reads a proof file's header: its root (a reference-format file: from its prolog).
fn open_entry(path: &Path, rules: Rules) -> Result<Entry, String> {
    let name = file_name(path);
    let fail = |e: &dyn std::fmt::Display| format!("proof {}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    let root = if detect_file_format(path).map_err(|e| fail(&e))? == Format::Reference {
        let options = ReferenceOptions {
            rules,
            ..ReferenceOptions::default()
        };
        let paged = PagedFile::new(file).map_err(|e| fail(&e))?;
        ReferenceFile::open(paged, options.byte_order)
            .and_then(|f| f.root(&options))
            .map_err(|e| fail(&e))?
    } else {
        let header =
            CompactHeader::read(&mut std::io::BufReader::new(file)).map_err(|e| fail(&e))?;
        check_rules(path, header.rules, rules)?;
        header.root
    };
    Ok(Entry {
        name,
        path: path.to_path_buf(),
        root,
        state: State::Unread,
        kept: false,
    })
}

/// Whether `pos` may follow from `root` by play: a necessary condition, cheap to test,
/// that holds for every position play can reach (a `false` proves `pos` unreachable).
///
/// For each side: no more units, pawns or pieces of any role than promotions allow (pawns
/// are never added, and a piece is added only by a pawn's promotion); every pawn on its
/// starting rank was there in `root` (no pawn moves back to it); and every other pawn has a
/// pawn of the root that can have become it (on the same or an earlier rank, at most one
/// file aside per rank advanced, since a pawn changes file only by capturing forward).
#[must_use]
pub fn may_follow(root: &Position, pos: &Position) -> bool {
    let (a, b) = (root.board(), pos.board());
    for color in Color::ALL {
        let (ours_a, ours_b) = (a.by_color(color), b.by_color(color));
        if ours_b.count() > ours_a.count() {
            return false;
        }
        let (pawns_a, pawns_b) = (a.pawns().intersect(ours_a), b.pawns().intersect(ours_b));
        if pawns_b.count() > pawns_a.count() {
            return false;
        }
        let promoted = pawns_a.count() - pawns_b.count();
        for role in Role::ALL {
            if role == Role::Pawn {
                continue;
            }
            let (ra, rb) = (
                a.by_role(role).intersect(ours_a),
                b.by_role(role).intersect(ours_b),
            );
            if rb.count() > ra.count() + promoted {
                return false;
            }
        }
        let home = Bitboard::relative_rank(color, 1);
        if !pawns_b.intersect(home).difference(pawns_a).is_empty() {
            return false;
        }
        let rank = |sq: Square| match color {
            Color::White => i32::from(sq.rank()),
            Color::Black => 7 - i32::from(sq.rank()),
        };
        for sq in pawns_b {
            // (`Iterator::any`: the bitboard's own `any` tests for emptiness.)
            let reachable = Iterator::any(&mut pawns_a.into_iter(), |from| {
                let ahead = rank(sq) - rank(from);
                ahead >= 0 && (i32::from(sq.file()) - i32::from(from.file())).abs() <= ahead
            });
            if !reachable {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use antichess_proof::test_support::forged_proof;

    fn shipped() -> PathBuf {
        PathBuf::from(SOURCE_PROOFS)
    }

    /// Loads `path` with the index files in a directory of the test's own (`name`).
    fn load_in(path: &Path, name: &str) -> (ProofSet, Vec<UciError>) {
        let index = antichess_testkit::temp_dir(&format!("uci-index-{name}"));
        ProofSet::load(path, Rules::INTERNATIONAL, &index)
    }

    #[test]
    fn plays_the_shipped_proof_on_both_sides() {
        let (mut set, errors) = load_in(&shipped(), "both-sides");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(set.names().contains(&"e3-g6.proof"), "{:?}", set.names());
        let start = Position::start(Rules::INTERNATIONAL);
        let mut pos = start;
        let mut path = Vec::new();
        for m in ["e2e3", "g7g6"] {
            path.push(pos.key());
            pos = pos.play(pos.parse_uci(m).unwrap());
        }
        let white = set
            .choose(&pos, &path, &|| true, &mut |_| {})
            .expect("in the proof");
        assert!(white.winning);
        assert_eq!(white.mv.to_uci(), "d1h5", "the proof's 2. Qh5");
        let n = white
            .moves_to_end
            .expect("no tablebase leaf in the shipped proof");
        assert!(n > 2, "{n}");
        let after = pos.play(white.mv);
        path.push(pos.key());
        let black = set
            .choose(&after, &path, &|| true, &mut |_| {})
            .expect("in the proof");
        assert!(!black.winning);
        assert!(black.moves_to_end.unwrap() <= n);
        // The start position is in no proof.
        assert!(set.choose(&start, &[], &|| true, &mut |_| {}).is_none());
    }

    #[test]
    fn a_missing_or_bad_file_is_named() {
        let (set, errors) = load_in(Path::new("/no/such/proofs"), "missing");
        assert!(set.is_empty());
        assert!(
            errors[0].to_string().contains("/no/such/proofs"),
            "{errors:?}"
        );
        let readme = shipped().join("README.md");
        let (set, errors) = load_in(&readme, "readme");
        assert!(set.is_empty());
        assert!(errors[0].to_string().contains("README.md"), "{errors:?}");
    }

    fn play(moves: &[&str]) -> Position {
        let mut pos = Position::start(Rules::INTERNATIONAL);
        for m in moves {
            pos = pos.play(pos.parse_uci(m).unwrap());
        }
        pos
    }

    #[test]
    fn loading_reads_headers_and_a_proof_is_indexed_when_the_game_may_reach_it() {
        let (mut set, errors) = load_in(&shipped(), "headers");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(set.names().len() > 10, "{:?}", set.names());
        assert!(set.indexed().is_empty(), "{:?}", set.indexed());
        // 1. e3 g6, the game having passed through the start and 1. e3: the proof whose
        // root is on the game's path is asked first, and no other is read (e3-Na6 and the
        // ten million nodes of e3-Nc6 come before it in name order, and may hold it).
        let mut lines = Vec::new();
        let start = Position::start(Rules::INTERNATIONAL);
        let after_e3 = play(&["e2e3"]);
        let pos = play(&["e2e3", "g7g6"]);
        let path = [start.key(), after_e3.key()];
        let hit = set
            .choose(&pos, &path, &|| true, &mut |l| lines.push(l))
            .expect("in e3-g6");
        assert_eq!(hit.proof, "e3-g6.proof");
        assert_eq!(hit.mv.to_uci(), "d1h5");
        assert_eq!(set.indexed(), ["e3-g6.proof"]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("proof e3-g6.proof: indexed ("),
            "{lines:?}"
        );
        // Indexed once: asking again says nothing new.
        lines.clear();
        set.choose(&pos, &path, &|| true, &mut |l| lines.push(l))
            .expect("in e3-g6");
        assert!(lines.is_empty(), "{lines:?}");

        // Without a root on the path, files are read in name order where the position may
        // follow from their root: after 1. e3, those whose roots differ by a knight's move
        // (a knight can go back), not those with a pawn moved since.
        let dir = antichess_testkit::temp_dir("uci-may-follow");
        for name in ["e3-Na6.proof", "e3-Nf6.proof", "e3-d5.proof", "e3-g6.proof"] {
            std::fs::copy(shipped().join(name), dir.join(name)).unwrap();
        }
        let (mut set, errors) = load_in(&dir, "may-follow");
        assert!(errors.is_empty(), "{errors:?}");
        lines.clear();
        assert!(set
            .choose(&after_e3, &[], &|| true, &mut |l| lines.push(l))
            .is_none());
        assert_eq!(set.indexed(), ["e3-Na6.proof", "e3-Nf6.proof"]);
        assert_eq!(lines.len(), 2, "{lines:?}");
    }

    #[test]
    fn indexing_stops_at_the_first_proof_that_has_the_position() {
        let dir = antichess_testkit::temp_dir("uci-first-proof");
        for name in ["a.proof", "b.proof"] {
            std::fs::copy(shipped().join("e3-g6.proof"), dir.join(name)).unwrap();
        }
        let (mut set, errors) = load_in(&dir, "first-proof");
        assert!(errors.is_empty(), "{errors:?}");
        let hit = set
            .choose(&play(&["e2e3", "g7g6"]), &[], &|| true, &mut |_| {})
            .expect("in both");
        assert_eq!(hit.proof, "a.proof");
        assert_eq!(set.indexed(), ["a.proof"]);
    }

    #[test]
    fn a_file_still_being_indexed_is_passed_over_until_its_index_is_ready() {
        let dir = antichess_testkit::temp_dir("uci-background-index");
        std::fs::copy(shipped().join("e3-f5.proof"), dir.join("e3-f5.proof")).unwrap();
        let (mut set, errors) = load_in(&dir, "background");
        assert!(errors.is_empty(), "{errors:?}");
        let pos = play(&["e2e3", "f7f5"]);
        // No patience: the move is not taken from the file whose indexing was just started.
        let mut lines = Vec::new();
        assert!(set
            .choose(&pos, &[], &|| false, &mut |l| lines.push(l))
            .is_none());
        assert!(set.indexed().is_empty(), "{:?}", set.indexed());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("proof e3-f5.proof: being indexed"),
            "{lines:?}"
        );
        // The next call waits for the same indexing (not a second one) and uses it.
        lines.clear();
        let hit = set
            .choose(&pos, &[], &|| true, &mut |l| lines.push(l))
            .expect("in e3-f5");
        assert_eq!(hit.proof, "e3-f5.proof");
        assert_eq!(set.indexed(), ["e3-f5.proof"]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("proof e3-f5.proof: indexed (verified, "),
            "{lines:?}"
        );
        // A new set (a fresh start) finds the index written: opened, not built.
        let index = set.index_dir.clone();
        let (mut set, _) = ProofSet::load(&dir, Rules::INTERNATIONAL, &index);
        lines.clear();
        let again = set
            .choose(&pos, &[], &|| true, &mut |l| lines.push(l))
            .expect("in e3-f5");
        assert_eq!(again, hit);
        assert!(
            lines[0].starts_with("proof e3-f5.proof: indexed (its index opened)"),
            "{lines:?}"
        );
    }

    #[test]
    fn only_a_file_whose_root_the_game_passed_through_is_waited_for() {
        let dir = antichess_testkit::temp_dir("uci-patience-on-path");
        std::fs::copy(shipped().join("e3-f5.proof"), dir.join("e3-f5.proof")).unwrap();
        // A position of the proof two plies below its root: the proof's move, then its
        // longest resistance.
        let root = play(&["e2e3", "f7f5"]);
        let (mut set, _) = load_in(&dir, "patience-0");
        let first = set.choose(&root, &[], &|| true, &mut |_| {}).unwrap();
        let after = root.play(first.mv);
        let below = after.play(first.reply.expect("the proof's reply"));
        let never = || -> bool { panic!("a file of another line was waited for") };
        // Reached from a FEN (no path): the file is of another line, not waited for.
        let (mut set, errors) = load_in(&dir, "patience-1");
        assert!(errors.is_empty(), "{errors:?}");
        let mut lines = Vec::new();
        let _ = set.choose_with(&below, &[], &never, &|| false, &mut |l| lines.push(l));
        assert!(
            lines.iter().any(|l| l.contains("being indexed")),
            "{lines:?}"
        );
        // Reached through the proof's root: waited for, and its move played.
        let (mut set, _) = load_in(&dir, "patience-2");
        let mut path = vec![Position::start(Rules::INTERNATIONAL).key()];
        let after_e3 = play(&["e2e3"]);
        path.push(after_e3.key());
        path.push(root.key());
        path.push(after.key());
        let elsewhere_never = || -> bool { panic!("the file on the path was not waited for") };
        let hit = set
            .choose_with(&below, &path, &|| true, &elsewhere_never, &mut |_| {})
            .expect("in e3-f5");
        assert_eq!(hit.proof, "e3-f5.proof");
    }

    #[test]
    fn a_file_whose_body_is_damaged_is_named_when_reached_and_then_left_out() {
        let dir = antichess_testkit::temp_dir("uci-damaged-proof");
        let good = std::fs::read(shipped().join("e3-g6.proof")).unwrap();
        std::fs::write(dir.join("e3-g6.proof"), &good[..good.len() - 40]).unwrap();
        let (mut set, errors) = load_in(&dir, "damaged");
        assert!(errors.is_empty(), "the header is whole: {errors:?}");
        let pos = play(&["e2e3", "g7g6"]);
        let mut lines = Vec::new();
        assert!(set
            .choose(&pos, &[], &|| true, &mut |l| lines.push(l))
            .is_none());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("e3-g6.proof"), "{lines:?}");
        lines.clear();
        assert!(set
            .choose(&pos, &[], &|| true, &mut |l| lines.push(l))
            .is_none());
        assert!(lines.is_empty(), "reported once: {lines:?}");
    }

    #[test]
    fn a_proof_for_other_rules_is_refused_at_loading() {
        let index = antichess_testkit::temp_dir("uci-index-fics");
        let (set, errors) = ProofSet::load(&shipped().join("e3-g6.proof"), Rules::FICS, &index);
        assert!(set.is_empty());
        assert!(
            errors[0].to_string().contains("the engine uses"),
            "{errors:?}"
        );
    }

    /// Issue 63: the forged proof (the reference format's 12 bytes: the start position, 1. e3
    /// to a "tablebase leaf" of 32 units) is refused with a message naming it, and no index
    /// of it is written.
    #[test]
    fn a_proof_that_does_not_verify_is_refused() {
        let dir = antichess_testkit::temp_dir("uci-forged");
        std::fs::write(dir.join("forged.proof"), forged_proof()).unwrap();
        let (mut set, errors) = load_in(&dir, "forged");
        assert!(errors.is_empty(), "the header is readable: {errors:?}");
        let after_e3 = play(&["e2e3"]);
        let start = Position::start(Rules::INTERNATIONAL);
        let mut lines = Vec::new();
        assert!(set
            .choose(&start, &[], &|| true, &mut |l| lines.push(l))
            .is_none());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("forged.proof: not used, it did not verify"),
            "{lines:?}"
        );
        assert!(set.indexed().is_empty());
        assert!(set.choose(&after_e3, &[], &|| true, &mut |_| {}).is_none());
        let written = std::fs::read_dir(&set.index_dir).map_or(0, Iterator::count);
        assert_eq!(written, 0, "no index of a proof that did not verify");
    }

    /// `may_follow` never rejects a position play reached: checked between every pair of
    /// positions of random games played to the end (promotions included), and it rejects
    /// the reverse of a pawn move.
    #[test]
    fn may_follow_accepts_every_position_play_reaches() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut promotions = 0;
        for _ in 0..antichess_testkit::scaled(40) {
            let mut line = vec![Position::start(Rules::INTERNATIONAL)];
            loop {
                let pos = *line.last().unwrap();
                let moves = pos.legal_moves();
                if moves.is_empty() || line.len() > 300 {
                    break;
                }
                let m = moves[(next() % moves.len() as u64) as usize];
                promotions += usize::from(m.promotion().is_some());
                line.push(pos.play(m));
            }
            for (i, a) in line.iter().enumerate() {
                for b in &line[i..] {
                    assert!(may_follow(a, b), "{} then {}", a.fen(), b.fen());
                }
            }
        }
        assert!(promotions > 0, "the games promoted no pawn");
        let start = Position::start(Rules::INTERNATIONAL);
        assert!(!may_follow(&play(&["e2e3"]), &start));
        assert!(!may_follow(
            &play(&["e2e3", "f7f6"]),
            &play(&["e2e3", "g7g6"])
        ));
    }
}
