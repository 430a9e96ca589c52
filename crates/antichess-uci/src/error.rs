//! [`UciError`], the one error type of this crate: what is wrong with a line the engine
//! read (an unknown command, a bad argument, an illegal move, a malformed FEN) or with an
//! option's value (a proof file or a tables directory that cannot be opened). The engine
//! never stops on one: it prints the message as an `info string` and goes on.

use std::fmt;

/// Errors of `antichess-uci`. Each message names the bad input in the user's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UciError {
    /// A line whose first word is no UCI command.
    UnknownCommand(String),
    /// A command with an argument it cannot use.
    BadArgument {
        command: &'static str,
        message: String,
    },
    /// `position fen …` with a FEN the rules refuse.
    BadFen { fen: String, message: String },
    /// `position … moves …` with a move that is not legal where it is played.
    IllegalMove {
        token: String,
        fen: String,
        message: String,
    },
    /// `setoption` with an unknown name or a value the option does not take.
    BadOption { name: String, message: String },
    /// A proof file or a tables directory that cannot be used.
    Load { what: String, message: String },
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::UnknownCommand(word) => write!(f, "unknown command '{word}'"),
            UciError::BadArgument { command, message } => write!(f, "{command}: {message}"),
            UciError::BadFen { fen, message } => write!(f, "malformed FEN '{fen}': {message}"),
            UciError::IllegalMove {
                token,
                fen,
                message,
            } => write!(f, "illegal move '{token}' in position '{fen}': {message}"),
            UciError::BadOption { name, message } => write!(f, "option '{name}': {message}"),
            UciError::Load { what, message } => write!(f, "{what}: {message}"),
        }
    }
}

impl std::error::Error for UciError {}
