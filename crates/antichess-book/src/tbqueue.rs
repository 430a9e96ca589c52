//! Building tablebases on many machines through a PostgreSQL queue
//! (`antichess tb build --queue postgres://…`): workers on any host claim a table whose
//! dependencies are done, build it, write its file atomically into a directory they all
//! share, and mark it done. The schema is documented in `docs/formats/tb-queue.md`.
//!
//! **Why here.** The queue talks to PostgreSQL the way the book's store does (the same URL
//! settings, TLS, keepalives and database creation, [`crate::store`]'s `connect`), and
//! this crate already depends on `antichess-tb`: the queue reuses both without moving the
//! connection code or giving the tablebase crate (used by the verifier and the web server)
//! a database client.
//!
//! **Claims are PostgreSQL session advisory locks** (`pg_try_advisory_lock(LOCK_CLASS,
//! row id)`), held by the worker's connection while it builds, outside any transaction:
//! two workers never hold the same table, and when a worker dies (SIGKILL, a crash, a
//! host that vanishes) its connection closes and the server drops the lock — at once for
//! a killed process, within about a minute for a host that vanished (server-side TCP
//! keepalives set by the session). The row's `status = 'building'` is only a label for
//! people: a worker that finds a `building` row whose lock it can take knows the builder
//! is gone and builds the table again ("reclaimed"). No long transaction is held, so a
//! six-unit table taking hours does not hold back the server's vacuum. A heartbeat thread
//! stamps `heartbeat_ms` every ten seconds while a table is built (and notices a lost
//! connection). Connect directly or through a session pooler, not a transaction pooler
//! (which would hand the lock to another client).
//!
//! **A half-written table never counts as done.** The file is written under a temporary
//! name, synced and renamed into place ([`antichess_io`]) before its row is marked done
//! (with its size and checksum), in that order. A worker that finds the file of a
//! `pending` or `building` row already whole (a worker died between the rename and the
//! update) checks it completely and marks it done without building it ("found"). When a
//! worker joins it checks every done row's file against the row (magic, material, rules,
//! size and checksum in the header): a missing or damaged file sends its row back to
//! `pending`, and before it builds a table it loads the tables it depends on, whose
//! checksums are verified, with the same consequence for a damaged one.
//!
//! **Order.** A table is claimable when every table it depends on (its captures and
//! promotions) is done; claimable tables are taken by units, pawns and name. Idle
//! workers wait for a `NOTIFY` on the channel [`CHANNEL`] (sent when a table is done) or
//! two seconds, and exit when every table of the queue is done. Every worker adds the
//! tables it was given, with their dependencies, to the queue (`ON CONFLICT DO NOTHING`,
//! so that every worker may be started with the same arguments); tables whose files are
//! already in its directory are added as done.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use antichess_core::Rules;
use antichess_tb::format::file_name;
use antichess_tb::{
    build_one, dependencies, direct_dependencies, positions, BuildEvent, BuildOptions, Built,
    Material, Tablebase, TbError,
};
use postgres::Client;

use crate::error::{BookError, Result};
use crate::store::connect::{config, connect_error, create_database, missing_database, Connection};
use crate::store::redact;

/// The `format` entry of `tb_queue_meta`.
pub const QUEUE_FORMAT: &str = "antichess-tb-queue";
/// The schema version this build writes and reads.
pub const QUEUE_VERSION: u32 = 1;
/// The first key of every advisory lock of the queue ("ACTB"); the second is the table's
/// row id, or 0 for the lock that serialises creating the schema.
pub const LOCK_CLASS: i32 = 0x4143_5442;
/// The channel notified when a table is done.
pub const CHANNEL: &str = "antichess_tb_queue";

/// The server's clock in milliseconds since the Unix epoch.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
/// How often a building worker stamps its row.
const HEARTBEAT: Duration = Duration::from_secs(10);
/// How long an idle worker waits for a notification before it looks again.
const POLL: Duration = Duration::from_secs(2);
/// The server notices a vanished client host after about a minute (idle 30 s, then three
/// probes 10 s apart); ignored on Unix sockets.
const SESSION: &str = "SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; \
    SET tcp_keepalives_count = 3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tb_queue_meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tb_queue (
    id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    material TEXT NOT NULL UNIQUE,
    units INTEGER NOT NULL,
    pawns INTEGER NOT NULL,
    positions BIGINT NOT NULL,
    depends TEXT[] NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'building', 'done')),
    worker TEXT,
    claimed_ms BIGINT,
    heartbeat_ms BIGINT,
    done_ms BIGINT,
    attempts INTEGER NOT NULL DEFAULT 0,
    seconds DOUBLE PRECISION,
    file_bytes BIGINT,
    checksum BIGINT,
    peak_memory BIGINT
);
CREATE TABLE IF NOT EXISTS tb_queue_log (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    material TEXT NOT NULL,
    worker TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT,
    outcome TEXT CHECK (outcome IN ('built', 'found', 'lost', 'failed'))
);";

