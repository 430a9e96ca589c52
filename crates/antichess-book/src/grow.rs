//! Growing a book: workers that repeatedly claim a leaf, expand it with a bounded search
//! and write the result, until the root is decided, a budget runs out or they are told to
//! stop.
//!
//! Each worker is a thread with its own store connection and its own solver (its own
//! transposition table). A loop: claim a leaf (queued nodes first, then the walk from the
//! pinned node or the root) with a lease, search it, write the result and the
//! propagation in one transaction. The lease is renewed during the search; a worker that
//! dies leaves a lease that expires (or, on the same host, a claim of a dead process that
//! the next `grow` releases at once), and the leaf returns to the pool. Nothing a worker
//! holds in memory is needed to resume. Workers of any number of processes and hosts can
//! share one store: claims are rows, not memory. A worker that finds the store
//! unreachable (a PostgreSQL server restarting, a network failure) reconnects and goes on,
//! for up to [`GrowOptions::retry`]; a search under way keeps running meanwhile.

use antichess_pns::InitialNumbers;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use antichess_pns::{SearchOptions, Solver};
use antichess_tb::Tablebase;

use crate::damage::{diagnose_stall, MAX_LEASE};
use crate::error::{BookError, Result};
use crate::expand::{apply, expand_leaf, Applied};
use crate::node::NodeId;
use crate::select::{walk, Rng, Selection};
use crate::store::{next_counter, open_store, Store};

/// How long a worker keeps trying to write to a SQLite book that another writer holds
/// locked (each try waits out the busy timeout): one write can hold the lock for minutes
/// (a 2.8 M-node book's last result, which won the root, shared that win with 131,307
/// transpositions in one transaction of about nine minutes).
const BUSY_RETRY: Duration = Duration::from_secs(3600);

/// How to grow a book.
#[derive(Debug, Clone)]
pub struct GrowOptions {
    /// Worker threads.
    pub workers: usize,
    /// Node budget of one leaf search.
    pub search_nodes: u64,
    /// Transposition table of each worker, in bytes.
    pub hash_bytes: usize,
    /// Stop claiming leaves after this long (a running search is cut to fit).
    pub max_time: Option<Duration>,
    /// Stop after this many searches in all (for tests and short runs).
    pub max_searches: Option<u64>,
    /// How long a claim holds without renewal.
    pub lease: Duration,
    pub selection: Selection,
    /// Weigh the work spent below each of the prover's moves into the walk (see
    /// [`crate::select::pick_with`]); `None`: proof numbers alone.
    pub effort: Option<crate::select::Effort>,
    /// Probe tablebases up to this many units (0 = none).
    pub tablebase_units: u32,
    /// The solver's lone opposite-bishop rule.
    pub lone_bishop_rule: bool,
    /// ε of the solver's 1+ε trick.
    pub epsilon: f64,
    /// How long a worker keeps reconnecting when the store cannot be reached (a
    /// PostgreSQL server restarting, a network failure, a SQLite book locked past its
    /// busy timeout: [`BookError::is_transient`]) before the grow fails; zero fails at
    /// once.
    ///
    /// [`BookError::is_transient`]: crate::BookError::is_transient
    pub retry: Duration,
    /// Where each worker keeps the proof of every node its searches prove (see
    /// [`crate::leaves`]), extracted while its table still holds it, so that `book prove`
    /// reads them instead of searching those leaves again (`None`: nothing is kept).
    pub proof_dir: Option<PathBuf>,
    /// How the searches' new nodes get their numbers (mobility, or a learned evaluation).
    pub initial: InitialNumbers,
    /// The record's moves: at a prover's node they name a move for, the walk takes it
    /// (see [`crate::hints`]).
    pub hints: Option<std::sync::Arc<crate::hints::Hints>>,
}

impl Default for GrowOptions {
    fn default() -> GrowOptions {
        GrowOptions {
            workers: 1,
            search_nodes: 10_000_000,
            hash_bytes: 256 << 20,
            max_time: None,
            max_searches: None,
            lease: Duration::from_secs(600),
            selection: Selection::default(),
            effort: None,
            tablebase_units: 0,
            lone_bishop_rule: true,
            epsilon: 0.25,
            retry: Duration::from_secs(300),
            proof_dir: None,
            initial: InitialNumbers::Mobility,
            hints: None,
        }
    }
}

