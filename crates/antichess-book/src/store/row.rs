//! The one Node ⇄ row mapping of both stores: how a [`Node`] (a [`SearchLog`] entry)
//! becomes a row of plain SQL values, in the order of the schema's columns
//! ([`NODE_COLUMNS`], [`SEARCH_COLUMNS`]), and back. A store only moves [`Value`]s between
//! its driver and these functions.
//!
//! Where a stored value does not fit its field, the rule is the same on both stores:
//!
//! - `depth` (plies from the root) must be in `0..=u32::MAX`; any other value is refused
//!   as a corrupt row ([`BookError::Corrupt`] naming the node and the value), never
//!   wrapped or clamped: a wrong depth would break the parent-depth invariant silently;
//! - `status` must be one of the five codes of [`Status::code`]; any other is refused;
//! - proof and disproof numbers are clamped to `0..=INF` (`u32`), counters (`size`,
//!   `work`, `searches`, a search's `nodes`) to their field's range (negative: 0);
//! - `key` holds the 64 bits of the Zobrist key as a signed integer (a bit cast, not a
//!   range check);
//! - `ratio` is written for SQL queries and debugging and never read back (it follows
//!   from the numbers).

use crate::error::{BookError, Result};
use crate::node::{ratio, Node, Status};
use crate::store::schema::{Column, NODE_COLUMNS, SEARCH_COLUMNS};
use crate::store::SearchLog;

/// A value of a column, as both drivers bind and read it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

fn opt_int(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Int)
}

fn opt_text(v: Option<&str>) -> Value {
    v.map_or(Value::Null, |s| Value::Text(s.to_string()))
}

