//! Materials a search met without a table: each worker counts, per material of at most
//! [`SearchOptions::record_missing_units`](crate::SearchOptions) units that no table
//! covers, the positions it evaluated, and the search adds the counts up in its result.
//! The book keeps the totals, and `tb build` builds the materials met most: the search
//! gets the tables its own lines need.

use std::collections::HashMap;
use std::sync::Mutex;

use antichess_core::Board;
use antichess_tb::{board_key, Material};

/// One worker's counts. The last material hit is checked first (consecutive positions of
/// a line share their material); other hits go through a hash index, since a search that
/// records 6-unit materials can meet hundreds of them.
#[derive(Debug, Default)]
pub(crate) struct MissingCounter {
    /// (material key of the board, positions, the material).
    entries: Vec<(u64, u64, Material)>,
    /// Material key → position in `entries`.
    index: HashMap<u64, usize>,
    last: usize,
}

impl MissingCounter {
    /// Counts one position of `board`'s material.
    #[inline]
    pub(crate) fn record(&mut self, board: &Board) {
        let key = board_key(board);
        if let Some(e) = self.entries.get_mut(self.last) {
            if e.0 == key {
                e.1 += 1;
                return;
            }
        }
        match self.index.get(&key) {
            Some(&i) => {
                self.entries[i].1 += 1;
                self.last = i;
            }
            None => {
                self.entries.push((key, 1, Material::from_board(board)));
                self.last = self.entries.len() - 1;
                self.index.insert(key, self.last);
            }
        }
    }

    /// Moves this worker's counts into the search's totals.
    pub(crate) fn drain_into(&mut self, totals: &Mutex<MissingTotals>) {
        if self.entries.is_empty() {
            return;
        }
        let mut totals = totals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (_, n, material) in self.entries.drain(..) {
            *totals.0.entry(material.canonical().0).or_insert(0) += n;
        }
        self.index.clear();
        self.last = 0;
    }
}

/// A search's counts, by canonical material.
#[derive(Debug, Default)]
pub(crate) struct MissingTotals(HashMap<Material, u64>);

impl MissingTotals {
    /// The materials met, most positions first (ties by name).
    pub(crate) fn sorted(&self) -> Vec<MissingTable> {
        let mut out: Vec<MissingTable> = self
            .0
            .iter()
            .map(|(m, &positions)| MissingTable {
                material: m.name(),
                units: m.units(),
                positions,
            })
            .collect();
        out.sort_by(|a, b| {
            b.positions
                .cmp(&a.positions)
                .then_with(|| a.material.cmp(&b.material))
        });
        out
    }
}

/// A material a search met without a table, and how many positions of it it evaluated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MissingTable {
    /// Canonical name, e.g. `KBNkr` (White's units first, the stronger side as White).
    pub material: String,
    pub units: u32,
    pub positions: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Position;

    fn board(fen: &str) -> Board {
        *Position::from_fen(fen, antichess_core::Rules::default())
            .expect("fen")
            .board()
    }

    #[test]
    fn counts_add_up_per_canonical_material() {
        let totals = Mutex::new(MissingTotals::default());
        let mut a = MissingCounter::default();
        let mut b = MissingCounter::default();
        // KRk twice, and its colour-swapped form once: one material, three positions.
        a.record(&board("8/8/8/8/8/2k5/8/KR6 w - - 0 1"));
        a.record(&board("8/8/8/8/8/2k5/8/KR6 b - - 0 1"));
        b.record(&board("kr6/8/2K5/8/8/8/8/8 w - - 0 1"));
        b.record(&board("8/8/8/8/8/2k5/8/KN6 w - - 0 1"));
        a.drain_into(&totals);
        b.drain_into(&totals);
        let sorted = totals.lock().unwrap().sorted();
        let got: Vec<(&str, u64)> = sorted
            .iter()
            .map(|m| (m.material.as_str(), m.positions))
            .collect();
        assert_eq!(got, vec![("KRk", 3), ("KNk", 1)]);
        assert!(a.entries.is_empty() && b.entries.is_empty());
    }
}