/// Counters shared by the workers of one `grow` (readable while it runs).
#[derive(Debug, Default)]
pub struct GrowStats {
    /// Leaves written (searched or decided).
    pub searches: AtomicU64,
    /// Positions evaluated by the searches.
    pub nodes: AtomicU64,
    /// Leaves decided (won or lost) by their own search or without one.
    pub decided: AtomicU64,
    /// Results dropped because the claim had been lost.
    pub lost: AtomicU64,
    /// Claims taken (including searches still running).
    pub claims: AtomicU64,
    /// Proof files written to [`GrowOptions::proof_dir`].
    pub proofs_kept: AtomicU64,
    /// Proved nodes whose proof could not be extracted for [`GrowOptions::proof_dir`] (the
    /// assembly searches them again), and the last such error.
    pub proofs_failed: AtomicU64,
    pub last_proof_error: Mutex<Option<String>>,
    /// Times a worker found the store unreachable and reconnected (or tried to).
    pub retries: AtomicU64,
    /// The last such error, for the user.
    pub last_store_error: Mutex<Option<String>>,
    /// The longest a worker took to write one search's result (the transaction that
    /// holds the book's write lock: the minimax to the root and the transpositions'
    /// wins), in milliseconds, and the node it was written for.
    pub longest_write_ms: AtomicU64,
    pub longest_write_node: AtomicU64,
}

impl GrowStats {
    /// Keeps the time a result's write took if it is the longest so far.
    fn wrote(&self, node: NodeId, took: Duration) {
        let ms = took.as_millis().try_into().unwrap_or(u64::MAX);
        if self.longest_write_ms.fetch_max(ms, Relaxed) < ms {
            self.longest_write_node.store(node as u64, Relaxed);
        }
    }

    /// Counts a failure to reach the store and keeps its message.
    fn store_failed(&self, error: &BookError) {
        self.retries.fetch_add(1, Relaxed);
        *self
            .last_store_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(error.to_string());
    }
}

/// Why a `grow` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowEnd {
    /// The root is won or lost.
    Solved,
    /// The time or search budget ran out.
    Budget,
    /// Asked to stop.
    Stopped,
}

/// An identifier for a worker: `host:pid:index:scope`, where `scope` names the process
/// table the pid belongs to (see [`release_dead_claims`]).
#[must_use]
pub fn worker_id(index: usize) -> String {
    let id = format!("{}:{}:{index}", hostname(), std::process::id());
    match pid_scope() {
        Some(scope) => format!("{id}:{scope}"),
        None => id,
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty() && !s.contains(':'))
        .unwrap_or_else(|| "localhost".into())
}

/// Where this process's pid is meaningful: a hash of the kernel's boot id (one per boot
/// of one machine) and the pid namespace (containers have their own). Two hosts that
/// share a name, or two containers that share the host's name, still differ here, so a
/// `grow` never takes another machine's or container's live process for a dead one.
fn pid_scope() -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    // FNV-1a: stable across builds, so that every build on a host agrees.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in boot.trim().bytes().chain(ns.to_string_lossy().bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Some(format!("{:08x}", h >> 32))
}

/// Releases claims of processes of this host (and process table) that no longer run:
/// their leaves would otherwise wait for the lease to expire. Claims of other hosts are
/// left to their leases, since their processes cannot be seen from here. Returns how
/// many were released.
pub fn release_dead_claims(store: &mut dyn Store) -> Result<usize> {
    let host = hostname();
    let scope = pid_scope();
    let proc_visible = std::path::Path::new("/proc/self").exists();
    let claims = store.read()?.claims()?;
    let mut released = 0;
    for (id, worker, _) in claims {
        let mut parts = worker.split(':');
        let (Some(h), Some(pid), _, claim_scope) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        // A claim written without a scope (an older build) counts as this host's.
        let same_table = h == host && claim_scope.is_none_or(|s| Some(s) == scope.as_deref());
        let alive = pid == std::process::id()
            || std::path::Path::new(&format!("/proc/{pid}")).exists()
            || !proc_visible;
        if same_table && !alive {
            let mut txn = store.claim_txn()?;
            txn.release(id, &worker)?;
            txn.commit()?;
            released += 1;
        }
    }
    Ok(released)
}

