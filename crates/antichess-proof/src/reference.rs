//! The 6-byte-per-node format of the reference solution (the published proofs of 1. e3,
//! 2016): reading, writing, conversion to and from [`ProofTree`], and direct verification.
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
//! a file whose header only makes sense big-endian is read big-endian.

use std::collections::{HashMap, HashSet};

use antichess_core::{Color, Move, MoveList, Position, Rules};

use crate::build::{build_with, Expander, Step};
use crate::oracle::LeafError;
use crate::position_id::{label, ordered_moves, units, PositionId};
use crate::read_at::ReadAt;
use crate::stats::{ProofStats, StatsBuilder, Subtree};
use crate::tree::{Node, NodeKind, ProofTree};
use crate::walk::{map_leaf_error, Visitor};
use crate::ProofError;

/// Byte order of the 16- and 32-bit fields of a reference-format file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
            return Err(ProofError::corrupt(
                len,
                format!("a reference-format proof has at least 6 bytes (the header node); this one has {len}"),
            ));
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
            let fits =
                raw.data >> 30 == 1 && size >= 1 && expected <= len && (len - expected) % 8 == 0;
            (fits, size, prolog, expected)
        };
        let order = match byte_order {
            Some(order) => {
                let (fits, size, prolog, expected) = describe(order);
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
                ((_, size, prolog, expected), (_, bsize, bprolog, bexpected)) => {
                    return Err(ProofError::corrupt(
                        0,
                        format!(
                            "the header node does not match the file length {len}: read little-endian it says {size} nodes and {prolog} prolog moves ({expected} bytes), read big-endian {bsize} nodes and {bprolog} prolog moves ({bexpected} bytes); the word must also have bit 30 set"
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
        let none_if_zero = |v: u32| (v != 0 && v != LOW).then_some(v);
        let links = match raw.data >> 30 {
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
        let corrupt = |why: String| ProofError::corrupt(at, format!("node {index}: {why}"));
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
        crate::compact::check_prolog(tree.root(), tree.prolog())
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

#[derive(Debug, Clone, Copy)]
enum TargetState {
    Unseen,
    InProgress,
    Done {
        id: PositionId,
        unfolded: u64,
        unfolded_height: u32,
    },
}

struct Frame {
    pos: Position,
    id: PositionId,
    /// File index named in errors (the node itself, or the transposition node that led here).
    number: u32,
    mv: Option<Move>,
    legal: MoveList,
    seen: [u64; 4],
    seen_count: usize,
    next_child: Option<u32>,
    target: Option<u32>,
    subtree: Subtree,
}

/// Walks a reference-format file from its root, checking every move and every opponent
/// node's completeness, judging leaves through `visitor`, and counting nodes. Memory is
/// O(depth + transposition targets) plus one bit per node (each node is visited once).
pub(crate) fn walk_reference<S: ReadAt>(
    file: &mut ReferenceFile<S>,
    options: &ReferenceOptions,
    visitor: &mut dyn Visitor,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let root = file.root(options)?;
    let prover = options.prover;
    // Labels show the prolog only when it starts from the standard start position.
    let prolog = if options.start_fen.is_none() {
        file.prolog.clone()
    } else {
        Vec::new()
    };
    let size = file.size;
    // Pass 1: the transposition targets.
    let mut targets: HashMap<u32, TargetState> = HashMap::new();
    for i in 1..size {
        if file.links(i)?.0.transposition.is_some() {
            let t = file.resolve(i)?;
            targets.insert(t, TargetState::Unseen);
        }
        if i & 0xfffff == 0 {
            progress(0);
        }
    }
    let mut visited = vec![0u64; (size as usize).div_ceil(64)];
    visited[0] |= 1;
    let mut visited_count = 1u64;
    let mut stats = StatsBuilder::default();
    let mut path: HashSet<PositionId> = HashSet::new();
    let mut stack: Vec<Frame> = Vec::new();

    let labeled = |stack: &[Frame], number: u32, extra: Option<Move>| {
        let mut moves: Vec<Move> = stack.iter().filter_map(|f| f.mv).collect();
        moves.extend(extra);
        label(u64::from(number), &root, &prolog, &moves)
    };

    // Enter the root.
    let root_links = file.links(0)?.0;
    let root_done = enter(
        &mut EnterArgs {
            file,
            stack: &mut stack,
            path: &mut path,
            visitor,
            stats: &mut stats,
            prover,
            count: true,
        },
        root,
        None,
        0,
        root_links.child,
        None,
        &labeled,
    )?;
    let mut finished: Option<(Subtree, Option<Move>)> = root_done.map(|s| (s, None));
    loop {
        if let Some((done, done_mv)) = finished.take() {
            let Some(parent) = stack.last_mut() else {
                if visited_count != u64::from(size) {
                    return Err(ProofError::corrupt(
                        file.nodes_at,
                        format!(
                            "{} of the file's {size} nodes are not reachable from the root",
                            u64::from(size) - visited_count
                        ),
                    ));
                }
                progress(visited_count);
                let reference_targets = targets.len() as u64;
                return Ok(stats.finish(
                    "reference",
                    &root,
                    prover,
                    reference_targets,
                    &done,
                    None,
                ));
            };
            parent.subtree.absorb(&done);
            if stack.len() == 1 {
                if let Some(m) = done_mv {
                    stats.root_child(&root, m, &done, visited_count);
                }
            }
        }
        let top = stack.last_mut().expect("a frame is open");
        let Some(c) = top.next_child else {
            // The frame is complete.
            let frame = stack.pop().expect("non-empty");
            let is_prover = frame.pos.turn() == prover;
            if !is_prover && frame.seen_count != frame.legal.len() {
                let missing: Vec<String> = frame
                    .legal
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| frame.seen[k / 64] & 1 << (k % 64) == 0)
                    .map(|(_, m)| frame.pos.san(*m))
                    .collect();
                return Err(ProofError::Rejected {
                    node: labeled(&stack, frame.number, frame.mv),
                    reason: format!("opponent moves missing: {}", missing.join(", ")),
                });
            }
            path.remove(&frame.id);
            if let Some(t) = frame.target {
                targets.insert(
                    t,
                    TargetState::Done {
                        id: frame.id,
                        unfolded: frame.subtree.unfolded,
                        unfolded_height: frame.subtree.unfolded_height,
                    },
                );
            }
            finished = Some((frame.subtree, frame.mv));
            continue;
        };
        // Visit child c of the top frame.
        if visited[c as usize / 64] & 1 << (c % 64) != 0 {
            return Err(ProofError::corrupt(
                file.offset(c),
                format!("node {c} is visited twice (two child lists share it)"),
            ));
        }
        visited[c as usize / 64] |= 1 << (c % 64);
        visited_count += 1;
        if visited_count & 0xffff == 0 {
            progress(visited_count);
        }
        let (links, raw) = file.links(c)?;
        let m = file.node_move(c, raw)?;
        let top = stack.last_mut().expect("a frame is open");
        top.next_child = links.sibling;
        let is_prover = top.pos.turn() == prover;
        let Some(k) = top.legal.iter().position(|&x| x == m) else {
            let pos = top.pos;
            return Err(ProofError::Rejected {
                node: labeled(&stack, c, None),
                reason: format!("move {m} is not legal in {}", pos.fen()),
            });
        };
        if top.seen[k / 64] & 1 << (k % 64) != 0 {
            let san = top.pos.san(m);
            return Err(ProofError::Rejected {
                node: labeled(&stack, c, Some(m)),
                reason: format!("the move {san} appears twice among its parent's children"),
            });
        }
        if is_prover && top.seen_count == 1 {
            return Err(ProofError::Rejected {
                node: labeled(&stack, c, Some(m)),
                reason: "the prover has more than one move at its parent; a proof gives one".into(),
            });
        }
        top.seen[k / 64] |= 1 << (k % 64);
        top.seen_count += 1;
        let pos = top.pos.play(m);
        let id = PositionId::of(&pos);
        let mut args = EnterArgs {
            file,
            stack: &mut stack,
            path: &mut path,
            visitor,
            stats: &mut stats,
            prover,
            count: true,
        };
        if links.transposition.is_some() {
            let x = args.file.resolve(c)?;
            let kind = NodeKind::Reference { target: x };
            args.stats.counts.add(&kind);
            let depth = args.stack.len() as u32;
            args.stats.max_depth = args.stats.max_depth.max(depth);
            match targets.get(&x).copied().unwrap_or(TargetState::Unseen) {
                TargetState::Done {
                    id: target_id,
                    unfolded,
                    unfolded_height,
                } => {
                    if target_id != id {
                        return Err(ProofError::Rejected {
                            node: labeled(args.stack, c, Some(m)),
                            reason: format!(
                                "transposition to node {x}, which is a different position (this one is {})",
                                pos.fen()
                            ),
                        });
                    }
                    finished = Some((
                        Subtree::leaf(u64::from(c), unfolded, unfolded_height),
                        Some(m),
                    ));
                }
                TargetState::InProgress => {
                    return Err(ProofError::Rejected {
                        node: labeled(args.stack, c, Some(m)),
                        reason: format!(
                            "transposition to node {x}, which is not complete: it is an ancestor of this node (the proof would go round in a circle)"
                        ),
                    });
                }
                TargetState::Unseen => {
                    // Verify the target's subtree here, from this position.
                    targets.insert(x, TargetState::InProgress);
                    let child = args.file.links(x)?.0.child;
                    args.count = false;
                    let done = enter(&mut args, pos, Some(m), c, child, Some(x), &labeled)?;
                    if let Some(mut subtree) = done {
                        // The target is a leaf.
                        subtree.first_node = u64::from(c);
                        targets.insert(
                            x,
                            TargetState::Done {
                                id,
                                unfolded: subtree.unfolded,
                                unfolded_height: subtree.unfolded_height,
                            },
                        );
                        finished = Some((subtree, Some(m)));
                    }
                }
            }
            continue;
        }
        match targets.get(&c).copied() {
            Some(TargetState::Done {
                id: target_id,
                unfolded,
                unfolded_height,
            }) => {
                // Already verified through a transposition met earlier.
                if target_id != id {
                    return Err(ProofError::Rejected {
                        node: labeled(args.stack, c, Some(m)),
                        reason: format!(
                            "a transposition to this node, met earlier, reached a different position than this one ({})",
                            pos.fen()
                        ),
                    });
                }
                let legal = ordered_moves(&pos);
                let kind = if links.child.is_none() {
                    if legal.is_empty() {
                        NodeKind::Terminal
                    } else {
                        NodeKind::Tablebase
                    }
                } else if pos.turn() == prover {
                    NodeKind::Prover
                } else {
                    NodeKind::Opponent {
                        children: legal.len() as u16,
                    }
                };
                args.stats.counts.add(&kind);
                let mut subtree = Subtree::leaf(u64::from(c), unfolded, unfolded_height);
                subtree.height = 0;
                finished = Some((subtree, Some(m)));
            }
            Some(TargetState::InProgress) => {
                return Err(ProofError::Rejected {
                    node: labeled(args.stack, c, Some(m)),
                    reason: "this node is reached again while its own subtree is being verified (a cycle)".into(),
                });
            }
            Some(TargetState::Unseen) => {
                targets.insert(c, TargetState::InProgress);
                let done = enter(&mut args, pos, Some(m), c, links.child, Some(c), &labeled)?;
                if let Some(subtree) = done {
                    targets.insert(
                        c,
                        TargetState::Done {
                            id,
                            unfolded: subtree.unfolded,
                            unfolded_height: subtree.unfolded_height,
                        },
                    );
                    finished = Some((subtree, Some(m)));
                }
            }
            None => {
                let done = enter(&mut args, pos, Some(m), c, links.child, None, &labeled)?;
                finished = done.map(|s| (s, Some(m)));
            }
        }
    }
}

/// Names a node: the open frames, its file index and its move.
type Labeler<'a> = dyn Fn(&[Frame], u32, Option<Move>) -> crate::NodeLabel + 'a;

struct EnterArgs<'a, 'v, S> {
    file: &'a mut ReferenceFile<S>,
    stack: &'a mut Vec<Frame>,
    path: &'a mut HashSet<PositionId>,
    visitor: &'a mut (dyn Visitor + 'v),
    stats: &'a mut StatsBuilder,
    prover: Color,
    /// Whether the node counts as a node of the file (false for a transposition target
    /// verified from the transposition: the transposition node was counted).
    count: bool,
}

/// Enters a node at `pos` whose children start at `first_child`: a leaf is judged and its
/// subtree returned; an internal node gets a frame (and `None` is returned).
fn enter<S: ReadAt>(
    args: &mut EnterArgs<'_, '_, S>,
    pos: Position,
    mv: Option<Move>,
    number: u32,
    first_child: Option<u32>,
    target: Option<u32>,
    labeled: &Labeler<'_>,
) -> Result<Option<Subtree>, ProofError> {
    let legal = ordered_moves(&pos);
    let depth = args.stack.len() as u32;
    args.stats.max_depth = args.stats.max_depth.max(depth);
    let Some(first) = first_child else {
        let kind = if legal.is_empty() {
            NodeKind::Terminal
        } else {
            args.stats.tablebase_units = args.stats.tablebase_units.max(units(&pos));
            NodeKind::Tablebase
        };
        if args.count {
            args.stats.counts.add(&kind);
        }
        let node = Node { mv, kind };
        args.visitor
            .visit(&node, &pos)
            .map_err(|e: LeafError| map_leaf_error(e, labeled(args.stack, number, mv), 0))?;
        return Ok(Some(Subtree::leaf(u64::from(number), 1, 0)));
    };
    if legal.is_empty() {
        return Err(ProofError::Rejected {
            node: labeled(args.stack, number, mv),
            reason: "the node has children but the position has no legal move".into(),
        });
    }
    let id = PositionId::of(&pos);
    if !args.path.insert(id) {
        return Err(ProofError::Rejected {
            node: labeled(args.stack, number, mv),
            reason: format!(
                "the position repeats on the path from the root ({})",
                pos.fen()
            ),
        });
    }
    let kind = if pos.turn() == args.prover {
        NodeKind::Prover
    } else {
        NodeKind::Opponent {
            children: legal.len() as u16,
        }
    };
    if args.count {
        args.stats.counts.add(&kind);
    }
    args.stack.push(Frame {
        pos,
        id,
        number,
        mv,
        legal,
        seen: [0; 4],
        seen_count: 0,
        next_child: Some(first),
        target,
        subtree: Subtree::internal(u64::from(number)),
    });
    Ok(None)
}