/// The worker label of rows whose files were present when they were queued.
pub const PRESENT: &str = "(present)";

/// What a queue worker does and where.
#[derive(Debug, Clone)]
pub struct QueueOptions {
    /// `postgres://…` (the book's URL settings: `sslmode`, `PGPASSWORD`, …).
    pub url: String,
    /// The rules, the shared directory (this host's path to it), the threads.
    pub build: BuildOptions,
    /// This worker's name in the queue (e.g. [`crate::worker_id`]).
    pub worker: String,
}

/// What a worker reports as it goes.
#[derive(Debug, Clone)]
pub enum QueueEvent {
    /// The worker joined: the queue holds `tables`, `done` of them done, `added` of them
    /// added by this worker; `positions` left to build.
    Joined {
        tables: usize,
        done: usize,
        added: usize,
        positions: u64,
    },
    /// A done table's file is missing or damaged: it goes back to the queue.
    Damaged { material: Material, reason: String },
    /// The worker claimed a table; `reclaimed_from` names the worker that had claimed it
    /// and is gone.
    Claimed {
        material: Material,
        positions: u64,
        reclaimed_from: Option<String>,
    },
    /// Progress inside the table being built.
    Build(BuildEvent),
    /// The table was built, written and marked done; `done` and `tables` count the queue.
    Done {
        built: Built,
        done: usize,
        tables: usize,
    },
    /// The table's file was already whole (its builder died after writing it): marked done.
    Found { material: Material },
    /// The connection was lost while the table was built and another worker took it over;
    /// the file written is the same.
    Lost { material: Material },
    /// Nothing is claimable now: `left` tables not done, `building` of them claimed.
    Waiting { left: usize, building: usize },
}

/// What one worker did.
#[derive(Debug, Clone, Default)]
pub struct QueueReport {
    pub built: Vec<Built>,
    /// Tables marked done because their file was found whole.
    pub found: usize,
    /// Tables built again after their worker was gone.
    pub reclaimed: usize,
    /// Tables of the queue (all done when the worker returns).
    pub tables: usize,
    pub seconds: f64,
}

/// One row of the queue, as [`status`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    pub id: i32,
    pub material: String,
    pub positions: i64,
    pub status: String,
    pub worker: Option<String>,
    pub attempts: i32,
    pub file_bytes: Option<i64>,
    pub seconds: Option<f64>,
}

/// One attempt of the log, as [`log`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    pub material: String,
    pub worker: String,
    /// `None` while the attempt runs, or forever if its worker died.
    pub outcome: Option<String>,
}

/// The queue: a connection of this worker.
struct Queue {
    client: Client,
    connection: Connection,
    shown: String,
    worker: String,
    rules: Rules,
    dir: PathBuf,
}

fn pg(context: impl Into<String>) -> impl FnOnce(postgres::Error) -> BookError {
    BookError::pg(context)
}

fn connect(connection: &Connection, shown: &str) -> Result<Client> {
    let mut client = match connection.connect() {
        Ok(c) => c,
        Err(e) if missing_database(&e) => {
            // Workers started together race to create it: whoever did, it is there.
            let created = create_database(connection, shown);
            match connection.connect() {
                Ok(c) => c,
                Err(e) => return Err(created.err().unwrap_or_else(|| connect_error(shown)(e))),
            }
        }
        Err(e) => return Err(connect_error(shown)(e)),
    };
    client
        .batch_execute(SESSION)
        .map_err(pg(format!("setting up the connection to {shown}")))?;
    Ok(client)
}

/// The canonical name of a material stored in the queue.
fn material(name: &str) -> Result<Material> {
    name.parse::<Material>()
        .map(|m| m.canonical().0)
        .map_err(|e| BookError::Corrupt(format!("the queue names a bad material {name}: {e}")))
}