/// What a claim attempt found.
enum Claimed {
    Leaf {
        node: NodeId,
        log_id: i64,
    },
    /// The root is decided.
    Solved,
    /// Every open leaf is held by another worker.
    Busy,
}

/// Tries to claim `id` for `worker` and logs the start of its search.
fn try_claim(
    store: &mut dyn Store,
    id: NodeId,
    worker: &str,
    lease: Duration,
    queue_entry: Option<i64>,
) -> Result<Option<i64>> {
    let mut txn = store.claim_txn()?;
    let now = txn.clock_ms()?;
    if !txn.claim(id, worker, now, now + lease.as_millis() as i64)? {
        return Ok(None);
    }
    if let Some(entry) = queue_entry {
        txn.remove_queue_entry(entry)?;
    }
    let seq = next_counter(&mut *txn, "event_seq")?;
    let log_id = txn.log_start(id, worker, now, seq)?;
    txn.commit()?;
    Ok(Some(log_id))
}

/// What the queue gave [`claim_next`].
enum FromQueue {
    Claimed(Claimed),
    /// An entry moved on along its line: look again.
    Again,
    Nothing,
}

/// Claims the next leaf: queued nodes first, then the walk from the pin or the root.
fn claim_next(
    store: &mut dyn Store,
    worker: &str,
    options: &GrowOptions,
    rng: &mut Rng,
) -> Result<Claimed> {
    let (now, root, queue, pin) = {
        let mut txn = store.read()?;
        let now = txn.clock_ms()?;
        let root = txn
            .root()?
            .ok_or_else(|| crate::error::BookError::Corrupt("the book has no root".into()))?;
        (now, root, txn.queue()?, crate::nav::pinned(&mut *txn)?)
    };
    if !root.is_open() {
        return Ok(Claimed::Solved);
    }
    let mut excluded = HashSet::new();
    let mut claimer = Claimer {
        store,
        worker,
        options,
        rng,
        now,
        excluded: &mut excluded,
    };
    match claimer.claim_queued(queue)? {
        FromQueue::Claimed(c) => Ok(c),
        FromQueue::Again => claim_next(store, worker, options, rng),
        FromQueue::Nothing => claimer.claim_walked(pin, root.id),
    }
}

/// The state of one [`claim_next`].
struct Claimer<'a> {
    store: &'a mut dyn Store,
    worker: &'a str,
    options: &'a GrowOptions,
    rng: &'a mut Rng,
    now: i64,
    /// Leaves the walk found claimed: not walked to again.
    excluded: &'a mut HashSet<NodeId>,
}

