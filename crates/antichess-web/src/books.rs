//! Books opened by the server ([`BookHandle`]): reading nodes for the explorer and the
//! search page, and steering (queue, pin, marks) through `antichess-book`'s API.
//!
//! Nothing about a book is cached except its metadata: every request reads the book in a
//! fresh snapshot ([`BookView`]; open books, with their connections, are pooled), so the
//! pages see what `antichess book grow` processes write meanwhile, and writes go through
//! [`Book`]'s transactions, which serialise with theirs. Navigation (a node by its line,
//! the line to a node, the pin) is `antichess-book`'s. All methods block: the handlers
//! call them on Tokio's blocking threads.
//!
//! **The root's numbers over time.** A book stores no history of its root's numbers (only
//! the search log: when each search started and ended, its positions and result). The
//! server therefore samples the root (numbers, status, counts) every few seconds while it
//! runs ([`BookHandle::sample`]), and derives from the search log the history it does
//! hold: searches finished, positions searched and results over the whole life of the
//! book ([`BookHandle::history`] returns both).

use std::collections::HashMap;
use std::sync::Mutex;

use antichess_book::{
    Book, BookError, BookMeta, BookView, Location, Node, NodeId, Reached, SearchLog, INF,
};
use antichess_core::{pgn, Position, UciMove};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};
use crate::line::Line;

/// How many root samples are kept (older ones are thinned out, every other one dropped).
pub const MAX_SAMPLES: usize = 4096;

/// How many points the search-log history is reduced to.
const LOG_POINTS: usize = 400;

/// A proof or disproof number as JSON: a number, or `"inf"`.
#[must_use]
pub fn number(n: u32) -> Value {
    if n == INF {
        json!("inf")
    } else {
        json!(n)
    }
}

/// The ratio disproof / proof (the prover's view) as JSON: `"inf"` when won.
#[must_use]
pub fn ratio(proof: u32, disproof: u32) -> Value {
    if proof == 0 || disproof == INF {
        json!("inf")
    } else {
        json!(f64::from(disproof) / f64::from(proof))
    }
}

/// A node as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct NodeJson {
    pub id: NodeId,
    /// The move from the parent (UCI, SAN); `null` at the root.
    pub uci: Option<String>,
    pub san: Option<String>,
    pub fen: String,
    /// Plies from the book's root.
    pub depth: u32,
    pub prover_to_move: bool,
    /// `unknown`, `win`, `loss`, `marked win`, `marked loss` (the prover's view).
    pub status: &'static str,
    pub proof: Value,
    pub disproof: Value,
    pub ratio: Value,
    /// Estimated subtree size (positions searched).
    pub size: u64,
    pub searches: u32,
    pub expanded: bool,
    pub marked: bool,
    /// A transposition: the won node this one defers to.
    pub transposition_of: Option<NodeId>,
    /// The worker searching this leaf now (under a valid lease).
    pub claimed_by: Option<String>,
}

impl NodeJson {
    /// `parent`: the parent's position, to write the move in SAN.
    #[must_use]
    pub fn of(node: &Node, parent: Option<&Position>, now: i64) -> NodeJson {
        let san = match (parent, &node.uci) {
            (Some(pos), Some(uci)) => UciMove::parse(uci)
                .and_then(|m| m.to_move(pos, uci))
                .ok()
                .map(|m| pos.san(m)),
            _ => None,
        };
        NodeJson {
            id: node.id,
            uci: node.uci.clone(),
            san,
            fen: node.fen.clone(),
            depth: node.depth,
            prover_to_move: node.prover_to_move,
            status: node.status.name(),
            proof: number(node.proof),
            disproof: number(node.disproof),
            ratio: ratio(node.proof, node.disproof),
            size: node.size,
            searches: node.searches,
            expanded: node.expanded,
            marked: node.marked,
            transposition_of: node.same_as,
            claimed_by: if node.is_leased(now) {
                node.claimed_by.clone()
            } else {
                None
            },
        }
    }
}

/// The line from a book's root to a node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeLine {
    pub node: NodeId,
    /// Moves from the book's root, UCI space-separated and as movetext.
    pub line_uci: String,
    pub line_san: String,
}

