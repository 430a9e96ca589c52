//! `Tablebase`: the tables of one directory for one rule set, opened lazily, and probing
//! of positions: the WDL fast path for the solver, WDL with DTC, and the value of every
//! legal move.
//!
//! Probing normalises the position first: a side to move without pieces has won; a
//! position with an en passant capture available is resolved by playing its captures
//! (compulsory, and all of them lead to smaller tables), which is right also when two
//! pawns can take en passant; the colours are swapped when the material is stored in the
//! other orientation.
//!
//! Bound tables (`*.bound-white.actb`, `*.bound-black.actb`, see
//! [`crate::format::TableKind`]) answer for materials without an exact table: a value is
//! given only where it is certain (a win for the colour a bound table is for, or the two
//! bounds agreeing); [`Tablebase::probe_wdl_bounds`] gives the interval and
//! [`Tablebase::probe_wins`] what a prover needs (wins surely, surely not, unknown).
//!
//! Under the royal rule sets (see [`crate::royal`]) the probes follow those rules
//! (`royal_probe`, after `impl Tablebase`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use antichess_core::royal::is_bare_king;
use antichess_core::{Board, Color, Move, Position, Role, Rules};

use crate::error::unfollowable_link;
use crate::format::{self, TableKind, EXTENSION};
use crate::material::Material;
use crate::table::Table;
use crate::wdl::{Value, Wdl};
use crate::TbError;

#[derive(Debug)]
struct Slot {
    /// The material this slot answers for (canonical): its file is opened as this.
    material: Material,
    /// Exact, or a bound table (colours of the canonical material).
    kind: TableKind,
    path: PathBuf,
    table: OnceLock<Result<Table, TbError>>,
}

/// A multiplicative hasher for material keys (already well mixed small integers); the
/// default SipHash costs more than the rest of a probe.
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// The value of one legal move, as seen by the player making it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValue {
    pub mv: Move,
    /// The position after the move, for the opponent (who is then to move).
    pub after: Value,
    /// The move is a capture or a promotion (so it converts, and the distance restarts).
    pub conversion: bool,
}

impl MoveValue {
    /// The result of the move for the player making it.
    #[must_use]
    pub fn wdl_for_mover(&self) -> Wdl {
        -self.after.wdl
    }

    /// Plies to conversion if this move is played: 1 for a conversion, else one more than
    /// the position after it.
    #[must_use]
    pub fn plies_to_conversion(&self) -> u16 {
        if self.conversion {
            1
        } else {
            self.after.dtc.saturating_add(1)
        }
    }

    /// Sort key, best move first: wins by fewest plies to conversion, then draws, then
    /// losses by most plies.
    #[must_use]
    pub fn order_key(&self) -> (u8, i32) {
        match self.wdl_for_mover() {
            Wdl::Win => (0, i32::from(self.plies_to_conversion())),
            Wdl::Draw => (1, 0),
            Wdl::Loss => (2, -i32::from(self.plies_to_conversion())),
        }
    }
}

/// The tables available for one rule set.
#[derive(Debug)]
pub struct Tablebase {
    rules: Rules,
    dir: Option<PathBuf>,
    slots: Vec<(Material, Slot)>,
    /// Material key in either orientation → (slot, colours swapped).
    by_key: KeyMap<(u32, bool)>,
    /// Bound tables: per canonical material, the one for White and the one for Black
    /// (canonical colours), either possibly absent.
    bounds: Vec<(Material, [Option<Slot>; 2])>,
    /// Material key in either orientation → (index in `bounds`, colours swapped).
    bound_key: KeyMap<(u32, bool)>,
}

/// Whether `dir` is an existing directory (`false`: nothing is there). A path that is
/// something else, or a symbolic link that cannot be followed (a loop, or a link to
/// nothing), is an error naming it (rather than the "File exists" that creating the
/// directory would report).
pub(crate) fn existing_dir(dir: &Path) -> Result<bool, TbError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(TbError::Io {
            path: dir.to_path_buf(),
            kind: std::io::ErrorKind::InvalidInput,
            message: "not a directory (a tables directory was expected)".into(),
        }),
        Err(e) => match std::fs::symlink_metadata(dir) {
            Ok(link) if link.file_type().is_symlink() => Err(unfollowable_link(dir, &e)),
            _ if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            _ => Err(TbError::io(dir, e)),
        },
    }
}

