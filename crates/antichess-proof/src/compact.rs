//! Our compact proof format (docs/formats/proof.md): a byte-aligned header, then the tree as
//! a preorder bitstream that says only what the rules cannot derive.
//!
//! The reader knows each node's position by replaying moves, hence its legal moves in the
//! fixed order (sorted by `Move::bits`) and their number `n`. A node with `n = 0` is a
//! terminal leaf and costs no bits. Otherwise a kind code follows: `0` internal, `10`
//! internal and later referenced (a "target"), `110` reference (then an Elias-delta count
//! back through the targets), `111` tablebase leaf. An internal prover node then gives the
//! index of its move in `ceil(log2 n)` bits; an internal opponent node gives nothing (its
//! children are all its legal moves in order). The children's encodings follow.
//!
//! This module encodes a [`ProofTree`], and decodes a body as a stream for the checker
//! (`crate::check`, which enforces the proof rules; here are the format's own: the codes,
//! the header's counts and checksums, the body's length and padding). Memory is
//! O(depth + targets).

use std::io::Read;

use antichess_core::{Color, Move, MoveList, Position, Rules};
use xxhash_rust::xxh3::xxh3_64;

use crate::bits::{index_width, BitError, BitReader, BitWriter};
use crate::check::{check, At, Decoder, Item, Proof};
use crate::position_id::{check_prolog, ordered_moves, units};
use crate::stats::ProofStats;
use crate::tables::{check_record, parse_record, write_records, TableRecord, RECORD_LEN};
use crate::tree::{NodeKind, ProofCounts, ProofTree};
use crate::walk::Visitor;
use crate::ProofError;

/// The first eight bytes of a compact proof file.
pub const COMPACT_MAGIC: [u8; 8] = *b"ACPROOF\0";
/// The newest version, which this program writes when a proof records its tables;
/// version 1 (no table list) is written otherwise, and both are read.
pub const COMPACT_VERSION: u16 = 2;
/// The first version with the list of tables the proof relies on.
const TABLES_VERSION: u16 = 2;
/// Bytes of the fixed part of the header (before the root FEN).
const FIXED_HEADER: usize = 90;

/// The header of a compact proof file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactHeader {
    pub version: u16,
    pub rules: Rules,
    pub prover: Color,
    /// The root position (its FEN is stored).
    pub root: Position,
    /// Moves from the standard start position to the root (may be empty).
    pub prolog: Vec<Move>,
    pub counts: ProofCounts,
    /// Number of nodes flagged as reference targets.
    pub reference_targets: u64,
    /// Largest number of units among tablebase leaves (0 if none).
    pub tablebase_units: u32,
    /// Length of the body in bits (the last byte is zero-padded).
    pub body_bits: u64,
    /// xxh3-64 of the body bytes.
    pub body_checksum: u64,
    /// Length of the header in bytes (the body starts here).
    pub header_len: u64,
    /// The tables the tablebase leaves rely on (version 2; empty in version 1).
    pub tables: Vec<TableRecord>,
}

