//! The growth of a line's book until its root is decided, the time or the searches run
//! out, or the run is stopped. The book grows in rounds: a round ends when a table round
//! building beside it (every `tables_every` searches with `grow_tables`) is done, or when
//! a frontier save is due (every `frontier_every`); the workers start again after either
//! (a new table is probed from then on). A frontier save runs beside the searches on its
//! own read-only handle (a won subtree no longer changes); the next one starts only when
//! it is done. While a round runs, the caller hears the book's state every
//! `report_every`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use antichess_tb::Tablebase;

use super::rounds::{round_materials, since, start_table_round, GrownTables, TableRound};
use super::types::frontier_options;
use super::{ProveLineEvent, ProveLineOptions, TablesMet};
use crate::frontier::{save_frontier, FrontierEvent, SaveReport};
use crate::{grow, Book, BookError, GrowEnd, GrowOptions, GrowStats, Result};

/// How the growth went.
pub(super) struct Grown {
    pub tables: GrownTables,
    pub end: GrowEnd,
    /// Frontier files written during the growth.
    pub frontier_saves: u32,
    /// Seconds from the run's start to the growth's end.
    pub seconds: f64,
}

/// A frontier save under way beside the searches, and its progress.
struct Saving {
    handle: JoinHandle<Result<SaveReport>>,
    events: Receiver<FrontierEvent>,
}

/// The state of the growth between rounds.
struct Run<'a> {
    location: &'a str,
    stats: &'a GrowStats,
    started: Instant,
    /// Searches done when the last table round began.
    tables_at: u64,
    building: Option<TableRound>,
    /// The book's counts of materials met when the previous round began.
    met_before: Option<HashMap<String, u64>>,
    frontier_at: Instant,
    frontier_saves: u32,
    saving: Option<Saving>,
    grown: GrownTables,
    record: RecordWatch,
    /// The workers' store retries already told of.
    retries_told: u64,
}

/// The record tree's proof number for the progress events (with hints): walking the book
/// costs time (about 3 s for 200,000 nodes), so it is measured again only after ten times
/// what the last measure took, and the last value is reported in between.
#[derive(Default)]
struct RecordWatch {
    last: Option<u32>,
    next: Option<Instant>,
}

impl RecordWatch {
    fn measure(&mut self, book: &mut Book, hints: &crate::Hints) -> Option<u32> {
        let now = Instant::now();
        if self.next.is_none_or(|next| now >= next) {
            let value = book
                .view()
                .and_then(|mut view| {
                    let root = view.root()?;
                    crate::hints::hinted_proof(&mut view, root.id, hints)
                })
                .ok();
            self.last = value.or(self.last);
            self.next = Some(Instant::now() + now.elapsed() * 10);
        }
        self.last
    }
}

