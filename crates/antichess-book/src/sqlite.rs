//! The SQLite store: one file in WAL mode (readers do not block the writer), the embedded
//! default. Writers take the database lock at the start of a transaction (`BEGIN
//! IMMEDIATE`) and wait for one another (busy timeout), so several threads and processes
//! can share a book. The schema is in `docs/formats/book.md`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::Value;
use rusqlite::{
    params, params_from_iter, Connection, OpenFlags, OptionalExtension, Row, TransactionBehavior,
};

use crate::error::{BookError, Result};
use crate::node::{ratio, Node, NodeId, Status};
use crate::store::{BookCounts, QueueEntry, SearchLog, Store, Txn, FORMAT_NAME, FORMAT_VERSION};

/// How long a writer waits for the lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

const SCHEMA: &str = "
CREATE TABLE meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE nodes (
    id             INTEGER PRIMARY KEY,
    parent         INTEGER REFERENCES nodes(id),
    move           TEXT,
    depth          INTEGER NOT NULL,
    key            INTEGER NOT NULL,
    fen            TEXT NOT NULL,
    prover_to_move INTEGER NOT NULL,
    proof          INTEGER NOT NULL,
    disproof       INTEGER NOT NULL,
    leaf_proof     INTEGER NOT NULL,
    leaf_disproof  INTEGER NOT NULL,
    status         INTEGER NOT NULL,
    marked         INTEGER NOT NULL,
    ratio          REAL NOT NULL,
    size           INTEGER NOT NULL,
    work           INTEGER NOT NULL,
    searches       INTEGER NOT NULL,
    expanded       INTEGER NOT NULL,
    same_as        INTEGER REFERENCES nodes(id),
    win_seq        INTEGER,
    claimed_by     TEXT,
    lease_until    INTEGER
);
CREATE INDEX nodes_parent ON nodes(parent);
CREATE INDEX nodes_key ON nodes(key);
CREATE INDEX nodes_claimed ON nodes(claimed_by);
CREATE TABLE queue (
    id    INTEGER PRIMARY KEY,
    node  INTEGER NOT NULL REFERENCES nodes(id),
    added INTEGER NOT NULL
);
CREATE TABLE searches (
    id        INTEGER PRIMARY KEY,
    node      INTEGER NOT NULL REFERENCES nodes(id),
    worker    TEXT NOT NULL,
    started   INTEGER NOT NULL,
    start_seq INTEGER NOT NULL,
    finished  INTEGER,
    end_seq   INTEGER,
    nodes     INTEGER,
    result    TEXT
);
CREATE INDEX searches_node ON searches(node);
";

const NODE_COLUMNS: &str = "id, parent, move, depth, key, fen, prover_to_move, proof, disproof, \
    leaf_proof, leaf_disproof, status, marked, size, work, searches, expanded, same_as, win_seq, \
    claimed_by, lease_until";

/// A book in a SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    location: String,
}

fn configure(conn: &Connection, path: &Path) -> Result<()> {
    let ctx = || format!("opening {}", path.display());
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(BookError::sql(ctx()))?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(|e| not_a_book(path, &e))?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(BookError::sql(ctx()))?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(BookError::sql(ctx()))?;
    Ok(())
}

fn not_a_book(path: &Path, e: &dyn std::fmt::Display) -> BookError {
    BookError::NotABook {
        location: path.display().to_string(),
        reason: e.to_string(),
    }
}

