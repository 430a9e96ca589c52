//! [`Output`]: where the engine writes its lines (standard output in the binary, a buffer in
//! tests), shared by the command loop and the search thread. Each line is written whole and
//! flushed; a closed output is ignored (the GUI has gone; `quit` or the end of input follows).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// A shared line writer.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Output")
    }
}

impl Output {
    pub fn new(writer: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(writer))))
    }

    /// Writes `text` and a newline, then flushes.
    pub fn line(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }
}
