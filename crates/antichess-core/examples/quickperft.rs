use antichess_core::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fen = args.get(1).map(String::as_str).unwrap_or(START_FEN);
    let depth: u32 = args.get(2).map(|d| d.parse().unwrap()).unwrap_or(5);
    let pos = Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
    for d in 1..=depth {
        let t = std::time::Instant::now();
        let n = perft(&pos, d);
        println!("perft {d} {n} {:?}", t.elapsed());
    }
}
