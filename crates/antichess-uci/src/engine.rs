//! [`Engine`]: the state between commands (options, the game, the loaded proofs and
//! tables, the search thread) and what each command does; [`run`], the command loop.
//!
//! The loop reads lines on the calling thread; `go` starts a search thread, so that
//! `isready`, `stop` and `quit` are answered while it thinks. `go ponder` searches until
//! `stop` or `ponderhit`; `ponderhit` makes it a normal search of the same `go`, whose time
//! limits count from the `ponderhit` (a timer thread raises the search's stop flag when
//! that time is up). Every `go` ends in a `bestmove` (`bestmove 0000` when the game is
//! over), even one with words it cannot use, which are named. Proofs and tables are
//! (re)loaded when an option that names them or the rules changed, at the next `isready`
//! or `go`. Nothing a GUI sends stops the engine: a bad line gets an `info string` that
//! names it, and even an internal error (a panic) in a command or a search is reported
//! the same way (a search that fails still answers `bestmove`).

use std::io::BufRead;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use antichess_core::{Color, Game, Move, Position, Rules};
use antichess_eval::Model;
use antichess_tb::Tablebase;

use crate::options::{EvalKind, Options};
use crate::output::Output;
use crate::proofs::{default_proofs_path, ProofSet};
use crate::protocol::{parse, Command, GoParams, Start};
use crate::search::{AlphaBeta, Evaluation};
use crate::think::{time_budget, Task};
use crate::UciError;

/// Stack of the search thread (the searches recurse once per ply).
const SEARCH_STACK: usize = 64 << 20;

/// The alpha-beta table's share of `Hash` (half, at most 1 GB: its slots are written when
/// made, unlike df-pn's table, which is touched only as it fills).
fn alpha_beta_bytes(hash_mb: usize) -> usize {
    ((hash_mb << 20) / 2).min(1 << 30)
}

/// The engine's name, printed after `uci`.
pub const NAME: &str = concat!("antichess ", env!("CARGO_PKG_VERSION"));

/// The engine between commands.
#[derive(Debug)]
pub struct Engine {
    out: Output,
    options: Options,
    default_proofs: String,
    /// The last `position` command (replayed when the rules change).
    start: Start,
    moves: Vec<String>,
    game: Game,
    proofs: Arc<Mutex<ProofSet>>,
    /// What the proofs were loaded from, for which rules, with which index directory.
    proofs_loaded: Option<(String, Rules, String)>,
    tablebase: Option<Arc<Tablebase>>,
    tables_loaded: Option<(String, Rules)>,
    alpha_beta: Arc<Mutex<AlphaBeta>>,
    alpha_beta_mb: usize,
    /// The evaluation the alpha-beta search was given (`None`: not yet set).
    evaluation_loaded: Option<(EvalKind, String)>,
    /// The running search.
    search: Option<Running>,
}

/// A search thread and what the engine keeps to steer it.
#[derive(Debug)]
struct Running {
    handle: JoinHandle<()>,
    /// Raised by `stop`, `quit`, a new command that needs the search ended, or the timer a
    /// `ponderhit` starts.
    stop: Arc<AtomicBool>,
    /// Set while a `go ponder` waits for `ponderhit`.
    pondering: Arc<AtomicBool>,
    /// The `go` (for its time limits after `ponderhit`), with the side to move and the
    /// overhead it was given.
    go: GoParams,
    turn: Color,
    overhead: Duration,
}

impl Running {
    /// Whether the search answers only after `stop` (or `ponderhit`).
    fn waits(&self) -> bool {
        self.go.infinite || self.pondering.load(Relaxed)
    }
}

/// Reads commands from `input` until `quit` or its end, writing to `output`.
///
/// # Errors
/// Reading the input failed.
pub fn run(
    input: impl BufRead,
    output: impl std::io::Write + Send + 'static,
) -> std::io::Result<()> {
    run_with_options(input, output, &[])
}

