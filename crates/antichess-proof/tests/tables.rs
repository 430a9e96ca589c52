//! The tables a proof relies on (compact format version 2): recorded from the oracle's
//! tables, written in the header and read back, compared by the verifier with the tables
//! it is given; files without tables stay version 1; a damaged list is rejected.

use antichess_core::{Color, Move, Position, Rules};
use antichess_proof::{
    encode_compact, read_compact, verify_compact, CompactHeader, LeafOracle, LeafValue, Node,
    NodeKind, ProofTree, TableRecord, TableStatus, TablebaseOracle, VerifyOptions,
};
use antichess_tb::{build, BuildOptions, Material, Strategy, Tablebase, Wdl};

const RULES: Rules = Rules::INTERNATIONAL;

fn tables(name: &str) -> (std::path::PathBuf, Tablebase) {
    tables_of(name, &["KPp"])
}

/// Every table of 2 units and the tables of `extra`, built in a fresh directory.
fn tables_of(name: &str, extra: &[&str]) -> (std::path::PathBuf, Tablebase) {
    let dir = std::env::temp_dir()
        .join(format!("antichess-proof-tables-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let options = BuildOptions {
        rules: RULES,
        dir: dir.clone(),
        threads: 1,
        strategy: Strategy::Auto,
    };
    // Every table of 2 units (the oracle covers complete sets), and K+P v P.
    let mut targets = Material::all_up_to(2);
    targets.extend(extra.iter().map(|m| m.parse::<Material>().unwrap()));
    build(&targets, &options, &|_| {}).unwrap();
    let tb = Tablebase::open(&dir, RULES).unwrap();
    (dir, tb)
}

/// A one-node proof: the root (rook against king) is a tablebase leaf, won by the prover
/// the tables say.
fn leaf_proof(tb: Option<&Tablebase>) -> ProofTree {
    let root = Position::from_fen("8/8/8/8/8/2k5/8/R7 w - - 0 1", RULES).unwrap();
    one_leaf_proof(root, tb)
}

/// A one-node proof of `root`, a tablebase leaf, for the side the tables say wins (White
/// without tables).
fn one_leaf_proof(root: Position, tb: Option<&Tablebase>) -> ProofTree {
    let prover = match tb.map(|tb| tb.probe_wdl(&root).unwrap().unwrap()) {
        Some(Wdl::Loss) => Color::Black,
        Some(Wdl::Draw) => panic!("the test position is a draw"),
        _ => Color::White,
    };
    ProofTree::from_parts(
        root,
        prover,
        Vec::new(),
        vec![Node {
            mv: None,
            kind: NodeKind::Tablebase,
        }],
    )
    .unwrap()
}

/// The tables of `inner`, but the table of `material` has another checksum.
struct OtherChecksum<'a> {
    inner: TablebaseOracle<'a>,
    material: &'a str,
}

impl LeafOracle for OtherChecksum<'_> {
    fn max_units(&self) -> u32 {
        self.inner.max_units()
    }
    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String> {
        self.inner.probe(pos)
    }
    fn best_move(&self, pos: &Position) -> Result<Option<Move>, String> {
        self.inner.best_move(pos)
    }
    fn table_checksum(&self, material: &str) -> Result<Option<u64>, String> {
        let sum = self.inner.table_checksum(material)?;
        Ok(if material == self.material {
            sum.map(|s| s ^ 1)
        } else {
            sum
        })
    }
}

