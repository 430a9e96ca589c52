//! The store behind a book: a narrow, SQL-shaped trait so that the book's logic (claims,
//! expansion, minimax, steering) is written once over it. Two implementations:
//! SQLite ([`SqliteStore`], one file, the embedded default) and PostgreSQL
//! ([`PostgresStore`], for workers on many machines). They share the schema and
//! the semantics because:
//!
//! - no state lives only in a process: a leaf being searched is a row claimed with a
//!   lease (`claimed_by`, `lease_until`), and an expired lease returns it to the pool;
//! - every change is made in a [`Txn`] that is either committed whole or not at all (a
//!   search result, its children and the propagation of numbers to the root are one
//!   transaction);
//! - columns are plain INTEGER / TEXT / REAL, 64-bit keys stored as signed integers
//!   (see `docs/formats/book.md`).
//!
//! The module holds what both stores share, each in one place: [`schema`] (the tables,
//! the column lists, the statements on nodes, and every difference between the two SQL
//! dialects), [`row`] (the one Node ⇄ row mapping, with the rule for stored values that
//! do not fit), [`claim`] (the one definition of a claimable leaf, in Rust and in SQL).
//! [`sqlite`] and [`postgres`] only run SQL and move values between their driver and
//! [`row`]; [`connect`] is how the PostgreSQL store connects and [`tls`] its TLS; `open`
//! picks one of the two for a location ([`open_store`], [`create_store`], [`remove_store`]).
//!
//! Times are milliseconds since the Unix epoch (`i64`), read from the worker's clock.

pub mod claim;
pub(crate) mod connect;
pub mod integrity;
mod open;
pub mod postgres;
pub(crate) mod row;
pub(crate) mod schema;
pub mod sqlite;
mod tls;

pub use crate::format::{FORMAT_NAME, FORMAT_VERSION};
pub use integrity::Integrity;
pub use open::{create_store, open_store, open_store_read_only, remove_store};
pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId};

/// A storage back end. Every operation happens in a transaction.
pub trait Store: Send {
    /// A transaction for reading (a consistent snapshot; committing it is optional).
    fn read(&mut self) -> Result<Box<dyn Txn + '_>>;
    /// A transaction for writing: serialised with other writers, committed with
    /// [`Txn::commit`]; dropped without committing, it rolls back.
    fn write(&mut self) -> Result<Box<dyn Txn + '_>>;
    /// A transaction for claims only: [`Txn::claim`], [`Txn::refresh`], [`Txn::release`],
    /// [`Txn::remove_queue_entry`], [`Txn::log_start`] and [`Txn::next_counter`] of
    /// `event_seq`. A store may run these beside a write transaction instead of after it
    /// (PostgreSQL does: a claim takes its leaf's row lock and skips leaves locked by
    /// others); by default it is a [`Store::write`] transaction.
    fn claim_txn(&mut self) -> Result<Box<dyn Txn + '_>> {
        self.write()
    }
    /// Where the store is (as given to [`open_store`]).
    fn location(&self) -> &str;
    /// The database's own integrity check (see [`integrity`]): `quick` is the form the
    /// writers run before they write, the full one is `book check`'s.
    fn integrity(&mut self, quick: bool) -> Result<Integrity>;
}

/// A queued node: searched (or walked from) before the normal selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueEntry {
    pub id: i64,
    pub node: NodeId,
    pub added_ms: i64,
}

/// One search of a leaf, as logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchLog {
    pub id: i64,
    pub node: NodeId,
    pub worker: String,
    pub started_ms: i64,
    /// Position in the store's event order at the start (a global counter of claims and
    /// writes, independent of clocks).
    pub start_seq: i64,
    pub finished_ms: Option<i64>,
    pub end_seq: Option<i64>,
    /// Positions the search evaluated.
    pub nodes: Option<u64>,
    /// `proved`, `disproved`, `unknown`, `decided` (no search needed), or `lost` (the
    /// claim had been taken over; the result was dropped).
    pub result: Option<String>,
}