/// One sample of the root.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub t_ms: i64,
    pub proof: Value,
    pub disproof: Value,
    pub status: &'static str,
    pub nodes: u64,
    pub open_leaves: u64,
    pub won: u64,
    pub lost: u64,
    pub searches: u64,
}

/// One point of the history derived from the search log (cumulative up to `t_ms`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LogPoint {
    pub t_ms: i64,
    /// Searches finished.
    pub searches: u64,
    /// Positions searched by them.
    pub positions: u64,
    pub proved: u64,
    pub disproved: u64,
}

/// A node found for an explorer position.
#[derive(Debug, Clone)]
pub struct Found {
    pub node: Node,
    /// `"line"`: the explorer's line passes through the book's root and follows the
    /// book's moves; `"position"`: found by its position (another move order).
    pub how: &'static str,
}

/// Why no node was found for a position (for the explorer's note).
#[derive(Debug, Clone)]
pub enum NotFound {
    /// The line leaves the book below this leaf.
    BelowLeaf(Node),
    /// Neither the line nor the position is in the book.
    Absent,
}

/// What [`BookHandle::explore`] finds: the node of the position (or why there is none),
/// its children by UCI, and the store's clock.
pub type Explored = (Result<Found, NotFound>, HashMap<String, Node>, i64);

/// A book the server has open.
pub struct BookHandle {
    /// The name pages and URLs use (the file stem, made unique).
    pub name: String,
    /// As given (a database URL may hold a password: show [`display_location`]).
    pub location: String,
    pub meta: BookMeta,
    root: Position,
    /// Open books (each with its connection), reused by requests.
    pool: Mutex<Vec<Book>>,
    samples: Mutex<Vec<Sample>>,
}

impl std::fmt::Debug for BookHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookHandle")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish()
    }
}

