//! A UCI engine for losing chess (antichess): `antichess uci`.
//!
//! It plays perfectly where it knows and searches elsewhere. For each `go`, in this order:
//! a loaded proof that has the position gives the move (the prover's move, or the
//! opponent's longest resistance); tablebases that cover the position give the best move
//! by the table; otherwise df-pn (`antichess-pns`) looks for a forced win of either side
//! and an alpha-beta search chooses among the moves not proved losing. See [`think`] for
//! the details and the scores it reports.
//!
//! Modules: [`protocol`] (the text of the commands), [`options`] (the UCI options),
//! [`engine`] (the state between commands and the command loop, [`run`]), [`think`] (one
//! `go`: move choice and time), [`search`] (the alpha-beta search and its evaluation),
//! [`proofs`] (loading proofs and the moves they give), [`output`] (the shared writer),
//! `error` ([`UciError`]).
//!
//! ```
//! let input = "uci\nposition startpos moves e2e3 b7b5\ngo nodes 2000\nquit\n";
//! let mut out = Vec::new();
//! # struct W(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
//! # impl std::io::Write for W {
//! #     fn write(&mut self, b: &[u8]) -> std::io::Result<usize> { self.0.lock().unwrap().extend_from_slice(b); Ok(b.len()) }
//! #     fn flush(&mut self) -> std::io::Result<()> { Ok(()) }
//! # }
//! # let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
//! antichess_uci::run(input.as_bytes(), W(shared.clone())).unwrap();
//! # out = shared.lock().unwrap().clone();
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.contains("uciok"));
//! ```

#![forbid(unsafe_code)]

pub mod engine;
mod error;
pub mod options;
pub mod output;
pub mod proofs;
pub mod protocol;
pub mod search;
pub mod think;

pub use engine::{run, run_with_options, Engine};
pub use error::UciError;