/// Counts over the whole book (in JSON as `book show` and the web's book summary give
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct BookCounts {
    pub nodes: u64,
    /// Nodes without children in the book.
    pub leaves: u64,
    /// Open leaves (neither won nor lost, not expanded).
    pub open_leaves: u64,
    pub won: u64,
    pub lost: u64,
    /// Leaves under a lease that has not expired.
    pub claimed: u64,
    /// Searches logged (finished or not).
    pub searches: u64,
    pub queued: u64,
}

/// A transaction: the primitive reads and writes the book's logic is built from.
pub trait Txn {
    /// The store's clock, in milliseconds since the Unix epoch: leases, queue entries and
    /// the search log are timed by it, so that workers on hosts whose clocks disagree
    /// still agree on when a lease runs out. By default (SQLite, a file on this host) it is
    /// this host's clock; PostgreSQL reads the server's.
    fn clock_ms(&mut self) -> Result<i64> {
        Ok(now_ms())
    }

    /// A metadata entry.
    fn meta(&mut self, name: &str) -> Result<Option<String>>;
    fn set_meta(&mut self, name: &str, value: &str) -> Result<()>;
    fn delete_meta(&mut self, name: &str) -> Result<()>;

    fn node(&mut self, id: NodeId) -> Result<Option<Node>>;
    /// Children of a node, ordered by id.
    fn children(&mut self, id: NodeId) -> Result<Vec<Node>>;
    /// A node (as [`Txn::node`] reads it) and its children, ordered by id.
    fn node_with_children(&mut self, id: NodeId) -> Result<Option<(Node, Vec<Node>)>> {
        match self.node(id)? {
            Some(node) => Ok(Some((node, self.children(id)?))),
            None => Ok(None),
        }
    }
    /// Nodes of a position (by Zobrist key; the caller compares the FEN).
    fn nodes_with_key(&mut self, key: u64) -> Result<Vec<Node>>;
    /// The root: the node without a parent.
    fn root(&mut self) -> Result<Option<Node>>;
    /// Inserts a node (its `id` is ignored) and returns the new id.
    fn insert_node(&mut self, node: &Node) -> Result<NodeId>;
    /// Inserts nodes (their `id`s are ignored) in order and returns their new ids, which
    /// increase in that order.
    fn insert_nodes(&mut self, nodes: &[Node]) -> Result<Vec<NodeId>> {
        nodes.iter().map(|n| self.insert_node(n)).collect()
    }
    /// Nodes of any of several positions (by key), ordered by id.
    fn nodes_with_keys(&mut self, keys: &[u64]) -> Result<Vec<Node>> {
        let mut nodes = Vec::new();
        for &key in keys {
            nodes.extend(self.nodes_with_key(key)?);
        }
        nodes.sort_by_key(|n| n.id);
        nodes.dedup_by_key(|n| n.id);
        Ok(nodes)
    }
    /// Writes every field of an existing node.
    fn update_node(&mut self, node: &Node) -> Result<()>;

    /// Claims leaf `id` for `worker` until `until_ms` if it is open, not expanded and not
    /// under another lease valid at `now_ms`. Returns whether the claim was taken.
    fn claim(&mut self, id: NodeId, worker: &str, now_ms: i64, until_ms: i64) -> Result<bool>;
    /// Extends `worker`'s lease on `id`; false if `worker` no longer holds it.
    fn refresh(&mut self, id: NodeId, worker: &str, until_ms: i64) -> Result<bool>;
    /// Gives up `worker`'s claim on `id` (nothing if it holds none).
    fn release(&mut self, id: NodeId, worker: &str) -> Result<()>;
    /// Every claimed node: (id, worker, lease end).
    fn claims(&mut self) -> Result<Vec<(NodeId, String, i64)>>;

    fn queue(&mut self) -> Result<Vec<QueueEntry>>;
    fn push_queue(&mut self, node: NodeId, now_ms: i64) -> Result<i64>;
    fn remove_queue_entry(&mut self, id: i64) -> Result<()>;
    /// Removes every queue entry of a node.
    fn remove_queued_node(&mut self, node: NodeId) -> Result<()>;
    fn clear_queue(&mut self) -> Result<()>;

