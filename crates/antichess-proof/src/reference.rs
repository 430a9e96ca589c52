//! The 6-byte-per-node format of the reference solution (the published proofs of 1. e3,
//! 2016): reading, writing, conversion to and from [`ProofTree`], and the decoder through
//! which the checker (`crate::check`) verifies a file in place.
//! docs/formats/proof.md describes the layout; in short:
//!
//! * node 0 is a header: its 32-bit word holds the node count (the header included) with
//!   bit 30 set, its 16-bit move field the number of "prolog" moves, which follow as
//!   16-bit moves (from the standard start position to the proof's root);
//! * nodes 1.. follow, 6 bytes each: a 32-bit word (bits 31–30: `00` no child, `01` the
//!   first child is the next node, `10` transposition, `11` transposition whose next
//!   sibling is the next node; bits 29–0: the next sibling's index, 0 = none, or the
//!   transposition's target) and a 16-bit move (our `Move` bits);
//! * optionally, 8-byte records (node index, subtree size) follow the nodes: size hints
//!   written by the published solver's tools, ignored here.
//!
//! Every node stands for the position after its move. A node's children are its first
//! child and that child's sibling chain. A transposition node's subtree is its target's
//! (following chains of transpositions). A node without children is a leaf: a terminal
//! position if there is no legal move, else a tablebase leaf. Byte order is little-endian;
//! a file whose header only makes sense big-endian is read big-endian. The index
//! 0x3fffffff is reserved: with kind `01` it means "no child, the next sibling is the next
//! node"; with kind `00` it is an error (no sibling is 0).

use std::collections::HashMap;

use antichess_core::{Color, Move, MoveList, Position, Rules};

use crate::build::{build_with, Expander, Step};
use crate::check::{check, At, Decoder, Item, Proof};
use crate::read_at::ReadAt;
use crate::stats::ProofStats;
use crate::tree::{NodeKind, ProofTree};
use crate::walk::Visitor;
use crate::ProofError;

/// Byte order of the 16- and 32-bit fields of a reference-format file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ByteOrder {
    #[default]
    Little,
    Big,
}

/// What a reference-format file does not say: its rules and the side it proves to win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceOptions {
    pub rules: Rules,
    pub prover: Color,
    /// `None`: detect (little-endian unless only big-endian fits the file length).
    pub byte_order: Option<ByteOrder>,
    /// The position the prolog starts from, if not the standard start position (an
    /// extension: the format itself has no place for it, so endgame proofs written in this
    /// format need it to be read back).
    pub start_fen: Option<String>,
}

impl Default for ReferenceOptions {
    fn default() -> ReferenceOptions {
        ReferenceOptions {
            rules: Rules::INTERNATIONAL,
            prover: Color::White,
            byte_order: None,
            start_fen: None,
        }
    }
}

/// The largest node count the 30-bit indices allow (0x3fffffff is reserved).
pub const REFERENCE_MAX_NODES: u64 = 0x3fff_fffe;
const LOW: u32 = 0x3fff_ffff;

#[derive(Debug, Clone, Copy)]
struct RawNode {
    data: u32,
    mv: u16,
}

#[derive(Debug, Clone, Copy, Default)]
struct Links {
    child: Option<u32>,
    sibling: Option<u32>,
    transposition: Option<u32>,
}

/// The longest prolog a header node of a real proof may announce (moves from the start
/// position to the proof's root); a longer one marks a file that is not a proof.
const PLAUSIBLE_PROLOG: u64 = 1024;

/// An open reference-format file.
#[derive(Debug)]
pub struct ReferenceFile<S> {
    source: S,
    byte_order: ByteOrder,
    size: u32,
    prolog: Vec<Move>,
    nodes_at: u64,
    trailer_records: u64,
}

