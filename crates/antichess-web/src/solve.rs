//! Solving a position on request (`GET /api/solve`): a df-pn search of the explorer's
//! position with a time budget, for positions that no table, proof or book covers. The
//! answer has the search's result and numbers (the root's and every move's, as `antichess
//! solve` prints them), its main line and, when it proved the win, the size of the proof
//! it extracted and the independent verifier's verdict on that proof (checked in memory).
//!
//! Searches are CPU work on the blocking threads, bounded twice: each by the server's
//! `solve_limit` (a request may ask for less), and all together by `solve_slots` searches
//! at once; a request that finds every slot taken is refused at once (429) rather than
//! queued, so that a busy server says so instead of answering late.

use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{pgn, Color, Position};
use antichess_pns::{extract_proof, SearchOptions, SearchStatus, Solver};
use antichess_proof::{encode_compact, verify_compact, LeafOracle, TablebaseOracle, VerifyOptions};
use antichess_tb::Tablebase;
use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::books::number;
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
                    "prover {other:?}: expected white or black"
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

/// Searches the line's position as asked and describes the result.
pub fn solve(
    line: &Line,
    request: &SolveRequest,
    tablebase: Option<&Arc<Tablebase>>,
    tables_units: u32,
) -> ApiResult<Value> {
    let pos = line.position();
    let tablebase = tablebase.map(Arc::as_ref);
    let solver = Solver::try_new(HASH_BYTES, tablebase).map_err(ApiError::internal)?;
    let mut options = SearchOptions::new(request.prover);
    options.max_time = Some(request.time);
    options.tablebase_units = tables_units;
    let start = Instant::now();
    let result = solver.search(pos, &options, &mut |_| {});
    let seconds = start.elapsed().as_secs_f64();
    let main_line = solver.main_line(pos, request.prover, MAIN_LINE_PLIES);
    let moves: Vec<Value> = result
        .moves
        .iter()
        .map(|m| {
            json!({
                "uci": m.mv.to_uci(),
                "san": pos.san(m.mv),
                "proof": number(m.proof),
                "disproof": number(m.disproof),
            })
        })
        .collect();
    let proof = if result.status == SearchStatus::Proved {
        Some(checked_proof(&solver, pos, &options, tablebase)?)
    } else {
        None
    };
    Ok(json!({
        "fen": pos.fen(),
        "prover": request.prover.name(),
        "result": result.status.name(),
        "proof": number(result.proof),
        "disproof": number(result.disproof),
        "nodes": result.nodes,
        "seconds": seconds,
        "time_limit": request.time.as_secs_f64(),
        "moves": moves,
        "main_line": pgn::format_moves(pos, &main_line),
        "main_line_uci": main_line.iter().map(|m| m.to_uci()).collect::<Vec<_>>(),
        "proof_tree": proof,
    }))
}

/// The proof of a proved search, extracted, encoded and verified in memory.
fn checked_proof(
    solver: &Solver<'_>,
    pos: &Position,
    options: &SearchOptions,
    tablebase: Option<&Tablebase>,
) -> ApiResult<Value> {
    let (tree, _) = extract_proof(solver, pos, &[], options)
        .map_err(|e| ApiError::internal(format!("extracting the proof: {e}")))?;
    let bytes = encode_compact(&tree)
        .map_err(|e| ApiError::internal(format!("encoding the proof: {e}")))?;
    let oracle: &dyn LeafOracle = &tablebase.map(TablebaseOracle::new);
    let verdict = verify_compact(
        bytes.as_slice(),
        Some(bytes.len() as u64),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    );
    Ok(json!({
        "nodes": tree.len(),
        "bytes": bytes.len(),
        "verified": verdict.is_ok(),
        "error": verdict.err().map(|e| e.to_string()),
    }))
}
