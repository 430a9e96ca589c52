//! The `tb` commands as jobs, each with options (or an open tablebase) in and one
//! serializable report out, which the CLI prints as text or JSON: [`build`] (`tb build`,
//! exact and bound tables, with its dry run's plan), [`plan`] (the size of a build, its
//! estimates and warnings), [`probe`] (`tb probe`), [`stats`] (`tb stats`) and [`lasker`]
//! (the same for Lasker tables), [`targets`] (the materials a command names) and [`text`]
//! (a build's lines for people). `tb verify` is [`crate::verify_tables`] (its rows' text
//! here, `verify`) and `bench tablebase` [`crate::bench`] (its report's text here,
//! `bench_text`).

mod bench_text;
pub mod build;
pub mod lasker;
pub mod plan;
pub mod probe;
pub mod stats;
pub mod targets;
pub mod text;
mod verify;
