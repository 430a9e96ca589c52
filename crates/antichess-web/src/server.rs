//! The accept loop: HTTP/1.1 connections served by hyper with a timeout on request headers
//! and a cap on the connections open at once, so that clients that send half a request
//! (or nothing) are dropped instead of holding the server's file descriptors; graceful
//! shutdown lets the requests under way finish.
//!
//! The loop is ours rather than `axum::serve`'s because that one sets no timer, so hyper's
//! header timeout never fires there. The body timeout is in [`crate::guard`].

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

/// How long a client may take over a request (defaults: [`Limits::default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A request's headers must arrive whole within this (counted from the first byte
    /// awaited: an idle kept-alive connection is closed after it too).
    pub header_timeout: Duration,
    /// A request's body must arrive whole within this.
    pub body_timeout: Duration,
    /// Connections served at once; more wait in the listen queue until one closes.
    pub max_connections: usize,
}

impl Default for Limits {
    /// 10 s for the headers, 30 s for a body, 128 connections (under a limit of 256
    /// open files, as `ulimit -n 256`, with room for the books, tables and proofs).
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 128,
        }
    }
}

/// Whether an accept error concerns one connection only (the listener is fine).
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// Serves `app` on `listener` under `limits` until `shutdown` resolves, then waits for the
/// connections' requests under way to finish.
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    let mut connections = JoinSet::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    loop {
        while connections.try_join_next().is_some() {}
        let permit = tokio::select! {
            permit = Arc::clone(&slots).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    // Out of file descriptors, say: wait for connections to close.
                    eprintln!("accepting a connection: {e}");
                    drop(permit);
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                        () = &mut shutdown => break,
                    }
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let mut stopping = stopping.clone();
        connections.spawn(async move {
            let _permit = permit;
            let mut connection = pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopping.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}
