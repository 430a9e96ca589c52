//! The PostgreSQL store: a book in a PostgreSQL database, for workers on many machines
//! (`postgres://user@host/db`). It owns the connection (made as [`crate::store::connect`]
//! says: URL, password, timeouts, TLS as libpq's `sslmode`), the checks
//! that a database holds a book, and the three kinds of transaction (the schema and the
//! row mapping are shared with SQLite: [`crate::store::schema`], [`crate::store::row`]):
//!
//! - **read**: a `REPEATABLE READ READ ONLY` snapshot, never blocked by writers;
//! - **write**: `READ COMMITTED`, started by taking one transaction-scoped advisory lock
//!   ([`WRITE_LOCK`]), so writers run one at a time like SQLite's `BEGIN IMMEDIATE` and
//!   every statement sees what the writers before committed. A result, its children and
//!   the minimax to the root are written in one such transaction. Node reads take the
//!   row lock (`FOR UPDATE`), so that a claim taken meanwhile is never overwritten;
//! - **claim**: `READ COMMITTED` without the advisory lock. The claim takes the leaf's row
//!   with `SELECT ... FOR UPDATE SKIP LOCKED` under the lease conditions, so workers
//!   racing for a leaf skip it instead of waiting, and claims do not queue behind the
//!   writers' minimax.
//!
//! The event counter (`event_seq`) is a sequence (`CACHE 1`: its values increase in real
//! time across connections); `win_seq` stays a meta row, only written under the write
//! lock. A book is the only content of its database (or of the schema its URL selects
//! with `options=-c search_path=...`). The layout is in `docs/formats/book.md`.

use std::collections::HashMap;
use std::sync::LazyLock;

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::{Client, Row, Statement};

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId};
use crate::store::claim::{claimable_sql, leased_sql, OPEN_LEAF_SQL};
use crate::store::connect::{config, connect_error, create_database, missing_database};
use crate::store::row::{node_from_row, node_row, search_from_row, search_row, Value};
use crate::store::schema::{
    Column, Dialect, Kind, Statements, NODE_COLUMNS, POSTGRES_OBJECTS as OBJECTS, SEARCH_COLUMNS,
};
use crate::store::{
    redact, BookCounts, QueueEntry, SearchLog, Store, Txn, FORMAT_NAME, FORMAT_VERSION,
};

const POSTGRES: Dialect = Dialect::Postgres;

fn sql() -> &'static Statements {
    POSTGRES.statements()
}

/// The key of the transaction-scoped advisory lock every write transaction takes first.
pub const WRITE_LOCK: i64 = 0x616e_7469_626f_6f6b;

/// A book in a PostgreSQL database.
pub struct PostgresStore {
    client: Client,
    /// The URL without its password.
    location: String,
    /// Prepared statements of this connection, by SQL text.
    statements: HashMap<String, Statement>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Which of the book's tables and sequences exist in the database.
fn existing_objects(client: &mut Client, shown: &str) -> Result<Vec<&'static str>> {
    let mut found = Vec::new();
    for name in OBJECTS {
        let row = client
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&name])
            .map_err(BookError::pg(format!("inspecting {shown}")))?;
        if row.get::<_, bool>(0) {
            found.push(name);
        }
    }
    Ok(found)
}

