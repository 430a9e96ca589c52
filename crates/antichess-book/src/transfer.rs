//! Cutting a subtree out of a book into a book of its own (`export`), splicing such a
//! book back (`import`), e.g. to grow a hard line on another machine, and copying a whole
//! book between stores (`copy_book`: SQLite to PostgreSQL and back).
//!
//! Export copies the node and everything below it (numbers, statuses, marks, win order)
//! into a new book rooted at that position; claims, the queue and the search log stay
//! behind. A transposition whose target lies outside the cut keeps its won status as a
//! leaf (the proof re-solves it). Import merges by moves: nodes the book lacks are added,
//! nodes both have take the imported values when those know more (decided, expanded, or
//! searched more often); proven values are never overwritten. Numbers are then minimaxed
//! again up to the root.
//!
//! Copy moves everything in key (id) order, page by page from one read snapshot of the
//! source into one transaction of the destination: ids, children, transpositions, win
//! order, marks, meta (counters included), the queue and the search log. Only claims stay
//! behind (no worker of the source will finish them in the copy). A SQLite destination is
//! written under a temporary name and renamed when complete; a PostgreSQL one is removed
//! again if the copy fails.

use std::collections::HashMap;

use antichess_core::Move;

use crate::book::Book;
use crate::error::{BookError, Result};
use crate::node::same_position;
use crate::node::{Node, NodeId};
use crate::store::{create_store, next_counter, open_store, redact, remove_store, Location, Store};
use crate::tree::{propagate_up, recompute, settle, Changes};

/// Children of every node of a list, by parent id.
fn children_map(nodes: &[Node]) -> HashMap<NodeId, Vec<&Node>> {
    let mut map: HashMap<NodeId, Vec<&Node>> = HashMap::new();
    for n in nodes {
        if let Some(p) = n.parent {
            map.entry(p).or_default().push(n);
        }
    }
    map
}

/// The nodes of the subtree at `top`, parents before children.
fn subtree<'a>(top: &'a Node, children: &HashMap<NodeId, Vec<&'a Node>>) -> Vec<&'a Node> {
    let mut out = vec![top];
    let mut i = 0;
    while i < out.len() {
        if let Some(kids) = children.get(&out[i].id) {
            out.extend(kids.iter().copied());
        }
        i += 1;
    }
    out
}

/// Cuts the subtree at `id` into a new book at `out`; returns the number of nodes copied.
/// A SQLite book is written under a temporary name and renamed when complete; a
/// PostgreSQL book is removed again if the export fails.
pub fn export(book: &mut Book, id: NodeId, out: &str) -> Result<u64> {
    match Location::parse(out) {
        Location::Sqlite(path) => {
            with_temporary_file(&path, out, |tmp_location| export_to(book, id, tmp_location))
        }
        Location::Postgres(_) => {
            if open_store(out).is_ok() {
                return Err(BookError::Exists(redact(out)));
            }
            removing_on_error(out, export_to(book, id, out))
        }
    }
}

/// Runs `write` on a temporary SQLite file beside `path` and renames it to `path` when it
/// succeeds; removes it when it fails.
fn with_temporary_file<T>(
    path: &std::path::Path,
    out: &str,
    write: impl FnOnce(&str) -> Result<T>,
) -> Result<T> {
    if std::fs::symlink_metadata(path).is_ok() && antichess_io::check_target(path).is_ok() {
        return Err(BookError::Exists(out.to_string()));
    }
    // A temporary name beside `path` (refused if `path` is a symbolic link, a directory, a
    // device...), renamed over it by `antichess_io` once complete.
    let io = |context: String| move |source: std::io::Error| BookError::Io { context, source };
    let tmp = antichess_io::temp_path(path).map_err(io(format!("writing {out}")))?;
    let tmp_location = tmp.display().to_string();
    let written = write(&tmp_location);
    let result = written.and_then(|n| {
        antichess_io::commit_temp(&tmp, path)
            .map(|()| n)
            .map_err(io(format!("renaming {} to {out}", tmp.display())))
    });
    if result.is_err() {
        let _ = remove_store(&tmp_location);
    }
    result
}

/// A PostgreSQL book written by a failed export or copy is removed again (but not one
/// that was there before: that failure is [`BookError::Exists`]).
fn removing_on_error<T>(out: &str, result: Result<T>) -> Result<T> {
    if let Err(e) = &result {
        if !matches!(e, BookError::Exists(_)) {
            let _ = remove_store(out);
        }
    }
    result
}

