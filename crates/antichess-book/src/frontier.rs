//! A book's state in one small file, to carry a line that takes many runs across machines
//! and checkouts: [`save_frontier`] writes the book's *frontier* (every node that is not
//! inside a decided subtree, with its numbers, the positions searched below it and its
//! searches) and, for each won node whose parent is not won, that subtree's proof;
//! [`load_frontier`] builds a book from such a file, so that a run on a fresh checkout goes
//! on from where the last one stopped instead of from nothing.
//!
//! What is kept and what is not:
//! - open nodes: their numbers as leaves and as minimaxed, `size`, `work`, `searches` and
//!   whether they are expanded; the minimax is redone on loading;
//! - a lost node (the prover cannot force a win there) is kept as a lost leaf and its
//!   subtree dropped: a loss only steers the walk away, it is never part of a proof;
//! - a won node whose parent is not won is kept as a leaf with its subtree's proof
//!   (assembled from the book as `book prove` would, and verified); loading seeds the book
//!   with it ([`crate::seed`]: verified again, with the loading run's tables), which
//!   decides the node and every transposition of it. A subtree whose proof cannot be
//!   assembled, or does not verify when loaded (a table missing on the new machine), is
//!   loaded as an open leaf with the numbers (1, 1): the walk soon searches it again;
//! - marks, pins, the queue, claims and the search log are not kept (a mark's node is kept
//!   with its numbers as an open node).
//!
//! A win carried this way is sound whatever line reaches the position in the new book: a
//! proof is a tree of positions that never repeats a position of its own, and a seed is a
//! win from its position with a repetition history of its own (see [`crate::tree`]).
//!
//! The file layout (documented in `docs/formats/frontier.md`): the 8 bytes `ACFRONT` and a
//! version byte (1), then one zstd frame (with its content checksum) holding the rules,
//! the prover, the root's FEN, the prolog in UCI, the searches so far, the nodes in
//! preorder (move, flags, numbers as LEB128 varints, child count) and the proofs (length,
//! bytes in our compact proof format).

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::Path;

use antichess_core::{Color, Move, Position, Rules};
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::node::same_position;
use crate::node::{combine, Node, NodeId, Status, INF};
use crate::prove::{assemble_node_with, AssembleOptions, SeedIndex};
use crate::seed::seed_bytes;
use crate::Book;
use antichess_proof::{encode_compact, read_compact};

/// The first bytes of a frontier file: a name and the format's version.
pub const MAGIC: &[u8; 8] = b"ACFRONT\x01";

/// A node's state in the file.
const OPEN: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;
const EXPANDED: u8 = 4;

/// What the file says about its book (read without building it: [`read_header`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontierHeader {
    pub rules: Rules,
    pub prover: Color,
    pub root_fen: String,
    /// Moves from the start position to the root (empty if the root was given by a FEN).
    pub prolog: Vec<Move>,
    /// Searches the saved book had run.
    pub searches: u64,
}

/// What [`save_frontier`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SaveReport {
    /// Nodes in the file (the frontier, and the decided leaves below it).
    pub nodes: u64,
    pub open_leaves: u64,
    /// Won leaves (each with a proof, or kept open if none could be assembled).
    pub won: u64,
    pub lost: u64,
    /// Proofs written (one per won position; transpositions share one).
    pub proofs: u64,
    /// Their nodes in all.
    pub proof_nodes: u64,
    /// The lines of won nodes whose proof could not be assembled, and why.
    pub unproved: Vec<String>,
    /// Proofs the book keeps until this machine has their tables (`crate::pending`),
    /// written too (among `proofs` and `proof_nodes`) for a machine that has them.
    pub pending: u64,
    /// The file's size.
    pub bytes: u64,
}

/// What [`load_frontier`] built.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadReport {
    pub nodes: u64,
    /// Proofs that verified and were taken as seeds.
    pub seeded: u64,
    /// Proofs that did not (with why): their nodes are open again.
    pub rejected: Vec<String>,
    /// Proofs that rest on tables this machine lacks: kept in the book until they are
    /// built (`crate::pending`); their nodes are open meanwhile.
    pub pending: u64,
    /// Searches the saved book had run.
    pub searches_before: u64,
}

