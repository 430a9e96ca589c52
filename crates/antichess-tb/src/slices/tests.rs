//! The slice layout: ranks, mirror images and placements agree with the boards they
//! stand for.

use antichess_core::{Board, Color, Piece, Role, Square};

use super::layout::{advancement, SliceLayout};
use crate::material::Material;

#[test]
fn configurations_round_trip_and_mirror() {
    let m: Material = "KPPkp".parse().unwrap();
    let layout = SliceLayout::new(&m);
    assert_eq!(layout.white_sets.len(), 1128);
    assert_eq!(layout.black_sets.len(), 48);
    assert_eq!(layout.placements(), 64 * 64);
    for config in (0..layout.configs()).step_by(7) {
        let (w, b) = layout.pawns(config);
        assert_eq!(layout.config(w, b), config);
        let mirror = layout.mirror_config(w, b);
        let (mw, mb) = layout.pawns(mirror);
        assert_eq!(layout.mirror_config(mw, mb), config);
        if w & b == 0 {
            assert!(layout.is_canonical(config) || layout.is_canonical(mirror));
        }
    }
}

#[test]
fn locate_finds_the_placement_and_its_mirror() {
    let m: Material = "KRPkp".parse().unwrap();
    let layout = SliceLayout::new(&m);
    let mut board = Board::empty();
    let put = |b: &mut Board, sq: &str, c: Color, r: Role| {
        let t = sq.as_bytes();
        b.put_unchecked(
            Square::from_coords(t[0] - b'a', t[1] - b'1'),
            Piece::new(c, r),
        );
    };
    put(&mut board, "b2", Color::White, Role::Pawn);
    put(&mut board, "g7", Color::Black, Role::Pawn);
    put(&mut board, "e1", Color::White, Role::King);
    put(&mut board, "a8", Color::White, Role::Rook);
    put(&mut board, "h5", Color::Black, Role::King);
    let pos = layout.locate(&board, Color::Black);
    let mirrored = {
        let mut b = Board::empty();
        for (sq, piece) in board.pieces() {
            b.put_unchecked(Square::from_coords(7 - sq.file(), sq.rank()), piece);
        }
        b
    };
    assert_eq!(layout.locate(&mirrored, Color::Black), pos);
    let per_config = 2 * layout.placements();
    let config = pos / per_config;
    assert!(layout.is_canonical(config));
    let placement = pos % layout.placements();
    let (w, b) = layout.pawns(config);
    let rebuilt = layout.board(w, b, placement).unwrap();
    assert!(rebuilt == board || rebuilt == mirrored);
    assert_eq!(
        advancement(
            board.by_piece(Piece::new(Color::White, Role::Pawn)).0,
            Color::White
        ),
        0
    );
    assert_eq!(
        advancement(
            board.by_piece(Piece::new(Color::Black, Role::Pawn)).0,
            Color::Black
        ),
        0
    );
}
