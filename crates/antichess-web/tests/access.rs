//! Issue 36, item 3: the server over real sockets, as `antichess serve --bind 0.0.0.0`
//! would run it. Bound to an address that is not loopback and without a token, it is
//! read-only (every write endpoint answers 403) and shows no file path; with a token, a
//! write needs `Authorization: Bearer <token>` (401 without it or with another one); a
//! client that sends half its headers, or half its body, is dropped within the timeout,
//! and a crowd of such clients does not stop the server from answering.
//!
//! The rule is decided by the address bound (what is exposed), not by the peer: these
//! tests bind 0.0.0.0 and connect from 127.0.0.1.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_web::{AppState, Limits, Token};
use serde_json::{json, Value};

use crate::common::{book_copy, fixture, ROOT_MOVES};

/// A generous bound on every wait (the budgets below are far shorter).
const PATIENCE: Duration = Duration::from_secs(60);

/// A server on its own runtime, stopped when dropped.
struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves `state` on `bind` (port 0); `addr` is where to connect (127.0.0.1).
    fn start(state: AppState, bind: &str) -> Server {
        let state = Arc::new(state);
        let bind = bind.to_string();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind(bind).await.unwrap();
                addr_tx.send(listener.local_addr().unwrap().port()).unwrap();
                antichess_web::serve_on(state, listener, async {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
            });
        });
        let port = addr_rx.recv().unwrap();
        Server {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        s
    }

    /// One request (`Connection: close`): the status, the headers (names in lower case)
    /// and the body as JSON (or as a string).
    fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> (u16, Vec<(String, String)>, Value) {
        let mut s = self.connect();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() {
            req.push_str("Content-Type: application/json\r\n");
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        parse_response(&raw)
    }

    fn ok(&self, path: &str) -> Value {
        let (status, _, v) = self.call("GET", path, &[], None);
        assert_eq!(status, 200, "{path}: {v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn parse_response(raw: &[u8]) -> (u16, Vec<(String, String)>, Value) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_string()
    };
    let value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, headers, value)
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// The state of the tests: the tables, the proof and one book, with `token`.
fn state(book: &str, token: Option<&str>, limits: Limits) -> (AppState, String) {
    let location = book_copy(book);
    let mut config = common::config(vec![location.clone()], None);
    config.token = token.map(|t| Token::new(t, "test").unwrap());
    config.limits = limits;
    (AppState::new(config).unwrap(), location)
}

/// An open node of the book (id, and its moves from the start).
fn open_child(server: &Server, book: &str) -> (i64, String) {
    let line = format!("{ROOT_MOVES} f1a6 b7a6");
    let node = server.ok(&format!(
        "/api/books/{book}/node?moves={}",
        line.replace(' ', "+")
    ));
    let child = node["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "unknown")
        .expect("an open child")
        .clone();
    let uci = child["uci"].as_str().unwrap();
    (child["id"].as_i64().unwrap(), format!("{line} {uci}"))
}

/// Every write endpoint, each with a body it accepts when called in this order.
fn writes(server: &Server, book: &str) -> Vec<(&'static str, String, Option<Value>)> {
    let (id, line) = open_child(server, book);
    let queue = format!("/api/books/{book}/queue");
    let pin = format!("/api/books/{book}/pin");
    let mark = format!("/api/books/{book}/mark");
    vec![
        ("POST", queue.clone(), Some(json!({ "moves": line }))),
        ("DELETE", queue, None),
        ("POST", pin.clone(), Some(json!({ "id": id }))),
        ("POST", pin, Some(json!({ "clear": true }))),
        (
            "POST",
            mark.clone(),
            Some(json!({ "id": id, "as": "loss" })),
        ),
        ("POST", mark, Some(json!({ "id": id, "as": "none" }))),
    ]
}

/// No text of `v` holds a path the server was started with.
fn assert_no_paths(v: &Value, location: &str) {
    let text = v.to_string();
    let f = fixture();
    for path in [
        location.to_string(),
        f.dir.display().to_string(),
        f.tables.display().to_string(),
        f.proof.display().to_string(),
    ] {
        assert!(!text.contains(&path), "{path} is shown: {text}");
    }
}

#[test]
fn exposed_without_a_token_is_read_only_and_shows_no_paths() {
    let (state, location) = state("exposed", None, Limits::default());
    let server = Server::start(state, "0.0.0.0:0");
    for (method, path, body) in writes(&server, "exposed") {
        let (status, _, v) = server.call(method, &path, &[], body);
        assert_eq!(status, 403, "{method} {path}: {v}");
        let message = v["error"].as_str().unwrap();
        assert!(message.contains("read-only"), "{message}");
        assert!(message.contains("--token-file"), "{message}");
    }
    // A bearer header does not help a server without a token.
    let (status, _, _) = server.call(
        "DELETE",
        "/api/books/exposed/queue",
        &[("Authorization", "Bearer anything")],
        None,
    );
    assert_eq!(status, 403);
    // Reading still works, and shows names, not paths.
    let status = server.ok("/api/status");
    assert_eq!(status["writes"], "read-only");
    assert_eq!(status["books"][0]["location"], "exposed.book");
    assert_eq!(status["tables"]["dir"], "tables");
    assert_no_paths(&status, &location);
    let summary = server.ok("/api/books/exposed");
    assert_eq!(summary["location"], "exposed.book");
    assert_no_paths(&summary, &location);
    assert_no_paths(&server.ok("/api/books"), &location);
    assert_no_paths(&server.ok("/api/proofs"), &location);
}

#[test]
fn a_token_is_needed_for_writes() {
    let token = "0123456789abcdef-test-token";
    for bind in ["127.0.0.1:0", "0.0.0.0:0"] {
        let (state, _) = state("guarded", Some(token), Limits::default());
        let server = Server::start(state, bind);
        assert_eq!(server.ok("/api/status")["writes"], "token");
        for (i, (method, path, body)) in writes(&server, "guarded").into_iter().enumerate() {
            let unpadded = format!("Bearer{token}");
            for auth in [
                None,
                Some("Bearer wrong"),
                Some("Bearer 0123456789abcdef-test-toke"),
                Some("Basic MDEyMzQ1Njc4OWFiY2RlZi10ZXN0LXRva2Vu"),
                Some(token),
                Some(unpadded.as_str()),
            ] {
                let headers: Vec<(&str, &str)> =
                    auth.iter().map(|a| ("Authorization", *a)).collect();
                let (status, headers, v) = server.call(method, &path, &headers, body.clone());
                assert_eq!(status, 401, "{bind} {method} {path} {auth:?}: {v}");
                assert!(
                    headers
                        .iter()
                        .any(|(k, v)| k == "www-authenticate" && v == "Bearer"),
                    "{headers:?}"
                );
                assert!(v["error"].as_str().unwrap().contains("token"), "{v}");
            }
            // The scheme's case does not matter (RFC 9110).
            let scheme = if i % 2 == 0 { "Bearer" } else { "bearer" };
            let bearer = format!("{scheme} {token}");
            let (status, _, v) = server.call(method, &path, &[("Authorization", &bearer)], body);
            assert_eq!(status, 200, "{bind} {method} {path}: {v}");
        }
        // Reads need no token.
        server.ok("/api/books/guarded");
    }
}

#[test]
fn loopback_without_a_token_takes_writes_as_before() {
    let (state, _) = state("local", None, Limits::default());
    let server = Server::start(state, "127.0.0.1:0");
    assert_eq!(server.ok("/api/status")["writes"], "open");
    for (method, path, body) in writes(&server, "local") {
        let (status, _, v) = server.call(method, &path, &[], body);
        assert_eq!(status, 200, "{method} {path}: {v}");
    }
}

#[tokio::test]
async fn errors_show_no_paths() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    // In-process (no sampler holds the book open): the book's file disappears under the
    // server, and the store's error, which says where it looked, reaches the client with
    // the book's name instead of its path.
    let (state, location) = state("vanishing", None, Limits::default());
    let app = antichess_web::router(Arc::new(state));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{location}{suffix}"));
    }
    let req = axum::http::Request::get("/api/books/vanishing")
        .body(axum::body::Body::empty())
        .unwrap();
    let res = app.oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{status}: {v}"
    );
    let message = v["error"].as_str().unwrap();
    assert!(message.contains("vanishing.book"), "{message}");
    assert_no_paths(&v, &location);
}

