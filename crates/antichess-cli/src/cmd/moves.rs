//! `antichess moves`: list the legal moves of a position, or its result if the game is over.

use std::process::ExitCode;

use clap::Args;

use crate::args::PositionArgs;

/// List the legal moves of a position in SAN and UCI, or the result if the game is over.
#[derive(Debug, Args)]
pub struct MovesArgs {
    #[command(flatten)]
    pub position: PositionArgs,
}

pub fn run(args: &MovesArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = game.position();
    println!("fen: {}", pos.fen());
    println!("rules: {}", pos.rules());
    println!("to move: {}", pos.turn());
    if let Some(outcome) = game.outcome(false) {
        let why = if !pos.has_legal_move() {
            if pos.us().is_empty() {
                format!("{} has no pieces left", pos.turn())
            } else {
                format!("{} is stalemated", pos.turn())
            }
        } else if pos.is_dead_draw() {
            "only bishops on opposite colours remain; no capture can ever happen".to_string()
        } else {
            "threefold repetition".to_string()
        };
        println!("result: {} ({why})", outcome.pgn());
        return Ok(ExitCode::SUCCESS);
    }
    let moves = pos.legal_moves();
    println!(
        "legal moves: {}{}",
        moves.len(),
        if pos.has_capture() {
            " (captures are compulsory)"
        } else {
            ""
        }
    );
    for m in &moves {
        println!("{:<8} {m}", pos.san(*m));
    }
    Ok(ExitCode::SUCCESS)
}
