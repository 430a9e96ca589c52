//! Prints shakmaty's perft counts for positions given as FEN arguments (an independent
//! implementation, used to produce entries of tests/data/antichess.perft).
//! Usage: cargo run --release --example shakmaty_perft -- DEPTH FEN...
use shakmaty::fen::Fen;
use shakmaty::variant::Antichess;
use shakmaty::CastlingMode;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().expect("depth").parse().expect("depth");
    for fen in args {
        let pos: Antichess = Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        println!("epd {fen}");
        for d in 1..=depth {
            println!("perft {d} {}", shakmaty::perft(&pos, d));
        }
    }
}