/// Progress of a save or a load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontierEvent {
    /// A won subtree's proof assembled (`done` of `total`).
    Proved { done: u64, total: u64 },
    /// A proof taken as a seed while loading (`done` of `total`).
    Seeded { done: u64, total: u64 },
}

/// Writes the frontier of `book` to `path` (atomically), assembling the proof of each won
/// node whose parent is not won with `options` (give it the book's leaf-proof directory:
/// the proofs the workers kept are then read, not searched again; a small table, as one
/// is made for each subtree; and a leaf budget, so that a proof that was not kept does not
/// hold the save up: that node is then kept open). The proofs are not verified here:
/// [`load_frontier`] verifies each one.
///
/// # Errors
/// The store; writing the file; the stop flag of `options`.
pub fn save_frontier(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    path: &Path,
    progress: &mut dyn FnMut(FrontierEvent),
) -> Result<SaveReport> {
    let nodes = book.all_nodes()?;
    let mut children: HashMap<NodeId, Vec<usize>> = HashMap::new();
    let mut index: HashMap<NodeId, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        index.insert(n.id, i);
        if let Some(p) = n.parent {
            children.entry(p).or_default().push(i);
        }
    }
    for list in children.values_mut() {
        list.sort_unstable_by_key(|&i| nodes[i].id);
    }
    let root = book.root_id();
    let root_index = *index
        .get(&root)
        .ok_or_else(|| BookError::Corrupt("the book has no root node".into()))?;

    // The nodes to write, in preorder, with what each is in the file.
    let mut order: Vec<(usize, u8)> = Vec::new();
    let mut stack = vec![root_index];
    while let Some(i) = stack.pop() {
        let n = &nodes[i];
        let kind = match n.status {
            Status::Win => WON,
            Status::Loss => LOST,
            _ => OPEN,
        };
        order.push((i, kind));
        // Only the children of an open expanded node are written (the writing loop below
        // gives such a node, and no other, its child count).
        if kind == OPEN && n.expanded {
            if let Some(kids) = children.get(&n.id) {
                stack.extend(kids.iter().rev());
            }
        }
    }

    // The proofs of the won leaves, one per position.
    let mut report = SaveReport::default();
    let won: Vec<usize> = order.iter().filter(|o| o.1 == WON).map(|o| o.0).collect();
    let mut proofs: Vec<Vec<u8>> = Vec::new();
    let mut proved: HashMap<u64, Vec<String>> = HashMap::new();
    let mut failed: HashSet<NodeId> = HashSet::new();
    let total = won.len() as u64;
    let seeds = SeedIndex::load(book)?;
    for (done, &i) in won.iter().enumerate() {
        let n = &nodes[i];
        let known = proved
            .get(&n.key)
            .is_some_and(|fens| fens.iter().any(|f| same_position(f, &n.fen)));
        if !known {
            // A node that defers to a transposition is proved through the node it defers
            // to. (Not verified here: loading verifies every proof.)
            let target = n.same_as.unwrap_or(n.id);
            let encoded =
                assemble_node_with(book, Some(target), tablebase, options, &seeds, &mut |_| {})
                    .and_then(|(tree, _)| {
                        encode_compact(&tree)
                            .map(|bytes| (bytes, tree.len() as u64))
                            .map_err(|e| BookError::Proof(e.to_string()))
                    });
            match encoded {
                Ok((bytes, size)) => {
                    report.proof_nodes += size;
                    proofs.push(bytes);
                    proved.entry(n.key).or_default().push(n.fen.clone());
                }
                Err(BookError::Proof(why)) => {
                    failed.insert(n.id);
                    report
                        .unproved
                        .push(format!("{}: {why}", line_text(book, n.id)));
                }
                Err(e) => return Err(e),
            }
        }
        progress(FrontierEvent::Proved {
            done: done as u64 + 1,
            total,
        });
    }

    // The proofs waiting here for tables, for a machine that has them.
    for (key, seed) in crate::pending::pending_proofs(book)? {
        let known = proved
            .get(&key)
            .is_some_and(|fens| fens.iter().any(|f| same_position(f, &seed.fen)));
        if !known {
            report.pending += 1;
            report.proof_nodes += seed.tree()?.len() as u64;
            proved.entry(key).or_default().push(seed.fen.clone());
            proofs.push(seed.bytes);
        }
    }

    // The payload.
    let meta = book.meta().clone();
    let searches = book.counts()?.searches;
    let mut out = Vec::new();
    put_str(&mut out, &meta.rules.to_string());
    out.push(u8::from(meta.prover == Color::Black));
    put_str(&mut out, &meta.root_fen);
    let prolog: Vec<String> = meta.prolog.iter().map(|m| m.to_uci()).collect();
    put_str(&mut out, &prolog.join(" "));
    put_var(&mut out, searches);
    put_var(&mut out, order.len() as u64);
    for &(i, kind) in &order {
        let n = &nodes[i];
        let mv = match &n.uci {
            None => 0,
            Some(uci) => {
                let parent = &nodes[index[&n.parent.expect("a node with a move has a parent")]];
                let pos = book.position(parent)?;
                pos.parse_uci(uci)
                    .map_err(|e| BookError::Corrupt(format!("move {uci} of node {}: {e}", n.id)))?
                    .bits()
            }
        };
        out.extend_from_slice(&mv.to_le_bytes());
        // Decided before a won node without a proof becomes open: such a node is written
        // as an open leaf (its children are not in `order`).
        let expanded = kind == OPEN && n.expanded && children.contains_key(&n.id);
        let kind = if kind == WON && failed.contains(&n.id) {
            OPEN
        } else {
            kind
        };
        out.push(kind | if expanded { EXPANDED } else { 0 });
        let (proof, disproof) = match kind {
            WON => (0, INF),
            LOST => (INF, 0),
            // A won node without a proof is searched again soon.
            _ if n.status.is_win() => (1, 1),
            _ => (n.proof, n.disproof),
        };
        let (leaf_proof, leaf_disproof) = if n.status.is_win() && kind == OPEN {
            (1, 1)
        } else {
            (n.leaf_proof, n.leaf_disproof)
        };
        for v in [
            u64::from(proof),
            u64::from(disproof),
            u64::from(leaf_proof),
            u64::from(leaf_disproof),
            n.size,
            n.work,
            u64::from(n.searches),
        ] {
            put_var(&mut out, v);
        }
        let kids = if expanded { children[&n.id].len() } else { 0 };
        put_var(&mut out, kids as u64);
        match kind {
            WON => report.won += 1,
            LOST => report.lost += 1,
            _ if !expanded => report.open_leaves += 1,
            _ => {}
        }
    }
    report.nodes = order.len() as u64;
    report.proofs = proofs.len() as u64;
    put_var(&mut out, proofs.len() as u64);
    for p in &proofs {
        put_var(&mut out, p.len() as u64);
        out.extend_from_slice(p);
    }

    let mut file = MAGIC.to_vec();
    let mut encoder = zstd::Encoder::new(&mut file, 19).map_err(io_error(path))?;
    encoder.include_checksum(true).map_err(io_error(path))?;
    encoder.write_all(&out).map_err(io_error(path))?;
    encoder.finish().map_err(io_error(path))?;
    antichess_io::write_atomic(path, &file).map_err(|source| BookError::Io {
        context: format!("writing {}", path.display()),
        source,
    })?;
    report.bytes = file.len() as u64;
    Ok(report)
}

