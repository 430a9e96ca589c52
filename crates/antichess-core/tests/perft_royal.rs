//! Perft of the royal-king rule sets (`pritchard3`, `pritchard4`) against the counts in
//! tests/data/royal.perft, which python-chess's orthodox board computed independently under
//! the same rules (tests/oracle/python_chess_royal.py). Depth 6 from the start position
//! (46 million leaves, about 8 s in the test profile) runs under `pritchard3`; every other
//! count runs under both rule sets, with `perft_full` (every leaf played) where small.

use antichess_core::{divide, perft, perft_full, Position, Rules};

/// (id, FEN, (depth, leaves) pairs).
type Entry = (String, String, Vec<(u32, u64)>);

fn suite() -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for line in include_str!("data/royal.perft").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap();
        match key {
            "id" => entries.push((value.to_string(), String::new(), vec![])),
            "epd" => entries.last_mut().unwrap().1 = value.to_string(),
            "perft" => {
                let (d, n) = value.split_once(' ').unwrap();
                let entry = entries.last_mut().unwrap();
                entry.2.push((d.parse().unwrap(), n.parse().unwrap()));
            }
            _ => panic!("unknown key {key}"),
        }
    }
    entries
}

#[test]
fn royal_perft_suite() {
    let mut checked = 0;
    for (id, fen, counts) in suite() {
        for rules in [Rules::PRITCHARD3, Rules::PRITCHARD4] {
            let pos = Position::from_fen(&fen, rules).unwrap_or_else(|e| panic!("{id}: {e}"));
            for &(depth, nodes) in &counts {
                if nodes > 10_000_000 && rules == Rules::PRITCHARD4 {
                    continue;
                }
                assert_eq!(perft(&pos, depth), nodes, "{id} {rules} depth {depth}");
                if nodes < 200_000 {
                    assert_eq!(perft_full(&pos, depth), nodes, "{id} {rules} depth {depth}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 47, "{checked}");
}

#[test]
fn royal_divide_sums_to_perft() {
    let pos = Position::start(Rules::PRITCHARD4);
    let parts = divide(&pos, 4);
    assert_eq!(parts.len(), 20);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 152_955);
}