impl<S: ReadAt> ReferenceFile<S> {
    /// Opens a file: reads the header node and the prolog and checks the length.
    pub fn open(
        mut source: S,
        byte_order: Option<ByteOrder>,
    ) -> Result<ReferenceFile<S>, ProofError> {
        let len = source.size();
        if len < 6 {
            // Shorter than a header node: no proof in either format is this short.
            return Err(ProofError::NotAProof {
                detail: if len == 0 {
                    "the file is empty".to_string()
                } else {
                    format!("{len} bytes, shorter than any proof")
                },
            });
        }
        let mut head = [0u8; 6];
        source
            .read_exact_at(&mut head, 0)
            .map_err(|e| ProofError::io("reading the header node", e))?;
        let describe = |order: ByteOrder| {
            let raw = decode_raw(&head, order);
            let size = u64::from(raw.data & LOW);
            let prolog = u64::from(raw.mv);
            let expected = 6 + 2 * prolog + 6 * size.saturating_sub(1);
            // The shape of a header node: the header's flag bits, at least one node, and a
            // prolog of a game's length (a text or other file rarely has all three).
            let flagged = raw.data >> 30 == 1 && size >= 1;
            let shaped = flagged && prolog <= PLAUSIBLE_PROLOG;
            let fits = flagged && expected <= len && (len - expected) % 8 == 0;
            (fits, size, prolog, expected, shaped)
        };
        let order = match byte_order {
            Some(order) => {
                let (fits, size, prolog, expected, _) = describe(order);
                if !fits {
                    return Err(ProofError::corrupt(
                        0,
                        format!(
                            "the header node ({order:?}-endian) says {size} nodes and {prolog} prolog moves, so the file should have {expected} bytes (plus any 8-byte size records), but it has {len}"
                        ),
                    ));
                }
                order
            }
            None => match (describe(ByteOrder::Little), describe(ByteOrder::Big)) {
                ((true, ..), _) => ByteOrder::Little,
                (_, (true, ..)) => ByteOrder::Big,
                // A header node's shape in neither byte order, and no compact magic either
                // (the format was detected as reference): some other file given by mistake.
                ((.., false), (.., false)) => {
                    return Err(ProofError::NotAProof {
                        detail: format!(
                            "{len} bytes: neither the compact format's magic bytes nor a reference-format header node"
                        ),
                    })
                }
                // A header node whose counts do not fit the length: a damaged or cut-short
                // reference-format proof.
                ((_, size, prolog, expected, _), (_, bsize, bprolog, bexpected, _)) => {
                    return Err(ProofError::corrupt(
                        0,
                        format!(
                            "the header node does not match the file length {len}: read little-endian it says {size} nodes and {prolog} prolog moves ({expected} bytes), read big-endian {bsize} nodes and {bprolog} prolog moves ({bexpected} bytes)"
                        ),
                    ))
                }
            },
        };
        let raw = decode_raw(&head, order);
        let size = raw.data & LOW;
        let prolog_len = usize::from(raw.mv);
        let mut prolog_bytes = vec![0u8; 2 * prolog_len];
        source
            .read_exact_at(&mut prolog_bytes, 6)
            .map_err(|e| ProofError::io("reading the prolog", e))?;
        let mut prolog = Vec::with_capacity(prolog_len);
        for i in 0..prolog_len {
            let pair = [prolog_bytes[2 * i], prolog_bytes[2 * i + 1]];
            let bits = match order {
                ByteOrder::Little => u16::from_le_bytes(pair),
                ByteOrder::Big => u16::from_be_bytes(pair),
            };
            let m = Move::from_bits(bits).ok_or_else(|| {
                ProofError::corrupt(
                    6 + 2 * i as u64,
                    format!("invalid prolog move bits {bits:#06x}"),
                )
            })?;
            prolog.push(m);
        }
        let nodes_at = 6 + 2 * prolog_len as u64;
        let nodes_end = nodes_at + 6 * (u64::from(size) - 1);
        Ok(ReferenceFile {
            source,
            byte_order: order,
            size,
            prolog,
            nodes_at,
            trailer_records: (len - nodes_end) / 8,
        })
    }

    /// Number of nodes, the header node included.
    #[must_use]
    pub fn node_count(&self) -> u64 {
        u64::from(self.size)
    }

    /// Moves from the standard start position to the proof's root.
    #[must_use]
    pub fn prolog(&self) -> &[Move] {
        &self.prolog
    }

    /// The byte order in use.
    #[must_use]
    pub fn byte_order(&self) -> ByteOrder {
        self.byte_order
    }

