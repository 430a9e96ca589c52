//! Output conventions shared by the commands: the `--format text|json` choice (proof and
//! disproof numbers are written by the libraries' text and reports: `inf` in text, the
//! string `"inf"` in JSON), the peak memory figure, an error with its causes on one line ([`describe`]), a
//! job's report as JSON ([`print_json`]) or as its text or JSON ([`print_report`]), and
//! the exit code of a check ([`exit_code`]).

use std::process::ExitCode;

/// What a command prints: text for people (the default) or one JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Peak resident memory of this process in bytes (Linux), if known: the tables' figure.
pub use antichess_tb::memory::peak_resident as peak_memory;

/// Parses `--format` of the commands that read proof files, where it once named the file's
/// format: those names point to `--proof-format`.
pub fn parse_format_of_proof_command(s: &str) -> Result<Format, String> {
    match s {
        "text" => Ok(Format::Text),
        "json" => Ok(Format::Json),
        "ours" | "compact" | "reference" => Err(format!(
            "\"{s}\" is a proof file format: give it with --proof-format (--format chooses the output: text or json)"
        )),
        _ => Err(format!("\"{s}\" is not an output format (text or json)")),
    }
}

/// The error and its causes, joined by ": ". Some of our error types already write their
/// source into their own message (so that they read whole when printed alone); a cause whose
/// text is already there is not repeated.
pub fn describe(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// Prints a job's report as one JSON object (keys in the order of `serde_json`'s maps, as
/// the `json!` objects the commands printed before their reports were typed).
pub fn print_json<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_value(report)?);
    Ok(())
}

/// [`print_json`], indented.
pub fn print_json_pretty<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::to_value(report)?)?
    );
    Ok(())
}

/// Prints a job's report in `format`: its JSON on one line, or its text and a newline; the
/// exit code 0.
pub fn print_report<T: serde::Serialize + std::fmt::Display>(
    report: &T,
    format: Format,
) -> anyhow::Result<ExitCode> {
    print_report_ending(report, format, "\n")
}

/// [`print_report`] for a report whose text is lines, each ending with a newline already.
pub fn print_lines<T: serde::Serialize + std::fmt::Display>(
    report: &T,
    format: Format,
) -> anyhow::Result<ExitCode> {
    print_report_ending(report, format, "")
}

fn print_report_ending<T: serde::Serialize + std::fmt::Display>(
    report: &T,
    format: Format,
    end: &str,
) -> anyhow::Result<ExitCode> {
    match format {
        Format::Json => print_json(report)?,
        Format::Text => print!("{report}{end}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The exit code of a job that checks something: 0 if it passed, 1 if not.
pub fn exit_code(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