/// Grows the book at `location` (see the module documentation).
pub(super) fn grow_rounds(
    options: &mut ProveLineOptions,
    location: &str,
    stats: &GrowStats,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<Grown> {
    let mut run = Run {
        location,
        stats,
        started: Instant::now(),
        tables_at: 0,
        building: None,
        met_before: None,
        frontier_at: Instant::now(),
        frontier_saves: 0,
        saving: None,
        grown: GrownTables::default(),
        record: RecordWatch::default(),
        retries_told: 0,
    };
    let end = loop {
        run.start_table_round(options, on_event)?;
        let grow_options = run.grow_options(options);
        let (end, finished) = run.round(options, &grow_options, on_event)?;
        let time_up = options.time.is_some_and(|t| run.started.elapsed() >= t);
        let searches_up = options
            .searches
            .is_some_and(|n| stats.searches.load(Relaxed) >= n);
        let interrupted = options.stop.load(Relaxed);
        let run_over = matches!(end, GrowEnd::Solved) || interrupted || time_up || searches_up;
        if finished.is_none() && run_over {
            let finish = searches_up && !interrupted && end != GrowEnd::Solved;
            run.end_table_round(options, finish, on_event)?;
        }
        if let Some(status) = finished {
            run.table_round_done(options, status, on_event)?;
        }
        if run_over {
            break if interrupted { GrowEnd::Stopped } else { end };
        }
        run.frontier_save(options, on_event)?;
        let in_rounds = options.grow_tables > 0 || options.frontier.is_some();
        if end != GrowEnd::Budget && end != GrowEnd::Stopped || !in_rounds {
            break end;
        }
    };
    if options.frontier.is_some() {
        run.finish_save(options, on_event)?;
    }
    let seconds = options.started.elapsed().as_secs_f64();
    if let Some(last) = stats
        .last_proof_error
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
    {
        on_event(ProveLineEvent::ProofsNotExtracted {
            count: stats.proofs_failed.load(Relaxed),
            last: last.to_string(),
        });
    }
    Ok(Grown {
        tables: run.grown,
        end,
        frontier_saves: run.frontier_saves,
        seconds,
    })
}

impl Run<'_> {
    /// Starts a table round if one is due and none is under way.
    fn start_table_round(
        &mut self,
        options: &ProveLineOptions,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        let done = self.stats.searches.load(Relaxed);
        let Some(tables) = options
            .tablebase
            .as_ref()
            .filter(|_| options.grow_tables > 0)
        else {
            return Ok(());
        };
        if self.building.is_some() || done < self.tables_at + options.tables_every {
            return Ok(());
        }
        self.tables_at = done;
        let met = materials_met(self.location, tables.rules())?;
        let choice = match (options.tables_met, &self.met_before) {
            (TablesMet::Recent, Some(before)) => since(&met, before),
            _ => met.clone(),
        };
        self.met_before = Some(met.into_iter().collect());
        let (k, max_units) = (options.grow_tables, options.units + 1);
        let names = round_materials(&choice, tables, k, max_units, options.prover)?;
        if names.is_empty() {
            return Ok(());
        }
        on_event(ProveLineEvent::TableRoundStarted {
            prover: options.prover,
            materials: names.clone(),
        });
        let dir = &options.tables_dir;
        let program = &options.table_builder;
        self.building = Some(start_table_round(
            program,
            &names,
            tables,
            options.prover,
            dir,
        )?);
        Ok(())
    }

    /// The options of the next round: its searches end at the run's budget, at the next
    /// table round, or when a frontier save is due.
    fn grow_options(&self, options: &ProveLineOptions) -> GrowOptions {
        let done = self.stats.searches.load(Relaxed);
        let left = options.searches.map(|n| n.saturating_sub(done));
        let can_build = options.grow_tables > 0 && options.tablebase.is_some();
        let next_tables = (can_build && self.building.is_none()).then(|| {
            (self.tables_at + options.tables_every)
                .saturating_sub(done)
                .max(1)
        });
        let time_left = options
            .time
            .map(|t| t.saturating_sub(self.started.elapsed()));
        let frontier_left = options.frontier.as_ref().map(|_| {
            options
                .frontier_every
                .saturating_sub(self.frontier_at.elapsed())
                .max(Duration::from_secs(1))
        });
        GrowOptions {
            workers: options.workers,
            search_nodes: options.search_nodes,
            hash_bytes: options.hash_bytes,
            max_time: match (time_left, frontier_left) {
                (Some(t), Some(f)) => Some(t.min(f)),
                (t, f) => t.or(f),
            },
            max_searches: match (left, next_tables) {
                (Some(l), Some(r)) => Some(l.min(r)),
                (l, r) => l.or(r),
            },
            tablebase_units: options.tablebase.as_ref().map_or(0, Tablebase::max_units),
            proof_dir: Some(crate::leaves::leaf_dir(std::path::Path::new(self.location))),
            selection: options.selection,
            effort: options.effort,
            initial: options.initial.clone(),
            hints: options.hints.clone(),
            ..GrowOptions::default()
        }
    }

    /// One round: `grow` on a thread of its own, stopped on Ctrl-C or when the table round
    /// beside it is done (whose exit status is returned), with a progress event every
    /// `report_every`.
    fn round(
        &mut self,
        options: &ProveLineOptions,
        grow_options: &GrowOptions,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<(GrowEnd, Option<std::io::Result<std::process::ExitStatus>>)> {
        let round_stop = Arc::new(AtomicBool::new(false));
        let every = options.report_every;
        let started = self.started;
        let mut next =
            (started.elapsed().as_secs_f64() / every.as_secs_f64()).floor() as u32 * every + every;
        let (location, stats) = (self.location, self.stats);
        let tables = options.tablebase.as_ref();
        std::thread::scope(|scope| {
            let stop = &round_stop;
            let growing = scope.spawn(move || grow(location, tables, grow_options, stop, stats));
            let mut finished = None;
            while !growing.is_finished() {
                std::thread::sleep(Duration::from_millis(100).min(every));
                if options.stop.load(Relaxed) {
                    round_stop.store(true, Relaxed);
                }
                if let (None, Some(round)) = (&finished, self.building.as_mut()) {
                    finished = round.child.try_wait().transpose();
                    if finished.is_some() {
                        round_stop.store(true, Relaxed);
                    }
                }
                self.forward_frontier_events(on_event);
                self.forward_store_retries(on_event);
                if started.elapsed() >= next {
                    next += every;
                    let hints = options.hints.as_deref();
                    if let Some(event) = progress(location, stats, started, hints, &mut self.record)
                    {
                        on_event(event);
                    }
                }
            }
            let end = growing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            Ok((end, finished))
        })
    }

    /// The run is over with a table round under way: finished for a run that ends by its
    /// search budget (`finish`: the same tables every time), stopped otherwise (the tables
    /// it finished are kept; a table is written whole or not at all).
    fn end_table_round(
        &mut self,
        options: &mut ProveLineOptions,
        finish: bool,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        let Some(mut round) = self.building.take() else {
            return Ok(());
        };
        if !finish {
            let _ = round.child.kill();
            on_event(ProveLineEvent::TableRoundStopped);
        }
        if round.child.wait().is_ok() {
            let built = round.done(&options.tables_dir);
            self.add_tables(options, &built, on_event)?;
        }
        Ok(())
    }

    /// The table round beside the searches ended with `status`.
    fn table_round_done(
        &mut self,
        options: &mut ProveLineOptions,
        status: std::io::Result<std::process::ExitStatus>,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        let round = self.building.take().expect("a table round was watched");
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => on_event(ProveLineEvent::TableRoundFailed(format!(
                "the table round ended with {s}; the run goes on without its tables"
            ))),
            Err(e) => on_event(ProveLineEvent::TableRoundFailed(format!(
                "the table round could not be watched ({e}); the run goes on"
            ))),
        }
        let built = round.done(&options.tables_dir);
        on_event(ProveLineEvent::TableRoundDone(built.clone()));
        self.add_tables(options, &built, on_event)
    }

    /// Counts a round's tables, and opens the tables again if it built any; then the proofs
    /// waiting for tables (`crate::pending`) that now have theirs are seeded.
    fn add_tables(
        &mut self,
        options: &mut ProveLineOptions,
        built: &GrownTables,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        self.grown.add(built);
        if built.tables > 0 {
            if let Some(tables) = &options.tablebase {
                let rules = tables.rules();
                options.tablebase = Some(Tablebase::open(&options.tables_dir, rules)?);
            }
            let mut book = Book::open_for_writing(self.location)?;
            super::start::retry_pending(&mut book, options, on_event)?;
        }
        Ok(())
    }

    /// Collects a finished frontier save, and starts one beside the searches when due.
    fn frontier_save(
        &mut self,
        options: &ProveLineOptions,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        let Some(file) = &options.frontier else {
            return Ok(());
        };
        if self.saving.as_ref().is_some_and(|s| s.handle.is_finished()) {
            self.finish_save(options, on_event)?;
        }
        if self.saving.is_some() || self.frontier_at.elapsed() < options.frontier_every {
            return Ok(());
        }
        let units = options.tablebase.as_ref().map_or(0, Tablebase::max_units);
        let assemble = frontier_options(options, units, std::path::Path::new(self.location));
        let (location, file) = (self.location.to_string(), file.clone());
        let tables = options
            .tablebase
            .as_ref()
            .map(|t| (options.tables_dir.clone(), t.rules()));
        let (sender, events) = channel();
        let handle = std::thread::spawn(move || {
            let tablebase = tables
                .map(|(dir, rules)| Tablebase::open(&dir, rules))
                .transpose()?;
            let mut book = Book::open_read_only(&location)?;
            save_frontier(&mut book, tablebase.as_ref(), &assemble, &file, &mut |e| {
                let _ = sender.send(e);
            })
        });
        self.saving = Some(Saving { handle, events });
        self.frontier_at = Instant::now();
        Ok(())
    }

    /// Passes on the progress of the frontier save under way.
    fn forward_frontier_events(&self, on_event: &mut dyn FnMut(ProveLineEvent)) {
        if let Some(saving) = &self.saving {
            while let Ok(e) = saving.events.try_recv() {
                on_event(ProveLineEvent::Frontier(e));
            }
        }
    }

    /// Tells of the workers' retries since the last time (a book locked past the busy
    /// timeout, or unreachable).
    fn forward_store_retries(&mut self, on_event: &mut dyn FnMut(ProveLineEvent)) {
        let retries = self.stats.retries.load(Relaxed);
        if retries > self.retries_told {
            self.retries_told = retries;
            let error = self
                .stats
                .last_store_error
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
                .unwrap_or_default();
            on_event(ProveLineEvent::StoreRetry { retries, error });
        }
    }

    /// Waits for the frontier save under way (if any).
    fn finish_save(
        &mut self,
        options: &ProveLineOptions,
        on_event: &mut dyn FnMut(ProveLineEvent),
    ) -> Result<()> {
        let (Some(saving), Some(file)) = (self.saving.take(), &options.frontier) else {
            return Ok(());
        };
        let report = saving.handle.join().map_err(|_| {
            BookError::Proof("the frontier save beside the searches panicked".to_string())
        });
        for e in saving.events.try_iter() {
            on_event(ProveLineEvent::Frontier(e));
        }
        let report = report?.map_err(|e| {
            BookError::Proof(format!("writing the frontier {}: {e}", file.display()))
        })?;
        on_event(ProveLineEvent::FrontierSaved {
            file: file.clone(),
            report,
        });
        self.frontier_saves += 1;
        Ok(())
    }
}