    /// Number of 8-byte subtree-size records after the nodes (ignored).
    #[must_use]
    pub fn trailer_records(&self) -> u64 {
        self.trailer_records
    }

    /// The root position: the start position (or `options.start_fen`) after the prolog.
    pub fn root(&self, options: &ReferenceOptions) -> Result<Position, ProofError> {
        let mut pos = match &options.start_fen {
            None => Position::start(options.rules),
            Some(fen) => Position::from_fen(fen, options.rules).map_err(|e| {
                ProofError::Unsupported(format!("the start FEN {fen:?} is not valid: {e}"))
            })?,
        };
        for (i, &m) in self.prolog.iter().enumerate() {
            if !pos.is_legal(m) {
                return Err(ProofError::corrupt(
                    6 + 2 * i as u64,
                    format!("prolog move {} ({m}) is not legal in {}", i + 1, pos.fen()),
                ));
            }
            pos.play_mut(m);
        }
        Ok(pos)
    }

    fn offset(&self, index: u32) -> u64 {
        if index == 0 {
            0
        } else {
            self.nodes_at + 6 * (u64::from(index) - 1)
        }
    }

    fn raw(&mut self, index: u32) -> Result<RawNode, ProofError> {
        if index >= self.size {
            return Err(ProofError::corrupt(
                0,
                format!("node index {index} is out of range ({} nodes)", self.size),
            ));
        }
        let mut buf = [0u8; 6];
        let at = self.offset(index);
        self.source
            .read_exact_at(&mut buf, at)
            .map_err(|e| ProofError::io(format!("reading node {index} at byte offset {at}"), e))?;
        Ok(decode_raw(&buf, self.byte_order))
    }

    fn links(&mut self, index: u32) -> Result<(Links, RawNode), ProofError> {
        let raw = self.raw(index)?;
        let at = self.offset(index);
        if index == 0 {
            let child = (self.size > 1).then_some(1);
            return Ok((
                Links {
                    child,
                    ..Links::default()
                },
                raw,
            ));
        }
        let low = raw.data & LOW;
        let next = index + 1;
        let corrupt = |why: String| ProofError::corrupt(at, format!("node {index}: {why}"));
        let none_if_zero = |v: u32| (v != 0).then_some(v);
        let links = match raw.data >> 30 {
            0b00 if low == LOW => return Err(corrupt(
                "kind 00 with index 0x3fffffff, which only kind 01 may have (\"no sibling\" is 0)"
                    .into(),
            )),
            0b00 => Links {
                sibling: none_if_zero(low),
                ..Links::default()
            },
            0b01 if low == LOW => Links {
                sibling: Some(next),
                ..Links::default()
            },
            0b01 => Links {
                child: Some(next),
                sibling: none_if_zero(low),
                transposition: None,
            },
            0b10 => Links {
                transposition: Some(low),
                ..Links::default()
            },
            _ => Links {
                transposition: Some(low),
                sibling: Some(next),
                child: None,
            },
        };
        if let Some(c) = links.child {
            if c >= self.size {
                return Err(corrupt(format!(
                    "its first child would be node {c}, past the last node"
                )));
            }
        }
        if let Some(s) = links.sibling {
            if s >= self.size || s <= index {
                return Err(corrupt(format!(
                    "its next sibling is node {s}, which is not a later node of the file ({} nodes)",
                    self.size
                )));
            }
        }
        if let Some(t) = links.transposition {
            if t == 0 || t >= self.size || t == index {
                return Err(corrupt(format!(
                    "transposition to node {t}, not another node of the file"
                )));
            }
        }
        Ok((links, raw))
    }

    fn node_move(&self, index: u32, raw: RawNode) -> Result<Move, ProofError> {
        Move::from_bits(raw.mv).ok_or_else(|| {
            ProofError::corrupt(
                self.offset(index) + 4,
                format!("node {index}: invalid move bits {:#06x}", raw.mv),
            )
        })
    }

