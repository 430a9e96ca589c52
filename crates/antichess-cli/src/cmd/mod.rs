//! One module per subcommand.

pub mod bench;
pub mod bench_book;
pub mod bench_solve;
pub mod bench_store;
pub mod book;
pub mod moves;
pub mod perft;
pub mod proof;
pub mod proof_minimize;
pub mod serve;
pub mod solve;
pub mod tb;
