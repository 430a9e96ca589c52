//! Opening, creating and removing a book's store by its location: the one place that
//! picks the implementation ([`SqliteStore`] or [`PostgresStore`]) for a [`Location`].
//! [`crate::store`] re-exports these functions.

use super::postgres::PostgresStore;
use super::sqlite::SqliteStore;
use super::{Location, Store};
use crate::error::{BookError, Result};

/// Opens an existing book's store.
pub fn open_store(location: &str) -> Result<Box<dyn Store>> {
    match Location::parse(location) {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::open(&path)?)),
        Location::Postgres(url) => Ok(Box::new(PostgresStore::open(&url)?)),
    }
}

/// Opens an existing book's store for reading only: a SQLite file is opened read-only
/// (so that a book in a read-only file or directory can be shown and checked); a
/// PostgreSQL store is opened as by [`open_store`] (its read transactions are read-only).
pub fn open_store_read_only(location: &str) -> Result<Box<dyn Store>> {
    match Location::parse(location) {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::open_read_only(&path)?)),
        Location::Postgres(url) => Ok(Box::new(PostgresStore::open(&url)?)),
    }
}

/// Creates an empty store (schema only) at a location that must not hold a book yet.
pub fn create_store(location: &str) -> Result<Box<dyn Store>> {
    match Location::parse(location) {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::create(&path)?)),
        Location::Postgres(url) => Ok(Box::new(PostgresStore::create(&url)?)),
    }
}

/// Removes the book at `location` whole: a SQLite file (with its `-wal` and `-shm`
/// files), or a PostgreSQL book's tables and sequence (the database stays). For tests,
/// benchmarks and failed copies; nothing asks for confirmation.
pub fn remove_store(location: &str) -> Result<()> {
    match Location::parse(location) {
        Location::Sqlite(path) => {
            for suffix in ["", "-wal", "-shm"] {
                let file = format!("{}{suffix}", path.display());
                match std::fs::remove_file(&file) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => {
                        return Err(BookError::Io {
                            context: format!("removing {file}"),
                            source,
                        })
                    }
                }
            }
            Ok(())
        }
        Location::Postgres(url) => PostgresStore::remove(&url),
    }
}
