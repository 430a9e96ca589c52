//! How the PostgreSQL store connects: the settings of a URL (the password from the URL or
//! `PGPASSWORD`, a connect timeout and TCP keepalives, TLS as libpq's `sslmode`:
//! [`crate::store::tls`]), the session settings of every connection, the errors of a
//! failed connection, and creating a missing database. The store itself is
//! [`crate::store::postgres`].

use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{BookError, Result};
use crate::store::redact;

/// Session settings: a client that vanishes inside a transaction (lost network) loses
/// its locks after a minute; a writer waits at most ten minutes for the write lock.
const SESSION: &str = "SET idle_in_transaction_session_timeout = '60s'; \
    SET lock_timeout = '600s'";

/// How to connect: the driver's settings and the TLS connector.
#[derive(Clone)]
pub(crate) struct Connection {
    pub(crate) config: Config,
    tls: MakeRustlsConnect,
}

impl Connection {
    pub(crate) fn connect(&self) -> std::result::Result<Client, postgres::Error> {
        let mut client = self.config.connect(self.tls.clone())?;
        client.batch_execute(SESSION)?;
        Ok(client)
    }
}

/// The connection settings of a URL: the password from `PGPASSWORD` if the URL has none,
/// a connect timeout and TCP keepalives unless the URL sets them, TLS as its `sslmode` and
/// `sslrootcert` say ([`crate::store::tls`]).
pub(crate) fn config(url: &str) -> Result<Connection> {
    let shown = redact(url);
    let (url, tls) = crate::store::tls::take_settings(url, &shown)?;
    let mut config: Config = url.parse().map_err(|e| {
        BookError::Input(format!(
            "{shown} is not a valid PostgreSQL URL: {}",
            crate::error::pg_message(&e)
        ))
    })?;
    if config.get_password().is_none() {
        if let Ok(password) = std::env::var("PGPASSWORD") {
            config.password(password);
        }
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(20));
    }
    config.keepalives(true);
    config.keepalives_idle(Duration::from_secs(60));
    if config.get_application_name().is_none() {
        config.application_name("antichess");
    }
    let tls = tls.connector(&mut config, &shown)?;
    Ok(Connection { config, tls })
}

pub(crate) fn missing_database(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::INVALID_CATALOG_NAME)
}

pub(crate) fn connect_error(shown: &str) -> impl FnOnce(postgres::Error) -> BookError {
    BookError::pg(format!("cannot connect to the PostgreSQL database {shown}"))
}

/// `name` as a quoted SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Creates the database a URL names (which needs the `CREATEDB` privilege); one created
/// meanwhile by someone else is fine.
pub(crate) fn create_database(connection: &Connection, shown: &str) -> Result<()> {
    let Some(name) = connection.config.get_dbname().map(str::to_string) else {
        return Err(BookError::Input(format!(
            "{shown} names no database: write postgres://user@host/DATABASE"
        )));
    };
    let mut admin = connection.clone();
    admin.config.dbname("postgres");
    let cannot = |source| {
        BookError::Postgres {
        context: format!(
            "the database of {shown} does not exist and could not be created (create it with `createdb {name}`)"
        ),
        source,
    }
    };
    let mut client = admin.connect().map_err(cannot)?;
    match client.batch_execute(&format!("CREATE DATABASE {}", quote_ident(&name))) {
        Ok(()) => Ok(()),
        // Created meanwhile by someone else.
        Err(e) if e.code() == Some(&SqlState::DUPLICATE_DATABASE) => Ok(()),
        Err(e) => Err(cannot(e)),
    }
}
