//! [`Book`]: an open book — its metadata (root, prover, rules, the moves that led to the
//! root), navigation (through [`crate::nav`]), a person's steering: the queue, the pin,
//! marks, and the check of a book (the store's integrity, then the structure). Workers ([`crate::grow`]) and proof assembly ([`crate::prove`]) build on it.

use antichess_core::{Color, Move, Position, Rules, UciMove};

use crate::error::{BookError, Result};
use crate::nav::{BookView, Reached};
use crate::node::same_position;
use crate::node::{Node, NodeId, Status};
use crate::store::{
    create_store, open_store, open_store_read_only, redact, BookCounts, Integrity, QueueEntry,
    SearchLog, Store,
};
use crate::tree::{decide_leaf, propagate_up, recompute, settle, Changes};

/// What a book is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMeta {
    pub rules: Rules,
    /// The side whose win the book is to prove.
    pub prover: Color,
    /// The root position.
    pub root_fen: String,
    /// Moves from the standard start position to the root, if the root was given that way
    /// (empty otherwise).
    pub prolog: Vec<Move>,
    /// For a book cut from another (`book export`): the moves from that book's root to
    /// this one's, in UCI (where `book import` splices it back by default).
    pub cut_from: Option<Vec<String>>,
}

/// An open book.
pub struct Book {
    store: Box<dyn Store>,
    /// The location as the user gave it (for reports: [`Book::shown`]).
    given: String,
    meta: BookMeta,
    root: Position,
    root_id: NodeId,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("location", &self.store.location())
            .field("meta", &self.meta)
            .finish()
    }
}

/// Parses a space-separated UCI move list played from `start`.
pub(crate) fn parse_uci_line(start: &Position, text: &str) -> Result<Vec<Move>> {
    let mut pos = *start;
    let mut moves = Vec::new();
    for token in text.split_whitespace() {
        let mv = UciMove::parse(token)
            .and_then(|m| m.to_move(&pos, token))
            .map_err(|e| BookError::Corrupt(format!("move {token} of {text:?}: {e}")))?;
        pos = pos.play(mv);
        moves.push(mv);
    }
    Ok(moves)
}

impl Book {
    /// Creates a book at `location` rooted at `root` (reached from the start position by
    /// `prolog`, if known), to prove that `prover` wins.
    pub fn create(location: &str, root: &Position, prover: Color, prolog: &[Move]) -> Result<Book> {
        if root.legal_moves().is_empty() {
            return Err(BookError::Input(format!(
                "the game is over at the root ({}): there is nothing to search",
                root.fen()
            )));
        }
        let mut store = create_store(location)?;
        let mut txn = store.write()?;
        txn.set_meta("rules", &root.rules().to_string())?;
        txn.set_meta("prover", prover.name())?;
        txn.set_meta("root_fen", &root.fen())?;
        let prolog_text: Vec<String> = prolog.iter().map(|m| m.to_uci()).collect();
        txn.set_meta("prolog", &prolog_text.join(" "))?;
        let created = txn.clock_ms()?;
        txn.set_meta("created", &created.to_string())?;
        let node = Node::leaf(None, None, 0, root, root.turn() == prover, 1, 1, 0);
        txn.insert_node(&node)?;
        txn.commit()?;
        drop(store);
        Book::open(location)
    }

    /// Opens an existing book.
    pub fn open(location: &str) -> Result<Book> {
        Book::with_store(open_store(location)?, location)
    }

    /// Opens an existing book for reading only (see [`open_store_read_only`]): for
    /// showing and checking, also a book in a file or directory this user may not write.
    /// Its writing methods fail.
    pub fn open_read_only(location: &str) -> Result<Book> {
        Book::with_store(open_store_read_only(location)?, location)
    }

    /// Opens an existing book to write to it: as [`Book::open`], then the store's quick
    /// integrity check ([`Store::integrity`]); a damaged book is refused
    /// ([`BookError::Damaged`]) so that nothing is written on top of the damage.
    pub fn open_for_writing(location: &str) -> Result<Book> {
        let mut book = Book::open(location)?;
        let integrity = book.store.integrity(true)?;
        if !integrity.problems.is_empty() {
            return Err(BookError::Damaged {
                location: redact(location),
                problems: integrity.problems,
            });
        }
        Ok(book)
    }

