//! FEN text under every rule set: an error or a position whose FEN reads back the same,
//! whose legal moves can all be played, SAN written and read back.
#![no_main]
use antichess_core::{Position, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for rules in [Rules::INTERNATIONAL, Rules::FICS, Rules::PRITCHARD] {
        let Ok(pos) = Position::from_fen(text, rules) else {
            continue;
        };
        let again = Position::from_fen(&pos.fen(), rules).expect("a written FEN reads back");
        assert_eq!(again.fen(), pos.fen());
        let _ = pos.outcome();
        for m in pos.legal_moves() {
            let san = pos.san(m);
            assert_eq!(pos.parse_san(&san).ok(), Some(m), "{san} in {}", pos.fen());
            let _ = pos.play(m).fen();
        }
    }
});
