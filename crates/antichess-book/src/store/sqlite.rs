//! The SQLite store: one file in WAL mode (readers do not block the writer), the embedded
//! default. Writers take the database lock at the start of a transaction (`BEGIN
//! IMMEDIATE`) and wait for one another (busy timeout), so several threads and processes
//! can share a book. The schema and the row mapping are shared with PostgreSQL
//! ([`crate::store::schema`], [`crate::store::row`]); this file runs SQLite's SQL and
//! moves values between rusqlite and the rows.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use rusqlite::types::Value as SqlValue;
use rusqlite::{
    params, params_from_iter, Connection, OpenFlags, OptionalExtension, Row, TransactionBehavior,
};

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId};
use crate::store::claim::{claimable_sql, leased_sql, OPEN_LEAF_SQL};
use crate::store::row::{node_from_row, node_row, search_from_row, search_row, Value};
use crate::store::schema::{Dialect, Statements, NODE_COLUMNS, SEARCH_COLUMNS};
use crate::store::{BookCounts, QueueEntry, SearchLog, Store, Txn, FORMAT_NAME, FORMAT_VERSION};

const SQLITE: Dialect = Dialect::Sqlite;

fn sql() -> &'static Statements {
    SQLITE.statements()
}

/// How long a writer waits for the lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

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

/// Refuses a path that is missing or a directory.
fn existing_file(path: &Path) -> Result<()> {
    if !path.exists() {
        return Err(BookError::Missing(path.display().to_string()));
    }
    if path.is_dir() {
        return Err(not_a_book(path, &"it is a directory"));
    }
    Ok(())
}

/// Checks that an open file holds a book of this format version.
fn check_format(conn: &Connection, path: &Path) -> Result<()> {
    let get = |name: &str| -> Result<Option<String>> {
        conn.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()
        .map_err(|e| not_a_book(path, &e))
    };
    if get("format")?.as_deref() != Some(FORMAT_NAME) {
        return Err(not_a_book(path, &"no book metadata in the file"));
    }
    let version = get("version")?;
    if version.as_deref() != Some(&FORMAT_VERSION.to_string()) {
        return Err(BookError::Version {
            location: path.display().to_string(),
            found: version.unwrap_or_else(|| "(none)".into()),
        });
    }
    Ok(())
}

/// A `file:` URI of a path that opens it immutable (no locks, no `-wal`/`-shm` files):
/// the characters a URI gives a meaning to are %-escaped.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii() && !matches!(b, b'%' | b'?' | b'#' | 0) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

impl SqliteStore {
    /// Opens an existing book file (never creates one).
    pub fn open(path: &Path) -> Result<SqliteStore> {
        existing_file(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| not_a_book(path, &e))?;
        configure(&conn, path)?;
        check_format(&conn, path)?;
        Ok(SqliteStore {
            conn,
            location: path.display().to_string(),
        })
    }

    /// Opens an existing book file for reading only (`SQLITE_OPEN_READ_ONLY`): a book in
    /// a file or directory this user may not write can be shown and checked. A book in
    /// WAL mode needs its `-shm` file, which SQLite cannot create in a read-only
    /// directory; the file is then opened `immutable` (no locks: a process writing the
    /// book at the same time, which the directory's permissions make unlikely, would not
    /// be seen). Writing through the store fails.
    pub fn open_read_only(path: &Path) -> Result<SqliteStore> {
        existing_file(path)?;
        let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let open = |target: &Path, flags: OpenFlags| -> Result<Connection> {
            let conn =
                Connection::open_with_flags(target, flags).map_err(|e| not_a_book(path, &e))?;
            conn.busy_timeout(BUSY_TIMEOUT)
                .map_err(BookError::sql(format!("opening {}", path.display())))?;
            check_format(&conn, path)?;
            Ok(conn)
        };
        let conn = match open(path, read_only) {
            Ok(conn) => conn,
            Err(BookError::NotABook { reason, .. })
                if reason.contains("unable to open") || reason.contains("readonly") =>
            {
                open(
                    Path::new(&immutable_uri(path)),
                    read_only | OpenFlags::SQLITE_OPEN_URI,
                )?
            }
            Err(e) => return Err(e),
        };
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
        tx.execute_batch(&SQLITE.schema())
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

    fn integrity(&mut self, quick: bool) -> Result<crate::store::Integrity> {
        Ok(crate::store::integrity::sqlite(&self.conn, quick))
    }
}

struct SqliteTxn<'c> {
    tx: rusqlite::Transaction<'c>,
}