impl CompactHeader {
    /// Body length in bytes.
    #[must_use]
    pub fn body_len(&self) -> u64 {
        self.body_bits.div_ceil(8)
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FIXED_HEADER + 100);
        out.extend_from_slice(&COMPACT_MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.push(self.rules.code());
        out.push(self.prover as u8);
        out.extend_from_slice(&self.tablebase_units.to_le_bytes());
        let c = &self.counts;
        for value in [
            c.total,
            c.prover,
            c.opponent,
            c.terminal,
            c.tablebase,
            c.references,
            self.reference_targets,
            self.body_bits,
            self.body_checksum,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        let fen = self.root.fen();
        out.extend_from_slice(&(fen.len() as u16).to_le_bytes());
        out.extend_from_slice(fen.as_bytes());
        out.extend_from_slice(&(self.prolog.len() as u16).to_le_bytes());
        for m in &self.prolog {
            out.extend_from_slice(&m.bits().to_le_bytes());
        }
        if self.version >= TABLES_VERSION {
            write_records(&mut out, &self.tables);
        }
        let checksum = xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads and checks a header (magic, version, header checksum, field values).
    pub fn read<R: Read>(reader: &mut R) -> Result<CompactHeader, ProofError> {
        let mut bytes = vec![0u8; FIXED_HEADER];
        let got = read_up_to(reader, &mut bytes)?;
        if got < 8 || bytes[..8] != COMPACT_MAGIC {
            return Err(ProofError::BadMagic {
                found: bytes[..got.min(8)].to_vec(),
            });
        }
        if got < FIXED_HEADER {
            return Err(ProofError::corrupt(
                got as u64,
                format!("the file ends inside the header ({got} of at least {FIXED_HEADER} bytes)"),
            ));
        }
        let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
        let u64_at =
            |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let version = u16_at(&bytes, 8);
        if !(1..=COMPACT_VERSION).contains(&version) {
            return Err(ProofError::UnsupportedVersion {
                found: version,
                supported: COMPACT_VERSION,
            });
        }
        let fen_len = usize::from(u16_at(&bytes, 88));
        let mut rest = vec![0u8; fen_len + 2];
        let got = read_up_to(reader, &mut rest)?;
        if got < rest.len() {
            return Err(ProofError::corrupt(
                (FIXED_HEADER + got) as u64,
                "the file ends inside the header (root FEN)",
            ));
        }
        let prolog_len = usize::from(u16_at(&rest, fen_len));
        // The prolog, then (version 2) the table count, the tables, then the checksum.
        let has_tables = version >= TABLES_VERSION;
        let count_len = if has_tables { 2 } else { 0 };
        let mut tail = vec![0u8; 2 * prolog_len + count_len];
        let got = read_up_to(reader, &mut tail)?;
        let tail_at = (FIXED_HEADER + fen_len + 2) as u64;
        if got < tail.len() {
            return Err(ProofError::corrupt(
                tail_at + got as u64,
                "the file ends inside the header (prolog or table count)",
            ));
        }
        let table_count = if has_tables {
            usize::from(u16_at(&tail, 2 * prolog_len))
        } else {
            0
        };
        let mut table_bytes = vec![0u8; table_count * RECORD_LEN + 8];
        let got = read_up_to(reader, &mut table_bytes)?;
        let tables_at = tail_at + tail.len() as u64;
        if got < table_bytes.len() {
            return Err(ProofError::corrupt(
                tables_at + got as u64,
                "the file ends inside the header (table list or header checksum)",
            ));
        }
        bytes.extend_from_slice(&rest);
        bytes.extend_from_slice(&tail);
        bytes.extend_from_slice(&table_bytes[..table_count * RECORD_LEN]);
        let stored = u64_at(&table_bytes, table_count * RECORD_LEN);
        let computed = xxh3_64(&bytes);
        let header_len = bytes.len() as u64 + 8;
        if stored != computed {
            return Err(ProofError::corrupt(
                bytes.len() as u64,
                format!(
                    "header checksum mismatch (stored {stored:016x}, computed {computed:016x}): the header is damaged"
                ),
            ));
        }
        let rules = Rules::from_code(bytes[10])
            .ok_or_else(|| ProofError::corrupt(10, format!("unknown rules code {}", bytes[10])))?;
        let prover = match bytes[11] {
            0 => Color::White,
            1 => Color::Black,
            other => {
                return Err(ProofError::corrupt(
                    11,
                    format!("unknown prover colour {other}"),
                ))
            }
        };
        let tablebase_units = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
        let counts = ProofCounts {
            total: u64_at(&bytes, 16),
            prover: u64_at(&bytes, 24),
            opponent: u64_at(&bytes, 32),
            terminal: u64_at(&bytes, 40),
            tablebase: u64_at(&bytes, 48),
            references: u64_at(&bytes, 56),
        };
        let sum = [
            counts.prover,
            counts.opponent,
            counts.terminal,
            counts.tablebase,
            counts.references,
        ]
        .iter()
        .try_fold(0u64, |acc, &v| acc.checked_add(v));
        if sum != Some(counts.total) {
            return Err(ProofError::corrupt(
                16,
                format!(
                    "the node counts do not add up: total {} but the kinds sum to {}",
                    counts.total,
                    sum.map_or("more than 2^64".to_string(), |s| s.to_string())
                ),
            ));
        }
        let fen = std::str::from_utf8(&rest[..fen_len])
            .map_err(|_| ProofError::corrupt(FIXED_HEADER as u64, "the root FEN is not UTF-8"))?;
        let root = Position::from_fen(fen, rules).map_err(|e| {
            ProofError::corrupt(FIXED_HEADER as u64, format!("root FEN {fen:?}: {e}"))
        })?;
        let mut prolog = Vec::with_capacity(prolog_len);
        for i in 0..prolog_len {
            let bits = u16::from_le_bytes([tail[2 * i], tail[2 * i + 1]]);
            let m = Move::from_bits(bits).ok_or_else(|| {
                ProofError::corrupt(
                    tail_at + 2 * i as u64,
                    format!("invalid prolog move bits {bits:#06x}"),
                )
            })?;
            prolog.push(m);
        }
        check_prolog(&root, &prolog).map_err(|why| ProofError::corrupt(tail_at, why))?;
        let mut tables: Vec<TableRecord> = Vec::with_capacity(table_count);
        for i in 0..table_count {
            let at = i * RECORD_LEN;
            let offset = tables_at + at as u64;
            let record = parse_record(&table_bytes[at..at + RECORD_LEN])
                .map_err(|why| ProofError::corrupt(offset, why))?;
            if tables
                .last()
                .is_some_and(|last| last.material >= record.material)
            {
                return Err(ProofError::corrupt(
                    offset,
                    format!(
                        "table {} is out of order (the list is sorted by material, each once)",
                        record.material
                    ),
                ));
            }
            tables.push(record);
        }
        Ok(CompactHeader {
            version,
            rules,
            prover,
            root,
            prolog,
            counts,
            reference_targets: u64_at(&bytes, 64),
            tablebase_units,
            body_bits: u64_at(&bytes, 72),
            body_checksum: u64_at(&bytes, 80),
            header_len,
            tables,
        })
    }
}

fn read_up_to<R: Read>(reader: &mut R, buf: &mut [u8]) -> Result<usize, ProofError> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ProofError::io("reading the proof header", e)),
        }
    }
    Ok(got)
}

