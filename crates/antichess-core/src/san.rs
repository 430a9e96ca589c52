//! Standard algebraic notation for this game.
//!
//! Output: `e4`, `exd5`, `e8=K`, `Nbd2`, `R1a3`, `Qh4xe1`; no `+` or `#` (there is no check)
//! and no castling, except under the royal-king rule sets (`pritchard3`, `pritchard4`),
//! where a check is marked `+` and a checkmate `#` as in orthodox chess. Input additionally accepts `+`, `#`, `!`, `?` suffixes, a missing `=` or
//! a lowercase letter in promotions (`e8Q`, `e8=q`), an optional `x`, a `P` for pawns,
//! `e.p.`, and over-specified disambiguation (`Ng1f3`).

use crate::{Error, Move, Position, Role, Square};

/// A SAN move parsed for syntax only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SanMove {
    pub role: Role,
    pub from_file: Option<u8>,
    pub from_rank: Option<u8>,
    pub capture: bool,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl SanMove {
    /// Parses SAN syntax; does not look at any position.
    pub fn parse(token: &str) -> Result<SanMove, Error> {
        let err = |reason: &str| Error::MoveSyntax {
            token: token.to_string(),
            reason: reason.to_string(),
        };
        let mut s = token.trim_end_matches(['+', '#', '!', '?']);
        s = s.strip_suffix("e.p.").unwrap_or(s);
        if s.starts_with("O-O") || s.starts_with("0-0") {
            return Err(err("there is no castling in this game"));
        }
        if s == "--" || s == "Z0" || s == "0000" {
            return Err(err("null moves do not exist in this game"));
        }
        if !s.is_ascii() || s.len() < 2 {
            return Err(err(
                "not a move in SAN (e.g. e4, Nf3, exd5, e8=K) or UCI (e.g. e2e4)",
            ));
        }
        let bytes = s.as_bytes();
        let (role, mut rest) = match bytes[0] {
            b'N' => (Role::Knight, &bytes[1..]),
            b'B' => (Role::Bishop, &bytes[1..]),
            b'R' => (Role::Rook, &bytes[1..]),
            b'Q' => (Role::Queen, &bytes[1..]),
            b'K' => (Role::King, &bytes[1..]),
            b'P' => (Role::Pawn, &bytes[1..]),
            c if c.is_ascii_uppercase() => {
                return Err(err(&format!(
                    "'{}' is not a piece letter (N, B, R, Q, K, or P for a pawn)",
                    c as char
                )))
            }
            _ => (Role::Pawn, bytes),
        };
        // Promotion suffix: "=Q", "Q", "=q" after the destination rank digit.
        let mut promotion = None;
        if let [head @ .., last] = rest {
            if !last.is_ascii_digit() {
                let promo = Role::from_char(*last as char)
                    .filter(|r| *r != Role::Pawn)
                    .ok_or_else(|| {
                        err("not a move in SAN (e.g. e4, Nf3, exd5, e8=K) or UCI (e.g. e2e4)")
                    })?;
                if role != Role::Pawn {
                    return Err(err("only pawns promote"));
                }
                promotion = Some(promo);
                rest = head.strip_suffix(b"=").unwrap_or(head);
            }
        }
        let [head @ .., f, r] = rest else {
            return Err(err("the destination square is missing"));
        };
        let to = match (f, r) {
            (b'a'..=b'h', b'1'..=b'8') => Square::from_coords(f - b'a', r - b'1'),
            _ => {
                return Err(err(
                    "the move does not end in a destination square (a1 to h8)",
                ))
            }
        };
        let (head, capture) = match head {
            [h @ .., b'x' | b':'] => (h, true),
            h => (h, false),
        };
        let (from_file, from_rank) = match head {
            [] => (None, None),
            [f @ b'a'..=b'h'] => (Some(f - b'a'), None),
            [r @ b'1'..=b'8'] => (None, Some(r - b'1')),
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(f - b'a'), Some(r - b'1')),
            _ => return Err(err("the origin (between the piece letter and the destination) is not a file, a rank or a square")),
        };
        Ok(SanMove {
            role,
            from_file,
            from_rank,
            capture,
            to,
            promotion,
        })
    }

    fn matches(&self, pos: &Position, m: Move) -> bool {
        m.promotion() == self.promotion && self.matches_ignoring_promotion(pos, m)
    }

    /// The unique legal move of `pos` that this denotes.
    pub fn to_move(&self, pos: &Position, token: &str) -> Result<Move, Error> {
        let legal = pos.legal_moves();
        let mut found = legal.iter().filter(|m| self.matches(pos, **m));
        let illegal = |reason: String| Error::IllegalMove {
            token: token.to_string(),
            fen: pos.fen(),
            reason,
        };
        match (found.next(), found.next()) {
            (Some(m), None) => Ok(*m),
            (Some(_), Some(_)) => {
                let options: Vec<String> = legal
                    .iter()
                    .filter(|m| self.matches(pos, **m))
                    .map(|m| pos.san(*m))
                    .collect();
                Err(illegal(format!(
                    "ambiguous, it could be {}",
                    options.join(" or ")
                )))
            }
            (None, _) => {
                let pseudo = SanMove {
                    promotion: None,
                    ..*self
                };
                let reason = if self.role == Role::Pawn
                    && self.promotion.is_none()
                    && legal
                        .iter()
                        .any(|m| m.is_promotion() && pseudo.matches_ignoring_promotion(pos, *m))
                {
                    "a promotion needs a piece (e.g. e8=Q or e8=K)".to_string()
                } else if pos.has_capture() {
                    "a capture is available, and captures are compulsory".to_string()
                } else {
                    format!("no {} {} can move to {}", pos.turn(), self.role, self.to)
                };
                Err(illegal(reason))
            }
        }
    }

    fn matches_ignoring_promotion(&self, pos: &Position, m: Move) -> bool {
        m.to() == self.to
            && pos.moved_role(m) == self.role
            && self.from_file.is_none_or(|f| m.from().file() == f)
            && self.from_rank.is_none_or(|r| m.from().rank() == r)
    }
}

