//! The fast layout against the file's index: the same files from both.

use super::*;
use crate::{build, dependencies, BuildOptions};

/// The fast layout and the file's index give the same file, with each strategy and for
/// a bound table.
#[test]
fn the_fast_layout_writes_the_files_of_the_file_index() {
    let rules = Rules::INTERNATIONAL;
    let dir = antichess_testkit::temp_dir("fast-layout");
    // Pawnless; a lone pawn leading; a pawn's field first.
    for name in ["KBkn", "NPk", "Pkp"] {
        fast_and_file_agree(name, rules, &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn fast_and_file_agree(name: &str, rules: Rules, dir: &std::path::Path) {
    let target = name.parse::<Material>().unwrap().canonical().0;
    let needed: Vec<Material> = dependencies(&[target], rules)
        .into_iter()
        .filter(|m| *m != target)
        .collect();
    let options = BuildOptions {
        rules,
        dir: dir.to_path_buf(),
        threads: 2,
        strategy: Strategy::Auto,
    };
    build(&needed, &options, &|_| {}).unwrap();
    let children = Tablebase::open(dir, rules).unwrap();
    assert!(FastIndex::new(&target).is_some(), "{name}");
    for (kind, strategy, threads) in [
        (TableKind::Exact, Strategy::Backward, 1),
        (TableKind::Exact, Strategy::Forward, 2),
        (TableKind::Bound(Color::Black), Strategy::Auto, 2),
    ] {
        let [fast, file] = [true, false].map(|fast| {
            let (table, stats) = generate_layout(
                &target,
                rules,
                kind,
                &children,
                threads,
                strategy,
                &|_| {},
                fast,
            )
            .unwrap();
            (table.to_bytes().unwrap(), format!("{stats:?}"))
        });
        assert!(fast == file, "{name} {kind:?} {strategy:?}");
    }
}