/// Encodes a proof in the compact format (header and body). Fails if the tree cannot be
/// represented: a move that is not legal, an opponent node without exactly its legal
/// moves in the fixed order, a leaf kind that does not match the position, a reference to
/// a node that is not internal. It does not check that the proof is correct: verify the
/// result.
pub fn encode_compact(tree: &ProofTree) -> Result<Vec<u8>, ProofError> {
    encode(tree, true)
}

/// Like [`encode_compact`], but opponent nodes are written with the children the tree
/// has, even if these are not all legal moves in the fixed order: the result is then a
/// wrong proof, for tests of the verifier.
#[doc(hidden)]
pub fn encode_compact_unchecked(tree: &ProofTree) -> Result<Vec<u8>, ProofError> {
    encode(tree, false)
}

fn encode(tree: &ProofTree, strict: bool) -> Result<Vec<u8>, ProofError> {
    let nodes = tree.nodes();
    fn bad<T>(i: usize, why: String) -> Result<T, ProofError> {
        Err(ProofError::Unsupported(format!(
            "cannot encode node {i} in the compact format: {why}"
        )))
    }
    // Structure (also checked by for_each_position below, but needed first here).
    tree.subtree_ends()?;
    let mut flagged = vec![false; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        if let NodeKind::Reference { target } = node.kind {
            let t = target as usize;
            match nodes[t].kind {
                NodeKind::Prover | NodeKind::Opponent { .. } => flagged[t] = true,
                _ => return bad(i, format!("reference to node {t}, which is not internal")),
            }
        }
    }
    let mut ordinal = vec![u64::MAX; nodes.len()];
    let mut declared = 0u64;
    let mut counts = ProofCounts::default();
    let mut tb_units = 0u32;
    let mut w = BitWriter::default();
    // Expected children of open opponent nodes: (legal moves in order, next index).
    let mut expected: Vec<Option<(MoveList, usize)>> = Vec::new();
    tree.for_each_position(|i, pos, depth| {
        let node = &nodes[i];
        expected.truncate(depth as usize);
        if strict && i > 0 {
            if let Some(Some((moves, next))) = expected.last_mut() {
                if moves.get(*next).copied() != node.mv {
                    return bad(
                        i,
                        format!(
                            "opponent children must be all legal moves in the fixed order; found {} where {} was expected",
                            node.mv.map_or("-".to_string(), |m| m.to_string()),
                            moves.get(*next).map_or("no further move".to_string(), |m| m.to_string())
                        ),
                    );
                }
                *next += 1;
            }
        }
        let moves = ordered_moves(pos);
        counts.add(&node.kind);
        if moves.is_empty() {
            return match node.kind {
                NodeKind::Terminal => Ok(()),
                kind => bad(i, format!("no legal move, but the node is {kind:?}")),
            };
        }
        match node.kind {
            NodeKind::Terminal => {
                return bad(i, format!("marked terminal but has {} legal moves", moves.len()))
            }
            NodeKind::Tablebase => {
                w.bits(0b111, 3);
                tb_units = tb_units.max(units(pos));
            }
            NodeKind::Reference { target } => {
                let t = ordinal[target as usize];
                w.bits(0b110, 3);
                w.elias_delta(declared - t);
            }
            NodeKind::Prover | NodeKind::Opponent { .. } => {
                if flagged[i] {
                    w.bits(0b10, 2);
                    ordinal[i] = declared;
                    declared += 1;
                } else {
                    w.bit(false);
                }
                if node.kind == NodeKind::Prover {
                    let child = nodes[i + 1].mv.expect("structure checked");
                    let Some(index) = moves.iter().position(|&m| m == child) else {
                        return bad(i, format!("the prover's move {child} is not legal"));
                    };
                    w.bits(index as u64, index_width(moves.len()));
                    expected.push(None);
                } else {
                    let NodeKind::Opponent { children } = node.kind else {
                        unreachable!()
                    };
                    if strict && usize::from(children) != moves.len() {
                        return bad(
                            i,
                            format!("{children} children for {} legal moves", moves.len()),
                        );
                    }
                    if children > 0 {
                        expected.push(Some((moves, 0)));
                    }
                }
            }
        }
        Ok(())
    })?;
    let body_bits = w.len_bits();
    let body = w.into_bytes();
    if tree.tables().len() > usize::from(u16::MAX) {
        return Err(ProofError::Unsupported(format!(
            "cannot encode a table list of {} tables (at most 65535)",
            tree.tables().len()
        )));
    }
    for record in tree.tables() {
        check_record(record).map_err(|why| {
            ProofError::Unsupported(format!("cannot encode the table list: {why}"))
        })?;
    }
    let header = CompactHeader {
        // Version 1 when there is no table list: such files stay readable by older
        // programs, byte for byte as before.
        version: if tree.tables().is_empty() {
            1
        } else {
            TABLES_VERSION
        },
        rules: tree.rules(),
        prover: tree.prover(),
        root: *tree.root(),
        prolog: tree.prolog().to_vec(),
        counts,
        reference_targets: declared,
        tablebase_units: tb_units,
        body_bits,
        body_checksum: xxh3_64(&body),
        header_len: 0,
        tables: tree.tables().to_vec(),
    };
    if let Err(why) = check_prolog(tree.root(), tree.prolog()) {
        return Err(ProofError::Unsupported(format!(
            "cannot encode the prolog: {why}"
        )));
    }
    let mut out = header.to_bytes();
    out.extend_from_slice(&body);
    Ok(out)
}

