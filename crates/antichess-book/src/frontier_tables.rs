//! The tables a frontier file's proofs rest on, and the order to build them in: on a new
//! machine, a proof in `proofs/partial/<line>.frontier` whose tablebase leaves need a table
//! that is not built does not verify when the frontier is loaded, and its subtree is
//! searched again. [`frontier_tables`] reads the file's proofs, finds the material of every
//! tablebase leaf above a number of units (those of the 4-unit set are built in minutes),
//! and orders the materials greedily: first the one whose table lets the most proof nodes
//! verify, counting a proof as won back once every table it needs is there, and as a
//! fraction (1/k² of its nodes, k tables still missing) before. `antichess tb build
//! --from-frontier FILE` builds them in that order, so that a build cut short has bought
//! the most.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use antichess_core::{Color, Rules};
use antichess_proof::{read_compact, NodeKind};
use antichess_tb::Material;

use crate::error::{BookError, Result};
use crate::frontier::read_proofs;

/// One material the frontier's proofs need, in build order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NeededTable {
    /// The material, White uppercase (`KRPpp`): a table that says the prover wins there
    /// (a bound table for the prover is enough) lets these leaves verify.
    pub material: String,
    pub units: u32,
    /// Proofs with a tablebase leaf of this material, and their nodes.
    pub proofs: u64,
    pub nodes: u64,
    /// Proofs (and their nodes) whose every table is built once this one and those before
    /// it are: the running total that a build stopped here has won back.
    pub whole_proofs: u64,
    pub whole_nodes: u64,
}

/// What [`frontier_tables`] found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FrontierTables {
    /// The rule set of the frontier's book (the tables must be for it).
    #[serde(serialize_with = "rules_name")]
    pub rules: Rules,
    /// The side the frontier's book proves a win for: the tables' bound side.
    #[serde(serialize_with = "color_name")]
    pub prover: Color,
    /// Tablebase leaves of more than this many units were counted.
    pub above_units: u32,
    /// The file's proofs and their nodes.
    pub proofs: u64,
    pub nodes: u64,
    /// Proofs with at least one leaf above `above_units`, and their nodes.
    pub needing: u64,
    pub needing_nodes: u64,
    /// The materials, in the order to build them.
    pub tables: Vec<NeededTable>,
}

fn rules_name<S: serde::Serializer>(r: &Rules, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&r.to_string())
}

fn color_name<S: serde::Serializer>(c: &Color, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(match c {
        Color::White => "white",
        Color::Black => "black",
    })
}

/// The materials of more than `above_units` units at the tablebase leaves of the proofs
/// in the frontier file at `path`, in the order that wins back the most proof nodes first.
///
/// # Errors
/// The file cannot be read or is damaged (a proof that cannot be decoded included).
pub fn frontier_tables(path: &Path, above_units: u32) -> Result<FrontierTables> {
    let (header, proofs) = read_proofs(path)?;
    let mut needs: Vec<(BTreeSet<String>, u64)> = Vec::with_capacity(proofs.len());
    let mut nodes = 0u64;
    for (i, bytes) in proofs.iter().enumerate() {
        let tree = read_compact(bytes.as_slice()).map_err(|e| {
            BookError::Corrupt(format!("{}: proof {i} of the file: {e}", path.display()))
        })?;
        let kinds = tree.nodes();
        let mut set = BTreeSet::new();
        tree.for_each_position(|n, pos, _| {
            if kinds[n].kind == NodeKind::Tablebase {
                let material = Material::from_board(pos.board());
                if material.units() > above_units {
                    set.insert(material.name());
                }
            }
            Ok(())
        })
        .map_err(|e| BookError::Corrupt(format!("{}: proof {i}: {e}", path.display())))?;
        nodes += kinds.len() as u64;
        needs.push((set, kinds.len() as u64));
    }
    let mut report = FrontierTables {
        rules: header.rules,
        prover: header.prover,
        above_units,
        proofs: proofs.len() as u64,
        nodes,
        needing: 0,
        needing_nodes: 0,
        tables: Vec::new(),
    };
    needs.retain(|(set, _)| !set.is_empty());
    report.needing = needs.len() as u64;
    report.needing_nodes = needs.iter().map(|n| n.1).sum();
    report.tables = greedy_order(needs);
    Ok(report)
}

/// Orders the materials of `needs` (each proof's set of materials and its nodes): each
/// step takes the material of the highest score, a proof adding its nodes / k² to each of
/// its k materials not yet taken (ties: the material's name, for a stable order).
fn greedy_order(mut needs: Vec<(BTreeSet<String>, u64)>) -> Vec<NeededTable> {
    let mut per: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (set, n) in &needs {
        for m in set {
            let e = per.entry(m.clone()).or_default();
            e.0 += 1;
            e.1 += n;
        }
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    let (mut whole_proofs, mut whole_nodes) = (0, 0);
    while !needs.is_empty() {
        let mut score: BTreeMap<&String, f64> = BTreeMap::new();
        for (set, n) in &needs {
            let missing: Vec<&String> = set.iter().filter(|m| !taken.contains(*m)).collect();
            let k = missing.len() as f64;
            for m in missing {
                *score.entry(m).or_default() += *n as f64 / (k * k);
            }
        }
        let best = score
            .iter()
            .fold(None::<(&String, f64)>, |best, (m, s)| match best {
                Some((_, b)) if b >= *s => best,
                _ => Some((m, *s)),
            })
            .map(|(m, _)| m.to_string())
            .expect("a proof left needs a material not taken");
        taken.insert(best.clone());
        needs.retain(|(set, n)| {
            let whole = set.iter().all(|m| taken.contains(m));
            if whole {
                whole_proofs += 1;
                whole_nodes += n;
            }
            !whole
        });
        let (proofs, nodes) = per[&best];
        out.push(NeededTable {
            units: best.len() as u32,
            material: best,
            proofs,
            nodes,
            whole_proofs,
            whole_nodes,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ms: &[&str]) -> BTreeSet<String> {
        ms.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn the_order_wins_back_the_most_nodes_first() {
        // A proof of 100 nodes needing KRPpp alone comes before one of 10 needing RPPpp;
        // a 1,000-node proof needing both of two others scores 250 for each.
        let needs = vec![
            (set(&["KRPpp"]), 100),
            (set(&["RPPpp"]), 10),
            (set(&["KPPpp", "NPPpp"]), 1000),
        ];
        let order = greedy_order(needs);
        let names: Vec<&str> = order.iter().map(|t| t.material.as_str()).collect();
        // KPPpp (250, ties with NPPpp: the first name wins), then NPPpp (now 1,000), then
        // KRPpp, then RPPpp.
        assert_eq!(names, ["KPPpp", "NPPpp", "KRPpp", "RPPpp"]);
        assert_eq!(order[0].whole_nodes, 0);
        assert_eq!(order[1].whole_nodes, 1000);
        assert_eq!(order[3].whole_proofs, 3);
        assert_eq!(order[3].whole_nodes, 1110);
        assert_eq!((order[2].proofs, order[2].nodes), (1, 100));
    }
}