impl PostgresStore {
    /// Opens the book in the database at `url` (never creates one).
    pub fn open(url: &str) -> Result<PostgresStore> {
        let shown = redact(url);
        let config = config(url)?;
        let mut client = match config.connect() {
            Ok(c) => c,
            Err(e) if missing_database(&e) => return Err(BookError::Missing(shown)),
            Err(e) => return Err(connect_error(&shown)(e)),
        };
        let objects = existing_objects(&mut client, &shown)?;
        if !objects.contains(&"meta") {
            return Err(if objects.is_empty() {
                BookError::Missing(shown)
            } else {
                BookError::NotABook {
                    location: shown,
                    reason: "the database has no meta table".into(),
                }
            });
        }
        let not_a_book = |e: postgres::Error| BookError::NotABook {
            location: shown.clone(),
            reason: crate::error::pg_message(&e),
        };
        let get = |client: &mut Client, name: &str| -> Result<Option<String>> {
            client
                .query_opt("SELECT value FROM meta WHERE name = $1", &[&name])
                .map_err(not_a_book)?
                .map(|r| r.try_get::<_, String>(0).map_err(not_a_book))
                .transpose()
        };
        if get(&mut client, "format")?.as_deref() != Some(FORMAT_NAME) {
            return Err(BookError::NotABook {
                location: shown,
                reason: "no book metadata in the database".into(),
            });
        }
        let version = get(&mut client, "version")?;
        if version.as_deref() != Some(&FORMAT_VERSION.to_string()) {
            return Err(BookError::Version {
                location: shown,
                found: version.unwrap_or_else(|| "(none)".into()),
            });
        }
        if objects.len() != OBJECTS.len() {
            let lacking: Vec<_> = OBJECTS.iter().filter(|o| !objects.contains(o)).collect();
            return Err(BookError::NotABook {
                location: shown,
                reason: format!("the book's tables {lacking:?} are missing"),
            });
        }
        Ok(PostgresStore {
            client,
            location: shown,
            statements: HashMap::new(),
        })
    }

    /// Creates an empty book (schema and format entries) in the database at `url`. The
    /// database is created first if it does not exist (which needs the `CREATEDB`
    /// privilege); it must not hold a book or tables of the same names.
    pub fn create(url: &str) -> Result<PostgresStore> {
        let shown = redact(url);
        let config = config(url)?;
        let mut client = match config.connect() {
            Ok(c) => c,
            Err(e) if missing_database(&e) => {
                create_database(&config, &shown)?;
                config.connect().map_err(connect_error(&shown))?
            }
            Err(e) => return Err(connect_error(&shown)(e)),
        };
        let objects = existing_objects(&mut client, &shown)?;
        if objects.contains(&"meta") {
            return Err(BookError::Exists(shown));
        }
        if let Some(name) = objects.first() {
            return Err(BookError::Input(format!(
                "the database {shown} already has a table or sequence named {name}: a book needs a database (or schema) of its own"
            )));
        }
        let ctx = format!("creating the schema in {shown}");
        let mut tx = client.transaction().map_err(BookError::pg(&ctx))?;
        tx.batch_execute(&POSTGRES.schema())
            .map_err(BookError::pg(&ctx))?;
        tx.execute(
            "INSERT INTO meta (name, value) VALUES ('format', $1), ('version', $2)",
            &[&FORMAT_NAME, &FORMAT_VERSION.to_string()],
        )
        .map_err(BookError::pg(&ctx))?;
        tx.commit().map_err(BookError::pg(&ctx))?;
        Ok(PostgresStore {
            client,
            location: shown,
            statements: HashMap::new(),
        })
    }

    /// Removes the book at `url`: its tables and sequence (the database stays). Refuses a
    /// database that does not hold a book.
    pub fn remove(url: &str) -> Result<()> {
        let store = PostgresStore::open(url)?;
        let mut client = store.client;
        let ctx = format!("removing the book in {}", store.location);
        client
            .batch_execute(
                "BEGIN; DROP TABLE searches, queue, nodes, meta; DROP SEQUENCE event_seq; COMMIT",
            )
            .map_err(BookError::pg(ctx))
    }

    fn begin(&mut self, begin: &str, what: &str, lock_rows: bool) -> Result<Box<dyn Txn + '_>> {
        if let Err(e) = self.client.batch_execute(begin) {
            let _ = self.client.batch_execute("ROLLBACK");
            return Err(BookError::pg(format!("{what} {}", self.location))(e));
        }
        Ok(Box::new(PgTxn {
            client: &mut self.client,
            statements: &mut self.statements,
            lock_rows,
            open: true,
        }))
    }
}

