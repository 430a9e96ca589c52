//! What a new book is given to start from (`prove`, `book new`, `book seed`): the proof
//! files named by the user ([`proof_files`]), and a check, made before any table is built
//! or any book file created, that those proofs and a frontier file fit the book to be
//! made ([`check_prover`]); the tables the seeds are verified with ([`seed_tables`]).
//!
//! A book proves a win for one side, by default the side to move at its root. A proof
//! file and a frontier file record their own prover and rules; a seed or frontier for
//! another prover or rule set is refused at once, and when the prover was the default the
//! message says which `--prover` to give. (After `--moves e3` the default is Black: given
//! White's proofs, `prove` used to build its tables, create an empty book in its cache
//! and only then fail on the first seed.)

use std::path::{Path, PathBuf};

use antichess_core::{Color, Position, Rules};
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};

/// An I/O error of reading `path`, which names it.
fn reading(context: String) -> impl FnOnce(std::io::Error) -> BookError {
    move |source| BookError::Io { context, source }
}

/// The proof files named: files as given, directories' `.proof` files in name order. A
/// path that does not exist, or is neither a regular file nor a directory (a device, a
/// FIFO), is an error that names it and says which.
///
/// # Errors
/// As said, and when a directory cannot be read.
pub fn proof_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BookError::Input(format!(
                    "{}: no such proof file or directory",
                    path.display()
                )))
            }
            Err(e) => return Err(reading(format!("reading {}", path.display()))(e)),
        };
        if meta.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(reading(format!("reading {}", path.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "proof") && p.is_file())
                .collect();
            found.sort();
            out.extend(found);
        } else if meta.is_file() {
            out.push(path.clone());
        } else {
            return Err(BookError::Input(format!(
                "{}: {}, not a regular file: give proof files (our compact format) or \
                 directories of them",
                path.display(),
                antichess_io::kind_of(meta.file_type())
            )));
        }
    }
    Ok(out)
}

/// Checks, before anything is built or created, that the seeds (`seeds`: files or
/// directories, as given) and the frontier file (if given and present) are for a book
/// that proves a win for `prover` (`--prover`, by default the side to move) from `root`
/// under its rules: each file's header is read (a file whose header cannot be read is an
/// error too). When `--prover` was not given, a prover mismatch says which to give.
///
/// # Errors
/// [`BookError::Mismatch`] when a file does not fit; the errors of reading them.
pub fn check_prover(
    root: &Position,
    prover: Option<Color>,
    seeds: &[PathBuf],
    frontier: Option<&Path>,
) -> Result<()> {
    let given = prover.is_some();
    let prover = prover.unwrap_or(root.turn());
    let rules = root.rules();
    let fits = |what: &str, file: &Path, their_rules, their_prover: Color| {
        if their_rules != rules {
            return Err(BookError::Mismatch(format!(
                "{}: the {what} is under {their_rules} rules, the book would be under {rules}: \
                 give --rules {their_rules}, or leave the file out",
                file.display()
            )));
        }
        if their_prover != prover {
            let default = if given {
                String::new()
            } else {
                format!(
                    ", the side to move at the root (the default when --prover is not given): \
                     give --prover {their_prover} to prove {their_prover}'s win"
                )
            };
            return Err(BookError::Mismatch(format!(
                "{}: the {what} proves a win for {their_prover}, but the book would prove one \
                 for {prover}{default}",
                file.display()
            )));
        }
        Ok(())
    };
    for file in proof_files(seeds)? {
        let mut reader = std::fs::File::open(&file)
            .map(std::io::BufReader::new)
            .map_err(reading(format!(
                "reading the seed proof {}",
                file.display()
            )))?;
        let header = antichess_proof::CompactHeader::read(&mut reader).map_err(|e| {
            BookError::Input(format!(
                "{}: not a seed proof (a proof in our compact format): {e}",
                file.display()
            ))
        })?;
        fits("proof", &file, header.rules, header.prover)?;
    }
    if let Some(file) = frontier.filter(|f| f.exists()) {
        let header = crate::frontier::read_header(file)?;
        fits("frontier", file, header.rules, header.prover)?;
        let theirs = Position::from_fen(&header.root_fen, header.rules)
            .map_err(|e| BookError::Input(e.to_string()))?;
        if !theirs.same_position(root) {
            return Err(BookError::Mismatch(format!(
                "{} is the frontier of a book of another position ({}), not of {}",
                file.display(),
                header.root_fen,
                root.fen()
            )));
        }
    }
    Ok(())
}

/// The tables to verify seeds with: those in `tables`, or in the rule set's default
/// directory ([`antichess_tb::default_tables_dir`]) if it exists (`None`: neither).
///
/// # Errors
/// When the directory cannot be opened as tables of `rules`.
pub fn seed_tables(tables: Option<&Path>, rules: Rules) -> Result<Option<Tablebase>> {
    Ok(antichess_tb::verification_tables(tables, rules)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn a_device_is_named_as_such_not_as_missing() {
        let err = proof_files(&[PathBuf::from("/dev/null")])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("/dev/null: a character device, not a regular file"),
            "{err}"
        );
        let err = proof_files(&[PathBuf::from("/no/such/file.proof")])
            .unwrap_err()
            .to_string();
        assert_eq!(err, "/no/such/file.proof: no such proof file or directory");
    }

    /// Issue 63: `prove --moves e3 --seed proofs/` defaulted to Black and failed on the
    /// first seed only after building tables and creating a book.
    #[test]
    fn the_default_prover_against_seeds_of_the_other_side_says_which_to_give() {
        let white = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-Na6.proof");
        let start = Position::start(Rules::INTERNATIONAL);
        let after_e3 = *antichess_core::play_move_text(start, "e3")
            .unwrap()
            .position();
        let seeds = [white];
        let err = check_prover(&after_e3, None, &seeds, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("e3-Na6.proof: the proof proves a win for white, but the book would prove one for black")
                && err.contains("give --prover white"),
            "{err}"
        );
        // Given explicitly: no advice to give it.
        let err = check_prover(&after_e3, Some(Color::Black), &seeds, None)
            .unwrap_err()
            .to_string();
        assert!(!err.contains("--prover"), "{err}");
        check_prover(&after_e3, Some(Color::White), &seeds, None).unwrap();
        // Other rules.
        let fics = *antichess_core::play_move_text(Position::start(Rules::FICS), "e3")
            .unwrap()
            .position();
        let err = check_prover(&fics, Some(Color::White), &seeds, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("give --rules international"), "{err}");
        // Not a proof.
        let err = check_prover(
            &after_e3,
            Some(Color::White),
            &[Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("Cargo.toml: not a seed proof"), "{err}");
    }
}