fn to_sql(v: Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Int(v) => SqlValue::Integer(v),
        Value::Real(v) => SqlValue::Real(v),
        Value::Text(v) => SqlValue::Text(v),
    }
}

/// The first `count` columns of a row as values.
fn values(row: &Row<'_>, count: usize) -> rusqlite::Result<Vec<Value>> {
    (0..count)
        .map(|i| {
            Ok(match row.get::<_, SqlValue>(i)? {
                SqlValue::Null => Value::Null,
                SqlValue::Integer(v) => Value::Int(v),
                SqlValue::Real(v) => Value::Real(v),
                SqlValue::Text(v) => Value::Text(v),
                SqlValue::Blob(_) => {
                    return Err(rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Blob,
                        "a book stores no blobs".into(),
                    ))
                }
            })
        })
        .collect()
}

/// Runs a query of whole node rows.
fn query_nodes<P: rusqlite::Params>(
    tx: &rusqlite::Transaction<'_>,
    sql: &str,
    params: P,
) -> Result<Vec<Node>> {
    let ctx = "reading nodes";
    let mut stmt = tx.prepare_cached(sql).map_err(BookError::sql(ctx))?;
    let rows = stmt
        .query_map(params, |r| values(r, NODE_COLUMNS.len()))
        .map_err(BookError::sql(ctx))?;
    let mut nodes = Vec::new();
    for row in rows {
        nodes.push(node_from_row(row.map_err(BookError::sql(ctx))?)?);
    }
    Ok(nodes)
}