impl Store for PostgresStore {
    fn read(&mut self) -> Result<Box<dyn Txn + '_>> {
        self.begin(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            "reading",
            false,
        )
    }

    fn write(&mut self) -> Result<Box<dyn Txn + '_>> {
        let begin = format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({WRITE_LOCK})"
        );
        self.begin(&begin, "writing", true)
    }

    fn claim_txn(&mut self) -> Result<Box<dyn Txn + '_>> {
        if serial_claims() {
            return self.write();
        }
        self.begin("BEGIN ISOLATION LEVEL READ COMMITTED", "claiming in", false)
    }

    fn location(&self) -> &str {
        &self.location
    }

    fn integrity(&mut self, quick: bool) -> Result<crate::store::Integrity> {
        crate::store::integrity::postgres(&mut self.client, quick, &self.location)
    }
}

/// Claims through the write lock instead (`ANTICHESS_PG_SERIAL_CLAIMS=1`), to compare.
fn serial_claims() -> bool {
    std::env::var_os("ANTICHESS_PG_SERIAL_CLAIMS").is_some_and(|v| v == "1")
}

/// One transaction on a connection; rolled back when dropped without [`Txn::commit`].
struct PgTxn<'c> {
    client: &'c mut Client,
    statements: &'c mut HashMap<String, Statement>,
    /// A write transaction: node reads lock their rows.
    lock_rows: bool,
    open: bool,
}

impl Drop for PgTxn<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}

/// A value as a parameter of a column of `kind` (a `NULL` takes the column's type).
fn param(value: Value, kind: Kind) -> Box<dyn ToSql + Sync> {
    match (value, kind) {
        (Value::Int(v), _) => Box::new(v),
        (Value::Real(v), _) => Box::new(v),
        (Value::Text(v), _) => Box::new(v),
        (Value::Null, Kind::Int) => Box::new(None::<i64>),
        (Value::Null, Kind::Real) => Box::new(None::<f64>),
        (Value::Null, Kind::Text) => Box::new(None::<String>),
    }
}

/// A row's values as parameters of `columns`.
fn params(
    values: impl IntoIterator<Item = Value>,
    columns: &[Column],
) -> Vec<Box<dyn ToSql + Sync>> {
    values
        .into_iter()
        .zip(columns)
        .map(|(v, c)| param(v, c.kind))
        .collect()
}

/// One column's values as an array parameter.
fn array(values: Vec<Value>, kind: Kind) -> Box<dyn ToSql + Sync> {
    match kind {
        Kind::Int => Box::new(
            values
                .into_iter()
                .map(|v| match v {
                    Value::Int(v) => Some(v),
                    _ => None,
                })
                .collect::<Vec<_>>(),
        ),
        Kind::Real => Box::new(
            values
                .into_iter()
                .map(|v| match v {
                    Value::Real(v) => Some(v),
                    _ => None,
                })
                .collect::<Vec<_>>(),
        ),
        Kind::Text => Box::new(
            values
                .into_iter()
                .map(|v| match v {
                    Value::Text(v) => Some(v),
                    _ => None,
                })
                .collect::<Vec<_>>(),
        ),
    }
}

fn refs(params: &[Box<dyn ToSql + Sync>]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| &**p as &(dyn ToSql + Sync)).collect()
}

/// The driver's type of a column.
fn pg_type(kind: Kind) -> Type {
    match kind {
        Kind::Int => Type::INT8,
        Kind::Real => Type::FLOAT8,
        Kind::Text => Type::TEXT,
    }
}

/// The values of `columns` from a row, starting at column `at`.
fn values(row: &Row, at: usize, columns: &[Column]) -> Result<Vec<Value>> {
    let bad = |e: postgres::Error| BookError::Corrupt(format!("a row: {e}"));
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Ok(match c.kind {
                Kind::Int => row
                    .try_get::<_, Option<i64>>(at + i)
                    .map_err(bad)?
                    .map(Value::Int),
                Kind::Real => row
                    .try_get::<_, Option<f64>>(at + i)
                    .map_err(bad)?
                    .map(Value::Real),
                Kind::Text => row
                    .try_get::<_, Option<String>>(at + i)
                    .map_err(bad)?
                    .map(Value::Text),
            }
            .unwrap_or(Value::Null))
        })
        .collect()
}