/// The material key of a board (see [`Material::key`]) without building a `Material`.
#[inline]
#[must_use]
pub fn board_key(board: &Board) -> u64 {
    let mut key = 0u64;
    for color in Color::ALL {
        let ours = board.by_color(color);
        for role in Role::ALL {
            let n = u64::from((ours & board.by_role(role)).count() & 15);
            key |= n << (4 * (color.index() * 6 + role.index()));
        }
    }
    key
}

impl Tablebase {
    /// No tables (every probe of a position with both sides on the board misses).
    #[must_use]
    pub fn empty(rules: Rules) -> Tablebase {
        Tablebase {
            rules,
            dir: None,
            slots: Vec::new(),
            by_key: KeyMap::default(),
            bounds: Vec::new(),
            bound_key: KeyMap::default(),
        }
    }

    /// The tables in `dir` (files named like `KRvKB.actb`). Files are checked when first
    /// used; a missing directory is an empty tablebase.
    pub fn open(dir: &Path, rules: Rules) -> Result<Tablebase, TbError> {
        let mut tb = Tablebase::empty(rules);
        tb.dir = Some(dir.to_path_buf());
        if !existing_dir(dir)? {
            return Ok(tb);
        }
        let entries = std::fs::read_dir(dir).map_err(|e| TbError::io(dir, e))?;
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| TbError::io(dir, e))?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
                continue;
            }
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if stem.starts_with('.') {
                continue;
            }
            let (name_part, kind) = TableKind::split_stem(stem);
            if let Ok(material) = name_part.parse::<Material>() {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if material.is_canonical() && format::kind_file_name(&material, kind) == name {
                    found.push((material, kind, path));
                }
            }
        }
        found.sort();
        for (material, kind, path) in found {
            tb.add_kind_file(&material, kind, path);
        }
        Ok(tb)
    }

    fn add_slot(&mut self, material: Material, slot: Slot) {
        let material = material.canonical().0;
        if let Some(&(i, _)) = self.by_key.get(&material.key()) {
            self.slots[i as usize] = (material, slot);
            return;
        }
        let i = self.slots.len() as u32;
        self.slots.push((material, slot));
        self.by_key.insert(material.swapped().key(), (i, true));
        // Inserted second, so that a symmetric material maps to "not swapped".
        self.by_key.insert(material.key(), (i, false));
    }

    /// Registers a table file for `material` (checked when first used).
    pub fn add_file(&mut self, material: &Material, path: PathBuf) {
        self.add_slot(
            *material,
            Slot {
                material: material.canonical().0,
                kind: TableKind::Exact,
                path,
                table: OnceLock::new(),
            },
        );
    }

    /// Registers a table file of `kind` for `material` (checked when first used); a bound
    /// table's colour is that of `material` as given.
    pub fn add_kind_file(&mut self, material: &Material, kind: TableKind, path: PathBuf) {
        let TableKind::Bound(_) = kind else {
            self.add_file(material, path);
            return;
        };
        let (canonical, swapped) = material.canonical();
        let kind = kind.swapped(swapped);
        let TableKind::Bound(color) = kind else {
            unreachable!("a bound stays a bound")
        };
        let slot = Slot {
            material: canonical,
            kind,
            path,
            table: OnceLock::new(),
        };
        let i = match self.bound_key.get(&canonical.key()) {
            Some(&(i, _)) => i as usize,
            None => {
                let i = self.bounds.len();
                self.bounds.push((canonical, [None, None]));
                self.bound_key
                    .insert(canonical.swapped().key(), (i as u32, true));
                self.bound_key.insert(canonical.key(), (i as u32, false));
                i
            }
        };
        self.bounds[i].1[color.index()] = Some(slot);
    }

    /// The bound tables present: canonical material and kind, in build order.
    #[must_use]
    pub fn bound_tables(&self) -> Vec<(Material, TableKind)> {
        let mut out: Vec<(Material, TableKind)> = self
            .bounds
            .iter()
            .flat_map(|(m, slots)| slots.iter().flatten().map(move |s| (*m, s.kind)))
            .collect();
        out.sort_by(|a, b| {
            let mut pair = [a.0, b.0];
            crate::material::sort_for_building(&mut pair);
            if a.0 == b.0 {
                a.1.cmp(&b.1)
            } else if pair[0] == a.0 {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        out
    }

    /// The bound table of `material` whose wins are sure for `sure` (in `material`'s
    /// colours as given), loading it on first use; `None` if no such file is present.
    pub fn bound_table(&self, material: &Material, sure: Color) -> Result<Option<&Table>, TbError> {
        Ok(self
            .bound_table_by_key(material.key(), sure)?
            .map(|(t, _)| t))
    }

    /// Whether a bound table of `material` whose wins are sure for `sure` is present,
    /// without loading it.
    #[must_use]
    pub fn has_bound_table(&self, material: &Material, sure: Color) -> bool {
        self.bound_key
            .get(&material.key())
            .is_some_and(|&(i, swapped)| {
                let color = if swapped { sure.other() } else { sure };
                self.bounds[i as usize].1[color.index()].is_some()
            })
    }

    /// The bound table for `sure` (in the colours of the material with key `key`) and
    /// whether its colours must be swapped to index it.
    pub(crate) fn bound_table_by_key(
        &self,
        key: u64,
        sure: Color,
    ) -> Result<Option<(&Table, bool)>, TbError> {
        let Some(&(i, swapped)) = self.bound_key.get(&key) else {
            return Ok(None);
        };
        let color = if swapped { sure.other() } else { sure };
        match &self.bounds[i as usize].1[color.index()] {
            Some(slot) => Ok(Some((self.load(slot)?, swapped))),
            None => Ok(None),
        }
    }

    /// Registers an already loaded table.
    pub fn add_table(&mut self, table: Table) {
        let material = table.header().material;
        let slot = Slot {
            material,
            kind: TableKind::Exact,
            path: table.path().to_path_buf(),
            table: OnceLock::new(),
        };
        let _ = slot.table.set(Ok(table));
        self.add_slot(material, slot);
    }

    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    #[must_use]
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether a table file for `material` (any orientation) is present.
    #[must_use]
    pub fn contains(&self, material: &Material) -> bool {
        self.by_key.contains_key(&material.key())
    }

    /// Materials present, canonical orientation, in build order.
    #[must_use]
    pub fn materials(&self) -> Vec<Material> {
        let mut out: Vec<Material> = self.slots.iter().map(|(m, _)| *m).collect();
        crate::material::sort_for_building(&mut out);
        out
    }

    /// The most units of any table present (0 if none): the search probes every position
    /// of at most this many units whose material has a table, and searches on where it has
    /// none. A set need not be complete: a table is built after every table its captures
    /// and promotions lead to, so each table present answers on its own.
    #[must_use]
    pub fn max_units(&self) -> u32 {
        let bounds = self.bounds.iter().map(|(m, _)| m.units());
        self.slots
            .iter()
            .map(|(m, _)| m.units())
            .chain(bounds)
            .max()
            .unwrap_or(0)
    }

    /// Whether a table file (exact or bound) for the material of `board` (either
    /// orientation) is present.
    #[must_use]
    #[inline]
    pub fn has_table_for(&self, board: &Board) -> bool {
        let key = board_key(board);
        self.by_key.contains_key(&key)
            || (!self.bound_key.is_empty() && self.bound_key.contains_key(&key))
    }

    /// The largest `n` such that every material of at most `n` units is present (0 if
    /// not even all 2-unit tables are).
    #[must_use]
    pub fn complete_units(&self) -> u32 {
        let royal = self.rules.is_royal();
        let mut n = 1;
        while n < 8
            && Material::all_up_to(n + 1)
                .iter()
                .all(|m| self.contains(m) || (royal && !crate::material::royal_table_ok(m)))
        {
            n += 1;
        }
        if n == 1 {
            0
        } else {
            n
        }
    }

    fn load<'a>(&self, slot: &'a Slot) -> Result<&'a Table, TbError> {
        match slot
            .table
            .get_or_init(|| Table::open_kind(&slot.path, &slot.material, slot.kind, self.rules))
        {
            Ok(table) => Ok(table),
            Err(err) => Err(err.clone()),
        }
    }

    /// The table of `material` (either orientation), loading it on first use; `None`
    /// if no file is present.
    #[inline]
    pub fn table(&self, material: &Material) -> Result<Option<&Table>, TbError> {
        match self.by_key.get(&material.key()) {
            Some(&(i, _)) => Ok(Some(self.load(&self.slots[i as usize].1)?)),
            None => Ok(None),
        }
    }

    /// The table of a board's material and whether its colours must be swapped to index
    /// it.
    #[inline]
    pub(crate) fn table_of(&self, board: &Board) -> Result<Option<(&Table, bool)>, TbError> {
        self.table_by_key(board_key(board))
    }

    /// The table of the material with key `key` (see [`Material::key`]) and whether its
    /// colours must be swapped to index it; `None` if no file is present.
    #[inline]
    pub(crate) fn table_by_key(&self, key: u64) -> Result<Option<(&Table, bool)>, TbError> {
        match self.by_key.get(&key) {
            Some(&(i, swapped)) => Ok(Some((self.load(&self.slots[i as usize].1)?, swapped))),
            None => Ok(None),
        }
    }

    pub(crate) fn missing(&self, material: &Material) -> TbError {
        TbError::Missing {
            material: material.canonical().0.name(),
            dir: self
                .dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("(no directory)")),
        }
    }

    /// WDL for the side to move; `Ok(None)` if a needed table is absent (or, where only
    /// bound tables cover the position, if they do not settle its value).
    pub fn probe_wdl(&self, pos: &Position) -> Result<Option<Wdl>, TbError> {
        if self.rules.is_royal() {
            return royal_probe_wdl(self, pos);
        }
        Ok(match self.probe_wdl_bounds(pos)? {
            Some((lo, hi)) if lo == hi => Some(lo),
            _ => None,
        })
    }

    /// The interval `(lo, hi)` the tables give for the side to move's WDL: `lo == hi` from
    /// an exact table; from bound tables, `lo` from the one for the side to move and `hi`
    /// from the one for the other side (`Loss` and `Win` where one is absent). `Ok(None)`
    /// if no table covers the position.
    pub fn probe_wdl_bounds(&self, pos: &Position) -> Result<Option<(Wdl, Wdl)>, TbError> {
        if self.rules.is_royal() {
            return Ok(royal_probe_wdl(self, pos)?.map(|v| (v, v)));
        }
        if pos.us().is_empty() {
            return Ok(Some((Wdl::Win, Wdl::Win)));
        }
        if pos.them().is_empty() {
            return Ok(Some((Wdl::Loss, Wdl::Loss)));
        }
        if pos.ep_square().is_some() {
            let (mut lo, mut hi) = (Wdl::Loss, Wdl::Loss);
            for m in pos.legal_moves() {
                match self.probe_wdl_bounds(&pos.play(m))? {
                    Some((child_lo, child_hi)) => {
                        lo = lo.max(-child_hi);
                        hi = hi.max(-child_lo);
                    }
                    None => return Ok(None),
                }
            }
            return Ok(Some((lo, hi)));
        }
        let board = pos.board();
        let key = board_key(board);
        let value = |(table, swapped): (&Table, bool)| {
            if swapped {
                table.wdl_of(&board.swap_colors(), pos.turn().other())
            } else {
                table.wdl_of(board, pos.turn())
            }
        };
        if let Some(found) = self.table_by_key(key)? {
            let v = value(found);
            return Ok(Some((v, v)));
        }
        if self.bound_key.is_empty() {
            return Ok(None);
        }
        let us = self.bound_table_by_key(key, pos.turn())?;
        let them = self.bound_table_by_key(key, pos.turn().other())?;
        if us.is_none() && them.is_none() {
            return Ok(None);
        }
        let lo = us.map_or(Wdl::Loss, value);
        let hi = them.map_or(Wdl::Win, value);
        if lo > hi {
            return Err(TbError::corrupt(
                self.bound_path(key),
                format!(
                    "its bounds contradict each other at {}: at least {lo:?} and at most \
                     {hi:?} for the side to move",
                    pos.fen()
                ),
            ));
        }
        Ok(Some((lo, hi)))
    }

    /// A path naming the bound tables of a material key (for messages).
    fn bound_path(&self, key: u64) -> PathBuf {
        self.bound_key
            .get(&key)
            .map_or_else(PathBuf::new, |&(i, _)| {
                self.bounds[i as usize]
                    .1
                    .iter()
                    .flatten()
                    .next()
                    .map_or_else(PathBuf::new, |s| s.path.clone())
            })
    }

    /// The value a generator (or verifier) of a table of kind `bound` gives a position
    /// its moves lead to: the exact WDL (a missing table is an error naming it) when
    /// `bound` is `None`; in a bound table for `c`, the lower bound for `c` the tables give
    /// (the low end for `c` to move, the high end otherwise), the result worst for `c`
    /// where none covers the position.
    pub(crate) fn probe_wdl_within(
        &self,
        pos: &Position,
        bound: Option<Color>,
    ) -> Result<Wdl, TbError> {
        let Some(c) = bound else {
            return self.probe_wdl_required(pos);
        };
        let to_move = pos.turn();
        Ok(match self.probe_wdl_bounds(pos)? {
            Some((lo, _)) if to_move == c => lo,
            Some((_, hi)) => hi,
            None => worst_for(c, to_move),
        })
    }

    /// Whether `side` wins the position: `Some(true)` surely, `Some(false)` surely not
    /// (a draw or a loss), `None` if the tables present do not say (no table, or bound
    /// tables that leave it open). What a prover needs: bound tables settle most of it.
    pub fn probe_wins(&self, pos: &Position, side: Color) -> Result<Option<bool>, TbError> {
        let Some((lo, hi)) = self.probe_wdl_bounds(pos)? else {
            return Ok(None);
        };
        Ok(if pos.turn() == side {
            if lo == Wdl::Win {
                Some(true)
            } else if hi < Wdl::Win {
                Some(false)
            } else {
                None
            }
        } else if hi == Wdl::Loss {
            Some(true)
        } else if lo > Wdl::Loss {
            Some(false)
        } else {
            None
        })
    }

    /// Like [`Tablebase::probe_wdl`], but a missing table is an error naming it.
    pub fn probe_wdl_required(&self, pos: &Position) -> Result<Wdl, TbError> {
        self.probe_wdl(pos)?
            .ok_or_else(|| self.missing(&Material::from_board(pos.board())))
    }

    /// WDL and DTC for the side to move; `Ok(None)` if a needed table is absent.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, TbError> {
        if self.rules.is_royal() {
            return royal_probe(self, pos, true);
        }
        if pos.us().is_empty() {
            return Ok(Some(Value {
                wdl: Wdl::Win,
                dtc: 0,
            }));
        }
        if pos.them().is_empty() {
            return Ok(Some(Value {
                wdl: Wdl::Loss,
                dtc: 0,
            }));
        }
        if pos.ep_square().is_some() {
            // Every legal move is a capture: the position converts on this ply.
            return Ok(self.probe_wdl(pos)?.map(|wdl| Value {
                wdl,
                dtc: if wdl == Wdl::Draw { 0 } else { 1 },
            }));
        }
        let Some((table, swapped)) = self.table_of(pos.board())? else {
            return Ok(None);
        };
        let (board, side) = if swapped {
            (pos.board().swap_colors(), pos.turn().other())
        } else {
            (*pos.board(), pos.turn())
        };
        Ok(Some(table.value(side, table.index().encode(&board))?))
    }

    /// Like [`Tablebase::probe`], but a missing table is an error naming it.
    pub fn probe_required(&self, pos: &Position) -> Result<Value, TbError> {
        self.probe(pos)?
            .ok_or_else(|| self.missing(&Material::from_board(pos.board())))
    }

    /// The value of every legal move, best first for the side to move.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<MoveValue>, TbError> {
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let after = self.probe_required(&pos.play(m))?;
            let conversion = pos.is_capture(m) || m.is_promotion();
            out.push(MoveValue {
                mv: m,
                after,
                conversion,
            });
        }
        out.sort_by_key(|mv| (mv.order_key(), mv.mv.to_string()));
        Ok(out)
    }

    /// The side to move's winning move in the game its bound table plays, for a position
    /// whose material has a bound table for the side to move but no exact table: the move
    /// with the fewest plies to conversion in that bounded game. A capture or a promotion
    /// counts when the tables show the position after it won for the mover (one ply); a
    /// quiet move when the bound table shows the position after it lost for the opponent
    /// (its DTC plus one ply; plus two for a double push that leaves an en-passant
    /// capture to make, converted on the next ply). The bounded game's DTC strictly falls
    /// along such moves and every reply the bound table values as a loss for the
    /// opponent, so playing them reaches a conversion into smaller tables. `Ok(None)` if
    /// no move wins by these tables (or the material has no bound table for the side to
    /// move). A position with an en-passant capture to make converts on this ply, so it
    /// needs no table of its own: its best move is a capture the tables show won.
    pub fn probe_bound_best_move(&self, pos: &Position) -> Result<Option<Move>, TbError> {
        let side = pos.turn();
        let key = board_key(pos.board());
        let bound = if pos.ep_square().is_some() {
            None
        } else {
            match self.bound_table_by_key(key, side)? {
                Some(found) => Some(found),
                None => return Ok(None),
            }
        };
        let mut best: Option<(u16, String, Move)> = None;
        for m in pos.legal_moves() {
            let after = pos.play(m);
            let plies = if pos.is_capture(m) || m.is_promotion() || after.ep_square().is_some() {
                if self.probe_wins(&after, side)? != Some(true) {
                    continue;
                }
                if after.ep_square().is_some() && !pos.is_capture(m) && !m.is_promotion() {
                    2
                } else {
                    1
                }
            } else {
                let Some((table, swapped)) = bound else {
                    continue;
                };
                let (board, to_move) = if swapped {
                    (after.board().swap_colors(), after.turn().other())
                } else {
                    (*after.board(), after.turn())
                };
                let value = table.value(to_move, table.index().encode(&board))?;
                if value.wdl != Wdl::Loss {
                    continue;
                }
                value.dtc.saturating_add(1)
            };
            let candidate = (plies, m.to_string(), m);
            if best
                .as_ref()
                .is_none_or(|b| (candidate.0, &candidate.1) < (b.0, &b.1))
            {
                best = Some(candidate);
            }
        }
        Ok(best.map(|(_, _, m)| m))
    }
}