    /// Runs `f` in a write transaction and commits it.
    pub(crate) fn write_txn<T>(
        &mut self,
        f: impl FnOnce(&mut dyn crate::store::Txn) -> Result<T>,
    ) -> Result<T> {
        let mut txn = self.store.write()?;
        let out = f(&mut *txn)?;
        txn.commit()?;
        Ok(out)
    }

    /// Runs `f` in a read transaction.
    pub(crate) fn read_txn<T>(
        &mut self,
        f: impl FnOnce(&mut dyn crate::store::Txn) -> Result<T>,
    ) -> Result<T> {
        let mut txn = self.store.read()?;
        f(&mut *txn)
    }

    /// The store's own integrity check (`quick`: the short form writers run).
    pub fn integrity(&mut self, quick: bool) -> Result<Integrity> {
        self.store.integrity(quick)
    }

    fn with_store(mut store: Box<dyn Store>, location: &str) -> Result<Book> {
        let mut txn = store.read()?;
        let get = |txn: &mut Box<dyn crate::store::Txn + '_>, name: &str| -> Result<String> {
            txn.meta(name)?.ok_or_else(|| BookError::NotABook {
                location: redact(location),
                reason: format!("the metadata entry {name} is missing"),
            })
        };
        let rules_text = get(&mut txn, "rules")?;
        let rules: Rules = rules_text
            .parse()
            .map_err(|e| BookError::Corrupt(format!("rules {rules_text:?}: {e}")))?;
        let prover_text = get(&mut txn, "prover")?;
        let prover = Color::from_name(&prover_text)
            .ok_or_else(|| BookError::Corrupt(format!("prover {prover_text:?}")))?;
        let root_fen = get(&mut txn, "root_fen")?;
        let root = Position::from_fen(&root_fen, rules)
            .map_err(|e| BookError::Corrupt(format!("root FEN {root_fen:?}: {e}")))?;
        let prolog_text = txn.meta("prolog")?.unwrap_or_default();
        let prolog = parse_uci_line(&Position::start(rules), &prolog_text)?;
        let cut_from = txn
            .meta("cut_from")?
            .map(|t| t.split_whitespace().map(str::to_string).collect());
        let root_node = txn.root()?.ok_or_else(|| BookError::NotABook {
            location: redact(location),
            reason: "it has no root node".into(),
        })?;
        drop(txn);
        Ok(Book {
            store,
            given: location.to_string(),
            meta: BookMeta {
                rules,
                prover,
                root_fen,
                prolog,
                cut_from,
            },
            root,
            root_id: root_node.id,
        })
    }

    #[must_use]
    pub fn meta(&self) -> &BookMeta {
        &self.meta
    }

    #[must_use]
    pub fn location(&self) -> &str {
        self.store.location()
    }

    /// The location as it was given to open the book, as it may be shown (a PostgreSQL
    /// URL's password replaced by `***`): what the reports name the book by.
    #[must_use]
    pub fn shown(&self) -> String {
        redact(&self.given)
    }

    /// The location as it was given to open the book (with a password, if any): to open
    /// it again.
    #[must_use]
    pub fn given_location(&self) -> &str {
        &self.given
    }

    #[must_use]
    pub fn root_position(&self) -> &Position {
        &self.root
    }

    #[must_use]
    pub fn root_id(&self) -> NodeId {
        self.root_id
    }

    /// The store, for the crate's other modules.
    pub(crate) fn store(&mut self) -> &mut dyn Store {
        &mut *self.store
    }

    /// A node by id.
    pub fn node(&mut self, id: NodeId) -> Result<Node> {
        self.store
            .read()?
            .node(id)?
            .ok_or_else(|| BookError::Input(format!("there is no node {id} in the book")))
    }

    /// The root node.
    pub fn root(&mut self) -> Result<Node> {
        self.node(self.root_id)
    }

    /// Every node of the position with Zobrist key `key` (and any other position sharing
    /// the key: compare the FEN).
    pub(crate) fn nodes_with_key(&mut self, key: u64) -> Result<Vec<Node>> {
        self.store.read()?.nodes_with_key(key)
    }

    /// A node's children (empty for a leaf).
    pub fn children(&mut self, id: NodeId) -> Result<Vec<Node>> {
        self.store.read()?.children(id)
    }

    /// A read-only view of the book in one snapshot (a read transaction).
    pub fn view(&mut self) -> Result<BookView<'_>> {
        Ok(BookView::new(self.store.read()?, self.root))
    }

    /// The node reached by `moves` from the root.
    pub fn find(&mut self, moves: &[Move]) -> Result<Node> {
        match crate::nav::follow(&mut *self.store.read()?, moves)? {
            Reached::Node(node) => Ok(node),
            Reached::Leaves { leaf, ply } => {
                let mut pos = self.root;
                for &mv in &moves[..ply] {
                    pos = pos.play(mv);
                }
                Err(BookError::Input(format!(
                    "{} (ply {} from the book's root) is not in the book: the book ends at the position before it (a leaf{})",
                    pos.san(moves[ply]),
                    ply + 1,
                    if leaf.is_open() { "; queue it to search it" } else { ", already decided" }
                )))
            }
        }
    }

    /// The moves from the root to a node.
    pub fn line_to(&mut self, id: NodeId) -> Result<Vec<Move>> {
        crate::nav::line_to(&mut *self.store.read()?, &self.root, id)
    }

    /// The position of a node, with the clocks of its line.
    pub fn position(&self, node: &Node) -> Result<Position> {
        node.position(self.meta.rules)
    }

    pub fn counts(&mut self) -> Result<BookCounts> {
        let mut txn = self.store.read()?;
        let now = txn.clock_ms()?;
        txn.counts(now)
    }

    /// The store's clock (see [`Txn::clock_ms`]), which leases are measured on.
    pub fn clock_ms(&mut self) -> Result<i64> {
        self.store.read()?.clock_ms()
    }

    pub fn search_log(&mut self) -> Result<Vec<SearchLog>> {
        self.store.read()?.search_log()
    }

    /// The materials the book's searches met without a table, most positions first (see
    /// [`crate::tables`]).
    pub fn missing_tables(&mut self) -> Result<Vec<antichess_pns::MissingTable>> {
        crate::tables::missing_tables(&mut *self.store.read()?)
    }

    /// Every node of the book.
    pub fn all_nodes(&mut self) -> Result<Vec<Node>> {
        self.store.read()?.all_nodes()
    }

    /// Queues a node: workers search it (a leaf) or walk from it (an inner node) before
    /// the normal selection.
    pub fn queue_push(&mut self, id: NodeId) -> Result<()> {
        let node = self.node(id)?;
        if !node.is_open() {
            return Err(BookError::Input(format!(
                "the node is already decided ({}); there is nothing to search",
                node.status
            )));
        }
        let mut txn = self.store.write()?;
        let now = txn.clock_ms()?;
        txn.push_queue(id, now)?;
        txn.commit()
    }

    /// Queues the node at `moves` from the root, which may go beyond the book: the entry is
    /// then put on the open leaf where the book ends on the line and goes on along the rest
    /// of it as the book grows (`crate::queue`). Returns the entry's node and the moves
    /// still ahead of it. The moves must be legal; a line that meets a decided node is
    /// refused (nothing on it is left to search).
    pub fn queue_line(&mut self, moves: &[Move]) -> Result<(Node, Vec<Move>)> {
        let mut pos = self.root;
        for (ply, &mv) in moves.iter().enumerate() {
            if !pos.is_legal(mv) {
                return Err(BookError::Input(format!(
                    "{} (ply {} from the book's root) is not a legal move",
                    mv.to_uci(),
                    ply + 1
                )));
            }
            pos = pos.play(mv);
        }
        let ucis: Vec<String> = moves.iter().map(|m| m.to_uci()).collect();
        let mut txn = self.store.write()?;
        let now = txn.clock_ms()?;
        let root = txn
            .root()?
            .ok_or_else(|| BookError::Corrupt("the book has no root".into()))?;
        let Some((entry, node)) = crate::queue::queue_along(&mut *txn, root, &ucis, now)? else {
            return Err(BookError::Input(
                "the line reaches a node that is already decided; there is nothing to search"
                    .into(),
            ));
        };
        let ahead = crate::queue::line_of(&mut *txn, entry)?.len();
        txn.commit()?;
        let node = self.node(node)?;
        Ok((node, moves[moves.len() - ahead..].to_vec()))
    }

    pub fn queue(&mut self) -> Result<Vec<QueueEntry>> {
        self.store.read()?.queue()
    }

    /// The queue, each entry with the moves (UCI) its line still goes on along.
    pub fn queue_lines(&mut self) -> Result<Vec<(QueueEntry, Vec<String>)>> {
        let mut txn = self.store.read()?;
        let mut out = Vec::new();
        for entry in txn.queue()? {
            let line = crate::queue::line_of(&mut *txn, entry.id)?;
            out.push((entry, line));
        }
        Ok(out)
    }

    pub fn queue_clear(&mut self) -> Result<()> {
        let mut txn = self.store.write()?;
        for entry in txn.queue()? {
            crate::queue::drop_entry(&mut *txn, entry.id)?;
        }
        txn.clear_queue()?;
        txn.commit()
    }

    /// Pins the walk's start to a node (`None`: the root again).
    pub fn pin(&mut self, id: Option<NodeId>) -> Result<()> {
        let mut txn = self.store.write()?;
        crate::nav::set_pin(&mut *txn, id)?;
        txn.commit()
    }

    /// The pinned start of the walk, if any.
    pub fn pinned(&mut self) -> Result<Option<NodeId>> {
        crate::nav::pinned(&mut *self.store.read()?)
    }

    /// Marks a node as won (`Some(true)`) or lost (`Some(false)`) by a person's judgement,
    /// or removes the mark (`None`). Proven nodes cannot be marked.
    pub fn mark(&mut self, id: NodeId, win: Option<bool>) -> Result<Node> {
        let mut txn = self.store.write()?;
        let mut node = txn
            .node(id)?
            .ok_or_else(|| BookError::Input(format!("there is no node {id}")))?;
        if node.status.is_proven() {
            return Err(BookError::Input(format!(
                "the node is proven ({}); marks are for undecided positions",
                node.status
            )));
        }
        let mut changes = Changes::default();
        match win {
            Some(win) => {
                node.marked = true;
                let status = if win {
                    Status::MarkedWin
                } else {
                    Status::MarkedLoss
                };
                let (leaf_proof, leaf_disproof) = (node.leaf_proof, node.leaf_disproof);
                decide_leaf(&mut *txn, &mut node, status, &mut changes)?;
                // Keep the numbers of the last search for when the mark is removed.
                node.leaf_proof = leaf_proof;
                node.leaf_disproof = leaf_disproof;
                if !win {
                    node.win_seq = None;
                }
            }
            None => {
                if !node.marked {
                    return Err(BookError::Input("the node is not marked".into()));
                }
                node.marked = false;
                node.status = Status::Unknown;
                node.win_seq = None;
                if node.expanded {
                    node.proof = 1;
                    node.disproof = 1;
                    recompute(&mut *txn, &mut node, &mut changes)?;
                } else {
                    let status = crate::node::status_of(node.leaf_proof, node.leaf_disproof);
                    if status.is_decided() {
                        decide_leaf(&mut *txn, &mut node, status, &mut changes)?;
                    } else {
                        node.proof = node.leaf_proof;
                        node.disproof = node.leaf_disproof;
                    }
                }
            }
        }
        txn.update_node(&node)?;
        propagate_up(&mut *txn, node.parent, &mut changes)?;
        settle(&mut *txn, &mut changes)?;
        txn.commit()?;
        self.node(id)
    }

    /// Checks the book: first the store's own integrity check (the full form of
    /// [`Store::integrity`]: a damaged file is reported even where its rows still read
    /// well), then the structure: the parent links (no node its own parent, no cycle, no
    /// missing parent), no claim leased beyond [`crate::damage::MAX_LEASE`], every
    /// expanded node has exactly its legal moves as children, each child's position
    /// follows from its parent's, numbers agree with the minimax, transpositions point to
    /// won nodes of the same position. Returns what the integrity check covered and the
    /// problems found (none: the book is sound).
    pub fn check_all(&mut self) -> Result<(Integrity, Vec<String>)> {
        let integrity = self.store.integrity(false)?;
        let mut problems = integrity.problems.clone();
        match self.check() {
            Ok(found) => problems.extend(found),
            // Rows the integrity check already found damaged may not even read.
            Err(e) if !problems.is_empty() => problems.push(format!("reading the nodes: {e}")),
            Err(e) => return Err(e),
        }
        Ok((integrity, problems))
    }

    /// The structure part of [`Book::check_all`] (without the store's integrity check).
    pub fn check(&mut self) -> Result<Vec<String>> {
        let rules = self.meta.rules;
        let nodes = self.all_nodes()?;
        let mut problems = crate::damage::parent_problems(&nodes);
        {
            let mut txn = self.store.read()?;
            let now = txn.clock_ms()?;
            let claims = txn.claims()?;
            for (id, problem) in
                crate::damage::lease_problems(&claims, now, crate::damage::MAX_LEASE)
            {
                problems.push(format!(
                    "{}: {problem}",
                    crate::damage::describe(&mut *txn, &self.root, id)
                ));
            }
        }
        let by_id: std::collections::HashMap<NodeId, &Node> =
            nodes.iter().map(|n| (n.id, n)).collect();
        let mut children: std::collections::HashMap<NodeId, Vec<&Node>> = Default::default();
        for n in &nodes {
            if let Some(p) = n.parent {
                children.entry(p).or_default().push(n);
            }
        }
        let roots = nodes.iter().filter(|n| n.parent.is_none()).count();
        if roots != 1 {
            problems.push(format!("{roots} roots"));
        }
        for n in &nodes {
            let pos = match n.position(rules) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(e.to_string());
                    continue;
                }
            };
            if pos.key() != n.key {
                problems.push(format!("node {}: key does not match its FEN", n.id));
            }
            if (pos.turn() == self.meta.prover) != n.prover_to_move {
                problems.push(format!("node {}: wrong side to move", n.id));
            }
            let kids = children.get(&n.id).map(Vec::as_slice).unwrap_or(&[]);
            if n.expanded {
                check_children(n, &pos, kids, &mut problems);
            } else if !kids.is_empty() {
                problems.push(format!("node {}: a leaf with children", n.id));
            }
            check_links(n, &by_id, &mut problems);
        }
        Ok(problems)
    }
}