    /// Follows transpositions from `index` to the node whose children give the subtree.
    fn resolve(&mut self, index: u32) -> Result<u32, ProofError> {
        let mut at = index;
        for _ in 0..64 {
            match self.links(at)?.0.transposition {
                Some(t) => at = t,
                None => return Ok(at),
            }
        }
        Err(ProofError::corrupt(
            self.offset(index),
            format!("node {index}: a chain of more than 64 transpositions (a cycle?)"),
        ))
    }

    /// The children of node `index` (not following transpositions), as (index, move).
    fn children(&mut self, index: u32) -> Result<Vec<(u32, Move)>, ProofError> {
        let mut out = Vec::new();
        let mut next = self.links(index)?.0.child;
        while let Some(c) = next {
            let (links, raw) = self.links(c)?;
            out.push((c, self.node_move(c, raw)?));
            next = links.sibling;
            if out.len() > 256 {
                return Err(ProofError::corrupt(
                    self.offset(index),
                    format!("node {index} has more than 256 children"),
                ));
            }
        }
        Ok(out)
    }
}

fn decode_raw(bytes: &[u8; 6], order: ByteOrder) -> RawNode {
    let word = [bytes[0], bytes[1], bytes[2], bytes[3]];
    let mv = [bytes[4], bytes[5]];
    match order {
        ByteOrder::Little => RawNode {
            data: u32::from_le_bytes(word),
            mv: u16::from_le_bytes(mv),
        },
        ByteOrder::Big => RawNode {
            data: u32::from_be_bytes(word),
            mv: u16::from_be_bytes(mv),
        },
    }
}

/// Encodes a proof in the reference format (at most [`REFERENCE_MAX_NODES`] nodes). The
/// format does not record the root: it is the standard start position after the tree's
/// prolog; a proof whose root is another position (with an empty prolog) can be written,
/// but must be read back with [`ReferenceOptions::start_fen`] set to its root.
pub fn encode_reference(tree: &ProofTree, byte_order: ByteOrder) -> Result<Vec<u8>, ProofError> {
    let n = tree.len() as u64;
    if n > REFERENCE_MAX_NODES {
        return Err(ProofError::Unsupported(format!(
            "the reference format holds at most {REFERENCE_MAX_NODES} nodes; this proof has {n}"
        )));
    }
    if !tree.prolog().is_empty() {
        crate::position_id::check_prolog(tree.root(), tree.prolog())
            .map_err(|why| ProofError::Unsupported(format!("cannot write the prolog: {why}")))?;
    }
    if tree.prolog().len() > usize::from(u16::MAX) {
        return Err(ProofError::Unsupported(
            "prolog longer than 65535 moves".into(),
        ));
    }
    let ends = tree.subtree_ends()?;
    let nodes = tree.nodes();
    let mut sibling = vec![0u32; nodes.len()];
    for (p, node) in nodes.iter().enumerate() {
        if matches!(node.kind, NodeKind::Prover | NodeKind::Opponent { .. }) {
            let mut c = p + 1;
            while c < ends[p] as usize {
                let next = ends[c] as usize;
                sibling[c] = if next < ends[p] as usize {
                    next as u32
                } else {
                    0
                };
                c = next;
            }
        }
    }
    let mut out = Vec::with_capacity(6 * nodes.len() + 2 * tree.prolog().len());
    let put = |data: u32, mv: u16, out: &mut Vec<u8>| match byte_order {
        ByteOrder::Little => {
            out.extend_from_slice(&data.to_le_bytes());
            out.extend_from_slice(&mv.to_le_bytes());
        }
        ByteOrder::Big => {
            out.extend_from_slice(&data.to_be_bytes());
            out.extend_from_slice(&mv.to_be_bytes());
        }
    };
    put(1 << 30 | n as u32, tree.prolog().len() as u16, &mut out);
    for m in tree.prolog() {
        match byte_order {
            ByteOrder::Little => out.extend_from_slice(&m.bits().to_le_bytes()),
            ByteOrder::Big => out.extend_from_slice(&m.bits().to_be_bytes()),
        }
    }
    for (i, node) in nodes.iter().enumerate().skip(1) {
        let mv = node.mv.expect("structure checked").bits();
        let data = match node.kind {
            NodeKind::Reference { target } => {
                if target == 0 {
                    return Err(ProofError::Unsupported(format!(
                        "node {i} refers to the root, which the reference format cannot express"
                    )));
                }
                let top = if sibling[i] != 0 { 0b11 } else { 0b10 };
                top << 30 | target
            }
            NodeKind::Prover => 0b01 << 30 | sibling[i],
            NodeKind::Opponent { children } if children > 0 => 0b01 << 30 | sibling[i],
            _ => sibling[i],
        };
        put(data, mv, &mut out);
    }
    Ok(out)
}