// Probing under the royal rule sets (see [`crate::royal`]), where the probes of
// `Tablebase` branch.

/// WDL of `pos` under a royal rule set (see [`Tablebase::probe_wdl`]).
fn royal_probe_wdl(tb: &Tablebase, pos: &Position) -> Result<Option<Wdl>, TbError> {
    Ok(royal_probe(tb, pos, false)?.map(|v| v.wdl))
}

/// WDL and DTC of `pos` under a royal rule set; `with_dtc` false leaves DTC 0 where it
/// costs a block read.
fn royal_probe(tb: &Tablebase, pos: &Position, with_dtc: bool) -> Result<Option<Value>, TbError> {
    let board = pos.board();
    if pos.has_bare_king() {
        return Ok(Some(Value {
            wdl: Wdl::Win,
            dtc: 0,
        }));
    }
    if is_bare_king(board, pos.turn().other()) {
        // Cannot arise (that side won before its last move); read as already lost.
        return Ok(Some(Value {
            wdl: Wdl::Loss,
            dtc: 0,
        }));
    }
    if pos.ep_square().is_some() {
        // Not stored: the best of its moves.
        let (mut win, mut draw, mut loss) = (None::<u16>, false, 0u16);
        for m in pos.legal_moves() {
            let Some(after) = royal_probe(tb, &pos.play(m), with_dtc)? else {
                return Ok(None);
            };
            let plies = if pos.is_capture(m) || m.is_promotion() {
                1
            } else {
                after.dtc.saturating_add(1)
            };
            match -after.wdl {
                Wdl::Win => win = Some(win.map_or(plies, |w| w.min(plies))),
                Wdl::Draw => draw = true,
                Wdl::Loss => loss = loss.max(plies),
            }
        }
        return Ok(Some(match (win, draw) {
            (Some(dtc), _) => Value { wdl: Wdl::Win, dtc },
            (None, true) => Value {
                wdl: Wdl::Draw,
                dtc: 0,
            },
            (None, false) => Value {
                wdl: Wdl::Loss,
                dtc: loss,
            },
        }));
    }
    let Some((table, swapped)) = tb.table_of(board)? else {
        return Ok(None);
    };
    let (b, side) = if swapped {
        (board.swap_colors(), pos.turn().other())
    } else {
        (*board, pos.turn())
    };
    let idx = table.index().encode(&b);
    if table.wdl_code(side, idx) == format::CODE_NOT_POSITION {
        return Err(TbError::Unsupported(format!(
            "{}: not a position under {} (the side not to move is in check)",
            pos.fen(),
            tb.rules()
        )));
    }
    Ok(Some(if with_dtc {
        table.value(side, idx)?
    } else {
        Value {
            wdl: table.wdl(side, idx),
            dtc: 0,
        }
    }))
}

/// The WDL, for `to_move`, of a position left open in a bound build for `c`: the result
/// worst for `c`.
pub(crate) fn worst_for(c: Color, to_move: Color) -> Wdl {
    if to_move == c {
        Wdl::Loss
    } else {
        Wdl::Win
    }
}
