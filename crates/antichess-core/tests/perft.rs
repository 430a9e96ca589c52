//! Runs the perft suite in tests/data/antichess.perft (bulk counting and, at small depths,
//! full make-move), and checks `divide` sums to the total.

use antichess_core::{divide, perft, perft_full, Position, Rules};

struct Entry {
    id: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn parse_suite(text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("line {}: {line}", n + 1));
        match key {
            "id" => entries.push(Entry {
                id: value.to_string(),
                fen: String::new(),
                counts: vec![],
            }),
            "epd" => entries.last_mut().unwrap().fen = value.to_string(),
            "perft" => {
                let (depth, nodes) = value.split_once(' ').unwrap();
                entries
                    .last_mut()
                    .unwrap()
                    .counts
                    .push((depth.parse().unwrap(), nodes.parse().unwrap()));
            }
            _ => panic!("line {}: unknown key {key}", n + 1),
        }
    }
    entries
}

#[test]
fn perft_suite() {
    let suite = parse_suite(include_str!("data/antichess.perft"));
    assert!(suite.len() >= 12);
    let mut checked = 0;
    for entry in &suite {
        let pos = Position::from_fen(&entry.fen, Rules::INTERNATIONAL)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.id));
        for &(depth, nodes) in &entry.counts {
            assert_eq!(perft(&pos, depth), nodes, "{} depth {depth}", entry.id);
            if nodes < 200_000 {
                assert_eq!(
                    perft_full(&pos, depth),
                    nodes,
                    "{} depth {depth} (full)",
                    entry.id
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 60);
}

#[test]
fn divide_sums_to_perft() {
    let pos = Position::start(Rules::INTERNATIONAL);
    let parts = divide(&pos, 4);
    assert_eq!(parts.len(), 20);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 153_299);
}

#[test]
fn queen_only_promotion_changes_counts() {
    // Under Pritchard's rules a promotion is one move, not five.
    let fen = "8/PPP5/8/8/8/8/5ppp/8 w - - 0 1";
    let any = Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
    let queen = Position::from_fen(fen, Rules::PRITCHARD).unwrap();
    assert_eq!(perft(&any, 1), 15);
    assert_eq!(perft(&queen, 1), 3);
    assert_eq!(perft(&queen, 2), 9);
}