    /// Logs the start of a search; returns the log entry's id.
    fn log_start(&mut self, node: NodeId, worker: &str, now_ms: i64, seq: i64) -> Result<i64>;
    fn log_finish(
        &mut self,
        id: i64,
        now_ms: i64,
        seq: i64,
        nodes: u64,
        result: &str,
    ) -> Result<()>;
    fn search_log(&mut self) -> Result<Vec<SearchLog>>;

    fn counts(&mut self, now_ms: i64) -> Result<BookCounts>;
    /// Every node (for export, checks and small books' statistics).
    fn all_nodes(&mut self) -> Result<Vec<Node>>;

    /// The next value of a counter (`event_seq`, `win_seq`): one more than the last one
    /// handed out, never handed out twice. By default the counter is the meta entry of
    /// that name, read and written in this (write) transaction.
    fn next_counter(&mut self, name: &str) -> Result<i64> {
        let current = match self.meta(name)? {
            Some(v) => v
                .parse::<i64>()
                .map_err(|_| BookError::Corrupt(format!("meta {name} = {v:?} is not a number")))?,
            None => 0,
        };
        let next = current + 1;
        self.set_meta(name, &next.to_string())?;
        Ok(next)
    }

    /// Every meta entry, by name (counters included), for copying a book.
    fn all_meta(&mut self) -> Result<Vec<(String, String)>>;
    /// Up to `limit` nodes with ids above `after`, by id (for copying a book in key order).
    fn nodes_page(&mut self, after: NodeId, limit: u32) -> Result<Vec<Node>>;
    /// Up to `limit` search log entries with ids above `after`, by id.
    fn search_log_page(&mut self, after: i64, limit: u32) -> Result<Vec<SearchLog>>;
    /// Starts a bulk load into an empty book (constraints between rows are checked at
    /// commit, so rows may refer to rows loaded later).
    fn bulk_begin(&mut self) -> Result<()>;
    /// Inserts nodes with their ids (bulk load).
    fn load_nodes(&mut self, nodes: &[Node]) -> Result<()>;
    /// Inserts queue entries with their ids (bulk load).
    fn load_queue(&mut self, entries: &[QueueEntry]) -> Result<()>;
    /// Inserts search log entries with their ids (bulk load).
    fn load_search_log(&mut self, log: &[SearchLog]) -> Result<()>;
    /// Ends a bulk load: ids handed out next follow the loaded ones.
    fn bulk_end(&mut self) -> Result<()>;

    /// Commits the transaction.
    fn commit(self: Box<Self>) -> Result<()>;
}

/// The next value of a counter (see [`Txn::next_counter`]).
pub(crate) fn next_counter(txn: &mut dyn Txn, name: &str) -> Result<i64> {
    txn.next_counter(name)
}

/// The kind of store a location names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL URL.
    Postgres(String),
}

impl Location {
    /// `postgres://…` / `postgresql://…` name a PostgreSQL database, `sqlite:PATH` or any
    /// other text a SQLite file.
    #[must_use]
    pub fn parse(location: &str) -> Location {
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            Location::Postgres(location.to_string())
        } else {
            let path = location
                .strip_prefix("sqlite://")
                .or_else(|| location.strip_prefix("sqlite:"))
                .unwrap_or(location);
            Location::Sqlite(path.into())
        }
    }
}

/// A location as it may be shown: a PostgreSQL URL's password is replaced by `***`.
#[must_use]
pub fn redact(location: &str) -> String {
    if !matches!(Location::parse(location), Location::Postgres(_)) {
        return location.to_string();
    }
    let Some(scheme_end) = location.find("://").map(|i| i + 3) else {
        return location.to_string();
    };
    let rest = &location[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return location.to_string();
    };
    let userinfo = &authority[..at];
    match userinfo.find(':') {
        Some(colon) => format!(
            "{}{}:***{}",
            &location[..scheme_end],
            &userinfo[..colon],
            &rest[at..]
        ),
        None => location.to_string(),
    }
}

/// Milliseconds since the Unix epoch.
#[must_use]
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
