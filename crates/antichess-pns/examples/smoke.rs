use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_pns::{SearchOptions, Solver};
use antichess_tb::Tablebase;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let moves = args.get(1).cloned().unwrap_or_else(|| "e3 b5".into());
    let tables = args.get(2).cloned();
    let tb =
        tables.map(|d| Tablebase::open(std::path::Path::new(&d), Rules::INTERNATIONAL).unwrap());
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), &moves).unwrap();
    let pos = *game.position();
    let mut options = SearchOptions::new(Color::White);
    options.max_nodes = Some(200_000_000);
    options.tablebase_units = tb.as_ref().map_or(0, |t| t.complete_units());
    let solver = Solver::new(1 << 30, tb.as_ref());
    let r = solver.search(&pos, &options, &mut |p| eprintln!("{p:?}"));
    println!(
        "{moves}: {:?} pn {} dn {} nodes {} exp {} {:.2}s {:.0} nodes/s",
        r.status,
        r.proof,
        r.disproof,
        r.nodes,
        r.expansions,
        r.elapsed.as_secs_f64(),
        r.nodes as f64 / r.elapsed.as_secs_f64()
    );
    let line = solver.main_line(&pos, Color::White, 20);
    println!("line: {}", antichess_core::pgn::format_moves(&pos, &line));
}