/// A node from the columns of a row starting at column `at`.
fn node_at(row: &Row, at: usize) -> Result<Node> {
    node_from_row(values(row, at, &NODE_COLUMNS)?)
}

impl PgTxn<'_> {
    fn statement(&mut self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self
            .client
            .prepare(sql)
            .map_err(BookError::pg(format!("preparing {sql:?}")))?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    fn query(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)], what: &str) -> Result<Vec<Row>> {
        let statement = self.statement(sql)?;
        self.client
            .query(&statement, params)
            .map_err(BookError::pg(what))
    }

    fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)], what: &str) -> Result<u64> {
        let statement = self.statement(sql)?;
        self.client
            .execute(&statement, params)
            .map_err(BookError::pg(what))
    }

    fn one_i64(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)], what: &str) -> Result<i64> {
        let rows = self.query(sql, params, what)?;
        rows.first()
            .and_then(|r| r.try_get::<_, i64>(0).ok())
            .ok_or_else(|| BookError::Corrupt(format!("{what}: no value")))
    }

    /// Nodes selected by `clause` (after `FROM nodes`).
    fn nodes(&mut self, clause: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Node>> {
        let sql = format!("{} {clause}", sql().select_nodes);
        self.query(&sql, params, "reading nodes")?
            .iter()
            .map(|r| node_at(r, 0))
            .collect()
    }

    /// `FOR UPDATE` in a write transaction (its node reads lock their rows).
    fn lock(&self) -> &'static str {
        if self.lock_rows {
            " FOR UPDATE"
        } else {
            ""
        }
    }

    fn copy_in<F>(&mut self, sql: &str, types: &[Type], what: &str, mut rows: F) -> Result<()>
    where
        F: FnMut(&mut BinaryCopyInWriter<'_>) -> std::result::Result<(), postgres::Error>,
    {
        let pg = |e| BookError::Postgres {
            context: what.to_string(),
            source: e,
        };
        let writer = self.client.copy_in(sql).map_err(pg)?;
        let mut writer = BinaryCopyInWriter::new(writer, types);
        rows(&mut writer).map_err(pg)?;
        writer.finish().map_err(pg)?;
        Ok(())
    }
}

