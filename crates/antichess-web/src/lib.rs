//! The browser app of the antichess suite and the JSON API behind it (`antichess serve`).
//!
//! Three pages share one board (lichess's chessground) and one API:
//!
//! - **Explorer** (`/`): a position from the start, a FEN or a PGN, its moves with their
//!   tablebase results, proof statuses and subtree sizes, and book numbers; the main line
//!   of a loaded proof is highlighted; "Solve" runs the solver on the position.
//! - **Search** (`/search`): a book's root over time, what each worker is searching, the
//!   queue, the pin and marks — read from and written to the store, so it works while
//!   `antichess book grow` runs in other processes.
//! - **Tablebase** (`/tablebase`): every move's result for any FEN, best first, and random
//!   positions of a material.
//!
//! Modules: [`state`] (what the server holds), [`mod@router`] (routes and handlers),
//! [`explore`], [`tables`], [`proofs`], [`books`], [`solve`] (the work behind the handlers),
//! [`mod@line`] (positions in requests), [`error`] (4xx / 5xx answers), [`assets`] (the front
//! end's files and their build), [`guard`] (who may write; no file paths in answers; slow
//! bodies; `access` holds the token and the write rule it applies), [`server`] (the accept
//! loop: header timeout, cap on connections), [`launch`] (`antichess serve` as a job: the
//! options checked, the token read, the front end found, the lines said on starting).

#![forbid(unsafe_code)]

mod access;
pub mod assets;
pub mod books;
pub mod error;
pub mod explore;
pub mod guard;
pub mod lasker;
pub mod launch;
pub mod line;
/// The proof index moved to `antichess-proof` (the UCI engine uses it too).
pub use antichess_proof::loaded as proofs;
pub mod router;
pub mod server;
pub mod solve;
pub mod state;
pub mod tables;

use std::net::SocketAddr;
use std::sync::Arc;

pub use error::{ApiError, ApiResult};
pub use guard::{Token, WriteRule};
pub use router::router;
pub use server::Limits;
pub use state::{AppState, ServerConfig};

/// Samples every book's root every `state.sample_every` (for the search page's plot), on
/// the blocking threads, until the runtime stops.
pub fn spawn_samplers(state: &Arc<AppState>) {
    for book in &state.books {
        let book = Arc::clone(book);
        let every = state
            .sample_every
            .max(std::time::Duration::from_millis(100));
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                let b = Arc::clone(&book);
                match tokio::task::spawn_blocking(move || b.sample()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => eprintln!("book {}: sampling the root: {}", book.name, e.message),
                    Err(e) => eprintln!("book {}: sampling the root: {e}", book.name),
                }
            }
        });
    }
}

/// Serves `state` on `listener` until `shutdown` resolves (Ctrl-C for [`run`]). A listener
/// bound to an address that is not loopback makes the server exposed: read-only without a
/// token (see [`guard`]).
pub async fn serve_on(
    state: Arc<AppState>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if !guard::is_loopback(listener.local_addr()?.ip()) {
        state.set_exposed();
    }
    spawn_samplers(&state);
    let limits = state.limits;
    server::serve(listener, router(state), limits, shutdown).await
}

/// Binds `addr` and serves until Ctrl-C, on a runtime of its own (what `antichess serve`
/// calls). `ready` is called with the bound address once the server accepts connections.
pub fn run(
    state: AppState,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| std::io::Error::new(e.kind(), format!("binding {addr}: {e}")))?;
        ready(listener.local_addr()?);
        serve_on(Arc::new(state), listener, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    })
}