/// Every material the book's searches met without a table, with the positions met, most
/// first; the book's rule set must be `rules` (`tb build --from-book` and the table rounds).
pub fn materials_met(location: &str, rules: antichess_core::Rules) -> Result<Vec<(String, u64)>> {
    let mut book = Book::open_read_only(location)?;
    if book.meta().rules != rules {
        return Err(BookError::Mismatch(format!(
            "the book {location} is for the rules {}, the tables for {rules}: give --rules {}",
            book.meta().rules,
            book.meta().rules
        )));
    }
    Ok(book
        .missing_tables()?
        .into_iter()
        .map(|m| (m.material, m.positions))
        .collect())
}

/// The book's state now, if it can be read.
fn progress(
    location: &str,
    stats: &GrowStats,
    started: Instant,
    hints: Option<&crate::Hints>,
    record: &mut RecordWatch,
) -> Option<ProveLineEvent> {
    let mut book = Book::open_read_only(location).ok()?;
    let (Ok(root), Ok(counts)) = (book.root(), book.counts()) else {
        return None;
    };
    let hinted = hints.and_then(|h| record.measure(&mut book, h));
    Some(ProveLineEvent::Progress {
        hinted,
        seconds: started.elapsed().as_secs_f64(),
        root,
        counts,
        searches: stats.searches.load(Relaxed),
        decided: stats.decided.load(Relaxed),
        proofs_failed: stats.proofs_failed.load(Relaxed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::{play_move_text, Color, Position, Rules};

    /// The progress events' record number is `hinted_proof` at the root, measured again
    /// only after ten times what the last measure took.
    #[test]
    fn the_record_watch_measures_the_hinted_tree_and_waits() {
        let dir = antichess_testkit::temp_dir("record-watch");
        let game = play_move_text(Position::start(Rules::INTERNATIONAL), "e3 e6").unwrap();
        let location = dir.join("e6.book").display().to_string();
        drop(Book::create(&location, game.position(), Color::White, game.moves()).unwrap());
        let hints =
            crate::Hints::parse("e2e3 e7e6 b2b4\n", Rules::INTERNATIONAL, Color::White, "t")
                .unwrap();
        let opts = GrowOptions {
            search_nodes: 2_000,
            hash_bytes: 16 << 20,
            max_searches: Some(10),
            hints: Some(Arc::new(hints.clone())),
            ..GrowOptions::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        grow(&location, None, &opts, &stop, &GrowStats::default()).unwrap();
        let mut book = Book::open_read_only(&location).unwrap();
        let expected = {
            let mut view = book.view().unwrap();
            let root = view.root().unwrap();
            crate::hints::hinted_proof(&mut view, root.id, &hints).unwrap()
        };
        let mut watch = RecordWatch::default();
        assert_eq!(watch.measure(&mut book, &hints), Some(expected));
        let next = watch.next.expect("the next measure is set");
        assert!(next >= Instant::now() - Duration::from_secs(1));
        // Until then the last value is given without a walk.
        watch.last = Some(7);
        watch.next = Some(Instant::now() + Duration::from_secs(3600));
        assert_eq!(watch.measure(&mut book, &hints), Some(7));
        // When due, measured again.
        watch.next = Some(Instant::now());
        assert_eq!(watch.measure(&mut book, &hints), Some(expected));
        drop(book);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
