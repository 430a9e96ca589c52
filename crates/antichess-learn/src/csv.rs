//! The data set's file: CSV with a header line `source,units,label,cost,<features...>` (the
//! feature names of [`antichess_eval::FEATURES`], in order), one row per line, written
//! atomically. Described in `docs/formats/eval-dataset.md`.
//!
//! Reading checks the header against this build's features, so a file made with other
//! features is refused by column name, never misread; a malformed line is named by number.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

use antichess_eval::{FEATURES, FEATURE_COUNT};

use crate::{LearnError, Row};

/// The columns before the features.
const LEADING: [&str; 4] = ["source", "units", "label", "cost"];

/// The header line (without its newline).
#[must_use]
pub fn header() -> String {
    LEADING
        .iter()
        .chain(FEATURES.iter())
        .copied()
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes `rows` to `path` (replaced atomically: the file is whole or untouched).
///
/// # Errors
/// A source name that cannot be written in a field (a comma, a quote, a line break, or
/// empty), or a failing write.
pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), LearnError> {
    let context = || format!("writing {}", path.display());
    let mut checked: Option<&str> = None;
    for row in rows {
        let name = &*row.source;
        if checked == Some(name) {
            continue;
        }
        if name.is_empty() || name.contains([',', '"', '\n', '\r']) {
            return Err(LearnError::Invalid(format!(
                "source {name:?} cannot be written to a data set (no commas, quotes or line \
                 breaks, not empty)"
            )));
        }
        checked = Some(name);
    }
    let mut file =
        antichess_io::AtomicFile::create(path).map_err(|e| LearnError::io(context(), e))?;
    let mut line = header();
    line.push('\n');
    file.write_all(line.as_bytes())
        .map_err(|e| LearnError::io(context(), e))?;
    for row in rows {
        line.clear();
        use std::fmt::Write as _;
        let _ = write!(
            line,
            "{},{},{},{}",
            row.source, row.units, row.label, row.cost
        );
        for x in &row.features {
            // `{}` of an f32 is the shortest text that reads back to the same value.
            let _ = write!(line, ",{x}");
        }
        line.push('\n');
        file.write_all(line.as_bytes())
            .map_err(|e| LearnError::io(context(), e))?;
    }
    file.commit().map_err(|e| LearnError::io(context(), e))
}

/// Checks a header line against [`header`], naming the first column that differs.
fn check_header(line: &str) -> Result<(), String> {
    let found: Vec<&str> = line.split(',').map(str::trim).collect();
    let expected: Vec<&str> = LEADING.iter().chain(FEATURES.iter()).copied().collect();
    for (i, want) in expected.iter().enumerate() {
        match found.get(i) {
            Some(got) if got == want => {}
            Some(got) => {
                return Err(format!(
                    "column {} of the header is \"{got}\", expected \"{want}\" (this build's \
                     columns: {})",
                    i + 1,
                    expected.join(",")
                ))
            }
            None => {
                return Err(format!(
                    "the header has {} columns, expected {} (column {} \"{want}\" is missing)",
                    found.len(),
                    expected.len(),
                    i + 1
                ))
            }
        }
    }
    if found.len() > expected.len() {
        return Err(format!(
            "the header has {} columns, expected {} (column {} \"{}\" is not one of this \
             build's)",
            found.len(),
            expected.len(),
            expected.len() + 1,
            found[expected.len()]
        ));
    }
    Ok(())
}

