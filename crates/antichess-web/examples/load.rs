//! A bounded load test of a running `antichess serve` on loopback: several concurrent
//! clients (one keep-alive HTTP/1.1 connection each) send a fixed number of requests over
//! the API's read endpoints (explorer positions along a proof's main line, tablebase
//! probes, random positions, a book's summary, history and nodes, status), then it reports
//! errors and latency percentiles.
//!
//! ```sh
//! antichess serve --book na6.book --proof na6.proof --bind 127.0.0.1:8087 &
//! cargo run --release -p antichess-web --example load -- http://127.0.0.1:8087 --clients 8 --requests 4000
//! ```
//!
//! Only loopback addresses are accepted. Exit code 1 if any request failed.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

struct Args {
    host: String,
    port: u16,
    clients: usize,
    requests: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut url = None;
    let mut clients = 8;
    let mut requests = 4000;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--clients" => {
                clients = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--clients N")?
            }
            "--requests" => {
                requests = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--requests N")?;
            }
            _ if url.is_none() => url = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    let url = url.ok_or("usage: load URL [--clients N] [--requests N]")?;
    let rest = url
        .strip_prefix("http://")
        .ok_or("the URL must start with http://")?
        .trim_end_matches('/');
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or("the URL must name a port: http://127.0.0.1:8080")?;
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(format!(
            "{host}: this load test only targets loopback addresses"
        ));
    }
    if clients == 0 || requests == 0 || requests > 100_000 {
        return Err("--clients at least 1, --requests 1 to 100000".into());
    }
    Ok(Args {
        host,
        port: port.parse().map_err(|_| format!("port {port:?}"))?,
        clients,
        requests,
    })
}

fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A keep-alive connection.
struct Client {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    authority: String,
}

impl Client {
    async fn connect(host: &str, port: u16) -> Result<Client, String> {
        let stream = TcpStream::connect((host, port))
            .await
            .map_err(|e| format!("connecting to {host}:{port}: {e}"))?;
        stream.set_nodelay(true).ok();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Client {
            sender,
            authority: format!("{host}:{port}"),
        })
    }

    async fn get(&mut self, path: &str) -> Result<(u16, Bytes), String> {
        self.sender.ready().await.map_err(|e| e.to_string())?;
        let req = Request::get(path)
            .header("host", &self.authority)
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let res = self
            .sender
            .send_request(req)
            .await
            .map_err(|e| e.to_string())?;
        let status = res.status().as_u16();
        let body = res
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, body))
    }
}

/// The request mix, built from what the server has loaded.
async fn paths(client: &mut Client) -> Result<Vec<String>, String> {
    let (_, body) = client.get("/api/status").await?;
    let status: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let mut paths = vec!["/api/status".to_string(), "/api/proofs".to_string()];
    // The explorer along each proof's main line.
    for p in status["proofs"].as_array().into_iter().flatten() {
        let prolog = p["prolog_uci"].as_str().unwrap_or("");
        let main: Vec<&str> = p["main_line_uci"]
            .as_str()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        for i in 0..=main.len().min(12) {
            let moves = [prolog, &main[..i].join(" ")].join(" ");
            paths.push(format!("/api/explore?moves={}", enc(moves.trim())));
        }
    }
    paths.push("/api/explore".into());
    paths.push(format!("/api/explore?moves={}", enc("e3 b5 Bxb5")));
    // Tablebase probes and random positions.
    for fen in [
        "8/8/8/8/8/2k5/8/KR6 w - - 0 1",
        "8/8/8/3k4/8/8/2P5/8 b - - 0 1",
        "8/8/2n5/8/8/3K4/8/6q1 w - - 0 1",
    ] {
        paths.push(format!("/api/tablebase?fen={}", enc(fen)));
    }
    for material in ["KRk", "KPk", "Qkn"] {
        paths.push(format!("/api/tablebase/random?material={material}"));
    }
    // The book's search page.
    for b in status["books"].as_array().into_iter().flatten() {
        let name = b["name"].as_str().unwrap_or("");
        paths.push(format!("/api/books/{name}"));
        paths.push(format!("/api/books/{name}/history"));
        let moves = b["explorer"]["moves"].as_str().unwrap_or("");
        paths.push(format!("/api/books/{name}/node?moves={}", enc(moves)));
    }
    Ok(paths)
}

/// The endpoint of a path, for the breakdown: `/api/books/NAME/history` → `books/*/history`.
fn endpoint(path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
    match parts.as_slice() {
        ["books", _, rest @ ..] => {
            let mut s = "books/*".to_string();
            for r in rest {
                s.push('/');
                s.push_str(r);
            }
            s
        }
        _ => parts.join("/"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut first = match Client::connect(&args.host, args.port).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let paths = match paths(&mut first).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: reading /api/status: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    drop(first);
    eprintln!(
        "{} requests from {} clients over {} distinct paths",
        args.requests,
        args.clients,
        paths.len()
    );
    let start = Instant::now();
    let per_client = args.requests.div_ceil(args.clients);
    let mut tasks = Vec::new();
    for c in 0..args.clients {
        let paths = paths.clone();
        let (host, port) = (args.host.clone(), args.port);
        let n = per_client.min(args.requests - (c * per_client).min(args.requests));
        tasks.push(tokio::spawn(async move {
            let mut latencies: Vec<(Duration, String)> = Vec::with_capacity(n);
            let mut errors = Vec::new();
            let mut client = match Client::connect(&host, port).await {
                Ok(cl) => cl,
                Err(e) => return (latencies, vec![e; n.max(1)]),
            };
            for i in 0..n {
                let path = &paths[(i * 7 + c * 13) % paths.len()];
                let t = Instant::now();
                match client.get(path).await {
                    Ok((200, _)) => latencies.push((t.elapsed(), endpoint(path))),
                    Ok((status, body)) => {
                        errors.push(format!(
                            "{path}: {status} {}",
                            String::from_utf8_lossy(&body)
                        ));
                    }
                    Err(e) => {
                        errors.push(format!("{path}: {e}"));
                        if let Ok(cl) = Client::connect(&host, port).await {
                            client = cl;
                        }
                    }
                }
            }
            (latencies, errors)
        }));
    }
    let mut by_endpoint: std::collections::BTreeMap<String, Vec<Duration>> = Default::default();
    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    for t in tasks {
        let (l, e) = t.await.expect("client task");
        for (d, kind) in l {
            latencies.push(d);
            by_endpoint.entry(kind).or_default().push(d);
        }
        errors.extend(e);
    }
    let seconds = start.elapsed().as_secs_f64();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{} requests ({} ok, {} errors) from {} clients in {:.2} s: {:.0} requests/s",
        latencies.len() + errors.len(),
        latencies.len(),
        errors.len(),
        args.clients,
        seconds,
        (latencies.len() + errors.len()) as f64 / seconds
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.9)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default())
    );
    for (kind, mut l) in by_endpoint {
        l.sort();
        println!(
            "  {kind:<28} {:>5} requests  p50 {:>7.2}  p99 {:>7.2}  max {:>7.2}",
            l.len(),
            ms(percentile(&l, 0.5)),
            ms(percentile(&l, 0.99)),
            ms(l.last().copied().unwrap_or_default())
        );
    }
    for e in errors.iter().take(10) {
        println!("error: {e}");
    }
    if errors.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}
