//! Who may write: the server's write token ([`Token`], from a file or [`TOKEN_ENV`]) and
//! the rule that follows from it and the bound address ([`WriteRule`]). Below the state,
//! which holds them, and [`crate::guard`], which applies them to requests (and re-exports
//! them).

use std::path::Path;

use subtle::ConstantTimeEq;

/// The environment variable that holds the write token (a `--token-file` wins over it).
pub const TOKEN_ENV: &str = "ANTICHESS_TOKEN";

/// The secret that write requests must present. Its `Debug` does not show it.
#[derive(Clone)]
pub struct Token(Vec<u8>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

impl Token {
    /// A token from its text (surrounding white space, such as a file's final newline, is
    /// dropped). `source` names where it came from, for the messages: it must not be empty
    /// and must be printable ASCII without spaces (what a bearer header can carry).
    pub fn new(text: &str, source: &str) -> Result<Token, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(format!(
                "{source} is empty: the token must be at least one character (a long random \
                 one, e.g. from `openssl rand -hex 32`)"
            ));
        }
        if let Some(c) = text.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(format!(
                "{source}: the token holds {}, but it must be printable ASCII without spaces \
                 (it is sent as `Authorization: Bearer <token>`)",
                describe_char(c)
            ));
        }
        Ok(Token(text.as_bytes().to_vec()))
    }

    /// The token in a file, and a warning when the file can be read by other users (or the
    /// token is short).
    pub fn from_file(path: &Path) -> Result<(Token, Vec<String>), String> {
        let source = format!("the token file {}", path.display());
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4097), &mut bytes))
            .map_err(|e| format!("{source}: {e}"))?;
        if bytes.len() > 4096 {
            return Err(format!(
                "{source} is larger than 4 KiB: it must hold the token alone"
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{source}: not text (the token must be printable ASCII)"))?;
        let token = Token::new(&text, &source)?;
        let mut warnings = token.warnings(&source);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(meta) = std::fs::metadata(path) {
                if meta.permissions().mode() & 0o044 != 0 {
                    warnings.push(format!(
                        "{source} can be read by other users (chmod 600 {} keeps it yours)",
                        path.display()
                    ));
                }
            }
        }
        Ok((token, warnings))
    }

    /// The token in `$ANTICHESS_TOKEN` (`None` if the variable is not set).
    pub fn from_env() -> Result<Option<(Token, Vec<String>)>, String> {
        match std::env::var(TOKEN_ENV) {
            Ok(text) => {
                let source = format!("${TOKEN_ENV}");
                let token = Token::new(&text, &source)?;
                let warnings = token.warnings(&source);
                Ok(Some((token, warnings)))
            }
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!(
                "${TOKEN_ENV}: not text (the token must be printable ASCII)"
            )),
        }
    }

    fn warnings(&self, source: &str) -> Vec<String> {
        if self.0.len() < 16 {
            vec![format!(
                "{source}: the token has {} characters; a long random one (32 or more, e.g. \
                 from `openssl rand -hex 32`) is much harder to guess",
                self.0.len()
            )]
        } else {
            Vec::new()
        }
    }

    /// Whether `given` is the token, in time that depends on the token's length only (not
    /// on where the two first differ, nor on whether their lengths differ).
    #[must_use]
    pub fn matches(&self, given: &[u8]) -> bool {
        let mut padded = vec![0u8; self.0.len()];
        let n = given.len().min(padded.len());
        padded[..n].copy_from_slice(&given[..n]);
        let same_len = (given.len() as u64).ct_eq(&(self.0.len() as u64));
        bool::from(self.0.as_slice().ct_eq(padded.as_slice()) & same_len)
    }
}

fn describe_char(c: char) -> String {
    if c == ' ' {
        "a space".to_string()
    } else if c.is_control() {
        format!("a control character (U+{:04X})", u32::from(c))
    } else {
        format!("\"{c}\"")
    }
}

/// Who may write, from the token and the bound address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteRule {
    /// A loopback address without a token: anyone who can connect (as before tokens).
    Open,
    /// A token is set: writes need `Authorization: Bearer <token>`.
    Token,
    /// An address that is not loopback, without a token: no writes.
    ReadOnly,
}

impl WriteRule {
    /// The rule of a server with or without a token, bound to an exposed (not loopback)
    /// address or not.
    #[must_use]
    pub fn of(has_token: bool, exposed: bool) -> WriteRule {
        match (has_token, exposed) {
            (true, _) => WriteRule::Token,
            (false, true) => WriteRule::ReadOnly,
            (false, false) => WriteRule::Open,
        }
    }

    /// What `antichess serve` says at start about writes.
    #[must_use]
    pub fn describe(self, addr: std::net::SocketAddr) -> String {
        match self {
            WriteRule::Open => format!(
                "writes (queue, pin, mark) are open to every client of {addr} (a loopback \
                 address: this machine only)"
            ),
            WriteRule::Token => "writes (queue, pin, mark) need the header \
                 `Authorization: Bearer <token>`"
                .to_string(),
            WriteRule::ReadOnly => format!(
                "read-only: {addr} is not a loopback address and no token is set, so writes \
                 (queue, pin, mark) are refused; give --token-file FILE or ${TOKEN_ENV} to \
                 allow them with `Authorization: Bearer <token>`"
            ),
        }
    }
}
