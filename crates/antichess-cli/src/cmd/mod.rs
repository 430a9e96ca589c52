//! One module per subcommand (a folder for a command with subcommand groups). A command
//! module uses the libraries and `crate::common`, never another command's module.

pub mod bench;
pub mod book;
pub mod learn;
pub mod moves;
pub mod perft;
pub mod proof;
pub mod prove;
pub mod serve;
pub mod solve;
pub mod tb;
pub mod uci;