/// What a walk of a compact body needs besides the reader.
pub(crate) struct CompactWalk<'a> {
    pub(crate) header: &'a CompactHeader,
    pub(crate) visitor: &'a mut dyn Visitor,
    pub(crate) progress: &'a mut dyn FnMut(u64),
    pub(crate) file_bytes: Option<u64>,
}

/// Walks a compact body through the checker (`crate::check`: the proof rules), then checks
/// what only this format has: the body's length, checksum and padding, and the header's
/// counts. The reader must be positioned at the start of the body.
pub(crate) fn walk_compact<R: Read>(
    walk: CompactWalk<'_>,
    reader: R,
) -> Result<ProofStats, ProofError> {
    let header = walk.header;
    let mut decoder = CompactDecoder {
        bits: BitReader::new(reader, header.body_bits),
        body_start: header.header_len,
        declared: 0,
        next_number: 1,
    };
    let proof = Proof {
        root: header.root,
        prover: header.prover,
        prolog: &header.prolog,
        tablebase_units: Some(header.tablebase_units),
        tablebase_leaves: header.counts.tablebase,
    };
    let result = check(&proof, &mut decoder, walk.visitor, walk.progress);
    let end_bit = decoder.bits.position();
    let bits = &mut decoder.bits;
    let body_start = header.header_len;
    let drained = bits.drain();
    let present = match drained {
        Ok(n) => n,
        Err(BitError::Io(e)) => return Err(ProofError::io("reading the proof body", e)),
        Err(_) => 0,
    };
    if present < header.body_len() {
        let symptom = match &result {
            Err(e) => format!("; decoding stopped with: {e}"),
            Ok(_) => String::new(),
        };
        return Err(ProofError::corrupt(
            body_start + present,
            format!(
                "the file is truncated: the body should have {} bytes, the file has {present}{symptom}",
                header.body_len()
            ),
        ));
    }
    let computed = bits.checksum();
    if computed != header.body_checksum {
        let symptom = match &result {
            Err(e) => format!("; decoding stopped with: {e}"),
            Ok(_) => String::new(),
        };
        return Err(ProofError::corrupt(
            body_start,
            format!(
                "body checksum mismatch (stored {:016x}, computed {computed:016x}): the file is damaged{symptom}",
                header.body_checksum
            ),
        ));
    }
    let checked = result?;
    let stats_builder = checked.stats;
    if end_bit != header.body_bits {
        return Err(ProofError::corrupt(
            body_start + end_bit / 8,
            format!(
                "the tree ends at bit {end_bit} of the body, but the header gives {} bits",
                header.body_bits
            ),
        ));
    }
    if !matches!(bits.padding_is_zero(), Ok(true)) {
        return Err(ProofError::corrupt(
            body_start + header.body_len().saturating_sub(1),
            "the padding bits after the tree are not zero",
        ));
    }
    match bits.has_trailing_bytes() {
        Ok(false) => {}
        Ok(true) => {
            return Err(ProofError::corrupt(
                body_start + header.body_len(),
                "unexpected bytes after the end of the body",
            ))
        }
        Err(BitError::Io(e)) => return Err(ProofError::io("reading the proof body", e)),
        Err(_) => {}
    }
    let found = &stats_builder.counts;
    let expected = &header.counts;
    for (what, h, f) in [
        ("nodes", expected.total, found.total),
        ("prover nodes", expected.prover, found.prover),
        ("opponent nodes", expected.opponent, found.opponent),
        ("terminal leaves", expected.terminal, found.terminal),
        ("tablebase leaves", expected.tablebase, found.tablebase),
        ("references", expected.references, found.references),
        (
            "reference targets",
            header.reference_targets,
            checked.targets,
        ),
        (
            "tablebase units",
            u64::from(header.tablebase_units),
            u64::from(stats_builder.tablebase_units),
        ),
    ] {
        if h != f {
            return Err(ProofError::CountMismatch {
                what,
                header: h,
                found: f,
            });
        }
    }
    Ok(stats_builder.finish(
        "compact",
        &header.root,
        header.prover,
        checked.targets,
        &checked.root,
        walk.file_bytes,
    ))
}