/// The line to a node in SAN, for messages.
fn line_text(book: &mut Book, id: NodeId) -> String {
    match book.line_to(id) {
        Ok(line) => antichess_core::pgn::format_moves(book.root_position(), &line),
        Err(_) => format!("node {id}"),
    }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> BookError + '_ {
    move |source| BookError::Io {
        context: format!("writing {}", path.display()),
        source,
    }
}

/// One node as read from the file.
struct Record {
    parent: Option<usize>,
    mv: Option<Move>,
    pos: Position,
    depth: u32,
    expanded: bool,
    proof: u32,
    disproof: u32,
    leaf_proof: u32,
    leaf_disproof: u32,
    size: u64,
    work: u64,
    searches: u32,
    status: Status,
}

/// A frontier file read and checked: its header, nodes and proofs.
struct Parsed {
    header: FrontierHeader,
    records: Vec<Record>,
    proofs: Vec<Vec<u8>>,
}

/// Reads the header of the frontier file at `path` (the whole file is decompressed and its
/// checksum checked, the nodes are not replayed).
///
/// # Errors
/// The file cannot be read, is not a frontier file, or is damaged.
pub fn read_header(path: &Path) -> Result<FrontierHeader> {
    let payload = read_payload(path)?;
    let mut r = Reader::new(&payload, path);
    header(&mut r)
}