impl Txn for PgTxn<'_> {
    fn clock_ms(&mut self) -> Result<i64> {
        // clock_timestamp(), not now(): the time of the call, not of the transaction's start.
        self.one_i64(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            &[],
            "reading the server's clock",
        )
    }

    fn meta(&mut self, name: &str) -> Result<Option<String>> {
        if name == "event_seq" {
            let current = self.one_i64(
                "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM event_seq",
                &[],
                "reading the event counter",
            )?;
            return Ok((current > 0).then(|| current.to_string()));
        }
        let rows = self.query(
            "SELECT value FROM meta WHERE name = $1",
            &[&name],
            &format!("reading meta {name}"),
        )?;
        rows.first()
            .map(|r| r.try_get::<_, String>(0))
            .transpose()
            .map_err(|e| BookError::Corrupt(format!("meta {name}: {e}")))
    }

    fn set_meta(&mut self, name: &str, value: &str) -> Result<()> {
        if name == "event_seq" {
            let v: i64 = value
                .parse()
                .ok()
                .filter(|v| *v >= 0)
                .ok_or_else(|| BookError::Corrupt(format!("meta event_seq = {value:?}")))?;
            self.one_i64(
                "SELECT setval('event_seq', $1, true)",
                &[&v],
                "setting the event counter",
            )?;
            return Ok(());
        }
        self.execute(
            "INSERT INTO meta (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            &[&name, &value],
            &format!("writing meta {name}"),
        )
        .map(|_| ())
    }

    fn delete_meta(&mut self, name: &str) -> Result<()> {
        self.execute(
            "DELETE FROM meta WHERE name = $1",
            &[&name],
            &format!("deleting meta {name}"),
        )
        .map(|_| ())
    }

    fn node(&mut self, id: NodeId) -> Result<Option<Node>> {
        let clause = format!("WHERE id = $1{}", self.lock());
        Ok(self.nodes(&clause, &[&id])?.pop())
    }

    fn children(&mut self, id: NodeId) -> Result<Vec<Node>> {
        self.nodes("WHERE parent = $1 ORDER BY id", &[&id])
    }

    fn node_with_children(&mut self, id: NodeId) -> Result<Option<(Node, Vec<Node>)>> {
        // One round trip: the node first (locked in a write transaction), then its
        // children by id.
        static LOCKING: LazyLock<String> = LazyLock::new(|| {
            let columns = &sql().node_columns;
            format!(
                "WITH n AS (SELECT {columns} FROM nodes WHERE id = $1 FOR UPDATE) \
                 SELECT 0 AS part, * FROM n UNION ALL \
                 (SELECT 1, {columns} FROM nodes WHERE parent = $1 ORDER BY id) \
                 ORDER BY part, id"
            )
        });
        static READING: LazyLock<String> = LazyLock::new(|| {
            let columns = &sql().node_columns;
            format!(
                "SELECT 0 AS part, {columns} FROM nodes WHERE id = $1 UNION ALL \
                 (SELECT 1, {columns} FROM nodes WHERE parent = $1) ORDER BY part, id"
            )
        });
        let sql: &str = if self.lock_rows { &LOCKING } else { &READING };
        let rows = self.query(sql, &[&id], "reading a node and its children")?;
        let mut node = None;
        let mut children = Vec::with_capacity(rows.len());
        for row in &rows {
            let part: i32 = row
                .try_get(0)
                .map_err(BookError::pg("reading a node and its children"))?;
            let n = node_at(row, 1)?;
            if part == 0 {
                node = Some(n);
            } else {
                children.push(n);
            }
        }
        Ok(node.map(|n| (n, children)))
    }

    fn nodes_with_key(&mut self, key: u64) -> Result<Vec<Node>> {
        let clause = format!("WHERE key = $1 ORDER BY id{}", self.lock());
        self.nodes(&clause, &[&(key as i64)])
    }

    fn root(&mut self) -> Result<Option<Node>> {
        Ok(self
            .nodes("WHERE parent IS NULL ORDER BY id LIMIT 1", &[])?
            .pop())
    }

    fn insert_node(&mut self, n: &Node) -> Result<NodeId> {
        static INSERT: LazyLock<String> =
            LazyLock::new(|| format!("{} RETURNING id", sql().insert_node));
        let values = params(node_row(n).into_iter().skip(1), &NODE_COLUMNS[1..]);
        self.one_i64(&INSERT, &refs(&values), "inserting a node")
    }

    fn insert_nodes(&mut self, nodes: &[Node]) -> Result<Vec<NodeId>> {
        match nodes {
            [] => return Ok(Vec::new()),
            [one] => return Ok(vec![self.insert_node(one)?]),
            _ => {}
        }
        // One statement for all: the rows of unnest come in array order and take their
        // ids in that order (writers are serialised, so nobody else takes ids between).
        // Each parameter is one column's values, as an array.
        static INSERT: LazyLock<String> = LazyLock::new(|| {
            let arrays: Vec<String> = NODE_COLUMNS[1..]
                .iter()
                .enumerate()
                .map(|(i, c)| format!("${}::{}[]", i + 1, POSTGRES.type_name(c.kind)))
                .collect();
            format!(
                "INSERT INTO nodes ({}) SELECT * FROM unnest({}) RETURNING id",
                sql().written_node_columns,
                arrays.join(", ")
            )
        });
        let mut columns: Vec<Vec<Value>> = (1..NODE_COLUMNS.len())
            .map(|_| Vec::with_capacity(nodes.len()))
            .collect();
        for n in nodes {
            for (column, value) in columns.iter_mut().zip(node_row(n).into_iter().skip(1)) {
                column.push(value);
            }
        }
        let arrays: Vec<Box<dyn ToSql + Sync>> = columns
            .into_iter()
            .zip(&NODE_COLUMNS[1..])
            .map(|(values, c)| array(values, c.kind))
            .collect();
        let rows = self.query(&INSERT, &refs(&arrays), "inserting nodes")?;
        let mut ids = rows
            .iter()
            .map(|r| r.try_get::<_, i64>(0))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(BookError::pg("inserting nodes"))?;
        ids.sort_unstable();
        Ok(ids)
    }

    fn nodes_with_keys(&mut self, keys: &[u64]) -> Result<Vec<Node>> {
        let keys: Vec<i64> = keys.iter().map(|&k| k as i64).collect();
        let clause = format!("WHERE key = ANY($1) ORDER BY id{}", self.lock());
        self.nodes(&clause, &[&keys])
    }

    fn update_node(&mut self, n: &Node) -> Result<()> {
        let values = params(node_row(n), &NODE_COLUMNS);
        self.execute(
            &sql().update_node,
            &refs(&values),
            &format!("updating node {}", n.id),
        )
        .map(|_| ())
    }

    fn claim(&mut self, id: NodeId, worker: &str, now_ms: i64, until_ms: i64) -> Result<bool> {
        static CLAIM: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH free AS (SELECT id FROM nodes WHERE id = $1 AND {} \
                     FOR UPDATE SKIP LOCKED) \
                 UPDATE nodes SET claimed_by = $2, lease_until = $4 FROM free \
                 WHERE nodes.id = free.id",
                claimable_sql("$3")
            )
        });
        let changed = self.execute(
            &CLAIM,
            &[&id, &worker, &now_ms, &until_ms],
            &format!("claiming node {id}"),
        )?;
        Ok(changed == 1)
    }

    fn refresh(&mut self, id: NodeId, worker: &str, until_ms: i64) -> Result<bool> {
        let changed = self.execute(
            "UPDATE nodes SET lease_until = $3 WHERE id = $1 AND claimed_by = $2",
            &[&id, &worker, &until_ms],
            &format!("renewing the lease on node {id}"),
        )?;
        Ok(changed == 1)
    }

    fn release(&mut self, id: NodeId, worker: &str) -> Result<()> {
        self.execute(
            "UPDATE nodes SET claimed_by = NULL, lease_until = NULL \
             WHERE id = $1 AND claimed_by = $2",
            &[&id, &worker],
            &format!("releasing node {id}"),
        )
        .map(|_| ())
    }

    fn claims(&mut self) -> Result<Vec<(NodeId, String, i64)>> {
        self.query(
            "SELECT id, claimed_by, COALESCE(lease_until, 0) FROM nodes \
             WHERE claimed_by IS NOT NULL ORDER BY id",
            &[],
            "reading claims",
        )?
        .iter()
        .map(|r| {
            Ok((
                r.try_get(0).map_err(BookError::pg("reading claims"))?,
                r.try_get(1).map_err(BookError::pg("reading claims"))?,
                r.try_get(2).map_err(BookError::pg("reading claims"))?,
            ))
        })
        .collect()
    }

    fn queue(&mut self) -> Result<Vec<QueueEntry>> {
        self.query(
            "SELECT id, node, added FROM queue ORDER BY id",
            &[],
            "reading the queue",
        )?
        .iter()
        .map(|r| {
            Ok(QueueEntry {
                id: r.try_get(0).map_err(BookError::pg("reading the queue"))?,
                node: r.try_get(1).map_err(BookError::pg("reading the queue"))?,
                added_ms: r.try_get(2).map_err(BookError::pg("reading the queue"))?,
            })
        })
        .collect()
    }

    fn push_queue(&mut self, node: NodeId, now_ms: i64) -> Result<i64> {
        self.one_i64(
            "INSERT INTO queue (node, added) VALUES ($1, $2) RETURNING id",
            &[&node, &now_ms],
            "adding to the queue",
        )
    }

    fn remove_queue_entry(&mut self, id: i64) -> Result<()> {
        self.execute(
            "DELETE FROM queue WHERE id = $1",
            &[&id],
            "removing from the queue",
        )
        .map(|_| ())
    }

    fn remove_queued_node(&mut self, node: NodeId) -> Result<()> {
        self.execute(
            "DELETE FROM queue WHERE node = $1",
            &[&node],
            "removing from the queue",
        )
        .map(|_| ())
    }

    fn clear_queue(&mut self) -> Result<()> {
        self.execute("DELETE FROM queue", &[], "clearing the queue")
            .map(|_| ())
    }

    fn log_start(&mut self, node: NodeId, worker: &str, now_ms: i64, seq: i64) -> Result<i64> {
        self.one_i64(
            "INSERT INTO searches (node, worker, started, start_seq) VALUES ($1, $2, $3, $4) \
             RETURNING id",
            &[&node, &worker, &now_ms, &seq],
            "logging a search",
        )
    }

    fn log_finish(
        &mut self,
        id: i64,
        now_ms: i64,
        seq: i64,
        nodes: u64,
        result: &str,
    ) -> Result<()> {
        self.execute(
            "UPDATE searches SET finished = $2, end_seq = $3, nodes = $4, result = $5 \
             WHERE id = $1",
            &[
                &id,
                &now_ms,
                &seq,
                &i64::try_from(nodes).unwrap_or(i64::MAX),
                &result,
            ],
            "logging a search",
        )
        .map(|_| ())
    }

    fn search_log(&mut self) -> Result<Vec<SearchLog>> {
        self.search_log_page(i64::MIN, u32::MAX)
    }

    fn counts(&mut self, now_ms: i64) -> Result<BookCounts> {
        let what = "counting nodes";
        static COUNTS: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT COUNT(*), \
                     COUNT(*) FILTER (WHERE expanded = 0), \
                     COUNT(*) FILTER (WHERE {OPEN_LEAF_SQL}), \
                     COUNT(*) FILTER (WHERE proof = 0), \
                     COUNT(*) FILTER (WHERE disproof = 0), \
                     COUNT(*) FILTER (WHERE {}), \
                     (SELECT COUNT(*) FROM searches), \
                     (SELECT COUNT(*) FROM queue) \
                 FROM nodes",
                leased_sql("$1")
            )
        });
        let rows = self.query(&COUNTS, &[&now_ms], what)?;
        let row = rows
            .first()
            .ok_or_else(|| BookError::Corrupt(format!("{what}: no result")))?;
        let u = |i: usize| -> Result<u64> {
            Ok(row
                .try_get::<_, i64>(i)
                .map_err(BookError::pg(what))?
                .max(0) as u64)
        };
        Ok(BookCounts {
            nodes: u(0)?,
            leaves: u(1)?,
            open_leaves: u(2)?,
            won: u(3)?,
            lost: u(4)?,
            claimed: u(5)?,
            searches: u(6)?,
            queued: u(7)?,
        })
    }

    fn all_nodes(&mut self) -> Result<Vec<Node>> {
        self.nodes("ORDER BY id", &[])
    }

    fn next_counter(&mut self, name: &str) -> Result<i64> {
        if name == "event_seq" {
            return self.one_i64(
                "SELECT nextval('event_seq')",
                &[],
                "advancing the event counter",
            );
        }
        self.one_i64(
            "INSERT INTO meta (name, value) VALUES ($1, '1') ON CONFLICT (name) \
             DO UPDATE SET value = (meta.value::BIGINT + 1)::TEXT RETURNING value::BIGINT",
            &[&name],
            &format!("advancing the counter {name}"),
        )
    }

    fn all_meta(&mut self) -> Result<Vec<(String, String)>> {
        let mut entries: Vec<(String, String)> = self
            .query(
                "SELECT name, value FROM meta ORDER BY name",
                &[],
                "reading meta",
            )?
            .iter()
            .map(|r| {
                Ok((
                    r.try_get(0).map_err(BookError::pg("reading meta"))?,
                    r.try_get(1).map_err(BookError::pg("reading meta"))?,
                ))
            })
            .collect::<Result<_>>()?;
        if let Some(seq) = self.meta("event_seq")? {
            entries.push(("event_seq".into(), seq));
            entries.sort();
        }
        Ok(entries)
    }

    fn nodes_page(&mut self, after: NodeId, limit: u32) -> Result<Vec<Node>> {
        self.nodes(
            "WHERE id > $1 ORDER BY id LIMIT $2",
            &[&after, &i64::from(limit)],
        )
    }

    fn search_log_page(&mut self, after: i64, limit: u32) -> Result<Vec<SearchLog>> {
        let sql = format!(
            "{} WHERE id > $1 ORDER BY id LIMIT $2",
            sql().select_searches
        );
        self.query(&sql, &[&after, &i64::from(limit)], "reading the search log")?
            .iter()
            .map(|r| search_from_row(values(r, 0, &SEARCH_COLUMNS)?))
            .collect()
    }

    fn bulk_begin(&mut self) -> Result<()> {
        self.client
            .batch_execute("SET CONSTRAINTS ALL DEFERRED")
            .map_err(BookError::pg("deferring constraints"))
    }

    fn load_nodes(&mut self, nodes: &[Node]) -> Result<()> {
        let types: Vec<Type> = NODE_COLUMNS.iter().map(|c| pg_type(c.kind)).collect();
        let sql = format!(
            "COPY nodes ({}) FROM STDIN (FORMAT binary)",
            sql().node_columns
        );
        self.copy_in(&sql, &types, "loading nodes", |w| {
            for n in nodes {
                w.write(&refs(&params(node_row(n), &NODE_COLUMNS)))?;
            }
            Ok(())
        })
    }

    fn load_queue(&mut self, entries: &[QueueEntry]) -> Result<()> {
        self.copy_in(
            "COPY queue (id, node, added) FROM STDIN (FORMAT binary)",
            &[Type::INT8, Type::INT8, Type::INT8],
            "loading the queue",
            |w| {
                for q in entries {
                    w.write(&[&q.id, &q.node, &q.added_ms])?;
                }
                Ok(())
            },
        )
    }

    fn load_search_log(&mut self, log: &[SearchLog]) -> Result<()> {
        let types: Vec<Type> = SEARCH_COLUMNS.iter().map(|c| pg_type(c.kind)).collect();
        let sql = format!(
            "COPY searches ({}) FROM STDIN (FORMAT binary)",
            crate::store::schema::names(&SEARCH_COLUMNS)
        );
        self.copy_in(&sql, &types, "loading the search log", |w| {
            for l in log {
                w.write(&refs(&params(search_row(l), &SEARCH_COLUMNS)))?;
            }
            Ok(())
        })
    }

    fn bulk_end(&mut self) -> Result<()> {
        self.client
            .batch_execute(
                "SELECT setval(pg_get_serial_sequence('nodes', 'id'), \
                     COALESCE((SELECT MAX(id) FROM nodes), 0) + 1, false); \
                 SELECT setval(pg_get_serial_sequence('queue', 'id'), \
                     COALESCE((SELECT MAX(id) FROM queue), 0) + 1, false); \
                 SELECT setval(pg_get_serial_sequence('searches', 'id'), \
                     COALESCE((SELECT MAX(id) FROM searches), 0) + 1, false); \
                 SET CONSTRAINTS ALL IMMEDIATE",
            )
            .map_err(BookError::pg("ending the bulk load"))
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.open = false;
        self.client
            .batch_execute("COMMIT")
            .map_err(BookError::pg("committing"))
    }
}