/// Reads a reference-format file into a [`ProofTree`]: the tree is rebuilt by walking the
/// file's moves from the root, sharing every repeated position (so transpositions the file
/// did not mark are shared too, and forward transpositions become references to the first
/// occurrence). Checks legality and completeness on the way, not the leaves.
pub fn read_reference<S: ReadAt>(
    file: &mut ReferenceFile<S>,
    options: &ReferenceOptions,
) -> Result<ProofTree, ProofError> {
    let root = file.root(options)?;
    // The tree's prolog is relative to the standard start position.
    let prolog = if options.start_fen.is_none() {
        file.prolog.clone()
    } else {
        Vec::new()
    };
    let mut expander = FileExpander { file };
    build_with(root, options.prover, prolog, &mut expander, 0).map_err(|e| match e {
        ProofError::Source { node, message } => ProofError::Rejected {
            node,
            reason: message,
        },
        other => other,
    })
}

struct FileExpander<'a, S> {
    file: &'a mut ReferenceFile<S>,
}

impl<S: ReadAt> Expander for FileExpander<'_, S> {
    type Handle = u32;

    fn prover(&mut self, _pos: &Position, handle: &u32) -> Result<Step<u32>, String> {
        let children = self.file.children(*handle).map_err(|e| e.to_string())?;
        match children.as_slice() {
            [] => Ok(Step::TablebaseLeaf),
            [(c, m)] => Ok(Step::Play(
                *m,
                self.file.resolve(*c).map_err(|e| e.to_string())?,
            )),
            more => Err(format!(
                "the prover has {} moves here ({}); a proof gives one",
                more.len(),
                more.iter()
                    .map(|(_, m)| m.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn opponent(
        &mut self,
        _pos: &Position,
        handle: &u32,
        moves: &[Move],
    ) -> Result<Option<Vec<u32>>, String> {
        let children = self.file.children(*handle).map_err(|e| e.to_string())?;
        if children.is_empty() {
            return Ok(None);
        }
        let mut handles: Vec<Option<u32>> = vec![None; moves.len()];
        for (c, m) in children {
            let Some(k) = moves.iter().position(|&x| x == m) else {
                return Err(format!("the opponent move {m} is not legal here"));
            };
            if handles[k].is_some() {
                return Err(format!("the opponent move {m} appears twice"));
            }
            handles[k] = Some(self.file.resolve(c).map_err(|e| e.to_string())?);
        }
        let missing: Vec<String> = moves
            .iter()
            .zip(&handles)
            .filter(|(_, h)| h.is_none())
            .map(|(m, _)| m.to_string())
            .collect();
        if !missing.is_empty() {
            return Err(format!("opponent moves missing: {}", missing.join(", ")));
        }
        Ok(Some(
            handles.into_iter().map(|h| h.expect("checked")).collect(),
        ))
    }
}

/// Decodes a reference-format file for the checker, following the links from the root:
/// a node's children are its first child and that child's sibling chain, a transposition
/// is a reference to the node its chain of transpositions ends at. It also enforces the
/// format's own rule that every node of the file is reached exactly once.
struct ReferenceDecoder<'f, S> {
    file: &'f mut ReferenceFile<S>,
    /// The slot of every transposition target (found by a first pass over the file).
    slot_of: HashMap<u32, usize>,
    /// The target of every slot.
    target_of: Vec<u32>,
    /// One bit per node of the file: reached.
    visited: Vec<u64>,
    visited_count: u64,
    /// The node the checker asks about next, and its links.
    current: (u32, Links),
}

impl<'f, S: ReadAt> ReferenceDecoder<'f, S> {
    /// Finds the transposition targets (one pass over the file).
    fn new(
        file: &'f mut ReferenceFile<S>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<ReferenceDecoder<'f, S>, ProofError> {
        let size = file.size;
        let mut slot_of: HashMap<u32, usize> = HashMap::new();
        let mut target_of = Vec::new();
        for i in 1..size {
            if file.links(i)?.0.transposition.is_some() {
                let t = file.resolve(i)?;
                slot_of.entry(t).or_insert_with(|| {
                    target_of.push(t);
                    target_of.len() - 1
                });
            }
            if i & 0xfffff == 0 {
                progress(0);
            }
        }
        let mut visited = vec![0u64; (size as usize).div_ceil(64)];
        visited[0] |= 1;
        let root_links = file.links(0)?.0;
        Ok(ReferenceDecoder {
            file,
            slot_of,
            target_of,
            visited,
            visited_count: 1,
            current: (0, root_links),
        })
    }
}

impl<S: ReadAt> Decoder for ReferenceDecoder<'_, S> {
    /// The next child's index.
    type Children = Option<u32>;

    fn node(&mut self, _at: &At<'_>) -> Result<Item<Option<u32>>, ProofError> {
        let (index, links) = self.current;
        if links.transposition.is_some() {
            let x = self.file.resolve(index)?;
            let target = self.slot_of.get(&x).copied().ok_or_else(|| {
                ProofError::corrupt(
                    self.file.offset(index),
                    format!("node {index}: transposition to node {x}, not found by the first pass"),
                )
            })?;
            return Ok(Item::Reference { target });
        }
        let target = self.slot_of.get(&index).copied();
        Ok(match links.child {
            None => Item::Leaf { target },
            Some(c) => Item::Internal {
                children: Some(c),
                target,
            },
        })
    }

    fn expand(
        &mut self,
        target: usize,
        _at: &At<'_>,
    ) -> Result<(u64, Option<Option<u32>>), ProofError> {
        let x = self.target_of[target];
        let child = self.file.links(x)?.0.child;
        Ok((u64::from(x), child.map(Some)))
    }

    fn next_child(
        &mut self,
        children: &mut Option<u32>,
        _legal: &MoveList,
    ) -> Result<Option<(u64, Move)>, ProofError> {
        let Some(c) = *children else {
            return Ok(None);
        };
        let (word, bit) = (c as usize / 64, c % 64);
        if self.visited[word] & 1 << bit != 0 {
            return Err(ProofError::corrupt(
                self.file.offset(c),
                format!("node {c} is visited twice (two child lists share it)"),
            ));
        }
        self.visited[word] |= 1 << bit;
        self.visited_count += 1;
        let (links, raw) = self.file.links(c)?;
        let m = self.file.node_move(c, raw)?;
        *children = links.sibling;
        self.current = (c, links);
        Ok(Some((u64::from(c), m)))
    }
}

/// Walks a reference-format file from its root through the checker (`crate::check`):
/// every move and every opponent node's completeness checked, leaves judged through
/// `visitor`, nodes counted. Memory is O(depth + transposition targets) plus one bit per
/// node (each node is reached once).
pub(crate) fn walk_reference<S: ReadAt>(
    file: &mut ReferenceFile<S>,
    options: &ReferenceOptions,
    visitor: &mut dyn Visitor,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let root = file.root(options)?;
    // Labels show the prolog only when it starts from the standard start position.
    let prolog = if options.start_fen.is_none() {
        file.prolog.clone()
    } else {
        Vec::new()
    };
    let size = file.size;
    let nodes_at = file.nodes_at;
    let proof = Proof {
        root,
        prover: options.prover,
        prolog: &prolog,
        tablebase_units: None,
        tablebase_leaves: 0,
    };
    let mut decoder = ReferenceDecoder::new(file, progress)?;
    let checked = check(&proof, &mut decoder, visitor, progress)?;
    if decoder.visited_count != u64::from(size) {
        return Err(ProofError::corrupt(
            nodes_at,
            format!(
                "{} of the file's {size} nodes are not reachable from the root",
                u64::from(size) - decoder.visited_count
            ),
        ));
    }
    Ok(checked.stats.finish(
        "reference",
        &root,
        options.prover,
        checked.targets,
        &checked.root,
        None,
    ))
}