impl Position {
    /// SAN of a legal move (with `+`/`#` under a royal rule set).
    #[must_use]
    pub fn san(&self, m: Move) -> String {
        let mut san = self.san_without_check(m);
        if self.rules.is_royal() {
            san.push_str(self.royal_check_suffix(m));
        }
        san
    }

    fn san_without_check(&self, m: Move) -> String {
        let role = self.moved_role(m);
        let capture = self.is_capture(m);
        let mut san = String::with_capacity(7);
        if role == Role::Pawn {
            if capture {
                san.push(m.from().file_char());
                san.push('x');
            }
            san.push_str(&m.to().to_string());
            if let Some(promo) = m.promotion() {
                san.push('=');
                san.push(promo.upper_char());
            }
            return san;
        }
        san.push(role.upper_char());
        let rivals: Vec<Move> = self
            .legal_moves()
            .iter()
            .copied()
            .filter(|o| *o != m && o.to() == m.to() && self.moved_role(*o) == role)
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|o| o.from().file() == m.from().file());
            let same_rank = rivals.iter().any(|o| o.from().rank() == m.from().rank());
            if !same_file {
                san.push(m.from().file_char());
            } else if !same_rank {
                san.push(m.from().rank_char());
            } else {
                san.push_str(&m.from().to_string());
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&m.to().to_string());
        san
    }

    /// Parses a SAN move and finds it among the legal moves.
    pub fn parse_san(&self, token: &str) -> Result<Move, Error> {
        SanMove::parse(token)?.to_move(self, token)
    }

    /// Parses a move in UCI notation (when the token has its shape, `e2e4` or `e7e8k`) or
    /// else in SAN.
    pub fn parse_move(&self, token: &str) -> Result<Move, Error> {
        if let Ok(uci) = crate::UciMove::parse(token) {
            return uci.to_move(self, token);
        }
        match SanMove::parse(token) {
            Ok(san) => san.to_move(self, token),
            Err(san_err) => match crate::UciMove::parse(token) {
                Ok(uci) => uci.to_move(self, token),
                Err(_) => Err(san_err),
            },
        }
    }
}