/// Decodes a compact body for the checker: the kind codes, the prover's move indices and
/// the references' counts back through the targets (see the module docs).
struct CompactDecoder<R> {
    bits: BitReader<R>,
    /// Byte offset of the body in the file.
    body_start: u64,
    /// Nodes flagged as targets so far (the next target's slot).
    declared: u64,
    /// The number of the next node in preorder.
    next_number: u64,
}

/// Where a compact node stands in its children: the prover's one move (until given), or
/// the index of the opponent's next legal move.
enum CompactChildren {
    One(Option<Move>),
    All(usize),
}

impl<R: Read> CompactDecoder<R> {
    fn bit_error(&self, e: BitError, at_bit: u64, node: &At<'_>) -> ProofError {
        match e {
            BitError::Io(e) => ProofError::io("reading the proof body", e),
            BitError::EndOfBody => ProofError::corrupt(
                self.body_start + at_bit / 8,
                format!(
                    "the body ends before the tree is complete, at {}",
                    node.label()
                ),
            ),
            BitError::Truncated { bytes_read } => ProofError::corrupt(
                self.body_start + bytes_read,
                format!("the file is truncated, at {}", node.label()),
            ),
            BitError::BadCode(why) => ProofError::corrupt(
                self.body_start + at_bit / 8,
                format!("{why}, at {}", node.label()),
            ),
        }
    }
}