impl SqliteStore {
    /// Opens an existing book file (never creates one).
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if !path.exists() {
            return Err(BookError::Missing(path.display().to_string()));
        }
        if path.is_dir() {
            return Err(not_a_book(path, &"it is a directory"));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| not_a_book(path, &e))?;
        configure(&conn, path)?;
        let format: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE name = 'format'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| not_a_book(path, &e))?;
        if format.as_deref() != Some(FORMAT_NAME) {
            return Err(not_a_book(path, &"no book metadata in the file"));
        }
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE name = 'version'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| not_a_book(path, &e))?;
        if version.as_deref() != Some(&FORMAT_VERSION.to_string()) {
            return Err(BookError::Version {
                location: path.display().to_string(),
                found: version.unwrap_or_else(|| "(none)".into()),
            });
        }
        Ok(SqliteStore {
            conn,
            location: path.display().to_string(),
        })
    }

    /// Creates a new book file with the schema and the format entries; fails if the file
    /// exists.
    pub fn create(path: &Path) -> Result<SqliteStore> {
        if path.exists() {
            return Err(BookError::Exists(path.display().to_string()));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(BookError::sql(format!("creating {}", path.display())))?;
        configure(&conn, path)?;
        let ctx = format!("creating the schema in {}", path.display());
        let mut store = SqliteStore {
            conn,
            location: path.display().to_string(),
        };
        let tx = store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(BookError::sql(ctx.clone()))?;
        tx.execute_batch(SCHEMA)
            .map_err(BookError::sql(ctx.clone()))?;
        tx.execute(
            "INSERT INTO meta (name, value) VALUES ('format', ?1), ('version', ?2)",
            params![FORMAT_NAME, FORMAT_VERSION.to_string()],
        )
        .map_err(BookError::sql(ctx.clone()))?;
        tx.commit().map_err(BookError::sql(ctx))?;
        Ok(store)
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        PathBuf::from(&self.location)
    }
}

impl Store for SqliteStore {
    fn read(&mut self) -> Result<Box<dyn Txn + '_>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(BookError::sql(format!("reading {}", self.location)))?;
        Ok(Box::new(SqliteTxn { tx }))
    }

    fn write(&mut self) -> Result<Box<dyn Txn + '_>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(BookError::sql(format!("writing {}", self.location)))?;
        Ok(Box::new(SqliteTxn { tx }))
    }

    fn location(&self) -> &str {
        &self.location
    }
}

struct SqliteTxn<'c> {
    tx: rusqlite::Transaction<'c>,
}

fn number(v: i64) -> u32 {
    v.clamp(0, i64::from(u32::MAX)) as u32
}

