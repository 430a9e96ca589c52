//! Values of options given as text (the command line's, and any other front end's): sides,
//! durations, thread and other counts, node counts and sizes. Each parser returns the value
//! or an error that names the text given and shows what is expected (the form `clap`'s
//! `value_parser` takes).

use std::time::Duration;

use crate::Color;

/// Parses a side: `white` or `black` (also `w`, `b`), case-insensitively.
pub fn parse_color(s: &str) -> Result<Color, String> {
    Color::from_name(s).ok_or_else(|| format!("\"{s}\" is not a side (white or black)"))
}

/// The longest duration an option takes: 100 years (of 365.25 days). Far beyond any run,
/// and far below what a `Duration` or a deadline (`Instant` + duration) can hold, so that
/// no option can overflow them.
pub const MAX_DURATION_SECS: f64 = 100.0 * 365.25 * 86400.0;

/// Parses `90`, `90s`, `5m`, `2h`, `1.5s`, `250ms`: the one parser of every duration
/// option. Values above [`MAX_DURATION_SECS`] (100 years) are refused with a message.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    // The unit is the letters at the end (so that `1e20` and `1.5e3ms` keep their exponent).
    let split = t.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    let (number, unit) = match t.split_at(split) {
        (number, "") => (number, "s"),
        pair => pair,
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration (e.g. 30, 90s, 5m, 2h)"))?;
    let seconds = match unit {
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        "ms" => value / 1000.0,
        _ => return Err(format!("\"{s}\": unknown time unit \"{unit}\" (s, m, h)")),
    };
    if seconds.is_nan() || seconds < 0.0 {
        return Err(format!("\"{s}\" is not a duration"));
    }
    if seconds > MAX_DURATION_SECS {
        return Err(format!("\"{s}\" is too long (at most 100 years)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Most threads (or workers, or processes) one run may start: far beyond any machine this
/// runs on, and low enough that a typing slip (`--threads 100000`) is an error, not a system
/// that runs out of threads.
pub const MAX_THREADS: usize = 1024;

/// Parses a thread count from 1 to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, 1, "1")
}

/// Parses a thread count from 0 (meaning: one per core) to [`MAX_THREADS`].
pub fn parse_threads_or_all(s: &str) -> Result<usize, String> {
    parse_count(s, 0, "0 (one per core)")
}

/// A count from `min` (written `min_text` in the error) to [`MAX_THREADS`].
fn parse_count(s: &str, min: usize, min_text: &str) -> Result<usize, String> {
    parse_count_within(s, min, min_text, MAX_THREADS)
}

/// Parses a number of connections served at once, from 1 to [`MAX_CONNECTIONS`].
pub fn parse_connections(s: &str) -> Result<usize, String> {
    parse_count_within(s, 1, "1", MAX_CONNECTIONS)
}

/// Most connections a server may serve at once.
pub const MAX_CONNECTIONS: usize = 65536;

/// A count from `min` (written `min_text` in the error) to `max`.
fn parse_count_within(s: &str, min: usize, min_text: &str, max: usize) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("\"{s}\" is not a count from {min_text} to {max}")),
    }
}

/// Parses a count of nodes (positions): `5000000`, `5_000_000`, or with a decimal unit
/// `500K`, `20M`, `2G`, `1.5M` (K = 1,000, M = 1,000,000, G = 1,000,000,000).
pub fn parse_nodes(s: &str) -> Result<u64, String> {
    let bad = || format!("\"{s}\" is not a number of nodes (e.g. 5000000, 500K, 20M, 2G)");
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let (number, scale) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => {
            return t.parse::<u64>().map_err(|_| bad());
        }
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let nodes = (value * scale).round();
    if !(value.is_finite() && value >= 0.0) || nodes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(nodes as u64)
}

/// Parses `512` (MB), `512M`, `4G`, `64K`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim().to_ascii_uppercase();
    let t = t.strip_suffix('B').unwrap_or(&t);
    let (number, shift) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        _ => (t, 20),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("\"{s}\" is not a size (e.g. 512M, 4G)"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("\"{s}\" is not a size"));
    }
    Ok((value * f64::from(1u32 << shift)) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_refuse_what_is_too_long() {
        for (text, seconds) in [
            ("90", 90.0),
            ("90s", 90.0),
            ("1.5s", 1.5),
            ("5m", 300.0),
            ("2h", 7200.0),
            ("250ms", 0.25),
            ("0", 0.0),
            ("1.5e3ms", 1.5),
            ("1e2", 100.0),
            ("100y", -1.0),
        ] {
            match parse_duration(text) {
                Ok(d) => assert_eq!(d.as_secs_f64(), seconds, "{text}"),
                Err(e) => assert!(
                    seconds < 0.0 && e.contains("unknown time unit"),
                    "{text}: {e}"
                ),
            }
        }
        for text in [
            "1e20",
            "1e20s",
            "18446744073709551616",
            "1e300h",
            "3155760001",
        ] {
            let err = parse_duration(text).unwrap_err();
            assert_eq!(err, format!("\"{text}\" is too long (at most 100 years)"));
        }
        assert!(parse_duration("3155760000").is_ok());
        for text in ["-1", "NaN", "x", "", "inf", "2e"] {
            assert!(parse_duration(text).is_err(), "{text}");
        }
    }

    #[test]
    fn node_counts_take_decimal_units() {
        for (text, nodes) in [
            ("5000000", 5_000_000),
            ("5_000_000", 5_000_000),
            ("500K", 500_000),
            ("20M", 20_000_000),
            ("2G", 2_000_000_000),
            ("2g", 2_000_000_000),
            ("1.5M", 1_500_000),
            (" 0 ", 0),
        ] {
            assert_eq!(parse_nodes(text), Ok(nodes), "{text}");
        }
        for text in ["", "M", "2Q", "-5M", "-5", "1e30G", "NaNK", "2 M", "1.5"] {
            let err = parse_nodes(text).unwrap_err();
            assert!(err.contains("is not a number of nodes"), "{text}: {err}");
        }
    }

    #[test]
    fn counts_name_their_range() {
        assert_eq!(parse_threads("4"), Ok(4));
        assert_eq!(parse_threads_or_all("0"), Ok(0));
        assert_eq!(
            parse_threads("0"),
            Err("\"0\" is not a count from 1 to 1024".to_string())
        );
        assert_eq!(
            parse_threads_or_all("1025"),
            Err("\"1025\" is not a count from 0 (one per core) to 1024".to_string())
        );
        assert_eq!(parse_connections("65536"), Ok(65536));
        assert_eq!(
            parse_connections("0"),
            Err("\"0\" is not a count from 1 to 65536".to_string())
        );
        assert_eq!(parse_color("B"), Ok(Color::Black));
        assert!(parse_color("red").unwrap_err().contains("is not a side"));
    }

    #[test]
    fn sizes_are_megabytes_by_default() {
        assert_eq!(parse_size("512"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("64kb"), Ok(64 << 10));
        for text in ["0", "-1M", "x", "infG"] {
            assert!(parse_size(text).is_err(), "{text}");
        }
    }
}