fn export_to(book: &mut Book, id: NodeId, out: &str) -> Result<u64> {
    let line = book.line_to(id)?;
    let top = book.node(id)?;
    let pos = book.position(&top)?;
    let prover = book.meta().prover;
    let mut prolog = book.meta().prolog.clone();
    let from_start = !prolog.is_empty()
        || book
            .root_position()
            .same_position(&antichess_core::Position::start(book.meta().rules));
    if from_start {
        prolog.extend(line.iter().copied());
    } else {
        prolog.clear();
    }
    let nodes = book.all_nodes()?;
    let children = children_map(&nodes);
    let list = subtree(&top, &children);
    let mut sub = Book::create(out, &pos, prover, &prolog)?;
    let sub_root = sub.root_id();
    let ucis: Vec<String> = line.iter().map(|m| m.to_uci()).collect();
    let inside: HashMap<NodeId, ()> = list.iter().map(|n| (n.id, ())).collect();
    let mut txn = sub.store().write()?;
    txn.set_meta("cut_from", &ucis.join(" "))?;
    let mut map: HashMap<NodeId, NodeId> = HashMap::new();
    let mut max_seq = 0;
    for n in &list {
        let mut copy = (*n).clone();
        copy.claimed_by = None;
        copy.lease_until = None;
        copy.depth -= top.depth;
        if let Some(s) = copy.win_seq {
            max_seq = max_seq.max(s);
        }
        if copy.same_as.is_some_and(|t| !inside.contains_key(&t)) {
            copy.same_as = None;
        }
        if n.id == top.id {
            copy.id = sub_root;
            copy.parent = None;
            copy.uci = None;
            txn.update_node(&copy)?;
            map.insert(n.id, sub_root);
        } else {
            copy.parent = Some(map[&n.parent.expect("inside the subtree")]);
            let new_id = txn.insert_node(&copy)?;
            map.insert(n.id, new_id);
        }
    }
    // Transpositions inside the cut point to the copies.
    for n in &list {
        if let Some(t) = n.same_as.filter(|t| inside.contains_key(t)) {
            let mut copy = txn.node(map[&n.id])?.expect("just written");
            copy.same_as = Some(map[&t]);
            txn.update_node(&copy)?;
        }
    }
    txn.set_meta("win_seq", &max_seq.to_string())?;
    txn.commit()?;
    // Closing the last connection folds the WAL into the file, so it can be renamed.
    drop(sub);
    Ok(list.len() as u64)
}

/// What `import` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportReport {
    pub added: u64,
    pub updated: u64,
    pub kept: u64,
}

/// Whether an imported node knows more than the book's own.
fn knows_more(imported: &Node, own: &Node) -> bool {
    if own.status.is_proven() {
        return false;
    }
    imported.status.is_proven()
        || (imported.expanded && !own.expanded)
        || (imported.expanded == own.expanded && imported.searches > own.searches)
}

/// Splices the book at `sub_location` into `book` at the node reached by `at` from the
/// root (default: where it was cut from).
pub fn import(book: &mut Book, sub_location: &str, at: Option<&[Move]>) -> Result<ImportReport> {
    let mut sub = Book::open(sub_location)?;
    if sub.meta().rules != book.meta().rules {
        return Err(BookError::Mismatch(format!(
            "{sub_location} is a book of {} rules, {} of {} rules",
            sub.meta().rules,
            book.location(),
            book.meta().rules
        )));
    }
    if sub.meta().prover != book.meta().prover {
        return Err(BookError::Mismatch(format!(
            "{sub_location} proves a win for {}, {} for {}",
            sub.meta().prover,
            book.location(),
            book.meta().prover
        )));
    }
    let line: Vec<Move> = match at {
        Some(moves) => moves.to_vec(),
        None => {
            let cut = sub.meta().cut_from.clone().ok_or_else(|| {
                BookError::Input(format!(
                    "{sub_location} was not cut from a book; say where it goes with --moves"
                ))
            })?;
            crate::book::parse_uci_line(book.root_position(), &cut.join(" "))
                .map_err(|e| BookError::Input(format!("{sub_location} does not fit: {e}")))?
        }
    };
    let target = book.find(&line)?;
    if !same_position(&target.fen, &sub.meta().root_fen) {
        return Err(BookError::Mismatch(format!(
            "{sub_location} is rooted at {}, but the node there is {}",
            sub.meta().root_fen,
            target.fen
        )));
    }
    let sub_nodes = sub.all_nodes()?;
    drop(sub);
    let sub_children = children_map(&sub_nodes);
    let sub_top = sub_nodes
        .iter()
        .find(|n| n.parent.is_none())
        .ok_or_else(|| BookError::Corrupt(format!("{sub_location} has no root")))?;
    let list = subtree(sub_top, &sub_children);
    let mut report = ImportReport::default();
    let mut map: HashMap<NodeId, NodeId> = HashMap::new();
    let mut txn = book.store().write()?;
    // Imported wins get new win_seq values in their old order, after the book's own.
    let mut seqs: Vec<(i64, NodeId)> = list
        .iter()
        .filter_map(|n| n.win_seq.map(|s| (s, n.id)))
        .collect();
    seqs.sort_unstable();
    let mut new_seq: HashMap<NodeId, i64> = HashMap::new();
    for (_, id) in &seqs {
        new_seq.insert(*id, next_counter(&mut *txn, "win_seq")?);
    }
    let mut touched: Vec<(u32, NodeId)> = Vec::new();
    for n in &list {
        let own = if n.id == sub_top.id {
            Some(target.clone())
        } else {
            let parent = map[&n.parent.expect("inside")];
            let found = txn.children(parent)?.into_iter().find(|c| c.uci == n.uci);
            // Read it again by id: a store may lock the row that way, so that a claim
            // taken meanwhile is seen and kept (see `crate::store::postgres`).
            match found {
                Some(c) => txn.node(c.id)?,
                None => None,
            }
        };
        let mut copy = (*n).clone();
        copy.claimed_by = None;
        copy.lease_until = None;
        copy.same_as = None;
        copy.win_seq = new_seq.get(&n.id).copied();
        match own {
            Some(own) => {
                map.insert(n.id, own.id);
                if knows_more(n, &own) {
                    copy.id = own.id;
                    copy.parent = own.parent;
                    copy.uci = own.uci.clone();
                    copy.depth = own.depth;
                    copy.fen = own.fen.clone();
                    copy.claimed_by = own.claimed_by.clone();
                    copy.lease_until = own.lease_until;
                    copy.expanded |= own.expanded;
                    txn.update_node(&copy)?;
                    report.updated += 1;
                } else {
                    report.kept += 1;
                }
                touched.push((own.depth, own.id));
            }
            None => {
                let parent = map[&n.parent.expect("inside")];
                let parent_node = txn.node(parent)?.expect("mapped");
                copy.parent = Some(parent);
                copy.depth = parent_node.depth + 1;
                let id = txn.insert_node(&copy)?;
                map.insert(n.id, id);
                report.added += 1;
                touched.push((copy.depth, id));
            }
        }
    }
    for n in &list {
        if let Some(t) = n.same_as.and_then(|t| map.get(&t)) {
            let mut node = txn.node(map[&n.id])?.expect("mapped");
            if node.same_as.is_none() && node.status.is_win() && node.id != *t {
                node.same_as = Some(*t);
                txn.update_node(&node)?;
            }
        }
    }
    // Minimax again, deepest first, then up from the target.
    touched.sort_unstable_by(|a, b| b.cmp(a));
    let mut changes = Changes::default();
    for (_, id) in &touched {
        let mut node = txn.node(*id)?.expect("touched");
        if recompute(&mut *txn, &mut node, &mut changes)? {
            txn.update_node(&node)?;
        }
        if node.status == crate::node::Status::Win && node.same_as.is_none() {
            changes.won.push(node.id);
        }
    }
    propagate_up(&mut *txn, target.parent, &mut changes)?;
    settle(&mut *txn, &mut changes)?;
    txn.commit()?;
    Ok(report)
}

