//! One module per subcommand.

pub mod bench;
pub mod bench_book;
pub mod bench_solve;
pub mod book;
pub mod moves;
pub mod perft;
pub mod proof;
pub mod solve;
pub mod tb;