impl Claimer<'_> {
    /// The leaf the walk from `start` reaches, if any.
    fn walk_from(&mut self, start: NodeId) -> Result<Option<NodeId>> {
        walk(
            &mut *self.store.read()?,
            start,
            self.options.selection,
            self.options.effort,
            self.options.hints.as_deref(),
            self.rng,
            self.now,
            self.excluded,
        )
    }

    fn claim(&mut self, leaf: NodeId, entry: Option<i64>) -> Result<Option<Claimed>> {
        let claimed = try_claim(self.store, leaf, self.worker, self.options.lease, entry)?;
        Ok(claimed.map(|log_id| Claimed::Leaf { node: leaf, log_id }))
    }

    /// Claims a queued leaf, or a leaf below a queued node.
    fn claim_queued(&mut self, queue: Vec<crate::store::QueueEntry>) -> Result<FromQueue> {
        for entry in queue {
            let node = self.store.read()?.node(entry.node)?;
            let Some(node) = node.filter(|n| n.is_open()) else {
                let mut txn = self.store.write()?;
                crate::queue::drop_entry(&mut *txn, entry.id)?;
                txn.commit()?;
                continue;
            };
            if node.expanded
                && !crate::queue::line_of(&mut *self.store.read()?, entry.id)?.is_empty()
            {
                // A queued line whose node was expanded some other way (not by a search of
                // it): the entry goes on along the line, and the next call finds it there.
                let mut txn = self.store.write()?;
                let line = crate::queue::line_of(&mut *txn, entry.id)?;
                crate::queue::drop_entry(&mut *txn, entry.id)?;
                crate::queue::queue_along(&mut *txn, node, &line, self.now)?;
                txn.commit()?;
                return Ok(FromQueue::Again);
            }
            if !node.expanded {
                if node.is_claimable(self.now) {
                    if let Some(c) = self.claim(node.id, None)? {
                        return Ok(FromQueue::Claimed(c));
                    }
                }
                continue;
            }
            if let Some(leaf) = self.walk_from(node.id)? {
                if let Some(c) = self.claim(leaf, Some(entry.id))? {
                    return Ok(FromQueue::Claimed(c));
                }
            }
        }
        Ok(FromQueue::Nothing)
    }

    /// Claims a leaf the walk from the pin, else from the root, reaches.
    fn claim_walked(&mut self, pin: Option<NodeId>, root: NodeId) -> Result<Claimed> {
        let mut starts = Vec::new();
        if let Some(p) = pin {
            // A pin cut off from the root (a cycle of parents) would send the walk round
            // the cycle.
            if let Some(damage) = crate::damage::cut_off(&mut *self.store.read()?, p)? {
                return Err(BookError::Corrupt(format!(
                    "the walk's pinned node {p}: {damage}"
                )));
            }
            starts.push(p);
        }
        starts.push(root);
        for start in starts {
            for _ in 0..64 {
                let Some(leaf) = self.walk_from(start)? else {
                    break;
                };
                if let Some(c) = self.claim(leaf, None)? {
                    return Ok(c);
                }
                self.excluded.insert(leaf);
            }
        }
        Ok(Claimed::Busy)
    }
}

/// A worker's connection to the store.
struct WorkerStore {
    store: Box<dyn Store>,
    /// Set when the store was opened again after a failure (see `Run::with_store`).
    reconnected: bool,
}

/// Releases every claim held in the name of `worker`.
fn release_claims_of(store: &mut dyn Store, worker: &str) -> Result<()> {
    let claims = store.read()?.claims()?;
    for (id, _, _) in claims.into_iter().filter(|(_, w, _)| w == worker) {
        let mut txn = store.claim_txn()?;
        txn.release(id, worker)?;
        txn.commit()?;
    }
    Ok(())
}

/// Shared state of one `grow`.
struct Run<'a> {
    location: &'a str,
    tablebase: Option<&'a Tablebase>,
    options: &'a GrowOptions,
    stop: &'a Arc<AtomicBool>,
    /// Set when a worker fails, so that the others stop too.
    abort: AtomicBool,
    /// Claims taken by this run (for `max_searches`).
    claims: AtomicU64,
    stats: &'a GrowStats,
    start: Instant,
    rules: antichess_core::Rules,
    prover: antichess_core::Color,
    /// The root position (to name damaged nodes by their line).
    root: antichess_core::Position,
}