/// What [`copy_book`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CopyReport {
    pub nodes: u64,
    pub searches: u64,
    pub queued: u64,
    pub meta: u64,
}

/// Rows per page of a copy.
const COPY_PAGE: u32 = 10_000;

/// Copies the whole book at `src` to a new book at `dst` (any two stores: SQLite and
/// PostgreSQL in either direction). `progress` gets (rows copied, rows in all) after each
/// page. Fails if `dst` already holds a book.
pub fn copy_book(src: &str, dst: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<CopyReport> {
    // The source must be a readable book of this version (rules, root, prover).
    drop(Book::open(src)?);
    let mut source = open_store(src)?;
    match Location::parse(dst) {
        Location::Sqlite(path) => with_temporary_file(&path, dst, |tmp| {
            let mut target = create_store(tmp)?;
            copy_into(&mut *source, &mut *target, progress)
        }),
        Location::Postgres(_) => {
            let mut target = create_store(dst)?;
            let copied = copy_into(&mut *source, &mut *target, progress);
            drop(target);
            removing_on_error(dst, copied)
        }
    }
}

fn copy_into(
    source: &mut dyn Store,
    target: &mut dyn Store,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<CopyReport> {
    let mut from = source.read()?;
    let now = from.clock_ms()?;
    let counts = from.counts(now)?;
    let total = counts.nodes + counts.searches + counts.queued;
    let mut report = CopyReport::default();
    let mut to = target.write()?;
    to.bulk_begin()?;
    for (name, value) in from.all_meta()? {
        if name != "format" && name != "version" {
            to.set_meta(&name, &value)?;
            report.meta += 1;
        }
    }
    let mut after = NodeId::MIN;
    loop {
        let mut page = from.nodes_page(after, COPY_PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for n in &mut page {
            n.claimed_by = None;
            n.lease_until = None;
        }
        to.load_nodes(&page)?;
        report.nodes += page.len() as u64;
        progress(report.nodes, total);
    }
    let queue = from.queue()?;
    to.load_queue(&queue)?;
    report.queued = queue.len() as u64;
    let mut after = i64::MIN;
    loop {
        let page = from.search_log_page(after, COPY_PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        to.load_search_log(&page)?;
        report.searches += page.len() as u64;
        progress(report.nodes + report.queued + report.searches, total);
    }
    to.bulk_end()?;
    to.commit()?;
    drop(from);
    Ok(report)
}