/// `book check`'s tests of an expanded node's children: they are the legal moves, their
/// positions follow, and the node's numbers are their minimax.
fn check_children(n: &Node, pos: &Position, kids: &[&Node], problems: &mut Vec<String>) {
    let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci()).collect();
    let mut have: Vec<String> = kids.iter().filter_map(|c| c.uci.clone()).collect();
    legal.sort();
    have.sort();
    if legal != have {
        problems.push(format!(
            "node {}: children {have:?} are not the legal moves {legal:?}",
            n.id
        ));
    }
    for c in kids {
        let ok = c
            .move_from(pos)
            .map(|m| same_position(&pos.play(m).fen(), &c.fen))
            .unwrap_or(false);
        if !ok {
            problems.push(format!("node {}: position does not follow its move", c.id));
        }
    }
    if n.same_as.is_none() && !n.status.is_proven() && !n.marked {
        let list: Vec<_> = kids
            .iter()
            .map(|c| (c.proof, c.disproof, c.status, c.size))
            .collect();
        let c = crate::node::combine(n.prover_to_move, &list);
        if (c.proof, c.disproof, c.status) != (n.proof, n.disproof, n.status) {
            let num = |v: u32| {
                if v == crate::node::INF {
                    "inf".to_string()
                } else {
                    v.to_string()
                }
            };
            problems.push(format!(
                "node {}: numbers {}/{} {} but its children give {}/{} {}",
                n.id,
                num(n.proof),
                num(n.disproof),
                n.status,
                num(c.proof),
                num(c.disproof),
                c.status
            ));
        }
    }
}