fn read_payload(path: &Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).map_err(|source| BookError::Io {
        context: format!("reading the frontier file {}", path.display()),
        source,
    })?;
    if bytes.len() < MAGIC.len() || bytes[..7] != MAGIC[..7] {
        return Err(BookError::Input(format!(
            "{} is not a frontier file (it does not start with ACFRONT)",
            path.display()
        )));
    }
    if bytes[7] != MAGIC[7] {
        return Err(BookError::Input(format!(
            "{} is a frontier file of version {}, this program reads version {}",
            path.display(),
            bytes[7],
            MAGIC[7]
        )));
    }
    let mut payload = Vec::new();
    zstd::Decoder::new(&bytes[MAGIC.len()..])
        .and_then(|mut d| d.read_to_end(&mut payload))
        .map_err(|e| {
            BookError::Input(format!(
                "{} is damaged (truncated or altered: {e})",
                path.display()
            ))
        })?;
    Ok(payload)
}

fn header(r: &mut Reader<'_>) -> Result<FrontierHeader> {
    let rules_text = r.string()?;
    let rules: Rules = rules_text
        .parse()
        .map_err(|e| r.corrupt(&format!("rule set {rules_text:?}: {e}")))?;
    let prover = match r.byte()? {
        0 => Color::White,
        1 => Color::Black,
        b => return Err(r.corrupt(&format!("prover code {b}"))),
    };
    let root_fen = r.string()?;
    let root = Position::from_fen(&root_fen, rules)
        .map_err(|e| r.corrupt(&format!("root FEN {root_fen:?}: {e}")))?;
    let prolog_text = r.string()?;
    let prolog = if prolog_text.is_empty() {
        Vec::new()
    } else {
        let mut pos = Position::start(rules);
        let mut moves = Vec::new();
        for token in prolog_text.split(' ') {
            let m = pos
                .parse_uci(token)
                .map_err(|e| r.corrupt(&format!("prolog move {token}: {e}")))?;
            pos = pos.play(m);
            moves.push(m);
        }
        if !pos.same_position(&root) {
            return Err(r.corrupt("the prolog does not lead to the root"));
        }
        moves
    };
    let searches = r.var()?;
    Ok(FrontierHeader {
        rules,
        prover,
        root_fen,
        prolog,
        searches,
    })
}

