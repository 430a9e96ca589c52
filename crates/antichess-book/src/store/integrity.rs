//! The store's own integrity check, below the book's structure: are the pages, the
//! B-trees and the indexes what the database engine expects? A book whose file is damaged
//! can still answer queries (a missing index row makes a node vanish from its parent's
//! children, a malformed page cuts a table short), so `book check` runs this first and
//! the writers (`grow`, `queue`, `pin`, `mark`, `import`) refuse a book that fails the
//! quick form.
//!
//! - **SQLite**: `PRAGMA integrity_check` (full: every page, every B-tree, every index
//!   row against its table row, `NOT NULL` and `CHECK` constraints) or `PRAGMA
//!   quick_check` (the same without comparing indexes to their tables; linear in the
//!   file's size). An error while the pragma runs (a page so damaged the check cannot go
//!   on) is reported as a problem too.
//! - **PostgreSQL**: the server keeps its own files consistent (write-ahead log, page
//!   checksums if the cluster was initialised with them), so what a client can check is
//!   narrower: that every index of the book's tables is valid and ready (not left
//!   half-built by a failed `CREATE INDEX CONCURRENTLY`) and every constraint validated;
//!   in the full form, if the `amcheck` extension is installed in the database,
//!   `bt_index_check` on each of the book's B-tree indexes (the index's own structure
//!   and order; it does not compare the index with the table). Without `amcheck` the
//!   indexes' contents are not verified, and the report says so.

use postgres::Client;
use rusqlite::Connection;

use crate::error::{BookError, Result};

/// What an integrity check covered and what it found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Integrity {
    /// What was checked, in a few words (for the report).
    pub checked: String,
    /// The problems found (empty: none).
    pub problems: Vec<String>,
}

/// SQLite's `PRAGMA integrity_check` (`quick`: `quick_check`).
pub(crate) fn sqlite(conn: &Connection, quick: bool) -> Integrity {
    let pragma = if quick {
        "quick_check"
    } else {
        "integrity_check"
    };
    let checked = format!("SQLite's PRAGMA {pragma}");
    let rows: rusqlite::Result<Vec<String>> =
        conn.prepare(&format!("PRAGMA {pragma}")).and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        });
    let problems = match rows {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => Vec::new(),
        // A row may hold several lines, under a heading naming the database.
        Ok(rows) => rows
            .iter()
            .flat_map(|r| r.lines())
            .filter(|l| !l.starts_with("*** in database"))
            .map(|l| format!("SQLite: {l}"))
            .collect(),
        Err(e) => vec![format!("SQLite: the check stopped: {e}")],
    };
    Integrity { checked, problems }
}

/// The book's tables (an index of any of them is checked).
const TABLES: &str = "'meta', 'nodes', 'queue', 'searches'";

/// PostgreSQL: index validity and validated constraints; in the full form `amcheck`'s
/// `bt_index_check` on every B-tree index of the book if the extension is installed.
pub(crate) fn postgres(client: &mut Client, quick: bool, shown: &str) -> Result<Integrity> {
    let ctx = format!("checking the indexes of {shown}");
    let mut problems = Vec::new();
    let indexes = client
        .query(
            &format!(
                "SELECT i.indexrelid::regclass::text, i.indisvalid AND i.indisready, \
                        am.amname = 'btree', i.indexrelid::oid \
                 FROM pg_index i \
                 JOIN pg_class c ON c.oid = i.indexrelid \
                 JOIN pg_am am ON am.oid = c.relam \
                 WHERE i.indrelid::regclass::text IN ({TABLES}) \
                 ORDER BY 1"
            ),
            &[],
        )
        .map_err(BookError::pg(&ctx))?;
    for row in &indexes {
        if !row.get::<_, bool>(1) {
            let name: String = row.get(0);
            problems.push(format!(
                "PostgreSQL: index {name} is not valid (rebuild it with REINDEX INDEX {name})"
            ));
        }
    }
    let unvalidated = client
        .query(
            &format!(
                "SELECT conname::text, conrelid::regclass::text FROM pg_constraint \
                 WHERE conrelid::regclass::text IN ({TABLES}) AND NOT convalidated \
                 ORDER BY 1"
            ),
            &[],
        )
        .map_err(BookError::pg(&ctx))?;
    for row in &unvalidated {
        let (name, table): (String, String) = (row.get(0), row.get(1));
        problems.push(format!(
            "PostgreSQL: constraint {name} of {table} is not validated"
        ));
    }
    let mut checked =
        "PostgreSQL: the book's indexes are valid and its constraints validated".to_string();
    if !quick {
        let amcheck = client
            .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'", &[])
            .map_err(BookError::pg(&ctx))?
            .is_some();
        if amcheck {
            for row in indexes.iter().filter(|r| r.get::<_, bool>(2)) {
                let name: String = row.get(0);
                let oid: u32 = row.get(3);
                if let Err(e) = client.execute("SELECT bt_index_check($1::oid::regclass)", &[&oid])
                {
                    problems.push(format!(
                        "PostgreSQL: index {name}: {}",
                        crate::error::pg_message(&e)
                    ));
                }
            }
            checked.push_str("; amcheck's bt_index_check on every B-tree index");
        } else {
            checked.push_str(
                "; the indexes' contents were not verified (install the amcheck extension: \
                 CREATE EXTENSION amcheck)",
            );
        }
    }
    Ok(Integrity { checked, problems })
}