/// An unsigned counter as a signed column (saturating at `i64::MAX`).
fn big(v: u64) -> Value {
    Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// A node as a row: the values of [`NODE_COLUMNS`], the id first.
pub(crate) fn node_row(n: &Node) -> [Value; 22] {
    [
        Value::Int(n.id),
        opt_int(n.parent),
        opt_text(n.uci.as_deref()),
        Value::Int(i64::from(n.depth)),
        Value::Int(n.key as i64),
        Value::Text(n.fen.clone()),
        Value::Int(i64::from(n.prover_to_move)),
        Value::Int(i64::from(n.proof)),
        Value::Int(i64::from(n.disproof)),
        Value::Int(i64::from(n.leaf_proof)),
        Value::Int(i64::from(n.leaf_disproof)),
        Value::Int(n.status.code()),
        Value::Int(i64::from(n.marked)),
        Value::Real(ratio(n.proof, n.disproof)),
        big(n.size),
        big(n.work),
        Value::Int(i64::from(n.searches)),
        Value::Int(i64::from(n.expanded)),
        opt_int(n.same_as),
        opt_int(n.win_seq),
        opt_text(n.claimed_by.as_deref()),
        opt_int(n.lease_until),
    ]
}

/// Reads the values of a row in column order, checking each against its column.
struct Cells {
    /// What a row is, for messages (`node`, `search log entry`).
    row: &'static str,
    columns: &'static [Column],
    values: std::vec::IntoIter<Value>,
    at: usize,
    /// The row's id (for messages), once read.
    id: Option<i64>,
}

impl Cells {
    fn new(row: &'static str, columns: &'static [Column], values: Vec<Value>) -> Result<Self> {
        if values.len() != columns.len() {
            return Err(BookError::Corrupt(format!(
                "a {row} row has {} values, not {}",
                values.len(),
                columns.len()
            )));
        }
        Ok(Cells {
            row,
            columns,
            values: values.into_iter(),
            at: 0,
            id: None,
        })
    }

    fn what(&self, column: &str) -> String {
        match self.id {
            Some(id) => format!("{} {id}: {column}", self.row),
            None => format!("a {} row: {column}", self.row),
        }
    }

    fn next(&mut self) -> (&'static str, Value) {
        let name = self.columns[self.at].name;
        self.at += 1;
        (name, self.values.next().unwrap_or(Value::Null))
    }

    fn opt_int(&mut self) -> Result<Option<i64>> {
        match self.next() {
            (_, Value::Null) => Ok(None),
            (_, Value::Int(v)) => Ok(Some(v)),
            (name, v) => Err(BookError::Corrupt(format!(
                "{} is {v:?}, not an integer",
                self.what(name)
            ))),
        }
    }

    fn int(&mut self) -> Result<i64> {
        let name = self.columns[self.at].name;
        self.opt_int()?
            .ok_or_else(|| BookError::Corrupt(format!("{} is NULL", self.what(name))))
    }

    fn opt_text(&mut self) -> Result<Option<String>> {
        match self.next() {
            (_, Value::Null) => Ok(None),
            (_, Value::Text(v)) => Ok(Some(v)),
            (name, v) => Err(BookError::Corrupt(format!(
                "{} is {v:?}, not text",
                self.what(name)
            ))),
        }
    }

    fn text(&mut self) -> Result<String> {
        let name = self.columns[self.at].name;
        self.opt_text()?
            .ok_or_else(|| BookError::Corrupt(format!("{} is NULL", self.what(name))))
    }

    fn skip(&mut self) {
        self.next();
    }

    /// A proof or disproof number, clamped to `0..=INF`.
    fn number(&mut self) -> Result<u32> {
        Ok(self.int()?.clamp(0, i64::from(u32::MAX)) as u32)
    }

    /// A counter, clamped to `0..=u32::MAX`.
    fn count32(&mut self) -> Result<u32> {
        Ok(self.int()?.clamp(0, i64::from(u32::MAX)) as u32)
    }

    /// A counter, negative values read as 0.
    fn count64(&mut self) -> Result<u64> {
        Ok(self.int()?.max(0) as u64)
    }

    fn flag(&mut self) -> Result<bool> {
        Ok(self.int()? != 0)
    }
}

/// A node from a row: the values of [`NODE_COLUMNS`] in order (see the module
/// documentation for values that do not fit).
pub(crate) fn node_from_row(values: Vec<Value>) -> Result<Node> {
    let mut c = Cells::new("node", &NODE_COLUMNS, values)?;
    let id = c.int()?;
    c.id = Some(id);
    let parent = c.opt_int()?;
    let uci = c.opt_text()?;
    let depth = c.int()?;
    let depth = u32::try_from(depth).map_err(|_| {
        BookError::Corrupt(format!(
            "node {id}: depth {depth} is out of range (0 to {})",
            u32::MAX
        ))
    })?;
    let key = c.int()? as u64;
    let fen = c.text()?;
    let prover_to_move = c.flag()?;
    let proof = c.number()?;
    let disproof = c.number()?;
    let leaf_proof = c.number()?;
    let leaf_disproof = c.number()?;
    let code = c.int()?;
    let status = Status::from_code(code)
        .ok_or_else(|| BookError::Corrupt(format!("node {id}: status {code} is not a status")))?;
    let marked = c.flag()?;
    c.skip(); // ratio
    Ok(Node {
        id,
        parent,
        uci,
        depth,
        key,
        fen,
        prover_to_move,
        proof,
        disproof,
        leaf_proof,
        leaf_disproof,
        status,
        marked,
        size: c.count64()?,
        work: c.count64()?,
        searches: c.count32()?,
        expanded: c.flag()?,
        same_as: c.opt_int()?,
        win_seq: c.opt_int()?,
        claimed_by: c.opt_text()?,
        lease_until: c.opt_int()?,
    })
}

/// A search log entry as a row: the values of [`SEARCH_COLUMNS`], the id first.
pub(crate) fn search_row(l: &SearchLog) -> [Value; 9] {
    [
        Value::Int(l.id),
        Value::Int(l.node),
        Value::Text(l.worker.clone()),
        Value::Int(l.started_ms),
        Value::Int(l.start_seq),
        opt_int(l.finished_ms),
        opt_int(l.end_seq),
        l.nodes.map_or(Value::Null, big),
        opt_text(l.result.as_deref()),
    ]
}

/// A search log entry from a row: the values of [`SEARCH_COLUMNS`] in order.
pub(crate) fn search_from_row(values: Vec<Value>) -> Result<SearchLog> {
    let mut c = Cells::new("search log entry", &SEARCH_COLUMNS, values)?;
    let id = c.int()?;
    c.id = Some(id);
    Ok(SearchLog {
        id,
        node: c.int()?,
        worker: c.text()?,
        started_ms: c.int()?,
        start_seq: c.int()?,
        finished_ms: c.opt_int()?,
        end_seq: c.opt_int()?,
        nodes: c.opt_int()?.map(|n| n.max(0) as u64),
        result: c.opt_text()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Node {
        Node {
            id: 7,
            parent: Some(3),
            uci: Some("e2e3".into()),
            depth: 4,
            key: u64::MAX - 5,
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            prover_to_move: true,
            proof: 11,
            disproof: crate::node::INF,
            leaf_proof: 13,
            leaf_disproof: 17,
            status: Status::MarkedWin,
            marked: true,
            size: 19,
            work: 23,
            searches: 29,
            expanded: true,
            same_as: Some(2),
            win_seq: Some(31),
            claimed_by: Some("w:1:0".into()),
            lease_until: Some(37),
        }
    }

    fn column(name: &str) -> usize {
        NODE_COLUMNS.iter().position(|c| c.name == name).unwrap()
    }

    #[test]
    fn a_node_survives_its_row() {
        let node = sample();
        let row = node_row(&node);
        assert_eq!(row[column("depth")], Value::Int(4));
        assert_eq!(row[column("searches")], Value::Int(29));
        assert_eq!(row[column("lease_until")], Value::Int(37));
        assert_eq!(row[column("move")], Value::Text("e2e3".into()));
        assert_eq!(node_from_row(row.to_vec()).unwrap(), node);
        let log = SearchLog {
            id: 5,
            node: 7,
            worker: "w".into(),
            started_ms: 1,
            start_seq: 2,
            finished_ms: Some(3),
            end_seq: None,
            nodes: Some(u64::MAX),
            result: Some("proved".into()),
        };
        let back = search_from_row(search_row(&log).to_vec()).unwrap();
        assert_eq!(back.nodes, Some(i64::MAX as u64));
        assert_eq!(back.end_seq, None);
    }

    #[test]
    fn a_depth_that_does_not_fit_is_refused() {
        for bad in [
            -1,
            i64::from(u32::MAX) + 1,
            i64::from(u32::MAX) + 6,
            i64::MIN,
        ] {
            let mut row = node_row(&sample()).to_vec();
            row[column("depth")] = Value::Int(bad);
            let err = node_from_row(row).unwrap_err().to_string();
            assert!(
                err.contains(&format!("node 7: depth {bad} is out of range")),
                "{err}"
            );
        }
        let mut row = node_row(&sample()).to_vec();
        row[column("depth")] = Value::Int(i64::from(u32::MAX));
        assert_eq!(node_from_row(row).unwrap().depth, u32::MAX);
    }

    #[test]
    fn bad_values_name_the_node_and_column() {
        let mut row = node_row(&sample()).to_vec();
        row[column("status")] = Value::Int(9);
        let err = node_from_row(row).unwrap_err().to_string();
        assert!(err.contains("node 7: status 9"), "{err}");
        let mut row = node_row(&sample()).to_vec();
        row[column("fen")] = Value::Null;
        let err = node_from_row(row).unwrap_err().to_string();
        assert!(err.contains("node 7: fen is NULL"), "{err}");
        // Numbers clamp, counters saturate (the same on both stores).
        let mut row = node_row(&sample()).to_vec();
        row[column("proof")] = Value::Int(-4);
        row[column("searches")] = Value::Int(i64::from(u32::MAX) + 9);
        let node = node_from_row(row).unwrap();
        assert_eq!((node.proof, node.searches), (0, u32::MAX));
    }
}
