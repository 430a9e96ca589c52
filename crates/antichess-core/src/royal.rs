//! The royal-king rule sets, Pritchard's variants 3 and 4 of losing chess
//! ([`crate::RuleSet::Pritchard3`], [`crate::RuleSet::Pritchard4`]): legal moves, check,
//! the bare-king rule, outcomes and validation of their positions.
//!
//! Legal moves of the side to move, on top of the orthodox legal moves of
//! [`crate::orthodox`] (pseudo-legal moves that leave one's own king unattacked; no
//! castling; promotion to Q, R, B, N, or Q only under [`PromotionRule::QueenOnly`]):
//!
//! 1. With a bare king (only the king left) the game is over, won by that side: no move.
//! 2. In check: every orthodox evasion (a capture is not compulsory then).
//! 3. Otherwise, if an orthodox legal move captures (en passant included), only captures.
//! 4. Otherwise every orthodox legal move.
//!
//! Outcome when no move is left: a bare king wins; checkmate (in check) is a win for the
//! mater under variant 3 and for the mated side under variant 4; stalemate is a draw.
//!
//! Validation adds to the antichess checks: exactly one king per side, the side not to
//! move not in check, and the side not to move without a bare king (it would have won
//! before its last move, as a side without pieces has in antichess). The en passant square
//! of a royal position is kept only while a *legal* en passant capture exists (the
//! orthodox invariant), so that FEN, key and equality describe the position.
//!
//! Only [`Position`]'s entry points branch here (`legal_moves_into`, `count_moves`,
//! `has_capture`, `no_move_outcome`, SAN): the antichess rule sets' generator is untouched.
//! The checks of a board that building a position and making a move need (validation, a
//! legal en passant capture, [`is_bare_king`]) are in `position.rs`, which this module
//! extends.

pub use crate::position::is_bare_king;

use crate::orthodox::{in_check, OrthoPosition};
use crate::{Bitboard, Move, MoveList, Outcome, Position, PromotionRule, Role};

impl Position {
    #[inline]
    fn ortho(&self) -> OrthoPosition {
        OrthoPosition::from_parts_unchecked(self.board, self.turn, self.ep_square)
    }

    /// Whether the side to move has only its king left. Under the royal rule sets that
    /// side has won at once (it has no legal move); under the others it is an ordinary
    /// position.
    #[must_use]
    #[inline]
    pub fn has_bare_king(&self) -> bool {
        is_bare_king(&self.board, self.turn)
    }

    /// Whether the side to move is in check. Always false under the antichess rule sets,
    /// where the king is not royal.
    #[must_use]
    #[inline]
    pub fn is_check(&self) -> bool {
        self.rules.is_royal() && in_check(&self.board, self.turn)
    }

