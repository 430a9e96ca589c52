//! `antichess moves`: list the legal moves of a position, or its result if the game is over.

use std::process::ExitCode;

use clap::Args;
use serde_json::json;

use crate::common::args::PositionArgs;
use crate::common::output::Format;

/// List the legal moves of a position in SAN and UCI, or the result if the game is over.
///
/// In JSON: `fen`, `rules`, `turn`, `outcome` (`null`, or `result` in PGN notation and
/// `reason`), `captures_compulsory`, `check` (the side to move is in check: royal-king rule
/// sets only), and `moves` (`uci`, `san`).
#[derive(Debug, Args)]
pub struct MovesArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &MovesArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = game.position();
    let outcome = game.outcome(false).map(|outcome| {
        let why = if !pos.has_legal_move() {
            if pos.us().is_empty() {
                format!("{} has no pieces left", pos.turn())
            } else if pos.rules().is_royal() && pos.has_bare_king() {
                format!("{} has a bare king", pos.turn())
            } else if pos.is_check() {
                format!("{} is checkmated", pos.turn())
            } else {
                format!("{} is stalemated", pos.turn())
            }
        } else if pos.is_dead_draw() {
            "only bishops on opposite colours remain; no capture can ever happen".to_string()
        } else {
            "threefold repetition".to_string()
        };
        (outcome, why)
    });
    let moves = if outcome.is_some() {
        Vec::new()
    } else {
        pos.legal_moves().to_vec()
    };
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "fen": pos.fen(),
                "rules": pos.rules().to_string(),
                "turn": pos.turn().name(),
                "outcome": outcome.as_ref().map(|(o, why)| json!({ "result": o.pgn(), "reason": why })),
                "captures_compulsory": outcome.is_none() && pos.has_capture(),
                "check": pos.is_check(),
                "moves": moves.iter().map(|m| json!({ "uci": m.to_string(), "san": pos.san(*m) })).collect::<Vec<_>>(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("fen: {}", pos.fen());
    println!("rules: {}", pos.rules());
    println!("to move: {}", pos.turn());
    if let Some((outcome, why)) = outcome {
        println!("result: {} ({why})", outcome.pgn());
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "legal moves: {}{}",
        moves.len(),
        if pos.has_capture() {
            " (captures are compulsory)"
        } else if pos.is_check() {
            " (in check)"
        } else {
            ""
        }
    );
    for m in &moves {
        println!("{:<8} {m}", pos.san(*m));
    }
    Ok(ExitCode::SUCCESS)
}