/// [`run`], with first values for options (`(name, value)`, as `setoption` takes them; a
/// bad one is reported as an `info string` like any `setoption`).
///
/// # Errors
/// Reading the input failed.
pub fn run_with_options(
    input: impl BufRead,
    output: impl std::io::Write + Send + 'static,
    options: &[(String, String)],
) -> std::io::Result<()> {
    let mut engine = Engine::new(Output::new(output));
    for (name, value) in options {
        if let Err(e) = engine.options.set(name, Some(value)) {
            engine.info_string(&e.to_string());
        }
    }
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        // Not UTF-8 is garbage like any other.
        let line = String::from_utf8_lossy(&buf);
        if !engine.handle(&line) {
            engine.stop_search();
            return Ok(());
        }
    }
    // The end of the input: a search with limits finishes (so that `echo "go depth 5" |
    // antichess uci` prints its move); an infinite one is stopped.
    engine.finish_search();
    Ok(())
}

impl Engine {
    #[must_use]
    pub fn new(out: Output) -> Engine {
        let default_proofs = default_proofs_path()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let options = Options::new(default_proofs.clone());
        let hash = options.hash_mb;
        Engine {
            out,
            options,
            default_proofs,
            start: Start::StartPos,
            moves: Vec::new(),
            game: Game::new(Position::start(Rules::INTERNATIONAL)),
            proofs: Arc::new(Mutex::new(ProofSet::default())),
            proofs_loaded: None,
            tablebase: None,
            tables_loaded: None,
            alpha_beta: Arc::new(Mutex::new(AlphaBeta::new(alpha_beta_bytes(hash)))),
            alpha_beta_mb: hash,
            evaluation_loaded: None,
            search: None,
        }
    }

    fn info_string(&self, text: &str) {
        // One line per message: a newline in it would start a bogus command for the GUI.
        let text = text.replace(['\n', '\r'], " ");
        self.out.line(&format!("info string {text}"));
    }