impl Run<'_> {
    fn out_of_budget(&self) -> bool {
        self.options
            .max_time
            .is_some_and(|t| self.start.elapsed() >= t)
    }

    /// Reserves one search of the search budget; false if it is used up.
    fn reserve_search(&self) -> bool {
        let max = self.options.max_searches.unwrap_or(u64::MAX);
        let reserved = self
            .claims
            .fetch_update(Relaxed, Relaxed, |c| (c < max).then_some(c + 1))
            .is_ok();
        if reserved {
            self.stats.claims.fetch_add(1, Relaxed);
        }
        reserved
    }

    fn unreserve(&self) {
        self.claims.fetch_sub(1, Relaxed);
        self.stats.claims.fetch_sub(1, Relaxed);
    }

    /// Runs `op` on the worker's store; when the store cannot be reached
    /// ([`BookError::is_transient`]), reconnects (pausing 0.25 s, doubling up to 5 s) and
    /// runs it again, for at most `options.retry` after the first failure (a SQLite book
    /// locked by another writer: at least [`BUSY_RETRY`]). An operation
    /// cut short this way is a transaction that was rolled back, or one whose commit was
    /// lost with the connection; either way running it again is safe: a claim already
    /// taken is taken again or expires with its lease, and a result already written finds
    /// its claim gone and is dropped (its search log entry then says "lost").
    fn with_store<T>(
        &self,
        store: &mut WorkerStore,
        mut op: impl FnMut(&mut dyn Store) -> Result<T>,
    ) -> Result<T> {
        let mut failing_since: Option<Instant> = None;
        let mut pause = Duration::from_millis(250);
        loop {
            let mut error = match op(&mut *store.store) {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            // Reconnect, until the store answers or the retry time is up.
            loop {
                let since = *failing_since.get_or_insert_with(Instant::now);
                let limit = if error.is_busy() {
                    self.options.retry.max(BUSY_RETRY)
                } else {
                    self.options.retry
                };
                if !error.is_transient()
                    || since.elapsed() >= limit
                    || self.stop.load(Relaxed)
                    || self.abort.load(Relaxed)
                {
                    return Err(error);
                }
                self.stats.store_failed(&error);
                self.pause(pause);
                pause = (pause * 2).min(Duration::from_secs(5));
                match open_store(self.location) {
                    Ok(s) => {
                        store.store = s;
                        store.reconnected = true;
                        break;
                    }
                    Err(e) => error = e,
                }
            }
        }
    }

    /// Sleeps for `time`, or less if the grow is told to stop.
    fn pause(&self, time: Duration) {
        let end = Instant::now() + time;
        while !self.stop.load(Relaxed) && !self.abort.load(Relaxed) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
    }

    /// Why no leaf could be claimed: damage named by [`diagnose_stall`], or `None`.
    fn stalled(&self, store: &mut dyn Store) -> Result<Option<String>> {
        let mut txn = store.read()?;
        let now = txn.clock_ms()?;
        let Some(root) = txn.root()? else {
            return Ok(Some("the book has no root".into()));
        };
        if !root.is_open() {
            return Ok(None);
        }
        let mut starts = Vec::new();
        starts.extend(crate::nav::pinned(&mut *txn)?);
        starts.extend(txn.queue()?.into_iter().map(|q| q.node));
        starts.push(root.id);
        diagnose_stall(
            &mut *txn,
            self.rules,
            &self.root,
            &starts,
            now,
            MAX_LEASE.max(self.options.lease),
        )
    }

    /// The options of one leaf's search.
    fn search_options(&self) -> SearchOptions {
        let mut search = SearchOptions::new(self.prover);
        search.max_nodes = Some(self.options.search_nodes);
        search.max_time = self.options.max_time.map(|t| {
            t.saturating_sub(self.start.elapsed())
                .max(Duration::from_millis(10))
        });
        search.tablebase_units = self.options.tablebase_units;
        search.record_missing_units = crate::tables::RECORD_UNITS;
        search.lone_bishop_rule = self.options.lone_bishop_rule;
        search.epsilon = self.options.epsilon;
        search.initial = self.options.initial.clone();
        search.interrupt = Some(Arc::clone(self.stop));
        search
    }

    /// Searches the claimed leaf `node_id` at `pos`, renewing its lease meanwhile.
    fn search_leaf(
        &self,
        solver: &Solver<'_>,
        store: &mut WorkerStore,
        pos: &antichess_core::Position,
        search: &SearchOptions,
        node_id: NodeId,
        worker: &str,
    ) -> Result<crate::expand::Expansion> {
        let lease = self.options.lease;
        let renew_every = (lease / 3).max(Duration::from_millis(200));
        let mut last_renewal = Instant::now();
        let mut renewal_error = None;
        // Set while the store cannot be reached: the next renewal reconnects first.
        let mut reconnect = false;
        let expansion = expand_leaf(solver, pos, search, &mut |_| {
            if last_renewal.elapsed() >= renew_every && renewal_error.is_none() {
                last_renewal = Instant::now();
                let renewed = if reconnect {
                    open_store(self.location).map(|s| store.store = s)
                } else {
                    Ok(())
                }
                .and_then(|()| {
                    let mut txn = store.store.claim_txn()?;
                    let until = txn.clock_ms()? + lease.as_millis() as i64;
                    txn.refresh(node_id, worker, until)?;
                    txn.commit()
                });
                reconnect = false;
                match renewed {
                    Ok(()) => {}
                    // The search goes on; if the lease expires meanwhile, another
                    // worker may take the leaf and this result will be dropped.
                    Err(e) if e.is_transient() => {
                        self.stats.store_failed(&e);
                        reconnect = true;
                    }
                    Err(e) => renewal_error = Some(e),
                }
            }
        });
        match renewal_error {
            Some(e) => Err(e),
            None => Ok(expansion),
        }
    }

    /// Keeps the proofs the search found in `dir` (see [`crate::leaves`]).
    fn keep_proofs(
        &self,
        solver: &Solver<'_>,
        pos: &antichess_core::Position,
        search: &SearchOptions,
        expansion: &crate::expand::Expansion,
        dir: &std::path::Path,
    ) -> Result<()> {
        let kept = crate::leaves::keep(solver, pos, search, expansion, dir)?;
        self.stats.proofs_kept.fetch_add(kept.written, Relaxed);
        if kept.failed > 0 {
            self.stats.proofs_failed.fetch_add(kept.failed, Relaxed);
            *self
                .stats
                .last_proof_error
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = kept.last_error;
        }
        Ok(())
    }

    fn worker(&self, index: usize) -> Result<GrowEnd> {
        let mut store = WorkerStore {
            store: open_store(self.location)?,
            reconnected: false,
        };
        let solver = Solver::try_new(self.options.hash_bytes, self.tablebase)
            .map_err(|e| BookError::Input(e.to_string()))?;
        let worker = worker_id(index);
        let mut rng = Rng::from_entropy(index as u64 + 1);
        loop {
            if self.stop.load(Relaxed) || self.abort.load(Relaxed) {
                return Ok(GrowEnd::Stopped);
            }
            if self.out_of_budget() {
                return Ok(GrowEnd::Budget);
            }
            if !self.reserve_search() {
                return Ok(GrowEnd::Budget);
            }
            if store.reconnected {
                // A claim whose commit was lost with the connection may be ours: this
                // worker holds none between searches, so any claim in its name is one.
                self.with_store(&mut store, |s| release_claims_of(s, &worker))?;
                store.reconnected = false;
            }
            let claimed = self.with_store(&mut store, |s| {
                claim_next(s, &worker, self.options, &mut rng)
            })?;
            let (node_id, log_id) = match claimed {
                Claimed::Leaf { node, log_id } => (node, log_id),
                Claimed::Solved => {
                    self.unreserve();
                    return Ok(GrowEnd::Solved);
                }
                Claimed::Busy => {
                    self.unreserve();
                    // Busy, or is the book damaged where the walk goes? (Waiting would
                    // then be for ever.)
                    if let Some(damage) = self.with_store(&mut store, |s| self.stalled(s))? {
                        return Err(BookError::Corrupt(format!(
                            "{damage}; `antichess book check {}` reports everything",
                            crate::store::redact(self.location)
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let node = self
                .with_store(&mut store, |s| s.read()?.node(node_id))?
                .ok_or_else(|| BookError::Corrupt(format!("claimed node {node_id} vanished")))?;
            let pos = node.position(self.rules)?;
            let search = self.search_options();
            let expansion =
                self.search_leaf(&solver, &mut store, &pos, &search, node_id, &worker)?;
            if let Some(dir) = &self.options.proof_dir {
                self.keep_proofs(&solver, &pos, &search, &expansion, dir)?;
            }
            self.write_result(&mut store, node_id, &worker, &expansion, log_id)?;
        }
    }

    /// Writes the search's result (dropped if the claim was lost) and counts it.
    fn write_result(
        &self,
        store: &mut WorkerStore,
        node_id: NodeId,
        worker: &str,
        expansion: &crate::expand::Expansion,
        log_id: i64,
    ) -> Result<()> {
        let applied = self.with_store(store, |s| {
            let mut txn = s.write()?;
            let locked = Instant::now();
            let applied = apply(
                &mut *txn,
                node_id,
                worker,
                expansion,
                log_id,
                self.rules,
                self.prover,
            )?;
            txn.commit()?;
            self.stats.wrote(node_id, locked.elapsed());
            Ok(applied)
        })?;
        self.stats.nodes.fetch_add(expansion.nodes, Relaxed);
        match applied {
            Applied::Written => {
                self.stats.searches.fetch_add(1, Relaxed);
                if expansion.result_name() != "unknown" {
                    self.stats.decided.fetch_add(1, Relaxed);
                }
            }
            Applied::LostClaim => {
                self.stats.lost.fetch_add(1, Relaxed);
            }
            Applied::Stale => {}
        }
        Ok(())
    }
}

/// Grows the book at `location` with `options.workers` workers until the root is
/// decided, the budget runs out, or `stop` is set (the running searches stop as if their
/// budget ran out, and their numbers are written). `stats` is updated as it goes.
/// Returns why it ended.
pub fn grow(
    location: &str,
    tablebase: Option<&Tablebase>,
    options: &GrowOptions,
    stop: &Arc<AtomicBool>,
    stats: &GrowStats,
) -> Result<GrowEnd> {
    check_options(options)?;
    let mut book = crate::Book::open(location)?;
    let ready = prepare(&mut book)?;
    drop(book);
    run_workers(location, &ready, tablebase, options, stop, stats)
}

/// What the workers need of the book, read by [`prepare`].
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    rules: antichess_core::Rules,
    prover: antichess_core::Color,
    root: antichess_core::Position,
}

/// Refuses options no worker can run with.
pub(crate) fn check_options(options: &GrowOptions) -> Result<()> {
    if options.lease > MAX_LEASE {
        return Err(BookError::Input(format!(
            "a lease of {} days is longer than the longest a worker takes ({} days)",
            options.lease.as_secs() / 86_400,
            MAX_LEASE.as_secs() / 86_400
        )));
    }
    Ok(())
}

/// Before the workers start: the store's quick integrity check (a damaged book is
/// refused, as [`crate::Book::open_for_writing`] does), and the claims of dead processes
/// of this host released.
pub(crate) fn prepare(book: &mut crate::Book) -> Result<Prepared> {
    let integrity = book.integrity(true)?;
    if !integrity.problems.is_empty() {
        return Err(BookError::Damaged {
            location: crate::store::redact(book.given_location()),
            problems: integrity.problems,
        });
    }
    release_dead_claims(book.store())?;
    Ok(Prepared {
        rules: book.meta().rules,
        prover: book.meta().prover,
        root: *book.root_position(),
    })
}

/// Runs the workers on the book at `location` (see [`grow`]).
pub(crate) fn run_workers(
    location: &str,
    ready: &Prepared,
    tablebase: Option<&Tablebase>,
    options: &GrowOptions,
    stop: &Arc<AtomicBool>,
    stats: &GrowStats,
) -> Result<GrowEnd> {
    let run = Run {
        location,
        tablebase,
        options,
        stop,
        abort: AtomicBool::new(false),
        claims: AtomicU64::new(0),
        stats,
        start: Instant::now(),
        rules: ready.rules,
        prover: ready.prover,
        root: ready.root,
    };
    let workers = options.workers.max(1);
    let results: Vec<Result<GrowEnd>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|i| {
                let run = &run;
                std::thread::Builder::new()
                    .name(format!("book-worker-{i}"))
                    .spawn_scoped(scope, move || {
                        let result = run.worker(i);
                        if result.is_err() {
                            run.abort.store(true, Relaxed);
                        }
                        result
                    })
                    .expect("spawn a book worker")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Ok(GrowEnd::Stopped)))
            .collect()
    });
    let mut end = GrowEnd::Budget;
    for r in results {
        match r? {
            GrowEnd::Solved => end = GrowEnd::Solved,
            GrowEnd::Stopped if end != GrowEnd::Solved => end = GrowEnd::Stopped,
            _ => {}
        }
    }
    if end != GrowEnd::Solved {
        let mut store = open_store(location)?;
        if !store.read()?.root()?.is_some_and(|r| r.is_open()) {
            end = GrowEnd::Solved;
        }
    }
    Ok(end)
}
