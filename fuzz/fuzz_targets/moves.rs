//! Move lists (SAN, UCI, PGN with comments, variations, NAGs): an error or a game.
#![no_main]
use antichess_core::{play_move_text, Position, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(game) = play_move_text(Position::start(Rules::INTERNATIONAL), text) {
        let _ = game.position().fen();
    }
});