    /// Handles one line; `false` after `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        match catch_unwind(AssertUnwindSafe(|| self.handle_inner(line))) {
            Ok(go_on) => go_on,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown");
                self.info_string(&format!("internal error on '{}': {message}", line.trim()));
                true
            }
        }
    }

    fn handle_inner(&mut self, line: &str) -> bool {
        let command = match parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.info_string(&e.to_string());
                return true;
            }
        };
        self.reap_search();
        match command {
            Command::Empty | Command::Debug(_) => {}
            Command::PonderHit => self.ponder_hit(),
            Command::Uci => {
                self.out.line(&format!("id name {NAME}"));
                self.out.line("id author antichess developers");
                for line in self.options.declarations(&self.default_proofs) {
                    self.out.line(&line);
                }
                self.out.line("uciok");
            }
            Command::IsReady => {
                self.prepare();
                self.out.line("readyok");
            }
            Command::SetOption { name, value } => {
                if self.search.is_some() {
                    self.stop_search();
                }
                if let Err(e) = self.options.set(&name, value.as_deref()) {
                    self.info_string(&e.to_string());
                }
            }
            Command::UciNewGame => {
                self.stop_search();
                // The proofs found in the last game go.
                self.proofs
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .forget_kept(|_| false);
                self.alpha_beta
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clear();
                self.start = Start::StartPos;
                self.moves.clear();
                self.game = Game::new(Position::start(self.options.rules));
            }
            Command::Position { start, moves } => {
                self.stop_search();
                self.set_position(start, moves);
            }
            Command::Go(go) => {
                for problem in &go.ignored {
                    self.info_string(&problem.to_string());
                }
                self.go(go);
            }
            Command::Stop => self.stop_search(),
            Command::Quit => return false,
        }
        true
    }

    /// Sets up the game from `position`; a bad FEN keeps the previous position, an illegal
    /// move stops the list there. Both are reported.
    fn set_position(&mut self, start: Start, moves: Vec<String>) {
        let rules = self.options.rules;
        let start_pos = match &start {
            Start::StartPos => Position::start(rules),
            Start::Fen(fen) => match Position::from_fen(fen, rules) {
                Ok(p) => p,
                Err(e) => {
                    let error = UciError::BadFen {
                        fen: fen.clone(),
                        message: e.to_string(),
                    };
                    self.info_string(&format!("{error}; the position is unchanged"));
                    return;
                }
            },
        };
        let mut game = Game::new(start_pos);
        let mut played = Vec::new();
        for token in &moves {
            let pos = *game.position();
            match pos.parse_uci(token) {
                Ok(m) => {
                    game.play_unchecked(m);
                    played.push(token.clone());
                }
                Err(e) => {
                    let error = UciError::IllegalMove {
                        token: token.clone(),
                        fen: pos.fen(),
                        message: e.to_string(),
                    };
                    self.info_string(&format!(
                        "{error}; the moves after it are ignored, the position is the one before it"
                    ));
                    break;
                }
            }
        }
        self.start = start;
        self.moves = played;
        self.game = game;
    }

    /// Loads proofs and tables and sizes the alpha-beta table as the options say, if they
    /// changed.
    fn prepare(&mut self) {
        let rules = self.options.rules;
        if self.game.start().rules() != rules {
            let (start, moves) = (self.start.clone(), std::mem::take(&mut self.moves));
            self.set_position(start, moves);
        }
        let proofs = (
            self.options.proofs.clone(),
            rules,
            self.options.proof_index.clone(),
        );
        let mut give_tables = false;
        if self.proofs_loaded.as_ref() != Some(&proofs) {
            give_tables = true;
            let set = if proofs.0.is_empty() {
                ProofSet::default()
            } else {
                let (set, errors) =
                    ProofSet::load(&PathBuf::from(&proofs.0), rules, &PathBuf::from(&proofs.2));
                for e in errors {
                    self.info_string(&e.to_string());
                }
                if !set.is_empty() {
                    // Headers only: a file is indexed when the game reaches its line.
                    self.info_string(&format!(
                        "proofs found ({rules} rules; each opened when a position may be in it, verified and indexed the first time): {}",
                        set.names().join(", ")
                    ));
                }
                set
            };
            *self.proofs.lock().unwrap_or_else(PoisonError::into_inner) = set;
            self.proofs_loaded = Some(proofs);
        }
        let tables = (self.options.tables.clone(), rules);
        if self.tables_loaded.as_ref() != Some(&tables) {
            self.tablebase = None;
            if !tables.0.is_empty() {
                match Tablebase::open(&PathBuf::from(&tables.0), rules) {
                    Ok(tb) => {
                        self.info_string(&format!(
                            "tables loaded from {}: complete up to {} units",
                            tables.0,
                            tb.complete_units()
                        ));
                        self.tablebase = Some(Arc::new(tb));
                    }
                    Err(e) => {
                        let error = UciError::Load {
                            what: format!("tables {}", tables.0),
                            message: e.to_string(),
                        };
                        self.info_string(&error.to_string());
                    }
                }
            }
            self.tables_loaded = Some(tables);
            give_tables = true;
        }
        if give_tables {
            // The tables verify the tablebase leaves of a proof before it is indexed.
            self.proofs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .set_tables(self.tablebase.clone());
        }
        if self.alpha_beta_mb != self.options.hash_mb {
            self.alpha_beta_mb = self.options.hash_mb;
            *self
                .alpha_beta
                .lock()
                .unwrap_or_else(PoisonError::into_inner) =
                AlphaBeta::new(alpha_beta_bytes(self.alpha_beta_mb));
            self.evaluation_loaded = None;
        }
        let evaluation = (self.options.evaluation, self.options.eval_file.clone());
        if self.evaluation_loaded.as_ref() != Some(&evaluation) {
            let chosen = match evaluation.0 {
                EvalKind::Simple => Evaluation::Simple,
                EvalKind::Model if evaluation.1.is_empty() => {
                    Evaluation::Model(Arc::new(Model::builtin()))
                }
                EvalKind::Model => match Model::load(Path::new(&evaluation.1)) {
                    Ok(model) => {
                        self.info_string(&format!("evaluation: the model in {}", evaluation.1));
                        Evaluation::Model(Arc::new(model))
                    }
                    Err(e) => {
                        let error = UciError::Load {
                            what: format!("evaluation model {}", evaluation.1),
                            message: e.to_string(),
                        };
                        self.info_string(&format!("{error}; the simple evaluation is used"));
                        Evaluation::Simple
                    }
                },
            };
            self.alpha_beta
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .set_evaluation(chosen);
            self.evaluation_loaded = Some(evaluation);
        }
    }

    fn go(&mut self, go: GoParams) {
        self.stop_search();
        self.prepare();
        let pos = *self.game.position();
        let mut searchmoves = Vec::new();
        for token in &go.searchmoves {
            match pos.parse_uci(token) {
                Ok(m) => searchmoves.push(m),
                Err(e) => self.info_string(&format!("go searchmoves: '{token}' is ignored: {e}")),
            }
        }
        let keys = self.game.keys();
        // A proof found earlier in the game is kept while the game passes through its root.
        self.proofs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .forget_kept(|root| keys.contains(&root));
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        let running_go = go.clone();
        let fallback: Option<Move> = pos.legal_moves().first().copied();
        let task = Task {
            pos,
            game_keys: keys[..keys.len() - 1].to_vec(),
            go,
            searchmoves,
            hash_bytes: self.options.hash_mb << 20,
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            tablebase: self.tablebase.clone(),
            proofs: Arc::clone(&self.proofs),
            alpha_beta: Arc::clone(&self.alpha_beta),
            stop: Arc::clone(&stop),
            pondering: Arc::clone(&pondering),
            out: self.out.clone(),
        };
        let out = self.out.clone();
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| task.run())) {
                    let message = panic
                        .downcast_ref::<String>()
                        .map(String::as_str)
                        .or_else(|| panic.downcast_ref::<&str>().copied())
                        .unwrap_or("unknown");
                    out.line(&format!(
                        "info string internal error in the search: {message}"
                    ));
                    let m = fallback.map_or_else(|| "0000".to_string(), |m| m.to_uci());
                    out.line(&format!("bestmove {m}"));
                }
            });
        match spawned {
            Ok(handle) => {
                self.search = Some(Running {
                    handle,
                    stop,
                    pondering,
                    go: running_go,
                    turn: pos.turn(),
                    overhead: self.options.move_overhead,
                });
            }
            Err(e) => {
                self.info_string(&format!("cannot start the search thread: {e}"));
                let m = fallback.map_or_else(|| "0000".to_string(), |m| m.to_uci());
                self.out.line(&format!("bestmove {m}"));
            }
        }
    }

    /// `ponderhit`: the pondering search becomes a normal one; the time limits of its `go`
    /// count from now. Nothing when no search is pondering.
    fn ponder_hit(&mut self) {
        let Some(running) = &self.search else { return };
        if !running.pondering.swap(false, Relaxed) {
            return;
        }
        let go = GoParams {
            ponder: false,
            ..running.go.clone()
        };
        // Without a time limit (depth, nodes, mate) the search ends by itself.
        let Some(budget) = time_budget(&go, running.turn, running.overhead) else {
            return;
        };
        let Some(deadline) = Instant::now().checked_add(budget) else {
            return;
        };
        let stop = Arc::clone(&running.stop);
        let timer = std::thread::Builder::new()
            .name("ponderhit".into())
            .spawn(move || {
                // The search raises the flag itself when it ends first.
                while !stop.load(Relaxed) {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        stop.store(true, Relaxed);
                        break;
                    }
                    std::thread::sleep(left.min(Duration::from_millis(5)));
                }
            });
        if let Err(e) = timer {
            // No timer: the move is made at once rather than never.
            self.info_string(&format!("cannot time the search after ponderhit: {e}"));
            running.stop.store(true, Relaxed);
        }
    }

    /// Joins a search thread that has finished by itself.
    fn reap_search(&mut self) {
        if self.search.as_ref().is_some_and(|r| r.handle.is_finished()) {
            if let Some(r) = self.search.take() {
                let _ = r.handle.join();
            }
        }
    }

    /// Stops the search (it prints its `bestmove`) and waits for it.
    fn stop_search(&mut self) {
        if let Some(r) = self.search.take() {
            r.stop.store(true, Relaxed);
            let _ = r.handle.join();
        }
    }

    /// Waits for a search with limits to end; stops one that waits for `stop`.
    fn finish_search(&mut self) {
        if let Some(r) = self.search.take() {
            if r.waits() {
                r.stop.store(true, Relaxed);
            }
            let _ = r.handle.join();
        }
    }
}

#[cfg(test)]
mod tests;