impl SqliteTxn<'_> {
    fn nodes_where(&mut self, clause: &str, param: i64) -> Result<Vec<Node>> {
        let sql = format!("{} WHERE {clause} ORDER BY id", sql().select_nodes);
        query_nodes(&self.tx, &sql, [param])
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
            .prepare_cached(&sql().insert_node)
            .and_then(|mut s| {
                s.execute(params_from_iter(
                    node_row(n).into_iter().skip(1).map(to_sql),
                ))
            })
            .map_err(BookError::sql("inserting a node"))?;
        Ok(self.tx.last_insert_rowid())
    }

    fn update_node(&mut self, n: &Node) -> Result<()> {
        self.tx
            .prepare_cached(&sql().update_node)
            .and_then(|mut s| s.execute(params_from_iter(node_row(n).into_iter().map(to_sql))))
            .map(|_| ())
            .map_err(BookError::sql(format!("updating node {}", n.id)))
    }

    fn claim(&mut self, id: NodeId, worker: &str, now_ms: i64, until_ms: i64) -> Result<bool> {
        static CLAIM: LazyLock<String> = LazyLock::new(|| {
            format!(
                "UPDATE nodes SET claimed_by = ?2, lease_until = ?4 WHERE id = ?1 AND {}",
                claimable_sql("?3")
            )
        });
        let changed = self
            .tx
            .prepare_cached(&CLAIM)
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
            .and_then(|mut s| {
                s.execute(params![
                    id,
                    now_ms,
                    seq,
                    i64::try_from(nodes).unwrap_or(i64::MAX),
                    result
                ])
            })
            .map(|_| ())
            .map_err(BookError::sql("logging a search"))
    }

    fn search_log(&mut self) -> Result<Vec<SearchLog>> {
        self.search_log_page(i64::MIN, u32::MAX)
    }

    fn counts(&mut self, now_ms: i64) -> Result<BookCounts> {
        let ctx = "counting nodes";
        static COUNTS: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT COUNT(*), \
                     COALESCE(SUM(expanded = 0), 0), \
                     COALESCE(SUM({OPEN_LEAF_SQL}), 0), \
                     COALESCE(SUM(proof = 0), 0), \
                     COALESCE(SUM(disproof = 0), 0), \
                     COALESCE(SUM({}), 0) FROM nodes",
                leased_sql("?1")
            )
        });
        let (nodes, leaves, open_leaves, won, lost, claimed): (i64, i64, i64, i64, i64, i64) = self
            .tx
            .prepare_cached(&COUNTS)
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
        let sql = format!("{} WHERE id > ?1 ORDER BY id LIMIT ?2", sql().select_nodes);
        query_nodes(&self.tx, &sql, params![after, i64::from(limit)])
    }

    fn search_log_page(&mut self, after: i64, limit: u32) -> Result<Vec<SearchLog>> {
        let ctx = "reading the search log";
        let sql = format!(
            "{} WHERE id > ?1 ORDER BY id LIMIT ?2",
            sql().select_searches
        );
        let mut stmt = self.tx.prepare_cached(&sql).map_err(BookError::sql(ctx))?;
        let rows = stmt
            .query_map(params![after, i64::from(limit)], |r| {
                values(r, SEARCH_COLUMNS.len())
            })
            .map_err(BookError::sql(ctx))?;
        let mut log = Vec::new();
        for row in rows {
            log.push(search_from_row(row.map_err(BookError::sql(ctx))?)?);
        }
        Ok(log)
    }

    fn bulk_begin(&mut self) -> Result<()> {
        self.tx
            .pragma_update(None, "defer_foreign_keys", "ON")
            .map_err(BookError::sql("deferring foreign keys"))
    }

    fn load_nodes(&mut self, nodes: &[Node]) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached(&sql().load_node)
            .map_err(BookError::sql("loading nodes"))?;
        for n in nodes {
            stmt.execute(params_from_iter(node_row(n).into_iter().map(to_sql)))
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
            .prepare_cached(&sql().load_search)
            .map_err(BookError::sql("loading the search log"))?;
        for l in log {
            stmt.execute(params_from_iter(search_row(l).into_iter().map(to_sql)))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The immutable URI of a path with the characters a URI gives a meaning to (and a
    /// space and a non-ASCII letter) opens that file, read-only.
    #[test]
    fn immutable_uri_opens_any_path() {
        let dir = std::env::temp_dir().join(format!("antichess-uri-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a?b%20c#d é.book");
        drop(SqliteStore::create(&path).unwrap());
        let uri = immutable_uri(&path);
        assert!(
            uri.ends_with("a%3Fb%2520c%23d %C3%A9.book?immutable=1"),
            "{uri}"
        );
        let conn = Connection::open_with_flags(
            Path::new(&uri),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        )
        .unwrap();
        check_format(&conn, &path).unwrap();
        assert!(conn.execute("DELETE FROM meta", []).is_err());
        drop(conn);
        // The ordinary read-only open refuses writes too.
        let mut store = SqliteStore::open_read_only(&path).unwrap();
        let err = match store.write() {
            Err(e) => e.to_string(),
            Ok(mut txn) => txn.set_meta("x", "y").unwrap_err().to_string(),
        };
        assert!(err.contains("readonly"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A writer that finds the book locked by another writer for longer than its busy
    /// timeout gets an error that `is_transient` calls worth trying again (the grow's
    /// workers then retry instead of stopping the run), and the retry succeeds once the
    /// other writer commits. A missing table is not transient.
    #[test]
    fn a_book_locked_past_the_busy_timeout_is_a_transient_error() {
        let dir = std::env::temp_dir().join(format!("antichess-busy-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("busy.book");
        drop(SqliteStore::create(&path).unwrap());
        let mut holder = SqliteStore::open(&path).unwrap();
        let mut waiter = SqliteStore::open(&path).unwrap();
        waiter.conn.busy_timeout(Duration::from_millis(20)).unwrap();
        let mut held = holder.write().unwrap();
        held.set_meta("held", "yes").unwrap();
        let error = match waiter.write() {
            Err(e) => e,
            Ok(_) => panic!("a second writer took the lock"),
        };
        assert!(error.to_string().contains("locked"), "{error}");
        assert!(error.is_transient() && error.is_busy(), "{error}");
        held.commit().unwrap();
        let mut txn = waiter.write().unwrap();
        assert_eq!(txn.meta("held").unwrap().as_deref(), Some("yes"));
        drop(txn);
        let missing = waiter
            .conn
            .execute("DELETE FROM no_such_table", [])
            .map_err(BookError::sql("deleting"))
            .expect_err("no such table");
        assert!(!missing.is_transient() && !missing.is_busy(), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