fn parse(path: &Path) -> Result<Parsed> {
    let payload = read_payload(path)?;
    let mut r = Reader::new(&payload, path);
    let header = header(&mut r)?;
    let root = Position::from_fen(&header.root_fen, header.rules)
        .map_err(|e| r.corrupt(&e.to_string()))?;
    let count = r.var()?;
    if count == 0 || count > payload.len() as u64 {
        return Err(r.corrupt(&format!("{count} nodes")));
    }
    let mut records: Vec<Record> = Vec::with_capacity(count as usize);
    // (record, children still to read)
    let mut open: Vec<(usize, u64)> = Vec::new();
    for i in 0..count as usize {
        let bits = u16::from_le_bytes([r.byte()?, r.byte()?]);
        let flags = r.byte()?;
        let kind = flags & 3;
        let expanded = flags & EXPANDED != 0;
        if kind > LOST || flags & !(3 | EXPANDED) != 0 || (expanded && kind != OPEN) {
            return Err(r.corrupt(&format!("node {i}: flags {flags:#x}")));
        }
        let mut num = || -> Result<u32> {
            let v = r.var()?;
            u32::try_from(v).map_err(|_| r.corrupt(&format!("node {i}: number {v}")))
        };
        let (proof, disproof, leaf_proof, leaf_disproof) = (num()?, num()?, num()?, num()?);
        let size = r.var()?;
        let work = r.var()?;
        let searches = u32::try_from(r.var()?).map_err(|_| r.corrupt("searches"))?;
        let kids = r.var()?;
        if expanded != (kids > 0) {
            return Err(r.corrupt(&format!("node {i}: expanded with {kids} children")));
        }
        let (parent, mv, pos, depth) = if i == 0 {
            if bits != 0 {
                return Err(r.corrupt("the root has a move"));
            }
            (None, None, root, 0)
        } else {
            while open.last().is_some_and(|o| o.1 == 0) {
                open.pop();
            }
            let Some(top) = open.last_mut() else {
                return Err(r.corrupt(&format!("node {i} has no parent")));
            };
            top.1 -= 1;
            let parent = top.0;
            let ppos = records[parent].pos;
            let mv = Move::from_bits(bits)
                .filter(|m| ppos.legal_moves().contains(m))
                .ok_or_else(|| {
                    r.corrupt(&format!(
                        "node {i}: move {bits:#06x} is not legal in {}",
                        ppos.fen()
                    ))
                })?;
            (
                Some(parent),
                Some(mv),
                ppos.play(mv),
                records[parent].depth + 1,
            )
        };
        let status = match kind {
            LOST => Status::Loss,
            _ => Status::Unknown,
        };
        // A won leaf waits for its proof as an open leaf that is easy either way.
        let (proof, disproof, leaf_proof, leaf_disproof) = match kind {
            WON => (1, 1, 1, 1),
            LOST => (INF, 0, leaf_proof, leaf_disproof),
            _ => (proof, disproof, leaf_proof, leaf_disproof),
        };
        records.push(Record {
            parent,
            mv,
            pos,
            depth,

            expanded,
            proof,
            disproof,
            leaf_proof,
            leaf_disproof,
            size,
            work,
            searches,
            status,
        });
        if kids > 0 {
            open.push((i, kids));
        }
    }
    if open.iter().any(|o| o.1 > 0) {
        return Err(r.corrupt("the nodes end before the last node's children"));
    }
    let n = r.var()?;
    if n > payload.len() as u64 {
        return Err(r.corrupt(&format!("{n} proofs")));
    }
    let mut proofs = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let len = r.var()?;
        proofs.push(r.bytes(len)?.to_vec());
    }
    if !r.at_end() {
        return Err(r.corrupt("bytes after the last proof"));
    }
    // Every expanded node has each legal move once.
    let mut kids: Vec<Vec<Move>> = vec![Vec::new(); records.len()];
    for rec in &records {
        if let (Some(p), Some(m)) = (rec.parent, rec.mv) {
            kids[p].push(m);
        }
    }
    for (i, rec) in records.iter().enumerate() {
        if rec.expanded {
            let mut legal: Vec<Move> = rec.pos.legal_moves().iter().copied().collect();
            let mut have = kids[i].clone();
            legal.sort_unstable_by_key(|m| m.bits());
            have.sort_unstable_by_key(|m| m.bits());
            if legal != have {
                return Err(BookError::Input(format!(
                    "{}: node {i} ({}) is expanded but its children are not its legal moves",
                    path.display(),
                    rec.pos.fen()
                )));
            }
        }
    }
    Ok(Parsed {
        header,
        records,
        proofs,
    })
}

/// The header and the proofs of the frontier file at `path` (every node is read and its
/// move checked, as when loading; the proofs are not verified).
///
/// # Errors
/// The file cannot be read, is not a frontier file, or is damaged.
pub fn read_proofs(path: &Path) -> Result<(FrontierHeader, Vec<Vec<u8>>)> {
    let Parsed { header, proofs, .. } = parse(path)?;
    Ok((header, proofs))
}

