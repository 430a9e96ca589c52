//! One module per subcommand.

pub mod bench;
pub mod moves;
pub mod perft;