fn verify(bytes: &[u8], oracle: &dyn LeafOracle) -> antichess_proof::ProofStats {
    verify_compact(
        bytes,
        Some(bytes.len() as u64),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap()
}

#[test]
fn recorded_tables_are_written_read_and_compared() {
    let (dir, tb) = tables("record");
    let oracle = TablebaseOracle::new(&tb);
    let mut tree = leaf_proof(Some(&tb));
    // Without a record: version 1, no list.
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    assert_eq!(header.version, 1);
    assert_eq!(verify(&bytes, &oracle).tables, None);

    tree.record_tables(&oracle).unwrap();
    let material = Material::from_board(tree.root().board()).canonical().0;
    let krk = tb.table(&material).unwrap().unwrap();
    let expected = vec![TableRecord {
        material: material.name(),
        checksum: krk.header().checksum,
    }];
    assert_eq!(tree.tables(), &expected[..]);
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    assert_eq!(header.version, 2);
    assert_eq!(header.tables, expected);
    // The header grew by the count and one 24-byte record.
    assert_eq!(
        header.header_len,
        100 + header.root.fen().len() as u64 + 2 + 24
    );
    // Read back into a tree, the record stays (so a conversion keeps it).
    assert_eq!(read_compact(&bytes[..]).unwrap().tables(), &expected[..]);

    // The same tables: "same".
    let stats = verify(&bytes, &oracle);
    let checks = stats.tables.unwrap();
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0].status, TableStatus::Same);
    assert_eq!(
        checks[0].recorded,
        format!("{:016x}", krk.header().checksum)
    );
    // Another K+R v K table: still verified (the verdict is for the tables given), but the
    // difference is reported, naming the material and both checksums.
    let name = material.name();
    let other = OtherChecksum {
        inner: TablebaseOracle::new(&tb),
        material: &name,
    };
    let checks = verify(&bytes, &other).tables.unwrap();
    assert_eq!(checks[0].status, TableStatus::Different);
    assert_eq!(
        checks[0].found.as_deref(),
        Some(format!("{:016x}", krk.header().checksum ^ 1).as_str())
    );
    let line = checks[0].describe();
    assert!(
        line.contains(&format!("table {name} differs")) && line.contains(&checks[0].recorded),
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_en_passant_leaf_records_the_tables_its_captures_reach() {
    let (dir, tb) = tables("ep");
    let oracle = TablebaseOracle::new(&tb);
    // White must take en passant: the probe reads the table after the capture (K v P,
    // stored as Kp), not the table of the position's own material (KPp).
    let pos = Position::from_fen("7k/8/8/3pP3/8/8/8/8 w - d6 0 1", RULES).unwrap();
    let read = oracle.tables_read(&pos).unwrap();
    let names: Vec<&str> = read.iter().map(|r| r.material.as_str()).collect();
    assert_eq!(names, ["Kp"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_en_passant_leaf_is_verified_with_tables_one_unit_smaller() {
    // The header counts the leaf's 3 units; the only table it needs is the 2-unit one after
    // the compulsory en-passant capture, and the file records just that one.
    let (dir, tb) = tables_of("ep-smaller", &[]);
    let oracle = TablebaseOracle::new(&tb);
    assert_eq!(oracle.max_units(), 2);
    let root = Position::from_fen("7k/8/8/3pP3/8/8/8/8 w - d6 0 1", RULES).unwrap();
    let mut tree = one_leaf_proof(root, Some(&tb));
    tree.record_tables(&oracle).unwrap();
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    assert_eq!(header.tablebase_units, 3);
    let stats = verify(&bytes, &oracle);
    assert_eq!(stats.counts.tablebase, 1);
    let checks = stats.tables.unwrap();
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0].status, TableStatus::Same);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_table_list_is_rejected() {
    let mut tree = leaf_proof(None);
    tree.set_tables(vec![
        TableRecord {
            material: "KRk".into(),
            checksum: 1,
        },
        TableRecord {
            material: "KQk".into(),
            checksum: 2,
        },
    ]);
    // Sorted by material on the way in.
    assert_eq!(tree.tables()[0].material, "KQk");
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    let list = header.header_len as usize - 8 - 2 * 24;
    // Swapped records (out of order), header checksum recomputed.
    let mut swapped = bytes.clone();
    swapped[list..list + 48]
        .copy_from_slice(&[&bytes[list + 24..list + 48], &bytes[list..list + 24]].concat());
    fix_header_checksum(&mut swapped, header.header_len as usize);
    let err = CompactHeader::read(&mut &swapped[..]).unwrap_err();
    assert!(
        err.is_rejection() && err.to_string().contains("out of order"),
        "{err}"
    );
    // A name that is not a canonical material.
    let mut bad = bytes.clone();
    bad[list..list + 3].copy_from_slice(b"kQK");
    fix_header_checksum(&mut bad, header.header_len as usize);
    let err = CompactHeader::read(&mut &bad[..]).unwrap_err();
    assert!(
        err.is_rejection() && err.to_string().contains("table record"),
        "{err}"
    );
    // Truncated inside the list.
    let err = CompactHeader::read(&mut &bytes[..list + 10]).unwrap_err();
    assert!(err.to_string().contains("table list"), "{err}");
    // A record that is not canonical cannot be written.
    tree.set_tables(vec![TableRecord {
        material: "Kkr".into(),
        checksum: 3,
    }]);
    assert!(encode_compact(&tree).is_err());
}

fn fix_header_checksum(bytes: &mut [u8], header_len: usize) {
    let end = header_len - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..header_len].copy_from_slice(&sum.to_le_bytes());
}