/// Reads from `s` until the server closes the connection (or `PATIENCE` runs out); the
/// time it took.
fn wait_for_close(s: &mut TcpStream) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return start.elapsed(),
            Ok(_) if start.elapsed() < PATIENCE => continue,
            Ok(_) => return start.elapsed(),
        }
    }
}

fn short_limits() -> Limits {
    Limits {
        header_timeout: Duration::from_millis(500),
        body_timeout: Duration::from_millis(500),
        max_connections: 8,
    }
}

#[test]
fn half_sent_headers_are_dropped() {
    let (state, _) = state("slow", None, short_limits());
    let server = Server::start(state, "127.0.0.1:0");
    let mut s = server.connect();
    s.write_all(b"GET /api/status HTTP/1.1\r\nHost: test\r\nX-Slow: 1\r\n")
        .unwrap();
    let waited = wait_for_close(&mut s);
    assert!(waited < PATIENCE, "the connection was kept {waited:?}");
    // An idle connection that sends nothing at all is dropped too.
    let mut idle = server.connect();
    let waited = wait_for_close(&mut idle);
    assert!(waited < PATIENCE, "the idle connection was kept {waited:?}");
    server.ok("/api/status");
}

#[test]
fn half_sent_bodies_are_dropped() {
    let (state, _) = state("slowbody", None, short_limits());
    let server = Server::start(state, "127.0.0.1:0");
    let mut s = server.connect();
    s.write_all(
        b"POST /api/books/slowbody/pin HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"clear\"",
    )
    .unwrap();
    let mut raw = Vec::new();
    let start = Instant::now();
    let _ = s.read_to_end(&mut raw);
    assert!(start.elapsed() < PATIENCE);
    let (status, _, v) = parse_response(&raw);
    assert_eq!(status, 408, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("did not arrive"),
        "{v}"
    );
}

#[test]
fn a_crowd_of_slow_clients_does_not_stop_the_server() {
    let (state, _) = state("crowd", None, short_limits());
    let server = Server::start(state, "127.0.0.1:0");
    // Far more half-sent requests than the server serves at once (8).
    let mut crowd: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut s = server.connect();
            s.write_all(b"GET /api/status HTTP/1.1\r\nHost: te")
                .unwrap();
            s
        })
        .collect();
    // A real client is answered once the slow ones are dropped.
    let status = server.ok("/api/status");
    assert_eq!(status["rules"], "international");
    for s in &mut crowd {
        let waited = wait_for_close(s);
        assert!(waited < PATIENCE, "a slow client was kept {waited:?}");
    }
}