/// A location as pages may show it: a database URL's password replaced by `***`.
#[must_use]
pub fn display_location(location: &str) -> String {
    antichess_book::redact(location)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl BookHandle {
    /// Opens a book (checking that it is one) under the name `name`.
    pub fn open(name: String, location: &str) -> Result<BookHandle, BookError> {
        let book = Book::open(location)?;
        let meta = book.meta().clone();
        let root = *book.root_position();
        drop(book);
        Ok(BookHandle {
            name,
            location: location.to_string(),
            meta,
            root,
            pool: Mutex::new(Vec::new()),
            samples: Mutex::new(Vec::new()),
        })
    }

    /// Where the book is, as answers show it: a SQLite book by its file's name (never its
    /// directory), a PostgreSQL book by its database's name.
    #[must_use]
    pub fn public_location(&self) -> String {
        match Location::parse(&self.location) {
            Location::Sqlite(path) => path
                .file_name()
                .map_or_else(|| self.name.clone(), |n| n.to_string_lossy().into_owned()),
            #[allow(unreachable_patterns)]
            _ => format!("{} (PostgreSQL)", self.name),
        }
    }

    /// The root position.
    #[must_use]
    pub fn root_position(&self) -> &Position {
        &self.root
    }

    /// Runs `f` on a pooled open book (opened if none is free); the book goes back to the
    /// pool if `f` succeeds.
    fn with_book<T>(&self, f: impl FnOnce(&mut Book) -> Result<T, BookError>) -> ApiResult<T> {
        let pooled = lock(&self.pool).pop();
        let mut book = match pooled {
            Some(book) => book,
            None => Book::open(&self.location)?,
        };
        let result = f(&mut book);
        if result.is_ok() {
            let mut pool = lock(&self.pool);
            if pool.len() < 8 {
                pool.push(book);
            }
        }
        Ok(result?)
    }

    /// Runs `f` on a snapshot of the book.
    pub fn read<T>(
        &self,
        f: impl FnOnce(&mut BookView<'_>) -> Result<T, BookError>,
    ) -> ApiResult<T> {
        self.with_book(|book| f(&mut book.view()?))
    }

    fn node_line(&self, view: &mut BookView<'_>, id: NodeId) -> Result<NodeLine, BookError> {
        let moves = view.line_to(id)?;
        Ok(NodeLine {
            node: id,
            line_uci: moves
                .iter()
                .map(|m| m.to_uci())
                .collect::<Vec<_>>()
                .join(" "),
            line_san: pgn::format_moves(&self.root, &moves),
        })
    }

    /// The node of an explorer position: by the line when it passes through the root,
    /// else by the position.
    fn find_in(
        &self,
        view: &mut BookView<'_>,
        line: &Line,
    ) -> Result<Result<Found, NotFound>, BookError> {
        if let Some(k) = line
            .positions
            .iter()
            .rposition(|p| p.same_position(&self.root))
        {
            let leaf = match view.follow(&line.moves()[k..])? {
                Reached::Node(node) => return Ok(Ok(Found { node, how: "line" })),
                Reached::Leaves { leaf, .. } => leaf,
            };
            // The line leaves the book; the position may still be in it elsewhere.
            if let Some(found) = self.find_position(view, line.position())? {
                return Ok(Ok(found));
            }
            return Ok(Err(NotFound::BelowLeaf(leaf)));
        }
        Ok(self
            .find_position(view, line.position())?
            .ok_or(NotFound::Absent))
    }

    fn find_position(
        &self,
        view: &mut BookView<'_>,
        pos: &Position,
    ) -> Result<Option<Found>, BookError> {
        let rules = self.meta.rules;
        let best = view
            .nodes_with_key(pos.key())?
            .into_iter()
            .filter(|n| n.position(rules).is_ok_and(|p| p.same_position(pos)))
            .max_by_key(|n| (n.expanded, n.searches, std::cmp::Reverse(n.id)));
        Ok(best.map(|node| Found {
            node,
            how: "position",
        }))
    }

    /// The node of an explorer position, its children (by UCI) and the store's clock
    /// (which tells whose leases are valid).
    pub fn explore(&self, line: &Line) -> ApiResult<Explored> {
        self.read(|view| {
            let now = view.clock_ms()?;
            let found = self.find_in(view, line)?;
            let mut children = HashMap::new();
            if let Ok(f) = &found {
                for c in view.children(f.node.id)? {
                    if let Some(uci) = c.uci.clone() {
                        children.insert(uci, c);
                    }
                }
            }
            Ok((found, children, now))
        })
    }

    /// A node by id, or the node of an explorer position (404 if not in the book).
    pub fn resolve(&self, id: Option<NodeId>, line: Option<&Line>) -> ApiResult<Node> {
        match (id, line) {
            (Some(id), _) => self
                .read(|view| view.node(id))?
                .ok_or_else(|| ApiError::not_found(format!("there is no node {id} in book {}", self.name))),
            (None, Some(line)) => match self.read(|view| self.find_in(view, line))? {
                Ok(found) => Ok(found.node),
                Err(NotFound::BelowLeaf(leaf)) => Err(ApiError::not_found(format!(
                    "the position is not in book {}: the line leaves it below leaf node {} (queue that leaf to search it)",
                    self.name, leaf.id
                ))),
                Err(NotFound::Absent) => Err(ApiError::not_found(format!(
                    "the position is not in book {} (its root is {})",
                    self.name, self.meta.root_fen
                ))),
            },
            (None, None) => Err(ApiError::bad_request(
                "name the node: give its id, or a position (fen and/or moves)",
            )),
        }
    }

    /// A node with its line and children.
    pub fn node_detail(&self, id: NodeId) -> ApiResult<Value> {
        let rules = self.meta.rules;
        self.read(|view| {
            let now = view.clock_ms()?;
            let node = view
                .node(id)?
                .ok_or_else(|| BookError::Input(format!("there is no node {id}")))?;
            let line = self.node_line(view, id)?;
            let parent_pos = match node.parent {
                Some(p) => view.node(p)?.map(|p| p.position(rules)).transpose()?,
                None => None,
            };
            let pos = node.position(rules)?;
            let children: Vec<NodeJson> = view
                .children(id)?
                .iter()
                .map(|c| NodeJson::of(c, Some(&pos), now))
                .collect();
            Ok(json!({
                "node": NodeJson::of(&node, parent_pos.as_ref(), now),
                "line": line,
                "children": children,
            }))
        })
    }

    /// The search page's summary: root, counts, pin, queue, workers and recent searches.
    pub fn summary(&self) -> ApiResult<Value> {
        self.read(|view| {
            let now = view.clock_ms()?;
            let root = view.root()?;
            let counts = view.counts(now)?;
            let pin = match view.pinned()? {
                Some(id) => Some(self.node_line(view, id)?),
                None => None,
            };
            let mut queue = Vec::new();
            for entry in view.queue()? {
                let node = view.node(entry.node)?;
                let line = self.node_line(view, entry.node)?;
                queue.push(json!({
                    "entry": entry.id,
                    "added_ms": entry.added_ms,
                    "line": line,
                    "status": node.as_ref().map(|n| n.status.name()),
                    "expanded": node.as_ref().map(|n| n.expanded),
                }));
            }
            let claims = view.claims()?;
            let log = if claims.is_empty() {
                Vec::new()
            } else {
                view.search_log()?
            };
            let mut workers = Vec::new();
            for (id, worker, lease_until) in claims {
                if lease_until <= now {
                    continue;
                }
                let started = log
                    .iter()
                    .rev()
                    .find(|l| l.node == id && l.worker == worker && l.finished_ms.is_none())
                    .map(|l| l.started_ms);
                let node = view.node(id)?;
                workers.push(json!({
                    "worker": worker,
                    "line": self.node_line(view, id)?,
                    "fen": node.as_ref().map(|n| n.fen.clone()),
                    "started_ms": started,
                    "lease_until_ms": lease_until,
                }));
            }
            Ok(json!({
                "name": self.name,
                "location": self.public_location(),
                "rules": self.meta.rules.to_string(),
                "prover": self.meta.prover.name(),
                "root_fen": self.meta.root_fen,
                "prolog_uci": self.meta.prolog.iter().map(|m| m.to_uci()).collect::<Vec<_>>().join(" "),
                "prolog_san": pgn::format_moves(&Position::start(self.meta.rules), &self.meta.prolog),
                "root": NodeJson::of(&root, None, now),
                "counts": counts,
                "pin": pin,
                "queue": queue,
                "workers": workers,
                "now_ms": now,
            }))
        })
    }

    /// Reads the root and the counts and keeps them as a sample.
    pub fn sample(&self) -> ApiResult<()> {
        let (now, root, counts) = self.read(|view| {
            let now = view.clock_ms()?;
            let root = view.root()?;
            Ok((now, root, view.counts(now)?))
        })?;
        let sample = Sample {
            t_ms: now,
            proof: number(root.proof),
            disproof: number(root.disproof),
            status: root.status.name(),
            nodes: counts.nodes,
            open_leaves: counts.open_leaves,
            won: counts.won,
            lost: counts.lost,
            searches: counts.searches,
        };
        let mut samples = lock(&self.samples);
        if samples.len() >= MAX_SAMPLES {
            // Keep every other sample and the last one.
            let last = samples.pop();
            let kept: Vec<Sample> = samples.drain(..).step_by(2).collect();
            *samples = kept;
            samples.extend(last);
        }
        samples.push(sample);
        Ok(())
    }

    /// The root's samples taken while the server ran, and the history of searches from
    /// the book's search log.
    pub fn history(&self) -> ApiResult<Value> {
        let (log, now) = self.read(|view| Ok((view.search_log()?, view.clock_ms()?)))?;
        let samples = lock(&self.samples).clone();
        Ok(json!({
            "samples": samples,
            "log": log_history(&log, now),
            "recent": self.recent(&log)?,
        }))
    }

    /// The last finished searches, newest first.
    fn recent(&self, log: &[SearchLog]) -> ApiResult<Vec<Value>> {
        let mut finished: Vec<&SearchLog> =
            log.iter().filter(|l| l.finished_ms.is_some()).collect();
        finished.sort_by_key(|l| std::cmp::Reverse(l.end_seq));
        finished.truncate(12);
        self.read(|view| {
            finished
                .iter()
                .map(|l| {
                    Ok(json!({
                        "worker": l.worker,
                        "line": self.node_line(view, l.node)?,
                        "started_ms": l.started_ms,
                        "finished_ms": l.finished_ms,
                        "positions": l.nodes,
                        "result": l.result,
                    }))
                })
                .collect()
        })
    }

    /// Queues a node.
    pub fn queue_push(&self, id: NodeId) -> ApiResult<()> {
        self.with_book(|book| book.queue_push(id))
    }

    /// Empties the queue.
    pub fn queue_clear(&self) -> ApiResult<()> {
        self.with_book(Book::queue_clear)
    }

    /// Pins the walk's start (or clears the pin).
    pub fn pin(&self, id: Option<NodeId>) -> ApiResult<()> {
        self.with_book(|book| book.pin(id))
    }

    /// Marks a node (win, loss, or `None`: removes the mark). Returns the node and the
    /// root after the change.
    /// Marks a node; returns it, the root and the store's clock.
    pub fn mark(&self, id: NodeId, win: Option<bool>) -> ApiResult<(Node, Node, i64)> {
        self.with_book(|book| {
            let node = book.mark(id, win)?;
            let root = book.root()?;
            Ok((node, root, book.clock_ms()?))
        })
    }
}

/// The search log reduced to at most 400 cumulative points.
#[must_use]
pub fn log_history(log: &[SearchLog], now: i64) -> Vec<LogPoint> {
    let mut finished: Vec<&SearchLog> = log.iter().filter(|l| l.finished_ms.is_some()).collect();
    finished.sort_by_key(|l| l.finished_ms);
    let Some(first) = log.iter().map(|l| l.started_ms).min() else {
        return Vec::new();
    };
    let last = finished
        .last()
        .and_then(|l| l.finished_ms)
        .unwrap_or(now)
        .max(first + 1);
    let step = ((last - first) / LOG_POINTS as i64).max(1);
    let mut out = vec![LogPoint {
        t_ms: first,
        searches: 0,
        positions: 0,
        proved: 0,
        disproved: 0,
    }];
    let mut acc = out[0];
    let mut next_t = first + step;
    for l in finished {
        let t = l.finished_ms.unwrap_or(first);
        while t > next_t {
            acc.t_ms = next_t;
            if out.last().is_some_and(|p| p.searches != acc.searches) {
                out.push(acc);
            }
            next_t += step;
        }
        acc.searches += 1;
        acc.positions = acc.positions.saturating_add(l.nodes.unwrap_or(0));
        match l.result.as_deref() {
            Some("proved") => acc.proved += 1,
            Some("disproved") => acc.disproved += 1,
            _ => {}
        }
    }
    acc.t_ms = last;
    out.push(acc);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            display_location("postgres://me:secret@db.example:5432/books?sslmode=disable"),
            "postgres://me:***@db.example:5432/books?sslmode=disable"
        );
        assert_eq!(
            display_location("postgres://me@db/books"),
            "postgres://me@db/books"
        );
        assert_eq!(display_location("/tmp/a.book"), "/tmp/a.book");
    }

    #[test]
    fn log_history_is_cumulative() {
        let log: Vec<SearchLog> = (0..10)
            .map(|i| SearchLog {
                id: i,
                node: i,
                worker: "w".into(),
                started_ms: 1000 + i * 100,
                start_seq: i,
                finished_ms: Some(1050 + i * 100),
                end_seq: Some(i + 1),
                nodes: Some(10),
                result: Some(if i % 2 == 0 { "proved" } else { "unknown" }.into()),
            })
            .collect();
        let points = log_history(&log, 5000);
        let last = points.last().unwrap();
        assert_eq!((last.searches, last.positions, last.proved), (10, 100, 5));
        assert!(points
            .windows(2)
            .all(|w| w[0].searches <= w[1].searches && w[0].t_ms <= w[1].t_ms));
        assert!(log_history(&[], 5000).is_empty());
    }
}
