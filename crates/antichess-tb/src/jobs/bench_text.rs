//! `bench tablebase` as text for people ([`TablebaseBenchReport`]'s `Display`): the
//! settings, a row per number of units, the totals, a line per table asked for, and the
//! peak memory. Sizes in MB (10^6 bytes), rates per second.

use std::fmt;

use crate::bench::TablebaseBenchReport;

/// The report's lines, each ending in a newline.
impl fmt::Display for TablebaseBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self;
        writeln!(
            f,
            "tablebase generation, {} rules, {} threads, into {}",
            report.rules, report.threads, report.dir
        )?;
        writeln!(
            f,
            "{:>5} {:>7} {:>14} {:>10} {:>14}",
            "units", "tables", "positions", "seconds", "positions/s"
        )?;
        for u in &report.by_units {
            writeln!(
                f,
                "{:>5} {:>7} {:>14} {:>10.1} {:>14.0}",
                u.units, u.tables, u.positions, u.seconds, u.positions_per_second
            )?;
        }
        writeln!(
            f,
            "total: {} tables built ({} already present), {} positions in {:.1} s = {:.2} M positions/s",
            report.tables_built,
            report.tables_present,
            report.positions,
            report.seconds,
            report.positions_per_second / 1e6
        )?;
        for table in &report.tables {
            let Some(b) = &table.built else {
                writeln!(f, "{}: already present in {}", table.material, report.dir)?;
                continue;
            };
            let memory = match (b.peak_memory_bytes, b.bytes_per_position) {
                (Some(p), Some(r)) => {
                    format!(
                        "peak memory {:.1} MB = {r:.2} bytes per position",
                        p as f64 / 1e6
                    )
                }
                _ => "peak memory unknown".to_string(),
            };
            writeln!(
                f,
                "{}: {} positions in {:.1} s = {:.2} M positions/s, {memory}, file {:.1} MB = {:.3} bytes per position (wins {}, draws {}, losses {}, longest DTC {} plies)",
                table.material,
                b.positions,
                b.seconds,
                b.positions_per_second / 1e6,
                b.file_bytes as f64 / 1e6,
                b.file_bytes_per_position,
                b.wins,
                b.draws,
                b.losses,
                b.max_dtc
            )?;
        }
        if let Some(peak) = report.peak_memory_bytes {
            writeln!(f, "peak memory: {:.1} MB", peak as f64 / 1e6)?;
        }
        Ok(())
    }
}