/// `book check`'s tests of a node's status, transposition and parent.
fn check_links(
    n: &Node,
    by_id: &std::collections::HashMap<NodeId, &Node>,
    problems: &mut Vec<String>,
) {
    if n.status
        .numbers()
        .is_some_and(|nums| nums != (n.proof, n.disproof))
    {
        problems.push(format!(
            "node {}: status {} with numbers {}/{}",
            n.id, n.status, n.proof, n.disproof
        ));
    }
    if n.status.is_win() && n.win_seq.is_none() {
        problems.push(format!("node {}: won without a win_seq", n.id));
    }
    if let Some(t) = n.same_as {
        match by_id.get(&t) {
            Some(t) if t.status == Status::Win && t.key == n.key => {
                if t.win_seq >= n.win_seq {
                    problems.push(format!("node {}: defers to node {} won later", n.id, t.id));
                }
            }
            _ => problems.push(format!("node {}: same_as {t} is not a won twin", n.id)),
        }
    }
    if let Some(p) = n.parent {
        match by_id.get(&p) {
            Some(p) if p.depth + 1 == n.depth => {}
            _ => problems.push(format!("node {}: bad parent or depth", n.id)),
        }
    }
}

/// Opens a book and checks that it has the rules a caller expects.
pub fn open_with_rules(location: &str, rules: Option<Rules>) -> Result<Book> {
    let book = Book::open(location)?;
    if let Some(rules) = rules {
        if book.meta.rules != rules {
            return Err(BookError::Mismatch(format!(
                "{} is a book of {} rules, not {rules}",
                redact(location),
                book.meta.rules
            )));
        }
    }
    Ok(book)
}