    /// The legal moves under a royal rule set (see the module documentation). Kept out of
    /// line (cold) so that the antichess generator's entry points stay small.
    #[cold]
    #[inline(never)]
    pub(crate) fn royal_legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        if self.has_bare_king() {
            return;
        }
        let ortho = self.ortho();
        ortho.pseudo_legal(list);
        let queen_only = self.rules.promotion == PromotionRule::QueenOnly;
        list.retain(|m| {
            (!queen_only || m.promotion().is_none_or(|r| r == Role::Queen)) && ortho.is_safe(*m)
        });
        if !in_check(&self.board, self.turn) {
            let them = self.them();
            let captures = |m: &Move| m.is_en_passant() || them.contains(m.to());
            if list.iter().any(captures) {
                list.retain(|m| captures(m));
            }
        }
    }

    /// Under a royal rule set: whether captures are compulsory here (not in check, and a
    /// legal capture exists).
    #[cold]
    #[inline(never)]
    pub(crate) fn royal_has_capture(&self) -> bool {
        if in_check(&self.board, self.turn) {
            return false;
        }
        let mut list = MoveList::new();
        self.royal_legal_moves_into(&mut list);
        let them: Bitboard = self.them();
        list.iter()
            .any(|m| m.is_en_passant() || them.contains(m.to()))
    }

    /// Under a royal rule set, the number of legal moves.
    #[cold]
    #[inline(never)]
    pub(crate) fn royal_count_moves(&self) -> u32 {
        let mut list = MoveList::new();
        self.royal_legal_moves_into(&mut list);
        list.len() as u32
    }

    /// Under a royal rule set, the outcome when the side to move has no legal move.
    #[cold]
    #[inline(never)]
    pub(crate) fn royal_no_move_outcome(&self) -> Outcome {
        if self.has_bare_king() || self.us().is_empty() {
            Outcome::Win(self.turn)
        } else if in_check(&self.board, self.turn) {
            self.rules.rule_set.checkmate_outcome(self.turn)
        } else {
            self.rules
                .rule_set
                .stalemate_outcome(self.turn, self.us().count(), self.them().count())
        }
    }

    /// The SAN suffix of a legal move under a royal rule set: `#` when it mates
    /// (orthodox checkmate: in check with no evasion), `+` when it checks, else nothing.
    pub(crate) fn royal_check_suffix(&self, m: Move) -> &'static str {
        let after = self.play(m);
        if !in_check(&after.board, after.turn) {
            ""
        } else if after.ortho().has_legal_move() {
            "+"
        } else {
            "#"
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, Outcome, Position, PositionError, Rules, START_FEN};

    fn pos(fen: &str, rules: Rules) -> Position {
        Position::from_fen(fen, rules).unwrap()
    }

    fn moves(p: &Position) -> Vec<String> {
        let mut v: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn in_check_every_evasion_even_with_a_capture_elsewhere() {
        // White king e1 checked by the rook on e8; the knight could capture on a5, but
        // evasions (capturing or not) are all legal and the unrelated capture is not.
        let p = pos("4r2k/8/8/p7/2N5/8/8/4K3 w - - 0 1", Rules::PRITCHARD3);
        assert!(p.is_check());
        assert_eq!(moves(&p), ["c4e3", "c4e5", "e1d1", "e1d2", "e1f1", "e1f2"]);
        assert_eq!(p.count_moves(), 6);
        assert!(!p.has_capture());
    }

    #[test]
    fn a_pinned_piece_may_not_capture_and_then_nothing_is_compulsory() {
        // The knight on e2 is pinned by the rook on e8: its capture on c3 is illegal, so
        // no capture is legal and every orthodox legal move is (d2 is attacked by c3).
        let p = pos("4r2k/8/8/8/8/2p5/4N3/4K3 w - - 0 1", Rules::PRITCHARD3);
        assert!(!p.is_check());
        assert_eq!(moves(&p), ["e1d1", "e1f1", "e1f2"]);
        assert!(!p.has_capture());
        // Antichess rules on the same board: the capture is compulsory.
        let anti = p.with_rules(Rules::INTERNATIONAL);
        assert_eq!(moves(&anti), ["e2c3"]);
        // A legal capture elsewhere is compulsory.
        let p = pos("4r2k/8/8/8/8/2p5/4N3/4Kn2 w - - 0 1", Rules::PRITCHARD4);
        assert_eq!(moves(&p), ["e1f1"]);
        assert!(p.has_capture());
    }

    #[test]
    fn outcomes_bare_king_mate_stalemate() {
        // Black is mated (back-rank mate by the rook).
        let mate = "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1";
        assert_eq!(
            pos(mate, Rules::PRITCHARD3).outcome(),
            Some(Outcome::Win(crate::Color::White))
        );
        assert_eq!(
            pos(mate, Rules::PRITCHARD4).outcome(),
            Some(Outcome::Win(crate::Color::Black))
        );
        // Stalemate: a draw under both.
        let stale = "7k/5Q2/6K1/p7/P7/8/8/8 b - - 0 1";
        for rules in [Rules::PRITCHARD3, Rules::PRITCHARD4] {
            assert_eq!(pos(stale, rules).outcome(), Some(Outcome::Draw));
        }
        // Bare king to move: it has won at once, though its king could move.
        let bare = "7k/8/8/8/8/8/8/R3K3 b - - 0 1";
        let p = pos(bare, Rules::PRITCHARD4);
        assert_eq!(p.count_moves(), 0);
        assert_eq!(p.outcome(), Some(Outcome::Win(crate::Color::Black)));
    }

    #[test]
    fn validation_and_san() {
        let err = |fen: &str| Position::from_fen(fen, Rules::PRITCHARD3).unwrap_err();
        assert!(matches!(
            err("4r3/8/8/8/8/8/8/R3K3 w - - 0 1"),
            Error::Position(PositionError::KingCount(crate::Color::Black, 0))
        ));
        assert!(matches!(
            err("k6R/8/8/8/8/8/8/K7 w - - 0 1"),
            Error::Position(PositionError::OpponentInCheck(crate::Color::Black))
        ));
        assert!(matches!(
            err("7k/8/8/8/8/8/8/R3K3 w - - 0 1"),
            Error::Position(PositionError::BareKingNotToMove(crate::Color::Black))
        ));
        // Two kings for one side are fine in antichess, not here.
        assert!(Position::from_fen("kk6/8/8/8/8/8/8/K7 w - - 0 1", Rules::INTERNATIONAL).is_ok());
        assert!(Position::from_fen("kk6/8/8/8/8/8/8/K7 w - - 0 1", Rules::PRITCHARD4).is_err());
        let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", Rules::PRITCHARD3);
        assert_eq!(p.san(p.parse_move("a1a8").unwrap()), "Ra8#");
        assert_eq!(p.parse_move("Ra8#").unwrap(), p.parse_move("a1a8").unwrap());
        assert_eq!(p.san(p.parse_move("a1a7").unwrap()), "Ra7");
        let p = pos("6k1/6pp/8/8/8/8/8/R5K1 w - - 0 1", Rules::PRITCHARD3);
        assert_eq!(p.san(p.parse_move("a1a8").unwrap()), "Ra8+");
        // No promotion to a king.
        let p = pos("8/P6k/7p/8/8/8/8/K7 w - - 0 1", Rules::PRITCHARD3);
        assert_eq!(p.count_moves(), 4 + 3);
        assert!(p.parse_move("a8=K").is_err());
        // Start position: 20 moves, no castling.
        assert_eq!(pos(START_FEN, Rules::PRITCHARD4).count_moves(), 20);
    }

    #[test]
    fn en_passant_kept_only_when_legal() {
        // d5xe6 would expose the white king on a5 to the rook on h5.
        let p = pos("7k/8/8/K2Pp2r/8/8/8/8 w - e6 0 1", Rules::PRITCHARD3);
        assert_eq!(p.ep_square(), None);
        assert_eq!(p.fen(), "7k/8/8/K2Pp2r/8/8/8/8 w - - 0 1");
        let anti = pos("7k/8/8/K2Pp2r/8/8/8/8 w - e6 0 1", Rules::INTERNATIONAL);
        assert!(anti.ep_square().is_some());
        // The same through a double step played on the board.
        // Black, in check from the bishop, blocks with the double step.
        let before = pos("7k/4p3/8/K2P3r/8/8/1B6/8 b - - 0 1", Rules::PRITCHARD3);
        let after = before.play(before.parse_move("e7e5").unwrap());
        assert_eq!(after.ep_square(), None);
        assert_eq!(after.key(), after.compute_key());
    }
}