/// Size and checksum of a table file from its header, if the header is whole and names
/// `m` and `rules` and the file has the size the header records (docs/formats/tablebase.md).
pub fn file_summary(
    path: &Path,
    m: &Material,
    rules: Rules,
) -> std::result::Result<(u64, u64), String> {
    use std::io::Read;
    let shown = path.display();
    let mut file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
    let mut header = [0u8; antichess_tb::format::HEADER_LEN];
    file.read_exact(&mut header)
        .map_err(|_| format!("{shown}: {len} bytes, shorter than a table header"))?;
    if header[..8] != antichess_tb::format::MAGIC {
        return Err(format!("{shown}: not a table file (bad magic bytes)"));
    }
    let name_end = header[16..32]
        .iter()
        .position(|&c| c == 0)
        .map_or(32, |p| 16 + p);
    let name = String::from_utf8_lossy(&header[16..name_end]);
    if name != m.name() || header[10] != rules.code() {
        return Err(format!(
            "{shown}: the header names {name} (rules code {}), not {m} for {rules} rules",
            header[10]
        ));
    }
    let word = |i: usize| u64::from_le_bytes(header[32 + 8 * i..40 + 8 * i].try_into().expect("8"));
    if word(5) != len {
        return Err(format!(
            "{shown}: the header records {} bytes but the file has {len} (truncated or extended)",
            word(5)
        ));
    }
    Ok((len, word(6)))
}

/// Checksums are stored as BIGINT: the same 64 bits, signed.
fn signed(x: u64) -> i64 {
    x as i64
}

impl Queue {
    /// Connects, creates the database and the schema if needed, checks the rules, and
    /// adds `targets` with their dependencies. Returns the queue and how many rows this
    /// worker added.
    fn join(targets: &[Material], options: &QueueOptions) -> Result<(Queue, usize)> {
        let shown = redact(&options.url);
        let connection = config(&options.url)?;
        let client = connect(&connection, &shown)?;
        let mut queue = Queue {
            client,
            connection,
            shown,
            worker: options.worker.clone(),
            rules: options.build.rules,
            dir: options.build.dir.clone(),
        };
        let added = queue.set_up(targets)?;
        Ok((queue, added))
    }

    fn set_up(&mut self, targets: &[Material]) -> Result<usize> {
        let ctx = format!("setting up the table queue in {}", self.shown);
        let rules = self.rules.to_string();
        let plan = dependencies(targets, self.rules);
        let rows: Vec<(Material, Option<(u64, u64)>)> = plan
            .iter()
            .map(|m| {
                let path = self.dir.join(file_name(m));
                (*m, file_summary(&path, m, self.rules).ok())
            })
            .collect();
        let mut tx = self.client.transaction().map_err(pg(&ctx))?;
        tx.execute("SELECT pg_advisory_xact_lock($1::int4, 0)", &[&LOCK_CLASS])
            .map_err(pg(&ctx))?;
        tx.batch_execute(SCHEMA).map_err(pg(&ctx))?;
        let meta: Vec<(String, String)> = tx
            .query("SELECT name, value FROM tb_queue_meta", &[])
            .map_err(pg(&ctx))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let get = |name: &str| meta.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        if meta.is_empty() {
            let has_rows: i64 = tx
                .query_one("SELECT count(*) FROM tb_queue", &[])
                .map_err(pg(&ctx))?
                .get(0);
            if has_rows > 0 {
                return Err(BookError::Corrupt(format!(
                    "{}: the table queue has rows but no tb_queue_meta entries",
                    self.shown
                )));
            }
            tx.execute(
                "INSERT INTO tb_queue_meta (name, value) VALUES ('format', $1), ('version', $2), ('rules', $3)",
                &[&QUEUE_FORMAT, &QUEUE_VERSION.to_string(), &rules],
            )
            .map_err(pg(&ctx))?;
        } else {
            if get("format").as_deref() != Some(QUEUE_FORMAT) {
                return Err(BookError::Input(format!(
                    "{}: tb_queue_meta does not describe a table queue",
                    self.shown
                )));
            }
            let version = get("version").unwrap_or_default();
            if version != QUEUE_VERSION.to_string() {
                return Err(BookError::Input(format!(
                    "{}: table queue version {version}; this build reads version {QUEUE_VERSION}",
                    self.shown
                )));
            }
            let theirs = get("rules").unwrap_or_default();
            if theirs != rules {
                return Err(BookError::Input(format!(
                    "the table queue in {} builds {theirs} tables, but this worker was given --rules {rules}",
                    self.shown
                )));
            }
        }
        let mut added = 0;
        for (m, present) in &rows {
            let depends: Vec<String> = direct_dependencies(m, self.rules)
                .iter()
                .map(Material::name)
                .collect();
            let (status, worker, bytes, checksum) = match present {
                Some((len, sum)) => ("done", Some(PRESENT), Some(*len as i64), Some(signed(*sum))),
                None => ("pending", None, None, None),
            };
            added += tx
                .execute(
                    &format!(
                        "INSERT INTO tb_queue (material, units, pawns, positions, depends, status, worker, done_ms, file_bytes, checksum) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $6 = 'done' THEN {NOW_MS} END, $8, $9) \
                         ON CONFLICT (material) DO NOTHING"
                    ),
                    &[
                        &m.name(),
                        &(m.units() as i32),
                        &(m.pawns() as i32),
                        &(positions(m) as i64),
                        &depends,
                        &status,
                        &worker,
                        &bytes,
                        &checksum,
                    ],
                )
                .map_err(pg(&ctx))? as usize;
        }
        tx.commit().map_err(pg(&ctx))?;
        self.client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .map_err(pg(&ctx))?;
        Ok(added)
    }