fn big(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

/// The written columns of a node, from `parent` to `lease_until` (the order of the
/// `INSERT` and `UPDATE` statements).
fn node_values(n: &Node) -> [Value; 21] {
    [
        Value::from(n.parent),
        Value::from(n.uci.clone()),
        Value::from(n.depth),
        Value::from(n.key as i64),
        Value::from(n.fen.clone()),
        Value::from(i64::from(n.prover_to_move)),
        Value::from(n.proof),
        Value::from(n.disproof),
        Value::from(n.leaf_proof),
        Value::from(n.leaf_disproof),
        Value::from(n.status.code()),
        Value::from(i64::from(n.marked)),
        Value::from(ratio(n.proof, n.disproof)),
        Value::from(big(n.size)),
        Value::from(big(n.work)),
        Value::from(n.searches),
        Value::from(i64::from(n.expanded)),
        Value::from(n.same_as),
        Value::from(n.win_seq),
        Value::from(n.claimed_by.clone()),
        Value::from(n.lease_until),
    ]
}

fn node_from_row(row: &Row<'_>) -> rusqlite::Result<Node> {
    let status: i64 = row.get(11)?;
    Ok(Node {
        id: row.get(0)?,
        parent: row.get(1)?,
        uci: row.get(2)?,
        depth: row.get::<_, i64>(3)? as u32,
        key: row.get::<_, i64>(4)? as u64,
        fen: row.get(5)?,
        prover_to_move: row.get::<_, i64>(6)? != 0,
        proof: number(row.get(7)?),
        disproof: number(row.get(8)?),
        leaf_proof: number(row.get(9)?),
        leaf_disproof: number(row.get(10)?),
        status: Status::from_code(status)
            .ok_or_else(|| rusqlite::Error::IntegralValueOutOfRange(11, status))?,
        marked: row.get::<_, i64>(12)? != 0,
        size: row.get::<_, i64>(13)?.max(0) as u64,
        work: row.get::<_, i64>(14)?.max(0) as u64,
        searches: row.get::<_, i64>(15)?.max(0) as u32,
        expanded: row.get::<_, i64>(16)? != 0,
        same_as: row.get(17)?,
        win_seq: row.get(18)?,
        claimed_by: row.get(19)?,
        lease_until: row.get(20)?,
    })
}

impl SqliteTxn<'_> {
    fn nodes_where(&mut self, clause: &str, param: i64) -> Result<Vec<Node>> {
        let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE {clause} ORDER BY id");
        let mut stmt = self
            .tx
            .prepare_cached(&sql)
            .map_err(BookError::sql("reading nodes"))?;
        let rows = stmt
            .query_map([param], node_from_row)
            .map_err(BookError::sql("reading nodes"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading nodes"))
    }
}

impl Txn for SqliteTxn<'_> {
    fn meta(&mut self, name: &str) -> Result<Option<String>> {
        self.tx
            .prepare_cached("SELECT value FROM meta WHERE name = ?1")
            .and_then(|mut s| s.query_row([name], |r| r.get(0)).optional())
            .map_err(BookError::sql(format!("reading meta {name}")))
    }

    fn set_meta(&mut self, name: &str, value: &str) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO meta (name, value) VALUES (?1, ?2) \
                 ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            )
            .and_then(|mut s| s.execute([name, value]))
            .map(|_| ())
            .map_err(BookError::sql(format!("writing meta {name}")))
    }

    fn delete_meta(&mut self, name: &str) -> Result<()> {
        self.tx
            .execute("DELETE FROM meta WHERE name = ?1", [name])
            .map(|_| ())
            .map_err(BookError::sql(format!("deleting meta {name}")))
    }

    fn node(&mut self, id: NodeId) -> Result<Option<Node>> {
        Ok(self.nodes_where("id = ?1", id)?.pop())
    }

    fn children(&mut self, id: NodeId) -> Result<Vec<Node>> {
        self.nodes_where("parent = ?1", id)
    }

    fn nodes_with_key(&mut self, key: u64) -> Result<Vec<Node>> {
        self.nodes_where("key = ?1", key as i64)
    }

    fn root(&mut self) -> Result<Option<Node>> {
        Ok(self
            .nodes_where("parent IS NULL AND ?1 = ?1", 0)?
            .into_iter()
            .next())
    }

    fn insert_node(&mut self, n: &Node) -> Result<NodeId> {
        self.tx
            .prepare_cached(
                "INSERT INTO nodes (parent, move, depth, key, fen, prover_to_move, proof, \
                 disproof, leaf_proof, leaf_disproof, status, marked, ratio, size, work, searches, \
                 expanded, same_as, win_seq, claimed_by, lease_until) VALUES (?1, ?2, ?3, ?4, ?5, \
                 ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
            )
            .and_then(|mut s| s.execute(params_from_iter(node_values(n))))
            .map_err(BookError::sql("inserting a node"))?;
        Ok(self.tx.last_insert_rowid())
    }

    fn update_node(&mut self, n: &Node) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE nodes SET parent = ?2, move = ?3, depth = ?4, key = ?5, fen = ?6, \
                 prover_to_move = ?7, proof = ?8, disproof = ?9, leaf_proof = ?10, \
                 leaf_disproof = ?11, status = ?12, marked = ?13, ratio = ?14, size = ?15, \
                 work = ?16, searches = ?17, expanded = ?18, same_as = ?19, win_seq = ?20, \
                 claimed_by = ?21, lease_until = ?22 WHERE id = ?1",
            )
            .and_then(|mut s| {
                s.execute(params_from_iter(
                    std::iter::once(Value::from(n.id)).chain(node_values(n)),
                ))
            })
            .map(|_| ())
            .map_err(BookError::sql(format!("updating node {}", n.id)))
    }

    fn claim(&mut self, id: NodeId, worker: &str, now_ms: i64, until_ms: i64) -> Result<bool> {
        let changed = self
            .tx
            .prepare_cached(
                "UPDATE nodes SET claimed_by = ?2, lease_until = ?4 WHERE id = ?1 \
                 AND expanded = 0 AND proof <> 0 AND disproof <> 0 \
                 AND (claimed_by IS NULL OR lease_until IS NULL OR lease_until <= ?3)",
            )
            .and_then(|mut s| s.execute(params![id, worker, now_ms, until_ms]))
            .map_err(BookError::sql(format!("claiming node {id}")))?;
        Ok(changed == 1)
    }

    fn refresh(&mut self, id: NodeId, worker: &str, until_ms: i64) -> Result<bool> {
        let changed = self
            .tx
            .prepare_cached("UPDATE nodes SET lease_until = ?3 WHERE id = ?1 AND claimed_by = ?2")
            .and_then(|mut s| s.execute(params![id, worker, until_ms]))
            .map_err(BookError::sql(format!("renewing the lease on node {id}")))?;
        Ok(changed == 1)
    }

    fn release(&mut self, id: NodeId, worker: &str) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE nodes SET claimed_by = NULL, lease_until = NULL \
                 WHERE id = ?1 AND claimed_by = ?2",
            )
            .and_then(|mut s| s.execute(params![id, worker]))
            .map(|_| ())
            .map_err(BookError::sql(format!("releasing node {id}")))
    }

    fn claims(&mut self) -> Result<Vec<(NodeId, String, i64)>> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "SELECT id, claimed_by, COALESCE(lease_until, 0) FROM nodes \
                 WHERE claimed_by IS NOT NULL ORDER BY id",
            )
            .map_err(BookError::sql("reading claims"))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(BookError::sql("reading claims"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading claims"))
    }

    fn queue(&mut self) -> Result<Vec<QueueEntry>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT id, node, added FROM queue ORDER BY id")
            .map_err(BookError::sql("reading the queue"))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(QueueEntry {
                    id: r.get(0)?,
                    node: r.get(1)?,
                    added_ms: r.get(2)?,
                })
            })
            .map_err(BookError::sql("reading the queue"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading the queue"))
    }

    fn push_queue(&mut self, node: NodeId, now_ms: i64) -> Result<i64> {
        self.tx
            .execute(
                "INSERT INTO queue (node, added) VALUES (?1, ?2)",
                params![node, now_ms],
            )
            .map_err(BookError::sql("adding to the queue"))?;
        Ok(self.tx.last_insert_rowid())
    }

    fn remove_queue_entry(&mut self, id: i64) -> Result<()> {
        self.tx
            .execute("DELETE FROM queue WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(BookError::sql("removing from the queue"))
    }

    fn remove_queued_node(&mut self, node: NodeId) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM queue WHERE node = ?1")
            .and_then(|mut s| s.execute([node]))
            .map(|_| ())
            .map_err(BookError::sql("removing from the queue"))
    }

    fn clear_queue(&mut self) -> Result<()> {
        self.tx
            .execute("DELETE FROM queue", [])
            .map(|_| ())
            .map_err(BookError::sql("clearing the queue"))
    }

    fn log_start(&mut self, node: NodeId, worker: &str, now_ms: i64, seq: i64) -> Result<i64> {
        self.tx
            .prepare_cached(
                "INSERT INTO searches (node, worker, started, start_seq) VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| s.execute(params![node, worker, now_ms, seq]))
            .map_err(BookError::sql("logging a search"))?;
        Ok(self.tx.last_insert_rowid())
    }

    fn log_finish(
        &mut self,
        id: i64,
        now_ms: i64,
        seq: i64,
        nodes: u64,
        result: &str,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE searches SET finished = ?2, end_seq = ?3, nodes = ?4, result = ?5 \
                 WHERE id = ?1",
            )
            .and_then(|mut s| s.execute(params![id, now_ms, seq, big(nodes), result]))
            .map(|_| ())
            .map_err(BookError::sql("logging a search"))
    }

    fn search_log(&mut self) -> Result<Vec<SearchLog>> {
        self.search_log_page(i64::MIN, u32::MAX)
    }

    fn counts(&mut self, now_ms: i64) -> Result<BookCounts> {
        let ctx = "counting nodes";
        let (nodes, leaves, open_leaves, won, lost, claimed): (i64, i64, i64, i64, i64, i64) = self
            .tx
            .prepare_cached(
                "SELECT COUNT(*), \
                     COALESCE(SUM(expanded = 0), 0), \
                     COALESCE(SUM(expanded = 0 AND proof <> 0 AND disproof <> 0), 0), \
                     COALESCE(SUM(proof = 0), 0), \
                     COALESCE(SUM(disproof = 0), 0), \
                     COALESCE(SUM(claimed_by IS NOT NULL AND lease_until > ?1), 0) FROM nodes",
            )
            .and_then(|mut s| {
                s.query_row([now_ms], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                })
            })
            .map_err(BookError::sql(ctx))?;
        let searches: i64 = self
            .tx
            .query_row("SELECT COUNT(*) FROM searches", [], |r| r.get(0))
            .map_err(BookError::sql(ctx))?;
        let queued: i64 = self
            .tx
            .query_row("SELECT COUNT(*) FROM queue", [], |r| r.get(0))
            .map_err(BookError::sql(ctx))?;
        let u = |v: i64| v.max(0) as u64;
        Ok(BookCounts {
            nodes: u(nodes),
            leaves: u(leaves),
            open_leaves: u(open_leaves),
            won: u(won),
            lost: u(lost),
            claimed: u(claimed),
            searches: u(searches),
            queued: u(queued),
        })
    }

    fn all_nodes(&mut self) -> Result<Vec<Node>> {
        self.nodes_where("?1 = ?1", 0)
    }

    fn all_meta(&mut self) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT name, value FROM meta ORDER BY name")
            .map_err(BookError::sql("reading meta"))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(BookError::sql("reading meta"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading meta"))
    }

    fn nodes_page(&mut self, after: NodeId, limit: u32) -> Result<Vec<Node>> {
        let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE id > ?1 ORDER BY id LIMIT ?2");
        let mut stmt = self
            .tx
            .prepare_cached(&sql)
            .map_err(BookError::sql("reading nodes"))?;
        let rows = stmt
            .query_map(params![after, i64::from(limit)], node_from_row)
            .map_err(BookError::sql("reading nodes"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading nodes"))
    }

    fn search_log_page(&mut self, after: i64, limit: u32) -> Result<Vec<SearchLog>> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "SELECT id, node, worker, started, start_seq, finished, end_seq, nodes, result \
                 FROM searches WHERE id > ?1 ORDER BY id LIMIT ?2",
            )
            .map_err(BookError::sql("reading the search log"))?;
        let rows = stmt
            .query_map(params![after, i64::from(limit)], |r| {
                Ok(SearchLog {
                    id: r.get(0)?,
                    node: r.get(1)?,
                    worker: r.get(2)?,
                    started_ms: r.get(3)?,
                    start_seq: r.get(4)?,
                    finished_ms: r.get(5)?,
                    end_seq: r.get(6)?,
                    nodes: r.get::<_, Option<i64>>(7)?.map(|n| n.max(0) as u64),
                    result: r.get(8)?,
                })
            })
            .map_err(BookError::sql("reading the search log"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(BookError::sql("reading the search log"))
    }

    fn bulk_begin(&mut self) -> Result<()> {
        self.tx
            .pragma_update(None, "defer_foreign_keys", "ON")
            .map_err(BookError::sql("deferring foreign keys"))
    }

    fn load_nodes(&mut self, nodes: &[Node]) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT INTO nodes (id, parent, move, depth, key, fen, prover_to_move, proof, \
                 disproof, leaf_proof, leaf_disproof, status, marked, ratio, size, work, searches, \
                 expanded, same_as, win_seq, claimed_by, lease_until) VALUES (?1, ?2, ?3, ?4, ?5, \
                 ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
            )
            .map_err(BookError::sql("loading nodes"))?;
        for n in nodes {
            stmt.execute(params_from_iter(
                std::iter::once(Value::from(n.id)).chain(node_values(n)),
            ))
            .map_err(BookError::sql(format!("loading node {}", n.id)))?;
        }
        Ok(())
    }

    fn load_queue(&mut self, entries: &[QueueEntry]) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached("INSERT INTO queue (id, node, added) VALUES (?1, ?2, ?3)")
            .map_err(BookError::sql("loading the queue"))?;
        for q in entries {
            stmt.execute(params![q.id, q.node, q.added_ms])
                .map_err(BookError::sql("loading the queue"))?;
        }
        Ok(())
    }

    fn load_search_log(&mut self, log: &[SearchLog]) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT INTO searches (id, node, worker, started, start_seq, finished, end_seq, \
                 nodes, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .map_err(BookError::sql("loading the search log"))?;
        for l in log {
            stmt.execute(params![
                l.id,
                l.node,
                l.worker,
                l.started_ms,
                l.start_seq,
                l.finished_ms,
                l.end_seq,
                l.nodes.map(big),
                l.result
            ])
            .map_err(BookError::sql("loading the search log"))?;
        }
        Ok(())
    }

    fn bulk_end(&mut self) -> Result<()> {
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        self.tx.commit().map_err(BookError::sql("committing"))
    }
}
