//! The generation-only layouts against the file's index: the same files from each.

use super::*;
use crate::{build, dependencies, BuildOptions};

/// The fast layout, the set layout and the file's index give the same file, with each
/// strategy and for a bound table.
#[test]
fn the_fast_layout_writes_the_files_of_the_file_index() {
    let rules = Rules::INTERNATIONAL;
    let dir = antichess_testkit::temp_dir("fast-layout");
    // Pawnless; a lone pawn leading; a pawn's field first.
    for name in ["KBkn", "NPk", "Pkp"] {
        fast_and_file_agree(name, rules, &dir, &[Layout::Fast, Layout::Sets]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The set layout (repeated pieces) and the file's index give the same file, with each
/// strategy and for a bound table.
#[test]
fn the_set_layout_writes_the_files_of_the_file_index() {
    let rules = Rules::INTERNATIONAL;
    let dir = antichess_testkit::temp_dir("set-layout");
    // A triple; a pawn pair beside a lead pawn of the other colour; lead pawns and a pawn
    // pair of the other colour (positions the mirror fixes); a pair of pieces after a pawn
    // lead. (Pairs beside a lone lead and a pair leading, KKkb and KKkk among them, are in
    // tests/identical.rs.) The default layout of these is the set layout.
    for name in ["KKKk", "PPp", "PPpp", "KKp"] {
        fast_and_file_agree(name, rules, &dir, &[Layout::Sets]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Generates `name` in each of `layouts` and in the file's index and compares the files
/// and the counts.
fn fast_and_file_agree(name: &str, rules: Rules, dir: &std::path::Path, layouts: &[Layout]) {
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
    assert!(FastSetIndex::new(&target).is_some(), "{name}");
    for (kind, strategy, threads) in [
        (TableKind::Exact, Strategy::Backward, 1),
        (TableKind::Exact, Strategy::Forward, 2),
        (TableKind::Bound(Color::Black), Strategy::Auto, 2),
    ] {
        let table = |layout| {
            let (table, stats) = generate_layout(
                &target,
                rules,
                kind,
                &children,
                threads,
                strategy,
                &|_| {},
                layout,
            )
            .unwrap();
            (table.to_bytes().unwrap(), format!("{stats:?}"))
        };
        let file = table(Layout::File);
        for &layout in layouts {
            assert!(
                table(layout) == file,
                "{name} {kind:?} {strategy:?} {layout:?}"
            );
        }
    }
}