/// Parses one data line.
fn parse_row(line: &str, sources: &mut HashMap<String, Arc<str>>) -> Result<Row, String> {
    let fields: Vec<&str> = line.split(',').collect();
    let columns = LEADING.len() + FEATURE_COUNT;
    if fields.len() != columns {
        return Err(format!("{} fields, expected {columns}", fields.len()));
    }
    let name = fields[0].trim();
    if name.is_empty() {
        return Err("the source is empty".to_string());
    }
    let source = match sources.get(name) {
        Some(s) => s.clone(),
        None => {
            let s: Arc<str> = Arc::from(name);
            sources.insert(name.to_string(), s.clone());
            s
        }
    };
    let units: u8 = fields[1]
        .trim()
        .parse()
        .ok()
        .filter(|u| (1..=32).contains(u))
        .ok_or_else(|| {
            format!(
                "units \"{}\" is not a number of pieces (1 to 32)",
                fields[1]
            )
        })?;
    let label = match fields[2].trim() {
        "0" => 0.0,
        "1" => 1.0,
        other => return Err(format!("label \"{other}\" is neither 0 nor 1")),
    };
    let cost: u64 = fields[3]
        .trim()
        .parse()
        .map_err(|_| format!("cost \"{}\" is not a whole number", fields[3]))?;
    let mut features = [0f32; FEATURE_COUNT];
    for (i, text) in fields[LEADING.len()..].iter().enumerate() {
        features[i] = text
            .trim()
            .parse::<f32>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{} \"{text}\" is not a finite number", FEATURES[i]))?;
    }
    Ok(Row {
        features,
        label,
        cost,
        units,
        source,
    })
}

/// Reads a data set written by [`write_csv`].
///
/// # Errors
/// A file that cannot be read, a header that is not this build's (naming the column), or
/// a malformed line (naming its number and field).
pub fn read_csv(path: &Path) -> Result<Vec<Row>, LearnError> {
    let file = std::fs::File::open(path)
        .map_err(|e| LearnError::io(format!("reading {}", path.display()), e))?;
    let reader = BufReader::with_capacity(1 << 16, file);
    let bad = |line: u64, message: String| LearnError::Csv {
        path: path.display().to_string(),
        line,
        message,
    };
    let mut rows = Vec::new();
    let mut sources: HashMap<String, Arc<str>> = HashMap::new();
    let mut number = 0u64;
    for line in reader.lines() {
        number += 1;
        let line = line.map_err(|e| {
            bad(
                number,
                format!("cannot be read ({e}); a data set is UTF-8 text"),
            )
        })?;
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if number == 1 {
            check_header(line).map_err(|why| bad(1, why))?;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        rows.push(parse_row(line, &mut sources).map_err(|why| bad(number, why))?);
    }
    if number == 0 {
        return Err(bad(
            1,
            format!("the file is empty (expected the header \"{}\")", header()),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::{Position, Rules};

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("antichess-learn-{}-{name}", std::process::id()))
    }

    fn sample_rows() -> Vec<Row> {
        let a: Arc<str> = Arc::from("e3-d5");
        let b: Arc<str> = Arc::from("tables");
        let pos = Position::from_fen(
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2",
            Rules::default(),
        )
        .unwrap();
        let mut odd = Row::of(&pos, false, 0, b);
        odd.features[4] = 0.1 + 0.2; // a value with a long decimal expansion
        vec![
            Row::of(&pos, true, 33, a.clone()),
            Row::of(&pos.swap_colors(), false, 1, a),
            odd,
        ]
    }

    #[test]
    fn a_round_trip_keeps_every_row() {
        let path = temp("round-trip.csv");
        let rows = sample_rows();
        write_csv(&path, &rows).unwrap();
        let back = read_csv(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(back, rows);
        assert!(Arc::ptr_eq(&back[0].source, &back[1].source));
    }

    #[test]
    fn a_header_of_other_features_is_refused_by_column() {
        let path = temp("header.csv");
        write_csv(&path, &sample_rows()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("us_hanging", "material", 1)).unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        assert!(e.contains("column 14"), "{e}");
        assert!(e.contains("\"material\", expected \"us_hanging\""), "{e}");
        let short = text.replacen(",pawn_advance", "", 1);
        std::fs::write(&path, short).unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains("\"pawn_advance\" is missing"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_bad_line_is_named() {
        let path = temp("bad-line.csv");
        write_csv(&path, &sample_rows()).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("e3-d5,4,2,0");
        text.push_str(&",0".repeat(FEATURE_COUNT));
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains("line 5: label \"2\""), "{e}");
        std::fs::write(&path, "").unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn an_unwritable_source_name_is_refused() {
        let mut rows = sample_rows();
        rows[0].source = Arc::from("a,b");
        let e = write_csv(&temp("never.csv"), &rows)
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"a,b\""), "{e}");
    }
}
