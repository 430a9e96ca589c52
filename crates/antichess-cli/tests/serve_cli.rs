//! Issue 36, item 3, through the binary: `antichess serve --bind 0.0.0.0:PORT` says at
//! start that it is read-only, refuses the writes (403) and shows no file path; with a
//! token (`--token-file` or `$ANTICHESS_TOKEN`) writes need it (401 otherwise); an empty
//! token file is refused; a client that sends half its headers is dropped within
//! `--header-timeout`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use antichess_testkit::temp_dir as temp;

/// A generous bound on every wait.
const PATIENCE: Duration = Duration::from_secs(60);

fn antichess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .env_remove("ANTICHESS_TOKEN")
        .output()
        .expect("runs")
}

/// `antichess serve` running, killed when dropped.
struct Serve {
    child: Child,
    addr: SocketAddr,
    /// What it printed up to "serving ...".
    banner: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `antichess serve` on 0.0.0.0 (port 0) with one book and `extra` options; the
/// address to connect to is 127.0.0.1 and the port it printed.
fn serve(dir: &Path, book: &Path, extra: &[&str], token_env: Option<&str>) -> Serve {
    serve_with(
        Command::new(env!("CARGO_BIN_EXE_antichess")),
        dir,
        book,
        extra,
        token_env,
    )
}

/// As [`serve`], the binary started by `cmd` (which may be a shell that runs it).
fn serve_with(
    mut cmd: Command,
    dir: &Path,
    book: &Path,
    extra: &[&str],
    token_env: Option<&str>,
) -> Serve {
    let tables = dir.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    cmd.args([
        "serve",
        "--bind",
        "0.0.0.0:0",
        "--no-web",
        "--tb-units",
        "0",
    ])
    .arg("--tables")
    .arg(&tables)
    .arg("--book")
    .arg(book)
    .args(extra)
    .env_remove("ANTICHESS_TOKEN")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    if let Some(t) = token_env {
        cmd.env("ANTICHESS_TOKEN", t);
    }
    let mut child = cmd.spawn().expect("runs");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut banner = String::new();
    let port = loop {
        let Some(Ok(line)) = lines.next() else {
            let _ = child.kill();
            panic!("serve stopped before serving:\n{banner}");
        };
        banner.push_str(&line);
        banner.push('\n');
        if let Some(rest) = line.split("http://0.0.0.0:").nth(1) {
            let port: u16 = rest.split('/').next().unwrap().parse().unwrap();
            break port;
        }
    };
    // Keep reading stderr so that the server never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    Serve {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        banner,
    }
}

/// One request (`Connection: close`): the status and the whole answer's text.
fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    auth: Option<&str>,
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    if let Some(token) = auth {
        req.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    (status, answer)
}

fn new_book(dir: &Path) -> std::path::PathBuf {
    let book = dir.join("exposed.book");
    let out = antichess(&["book", "new", book.to_str().unwrap(), "--moves", "e3 Na6"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    book
}

#[test]
fn serve_on_all_addresses_without_a_token_is_read_only() {
    let dir = temp("serve-read-only");
    let book = new_book(&dir);
    let server = serve(&dir, &book, &["--header-timeout", "1s"], None);
    assert!(server.banner.contains("read-only"), "{}", server.banner);
    assert!(server.banner.contains("--token-file"), "{}", server.banner);
    for (method, path, body) in [
        (
            "POST",
            "/api/books/exposed/mark",
            r#"{"id": 0, "as": "win"}"#,
        ),
        ("POST", "/api/books/exposed/queue", r#"{"id": 0}"#),
        ("DELETE", "/api/books/exposed/queue", ""),
        ("POST", "/api/books/exposed/pin", r#"{"id": 0}"#),
    ] {
        let (status, answer) = call(server.addr, method, path, None, body);
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert!(answer.contains("read-only"), "{answer}");
    }
    // The root is not marked, and the status shows no path.
    let (status, answer) = call(server.addr, "GET", "/api/books/exposed", None, "");
    assert_eq!(status, 200, "{answer}");
    assert!(!answer.contains("marked win"), "{answer}");
    let (status, answer) = call(server.addr, "GET", "/api/status", None, "");
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"exposed.book\""), "{answer}");
    let dir_text = dir.display().to_string();
    assert!(!answer.contains(&dir_text), "{dir_text} is shown: {answer}");
    // Half-sent headers: the connection is closed (after about --header-timeout).
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.set_read_timeout(Some(PATIENCE)).unwrap();
    slow.write_all(b"GET /api/status HTTP/1.1\r\nHost: te")
        .unwrap();
    let start = Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    assert!(start.elapsed() < PATIENCE, "the slow client was kept");
    // And the server still answers.
    assert_eq!(call(server.addr, "GET", "/api/status", None, "").0, 200);
}

/// The trial's command: under `ulimit -n 256`, 300 connections that send half their
/// headers used to stop the server from answering. Now they are dropped after
/// `--header-timeout`, at most `--max-connections` (default 128) are held at once, and a
/// real client is answered.
#[cfg(unix)]
#[test]
fn three_hundred_slow_clients_under_ulimit_256() {
    let dir = temp("serve-ulimit");
    let book = new_book(&dir);
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_antichess"));
    let server = serve_with(shell, &dir, &book, &["--header-timeout", "1s"], None);
    let mut crowd: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.set_read_timeout(Some(PATIENCE)).unwrap();
            s.write_all(b"GET /api/status HTTP/1.1\r\nHost: te")
                .unwrap();
            s
        })
        .collect();
    let (status, answer) = call(server.addr, "GET", "/api/status", None, "");
    assert_eq!(status, 200, "{answer}");
    let start = Instant::now();
    for s in &mut crowd {
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
    }
    assert!(start.elapsed() < PATIENCE, "slow clients were kept");
    assert_eq!(call(server.addr, "GET", "/api/status", None, "").0, 200);
}

#[test]
fn serve_with_a_token_needs_it_for_writes() {
    let dir = temp("serve-token");
    let book = new_book(&dir);
    let token_file = dir.join("token");
    std::fs::write(&token_file, "0123456789abcdef0123456789abcdef\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let token = "0123456789abcdef0123456789abcdef";
    let from_file = serve(
        &dir,
        &book,
        &["--token-file", token_file.to_str().unwrap()],
        None,
    );
    let from_env = serve(&dir, &book, &[], Some(token));
    for server in [&from_file, &from_env] {
        assert!(
            server.banner.contains("Authorization: Bearer"),
            "{}",
            server.banner
        );
        assert!(
            !server.banner.contains(token),
            "the token is printed: {}",
            server.banner
        );
        let path = "/api/books/exposed/queue";
        let (status, answer) = call(server.addr, "DELETE", path, None, "");
        assert_eq!(status, 401, "{answer}");
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{answer}"
        );
        let (status, answer) = call(server.addr, "DELETE", path, Some("not-the-token"), "");
        assert_eq!(status, 401, "{answer}");
        let (status, answer) = call(server.addr, "DELETE", path, Some(token), "");
        assert_eq!(status, 200, "{answer}");
    }
}

#[test]
fn serve_refuses_an_empty_token() {
    let dir = temp("serve-empty-token");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "\n").unwrap();
    let out = antichess(&[
        "serve",
        "--no-web",
        "--tb-units",
        "0",
        "--tables",
        dir.to_str().unwrap(),
        "--token-file",
        token_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is empty"), "{stderr}");
    assert!(
        stderr.contains(&token_file.display().to_string()),
        "{stderr}"
    );
}