impl<R: Read> Decoder for CompactDecoder<R> {
    type Children = CompactChildren;

    fn node(&mut self, at: &At<'_>) -> Result<Item<CompactChildren>, ProofError> {
        let n = at.legal.len();
        if n == 0 {
            // A terminal leaf costs no bits.
            return Ok(Item::Leaf { target: None });
        }
        let start = self.bits.position();
        // The kind code: 0, 10, 110, 111.
        let mut code = 0u32;
        let mut code_len = 0;
        while code_len < 3 {
            let bit = self.bits.bit().map_err(|e| self.bit_error(e, start, at))?;
            code = code << 1 | u32::from(bit);
            code_len += 1;
            if !bit {
                break;
            }
        }
        match (code_len, code) {
            (3, 0b111) => Ok(Item::Leaf { target: None }),
            (3, 0b110) => {
                let start = self.bits.position();
                let back = self
                    .bits
                    .elias_delta()
                    .map_err(|e| self.bit_error(e, start, at))?;
                if back == 0 || back > self.declared {
                    return Err(ProofError::Rejected {
                        node: at.label(),
                        reason: format!(
                            "reference {back} targets back, but only {} nodes before it are reference targets",
                            self.declared
                        ),
                    });
                }
                Ok(Item::Reference {
                    target: (self.declared - back) as usize,
                })
            }
            (code_len, _) => {
                // Internal: code 0, or 10 for a target.
                let target = (code_len == 2).then(|| {
                    self.declared += 1;
                    (self.declared - 1) as usize
                });
                let children = if at.prover_to_move {
                    let start = self.bits.position();
                    let index = self
                        .bits
                        .bits(index_width(n))
                        .map_err(|e| self.bit_error(e, start, at))?
                        as usize;
                    if index >= n {
                        return Err(ProofError::Rejected {
                            node: at.label(),
                            reason: format!(
                                "move index {index} is out of range: the prover has {n} legal moves"
                            ),
                        });
                    }
                    CompactChildren::One(Some(at.legal[index]))
                } else {
                    CompactChildren::All(0)
                };
                Ok(Item::Internal { children, target })
            }
        }
    }

    fn expand(
        &mut self,
        target: usize,
        at: &At<'_>,
    ) -> Result<(u64, Option<CompactChildren>), ProofError> {
        // References count back through targets already flagged: never forward.
        Err(ProofError::Rejected {
            node: at.label(),
            reason: format!("refers to target {target}, which is not flagged before it"),
        })
    }

    fn next_child(
        &mut self,
        children: &mut CompactChildren,
        legal: &MoveList,
    ) -> Result<Option<(u64, Move)>, ProofError> {
        let next = match children {
            CompactChildren::One(m) => m.take(),
            CompactChildren::All(k) => {
                let m = legal.get(*k).copied();
                *k += 1;
                m
            }
        };
        Ok(next.map(|m| {
            self.next_number += 1;
            (self.next_number - 1, m)
        }))
    }
}