    /// (tables, done, positions left, claimed now by someone)
    fn counts(&mut self) -> Result<(usize, usize, u64, usize)> {
        let row = self
            .client
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE status = 'done'), \
                 coalesce(sum(positions) FILTER (WHERE status <> 'done'), 0)::bigint, \
                 count(*) FILTER (WHERE status = 'building') FROM tb_queue",
                &[],
            )
            .map_err(pg(format!("reading the table queue in {}", self.shown)))?;
        let n = |i: usize| row.get::<_, i64>(i);
        Ok((n(0) as usize, n(1) as usize, n(2) as u64, n(3) as usize))
    }

    fn try_lock(&mut self, id: i32) -> Result<bool> {
        Ok(self
            .client
            .query_one(
                "SELECT pg_try_advisory_lock($1::int4, $2::int4)",
                &[&LOCK_CLASS, &id],
            )
            .map_err(pg(format!("claiming a table in {}", self.shown)))?
            .get(0))
    }

    fn unlock(&mut self, id: i32) -> Result<()> {
        self.client
            .execute(
                "SELECT pg_advisory_unlock($1::int4, $2::int4)",
                &[&LOCK_CLASS, &id],
            )
            .map_err(pg(format!("releasing a table in {}", self.shown)))?;
        Ok(())
    }

    /// Sends back to `pending` the done rows whose files are missing or do not match the
    /// row (size, checksum, header): those tables are built again.
    fn check_done(&mut self, progress: &(dyn Fn(QueueEvent) + Sync)) -> Result<()> {
        let rows = self
            .client
            .query(
                "SELECT id, material, file_bytes, checksum FROM tb_queue WHERE status = 'done' ORDER BY id",
                &[],
            )
            .map_err(pg(format!("reading the table queue in {}", self.shown)))?;
        for row in rows {
            let (id, name): (i32, String) = (row.get(0), row.get(1));
            let m = material(&name)?;
            let path = self.dir.join(file_name(&m));
            let problem = match file_summary(&path, &m, self.rules) {
                Err(reason) => Some(reason),
                Ok((len, sum)) => {
                    let bytes: Option<i64> = row.get(2);
                    let checksum: Option<i64> = row.get(3);
                    if bytes.is_some_and(|b| b != len as i64)
                        || checksum.is_some_and(|c| c != signed(sum))
                    {
                        Some(format!(
                            "{}: not the file that was marked done (size or checksum differs)",
                            path.display()
                        ))
                    } else {
                        None
                    }
                }
            };
            if let Some(reason) = problem {
                self.reopen(id, &m, reason, progress)?;
            }
        }
        Ok(())
    }

    /// Puts a done row back to `pending` (if nobody holds it).
    fn reopen(
        &mut self,
        id: i32,
        m: &Material,
        reason: String,
        progress: &(dyn Fn(QueueEvent) + Sync),
    ) -> Result<()> {
        if !self.try_lock(id)? {
            return Ok(());
        }
        let changed = self
            .client
            .execute(
                "UPDATE tb_queue SET status = 'pending', done_ms = NULL WHERE id = $1 AND status = 'done'",
                &[&id],
            )
            .map_err(pg(format!("updating the table queue in {}", self.shown)))?;
        self.unlock(id)?;
        if changed > 0 {
            progress(QueueEvent::Damaged {
                material: *m,
                reason,
            });
        }
        Ok(())
    }

    /// Claims a table whose dependencies are done: its id, material and the worker that
    /// had claimed it if it was `building`. `None` when nothing is claimable now.
    fn claim(&mut self) -> Result<Option<(i32, Material, Option<String>)>> {
        let ctx = format!("claiming a table in {}", self.shown);
        let candidates = self
            .client
            .query(
                "SELECT id, material FROM tb_queue q WHERE status <> 'done' AND NOT EXISTS \
                 (SELECT 1 FROM tb_queue d WHERE d.material = ANY (q.depends) AND d.status <> 'done') \
                 ORDER BY units, pawns, material",
                &[],
            )
            .map_err(pg(&ctx))?;
        for row in candidates {
            let (id, name): (i32, String) = (row.get(0), row.get(1));
            if !self.try_lock(id)? {
                continue;
            }
            // Read again under the lock: it may have been done meanwhile.
            let now = self
                .client
                .query_one("SELECT status, worker FROM tb_queue WHERE id = $1", &[&id])
                .map_err(pg(&ctx))?;
            let (status, worker): (String, Option<String>) = (now.get(0), now.get(1));
            if status == "done" {
                self.unlock(id)?;
                continue;
            }
            let previous = (status == "building").then(|| worker.unwrap_or_default());
            return Ok(Some((id, material(&name)?, previous)));
        }
        Ok(None)
    }

    /// Starts an attempt (the row says `building`, by this worker) and logs it.
    fn start(&mut self, id: i32, m: &Material) -> Result<i64> {
        let ctx = format!("claiming {m} in {}", self.shown);
        let mut tx = self.client.transaction().map_err(pg(&ctx))?;
        tx.execute(
            &format!(
                "UPDATE tb_queue SET status = 'building', worker = $2, claimed_ms = {NOW_MS}, \
                 heartbeat_ms = {NOW_MS}, attempts = attempts + 1 WHERE id = $1"
            ),
            &[&id, &self.worker],
        )
        .map_err(pg(&ctx))?;
        let log: i64 = tx
            .query_one(
                &format!(
                    "INSERT INTO tb_queue_log (material, worker, started_ms) VALUES ($1, $2, {NOW_MS}) RETURNING id"
                ),
                &[&m.name(), &self.worker],
            )
            .map_err(pg(&ctx))?
            .get(0);
        tx.commit().map_err(pg(&ctx))?;
        Ok(log)
    }

    /// Marks the table done with its file's figures, ends the attempt, notifies.
    fn finish(
        &mut self,
        id: i32,
        log: i64,
        m: &Material,
        outcome: &str,
        built: Option<&Built>,
    ) -> Result<()> {
        let ctx = format!("marking {m} done in {}", self.shown);
        let path = self.dir.join(file_name(m));
        let (len, sum) = file_summary(&path, m, self.rules).map_err(BookError::Input)?;
        let mut tx = self.client.transaction().map_err(pg(&ctx))?;
        tx.execute(
            &format!(
                "UPDATE tb_queue SET status = 'done', worker = $2, done_ms = {NOW_MS}, \
                 seconds = $3, file_bytes = $4, checksum = $5, peak_memory = $6 WHERE id = $1"
            ),
            &[
                &id,
                &self.worker,
                &built.map(|b| b.seconds),
                &(len as i64),
                &signed(sum),
                &built.and_then(|b| b.peak_memory).map(|p| p as i64),
            ],
        )
        .map_err(pg(&ctx))?;
        tx.execute(
            &format!("UPDATE tb_queue_log SET finished_ms = {NOW_MS}, outcome = $2 WHERE id = $1"),
            &[&log, &outcome],
        )
        .map_err(pg(&ctx))?;
        tx.batch_execute(&format!("NOTIFY {CHANNEL}"))
            .map_err(pg(&ctx))?;
        tx.commit().map_err(pg(&ctx))?;
        self.unlock(id)
    }

    /// Gives a claimed table back (its build failed).
    fn give_back(&mut self, id: i32, log: Option<i64>) -> Result<()> {
        let ctx = format!("releasing a table in {}", self.shown);
        self.client
            .execute(
                "UPDATE tb_queue SET status = 'pending' WHERE id = $1 AND status <> 'done'",
                &[&id],
            )
            .map_err(pg(&ctx))?;
        if let Some(log) = log {
            self.client
                .execute(
                    &format!(
                        "UPDATE tb_queue_log SET finished_ms = {NOW_MS}, outcome = 'failed' WHERE id = $1"
                    ),
                    &[&log],
                )
                .map_err(pg(&ctx))?;
        }
        self.unlock(id)
    }

    fn is_done(&mut self, id: i32) -> Result<bool> {
        let status: String = self
            .client
            .query_one("SELECT status FROM tb_queue WHERE id = $1", &[&id])
            .map_err(pg(format!("reading the table queue in {}", self.shown)))?
            .get(0);
        Ok(status == "done")
    }

    /// Ends an attempt whose claim was lost, and the lock if this worker holds it.
    fn end_lost(&mut self, id: i32, log: i64) -> Result<()> {
        self.client
            .execute(
                &format!(
                    "UPDATE tb_queue_log SET finished_ms = {NOW_MS}, outcome = 'lost' WHERE id = $1"
                ),
                &[&log],
            )
            .map_err(pg(format!(
                "updating the table queue's log in {}",
                self.shown
            )))?;
        self.unlock(id)
    }

    /// Waits for a table to be done somewhere (or [`POLL`]).
    fn wait(&mut self) {
        use postgres::fallible_iterator::FallibleIterator;
        let _ = self.client.notifications().timeout_iter(POLL).next();
    }

    /// Builds `m` with the connection kept alive by a heartbeat thread. Returns the
    /// build's result and whether the connection was lost meanwhile.
    fn build(
        &mut self,
        id: i32,
        m: &Material,
        options: &BuildOptions,
        tb: &mut Tablebase,
        progress: &(dyn Fn(QueueEvent) + Sync),
    ) -> (std::result::Result<Built, TbError>, bool) {
        let lost = AtomicBool::new(false);
        let (stop, stopped) = mpsc::channel::<()>();
        let client = &mut self.client;
        let worker = &self.worker;
        let lost_flag = &lost;
        let result = std::thread::scope(|scope| {
            scope.spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(HEARTBEAT) {
                    let beat = client.execute(
                        &format!(
                            "UPDATE tb_queue SET heartbeat_ms = {NOW_MS} WHERE id = $1 AND worker = $2"
                        ),
                        &[&id, worker],
                    );
                    if beat.is_err() {
                        lost_flag.store(true, Ordering::Relaxed);
                    }
                }
            });
            let result = build_one(m, options, tb, &|e| progress(QueueEvent::Build(e)));
            drop(stop);
            result
        });
        (
            result,
            lost.load(Ordering::Relaxed) || self.client.is_closed(),
        )
    }

    /// After a lost connection: a new one, and the claim again if nobody took it.
    fn reconnect(&mut self) -> Result<()> {
        let mut client = connect(&self.connection, &self.shown)?;
        client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .map_err(pg(format!("listening on {}", self.shown)))?;
        self.client = client;
        Ok(())
    }
}

