//! Solving a position on request (`GET /api/solve`): a df-pn search of the explorer's
//! position with a time budget, for positions that no table, proof or book covers, through
//! the prove pipeline of `antichess-pns`. The answer is its `SolveReport`, the same JSON as
//! `antichess solve --format json`: the search's result and numbers (the root's and every
//! move's), its main line and, when it proved the win, the size of the proof it extracted
//! and the independent verifier's verdict on that proof (checked in memory).
//!
//! Searches are CPU work on the blocking threads, bounded twice: each by the server's
//! `solve_limit` (a request may ask for less), and all together by `solve_slots` searches
//! at once; a request that finds every slot taken is refused at once (429) rather than
//! queued, so that a busy server says so instead of answering late.

use std::sync::Arc;
use std::time::Duration;

use antichess_core::{Color, Position};
use antichess_pns::{
    prove_position, ProofOutput, ProveOptions, SearchOptions, SolveReport, Solver,
};
use antichess_tb::Tablebase;
use axum::http::StatusCode;
use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::line::Line;

/// The table of one search: it starts small and doubles as it fills, up to this.
const HASH_BYTES: usize = 256 << 20;

/// Longest main line reported, in plies.
const MAIN_LINE_PLIES: usize = 40;

/// What a request asks for, checked.
#[derive(Debug, Clone)]
pub struct SolveRequest {
    pub prover: Color,
    pub time: Duration,
}

impl SolveRequest {
    /// The prover (`white`, `black`; default the side to move) and the time (seconds,
    /// default and at most `limit`).
    pub fn parse(
        pos: &Position,
        prover: Option<&str>,
        seconds: Option<f64>,
        limit: Duration,
    ) -> ApiResult<SolveRequest> {
        if limit.is_zero() {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "solving is turned off on this server (start it with --solve-limit T)",
            ));
        }
        let prover = match prover.map(str::trim).filter(|p| !p.is_empty()) {
            None => pos.turn(),
            Some("white") => Color::White,
            Some("black") => Color::Black,
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "prover \"{other}\": expected white or black"
                )))
            }
        };
        let time = match seconds {
            None => limit,
            Some(s) if s.is_finite() && s > 0.0 => {
                Duration::from_secs_f64(s.min(limit.as_secs_f64()))
            }
            Some(s) => {
                return Err(ApiError::bad_request(format!(
                    "time {s}: expected a number of seconds above 0 (at most {})",
                    limit.as_secs_f64()
                )))
            }
        };
        Ok(SolveRequest { prover, time })
    }
}

/// Searches the line's position as asked and describes the result: the prove pipeline of
/// `antichess-pns` with the proof kept in memory and verified there, answered with its
/// [`SolveReport`] (the JSON of `antichess solve --format json`).
pub fn solve(
    line: &Line,
    request: &SolveRequest,
    tablebase: Option<&Arc<Tablebase>>,
    tables_units: u32,
) -> ApiResult<Value> {
    let pos = line.position();
    let tablebase = tablebase.map(Arc::as_ref);
    let solver =
        Solver::try_new(HASH_BYTES, tablebase).map_err(|e| ApiError::internal(e.to_string()))?;
    let mut search = SearchOptions::new(request.prover);
    search.max_time = Some(request.time);
    search.tablebase_units = tables_units;
    let mut options = ProveOptions::new(search);
    options.output = ProofOutput::Memory { verify: true };
    options.main_line_plies = MAIN_LINE_PLIES;
    let solved = prove_position(&solver, pos, &options, &mut |_| {})
        .map_err(|e| ApiError::internal(format!("extracting the proof: {e}")))?;
    serde_json::to_value(SolveReport::new(&solved, Some(request.time)))
        .map_err(|e| ApiError::internal(format!("describing the result: {e}")))
}