/// Builds a new book at `location` from the frontier file at `path`, then seeds it with the
/// file's proofs, each verified with `tablebase` (a proof that does not verify leaves its
/// nodes open and is reported).
///
/// # Errors
/// The file is not a frontier file or is damaged; the book exists already; the store.
pub fn load_frontier(
    path: &Path,
    location: &str,
    tablebase: Option<&Tablebase>,
    progress: &mut dyn FnMut(FrontierEvent),
) -> Result<LoadReport> {
    let Parsed {
        header,
        mut records,
        proofs,
    } = parse(path)?;
    // The minimax, children before parents (preorder reversed).
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); records.len()];
    for (i, rec) in records.iter().enumerate() {
        if let Some(p) = rec.parent {
            kids[p].push(i);
        }
    }
    let or_node = |rec: &Record| rec.pos.turn() == header.prover;
    for i in (0..records.len()).rev() {
        if !records[i].expanded {
            continue;
        }
        let list: Vec<_> = kids[i]
            .iter()
            .map(|&k| {
                let c = &records[k];
                (c.proof, c.disproof, c.status, c.size)
            })
            .collect();
        let c = combine(or_node(&records[i]), &list);
        let rec = &mut records[i];
        rec.proof = c.proof;
        rec.disproof = c.disproof;
        rec.status = c.status;
        rec.size = c.size;
    }

    let root = records[0].pos;
    let mut book = Book::create(location, &root, header.prover, &header.prolog)?;
    let root_id = book.root_id();
    book.write_txn(|txn| {
        txn.set_meta("frontier_searches", &header.searches.to_string())?;
        let mut ids: Vec<NodeId> = Vec::with_capacity(records.len());
        for rec in &records {
            let mut node = Node::leaf(
                rec.parent.map(|p| ids[p]),
                rec.mv.map(Move::to_uci),
                rec.depth,
                &rec.pos,
                or_node(rec),
                rec.leaf_proof,
                rec.leaf_disproof,
                rec.work,
            );
            node.proof = rec.proof;
            node.disproof = rec.disproof;
            node.status = rec.status;
            node.size = rec.size;
            node.searches = rec.searches;
            node.expanded = rec.expanded;
            if rec.parent.is_none() {
                node.id = root_id;
                txn.update_node(&node)?;
                ids.push(root_id);
            } else {
                ids.push(txn.insert_node(&node)?);
            }
        }
        Ok(())
    })?;
    let mut report = LoadReport {
        nodes: records.len() as u64,
        searches_before: header.searches,
        ..LoadReport::default()
    };
    let total = proofs.len() as u64;
    let prover = header.prover;
    for (i, bytes) in proofs.into_iter().enumerate() {
        let name = format!("{} (proof {} of {total})", path.display(), i + 1);
        // A proof whose tables this machine lacks waits in the book for them.
        let tree = read_compact(&bytes[..]).map_err(|e| BookError::Seed {
            file: name.clone(),
            error: e,
        });
        if let Ok(tree) = &tree {
            let missing =
                crate::pending::missing_materials(tree, tablebase, prover).unwrap_or_default();
            if !missing.is_empty() {
                crate::pending::keep_pending(&mut book, tree, bytes, &missing)?;
                report.pending += 1;
                progress(FrontierEvent::Seeded {
                    done: i as u64 + 1,
                    total,
                });
                continue;
            }
        }
        match seed_bytes(&mut book, bytes, &name, tablebase) {
            Ok(_) => report.seeded += 1,
            Err(BookError::Input(why) | BookError::Mismatch(why)) => report.rejected.push(why),
            Err(e @ BookError::Seed { .. }) => report.rejected.push(e.to_string()),
            Err(e) => return Err(e),
        }
        progress(FrontierEvent::Seeded {
            done: i as u64 + 1,
            total,
        });
    }
    Ok(report)
}

fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_var(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads the payload, with errors that name the file.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], path: &'a Path) -> Reader<'a> {
        Reader { bytes, at: 0, path }
    }

    fn corrupt(&self, what: &str) -> BookError {
        BookError::Input(format!(
            "{} is damaged: {what} (at byte {} of the payload)",
            self.path.display(),
            self.at
        ))
    }

    fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.corrupt("it ends early"))?;
        self.at += 1;
        Ok(b)
    }

    fn var(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt("a number longer than 64 bits"))
    }

    fn bytes(&mut self, len: u64) -> Result<&'a [u8]> {
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| self.at.checked_add(l))
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| self.corrupt("it ends early"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn string(&mut self) -> Result<String> {
        let len = self.var()?;
        let bytes = self.bytes(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.corrupt("text that is not UTF-8"))
    }
}