/// Loads the tables `m` depends on (checking their checksums): the first that is missing
/// or damaged, with the reason.
fn missing_dependency(m: &Material, tb: &Tablebase, rules: Rules) -> Option<(Material, String)> {
    for dep in direct_dependencies(m, rules) {
        match tb.table(&dep) {
            Ok(Some(_)) => {}
            Ok(None) => return Some((dep, format!("no file {}", file_name(&dep)))),
            Err(e) => return Some((dep, e.to_string())),
        }
    }
    None
}

/// Runs one worker on the queue at `options.url` until every table in it is done: adds
/// `targets` (and their dependencies; none to only help), then claims, builds and marks
/// done one table at a time.
pub fn run_worker(
    targets: &[Material],
    options: &QueueOptions,
    progress: &(dyn Fn(QueueEvent) + Sync),
) -> Result<QueueReport> {
    let start = Instant::now();
    let dir = &options.build.dir;
    std::fs::create_dir_all(dir).map_err(|source| BookError::Io {
        context: format!("creating the tables directory {}", dir.display()),
        source,
    })?;
    let (mut queue, added) = Queue::join(targets, options)?;
    queue.check_done(progress)?;
    let (tables, done, positions_left, _) = queue.counts()?;
    progress(QueueEvent::Joined {
        tables,
        done,
        added,
        positions: positions_left,
    });
    let mut report = QueueReport {
        tables,
        ..QueueReport::default()
    };
    let mut waiting = None;
    loop {
        let Some((id, m, previous)) = queue.claim()? else {
            let (tables, done, _, building) = queue.counts()?;
            report.tables = tables;
            if done == tables {
                break;
            }
            if waiting != Some((done, building)) {
                waiting = Some((done, building));
                progress(QueueEvent::Waiting {
                    left: tables - done,
                    building,
                });
            }
            queue.wait();
            continue;
        };
        waiting = None;
        let mut tb = Tablebase::open(dir, options.build.rules)?;
        if let Some((dep, reason)) = missing_dependency(&m, &tb, options.build.rules) {
            // A done dependency whose file is gone or damaged: back to the queue, and
            // this table waits for it.
            queue.give_back(id, None)?;
            let dep_id: Option<i32> = queue
                .client
                .query_opt(
                    "SELECT id FROM tb_queue WHERE material = $1",
                    &[&dep.name()],
                )
                .map_err(pg(format!("reading the table queue in {}", queue.shown)))?
                .map(|r| r.get(0));
            match dep_id {
                Some(dep_id) => queue.reopen(dep_id, &dep, reason, progress)?,
                None => {
                    return Err(BookError::Corrupt(format!(
                        "{}: {m} depends on {dep}, which is not in the queue",
                        queue.shown
                    )))
                }
            }
            continue;
        }
        let log = queue.start(id, &m)?;
        if previous.is_some() {
            report.reclaimed += 1;
        }
        progress(QueueEvent::Claimed {
            material: m,
            positions: positions(&m),
            reclaimed_from: previous.filter(|w| !w.is_empty()),
        });
        // A builder that died after its rename left the whole file: checked completely.
        if tb.table(&m).ok().flatten().is_some() {
            queue.finish(id, log, &m, "found", None)?;
            report.found += 1;
            progress(QueueEvent::Found { material: m });
            continue;
        }
        let (result, lost) = queue.build(id, &m, &options.build, &mut tb, progress);
        let built = match result {
            Ok(built) => built,
            Err(e) => {
                if !lost {
                    queue.give_back(id, Some(log))?;
                }
                return Err(BookError::Tablebase(e));
            }
        };
        if lost {
            queue.reconnect()?;
            if !queue.try_lock(id)? || queue.is_done(id)? {
                // Another worker builds it now or has built it (the same file).
                queue.end_lost(id, log)?;
                progress(QueueEvent::Lost { material: m });
                continue;
            }
        }
        queue.finish(id, log, &m, "built", Some(&built))?;
        let (tables, done, _, _) = queue.counts()?;
        report.built.push(built.clone());
        progress(QueueEvent::Done {
            built,
            done,
            tables,
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Every row of the queue at `url`, in build order.
pub fn status(url: &str) -> Result<Vec<QueueRow>> {
    let shown = redact(url);
    let mut client = connect(&config(url)?, &shown)?;
    let rows = client
        .query(
            "SELECT id, material, positions, status, worker, attempts, file_bytes, seconds \
             FROM tb_queue ORDER BY units, pawns, material",
            &[],
        )
        .map_err(pg(format!("reading the table queue in {shown}")))?;
    Ok(rows
        .iter()
        .map(|r| QueueRow {
            id: r.get(0),
            material: r.get(1),
            positions: r.get(2),
            status: r.get(3),
            worker: r.get(4),
            attempts: r.get(5),
            file_bytes: r.get(6),
            seconds: r.get(7),
        })
        .collect())
}

/// Every attempt logged in the queue at `url`, oldest first.
pub fn log(url: &str) -> Result<Vec<LogRow>> {
    let shown = redact(url);
    let mut client = connect(&config(url)?, &shown)?;
    let rows = client
        .query(
            "SELECT material, worker, outcome FROM tb_queue_log ORDER BY id",
            &[],
        )
        .map_err(pg(format!("reading the table queue's log in {shown}")))?;
    Ok(rows
        .iter()
        .map(|r| LogRow {
            material: r.get(0),
            worker: r.get(1),
            outcome: r.get(2),
        })
        .collect())
}
