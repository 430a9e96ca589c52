//! The JSON API in-process (`tower::ServiceExt::oneshot` on the router): every endpoint,
//! with 3-unit tables, a proof of 1. e3 Na6 and small books; bad input is a 4xx that names
//! it; the search page's endpoints see what another connection (as `book grow` in another
//! process) writes, while it writes.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_book::{grow, Book, GrowOptions, GrowStats, Selection};
use antichess_web::router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::common::{book_copy, fixture, state, ROOT_MOVES};

struct Api(axum::Router);

impl Api {
    fn new(books: &[&str]) -> (Api, Vec<String>) {
        let locations: Vec<String> = books.iter().map(|b| book_copy(b)).collect();
        let state = Arc::new(state(locations.clone(), None));
        (Api(router(state)), locations)
    }

    async fn call(&self, method: Method, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        let body = match body {
            Some(v) => {
                req = req.header("content-type", "application/json");
                Body::from(v.to_string())
            }
            None => Body::empty(),
        };
        let res = self
            .0
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, value)
    }

    async fn get(&self, uri: &str) -> (StatusCode, Value) {
        self.call(Method::GET, uri, None).await
    }

    async fn ok(&self, uri: &str) -> Value {
        let (status, v) = self.get(uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {v}");
        v
    }

    async fn post(&self, uri: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, uri, Some(body)).await
    }
}

fn enc(s: &str) -> String {
    s.replace('%', "%25")
        .replace(' ', "%20")
        .replace('/', "%2F")
        .replace('+', "%2B")
        .replace('#', "%23")
        .replace('&', "%26")
        .replace('[', "%5B")
        .replace(']', "%5D")
        .replace('"', "%22")
        .replace('\n', "%0A")
}

/// The error message of a 4xx answer.
fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {v}"))
}

#[tokio::test]
async fn status_lists_what_is_loaded() {
    let (api, _) = Api::new(&["status-book"]);
    let v = api.ok("/api/status").await;
    assert_eq!(v["rules"], "international");
    assert_eq!(v["tables"]["complete_units"], 3);
    assert_eq!(v["proofs"][0]["prover"], "white");
    assert_eq!(v["proofs"][0]["prolog_uci"], ROOT_MOVES);
    assert!(v["proofs"][0]["counts"]["total"].as_u64().unwrap() > 1000);
    assert_eq!(v["books"][0]["name"], "status-book");
    assert_eq!(v["books"][0]["explorer"]["moves"], ROOT_MOVES);
    // The same lists on their own.
    assert_eq!(api.ok("/api/proofs").await.as_array().unwrap().len(), 1);
    assert_eq!(api.ok("/api/books").await.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn explore_shows_tablebase_proof_and_book_for_every_move() {
    let (api, _) = Api::new(&["explore-book"]);
    // The start position: 20 moves, no proof, the book not reached yet.
    let v = api.ok("/api/explore").await;
    assert_eq!(v["moves"].as_array().unwrap().len(), 20);
    assert_eq!(v["turn"], "white");
    assert_eq!(v["tablebase"]["category"], "unknown");
    assert_eq!(v["proofs"][0]["in_proof"], false);
    assert_eq!(v["book"]["node"], Value::Null);
    // The proof's and the book's root, by SAN: White must take on a6.
    let v = api.ok("/api/explore?moves=e3%20Na6").await;
    assert_eq!(v["moves_uci"], ROOT_MOVES);
    assert_eq!(v["line"][1]["san"], "Na6");
    let p = &v["proofs"][0];
    // A loaded proof's index is `id`, as in /api/proofs.
    assert_eq!(p["id"], 0, "{p}");
    assert_eq!(p.get("proof"), None, "{p}");
    assert_eq!(
        (p["in_proof"].as_bool(), p["kind"].as_str()),
        (Some(true), Some("prover"))
    );
    assert_eq!(p["proof_move"], "f1a6");
    assert_eq!(p["main_line"], "f1a6");
    assert_eq!(v["book"]["found_by"], "line");
    assert_eq!(v["book"]["node"]["depth"], 0);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1);
    let m = &moves[0];
    assert_eq!(
        (m["uci"].as_str(), m["san"].as_str()),
        (Some("f1a6"), Some("Bxa6"))
    );
    assert_eq!(m["proofs"][0]["kind"], "opponent");
    assert_eq!(m["proofs"][0]["main_line"], "f1a6");
    assert!(m["proofs"][0]["nodes"].as_u64().unwrap() > 1000);
    assert_eq!(m["book"]["uci"], "f1a6");
    assert!(m["book"]["proof"].is_u64() || m["book"]["proof"] == "inf");
    // Two plies on: every move listed; the proof's move first (no tablebase here).
    let v = api
        .ok(&format!(
            "/api/explore?moves={}",
            enc("e2e3 b8a6 f1a6 b7a6")
        ))
        .await;
    let moves = v["moves"].as_array().unwrap();
    assert!(moves.len() > 20);
    assert_eq!(moves[0]["proofs"][0]["proof_move"], moves[0]["uci"]);
    assert!(moves
        .iter()
        .skip(1)
        .all(|m| m["proofs"][0]["proof_move"].is_null()));
    assert!(v["line"].as_array().unwrap()[2..]
        .iter()
        .all(|m| m["main_line"] == true));
    assert!(
        moves.iter().all(|m| !m["book"].is_null()),
        "the book has every move here"
    );
    // A FEN small enough for the tables: every move's result.
    let fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
    let v = api.ok(&format!("/api/explore?fen={}", enc(fen))).await;
    assert_eq!(v["tablebase"]["category"], "win");
    assert!(v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["tablebase"]["category"] != "unknown"));
    assert_eq!(v["moves"][0]["tablebase"]["result"], "win");
    assert_eq!(v["book"]["node"], Value::Null);
    // PGN with a FEN tag.
    let pgn = "[Variant \"Antichess\"]\n[FEN \"8/8/8/8/8/p7/8/1N6 w - - 0 1\"]\n\n1. Nxa3 *";
    let v = api.ok(&format!("/api/explore?pgn={}", enc(pgn))).await;
    assert_eq!(v["moves_uci"], "b1a3");
    assert_eq!(v["outcome"]["winner"], "black");
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn bad_input_is_a_4xx_with_a_message() {
    let (api, _) = Api::new(&["bad-book"]);
    let (s, v) = api
        .get(&format!(
            "/api/explore?fen={}",
            enc("8/8/9/8/8/8/8/8 w - - 0 1")
        ))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("fen"), "{v}");
    let (s, v) = api.get("/api/explore?moves=e3%20e5%20Nc4").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("Nc4"), "{v}");
    let (s, v) = api.get("/api/explore?moves=e2e5").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("e2e5"), "{v}");
    let (s, v) = api.get("/api/explore?book=nonesuch").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(
        error_of(&v).contains("nonesuch") && error_of(&v).contains("bad-book"),
        "{v}"
    );
    let (s, v) = api.get("/api/books/nonesuch").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(error_of(&v).contains("nonesuch"), "{v}");
    let (s, _) = api.get("/api/books/nonesuch/history").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, v) = api.get("/api/tablebase").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("fen"), "{v}");
    let (s, v) = api.get("/api/tablebase?fen=xyz").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let (s, v) = api.get("/api/tablebase/random?material=KXk").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("KXk"), "{v}");
    let (s, _) = api.get("/api/tablebase/random").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = api.get("/api/tablebase/random?material=KRk&seed=x").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, v) = api.get("/api/proofs/7").await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    let (s, v) = api.get("/api/nothing-here").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(error_of(&v).contains("/api/nothing-here"), "{v}");
    // Bodies: malformed JSON, an unknown mark, a position outside the book.
    let res = api
        .0
        .clone()
        .oneshot(
            Request::post("/api/books/bad-book/queue")
                .header("content-type", "application/json")
                .body(Body::from("{not json"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(res.status().is_client_error(), "{}", res.status());
    let (s, v) = api
        .post(
            "/api/books/bad-book/mark",
            json!({ "moves": ROOT_MOVES, "as": "maybe" }),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("maybe"), "{v}");
    let (s, v) = api
        .post("/api/books/bad-book/queue", json!({ "moves": "d4" }))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    assert!(error_of(&v).contains("not in book"), "{v}");
    let (s, v) = api
        .post("/api/books/bad-book/queue", json!({ "id": 999999 }))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    let (s, v) = api.post("/api/books/bad-book/pin", json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
}

#[tokio::test]
async fn errors_name_the_parameter_not_the_library() {
    let (api, _) = Api::new(&["words-book"]);
    let internals = [
        "Failed to deserialize",
        "invalid float",
        "invalid digit",
        "..",
        "`",
    ];
    let clean = |v: &Value| {
        let message = error_of(v).to_string();
        for word in internals {
            assert!(!message.contains(word), "{word:?} in {message:?}");
        }
        message
    };
    // Malformed query parameters: the parameter, the value given, what it must be.
    for (uri, words) in [
        (
            "/api/solve?moves=e3&time=abc",
            &["time", "\"abc\"", "a number of seconds"][..],
        ),
        (
            "/api/tablebase/random?material=KRk&seed=x",
            &["seed", "\"x\"", "whole number"][..],
        ),
        (
            "/api/books/words-book/node?id=twelve",
            &["id", "\"twelve\"", "node id"][..],
        ),
        ("/api/explore?fen=a&fen=b", &["fen", "more than once"][..]),
    ] {
        let (status, v) = api.get(uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {v}");
        let message = clean(&v);
        for word in words {
            assert!(message.contains(word), "{uri}: {word} not in {message:?}");
        }
    }
    // A bad proof id: the ids in words, no range notation.
    let (status, v) = api.get("/api/proofs/7").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    let message = clean(&v);
    assert!(
        message.contains("\"7\"") && message.contains("the only proof has id 0"),
        "{message}"
    );
    // Bodies: not JSON, a field of the wrong type, not an object.
    let (status, v) = api
        .post("/api/books/words-book/queue", json!({ "id": "x" }))
        .await;
    assert!(status.is_client_error(), "{status}");
    let message = clean(&v);
    assert!(
        message.contains("\"id\"") && message.contains("node id"),
        "{message}"
    );
    let (status, v) = api.post("/api/books/words-book/queue", json!([1, 2])).await;
    assert!(status.is_client_error(), "{status}");
    assert!(clean(&v).contains("JSON object"), "{v}");
    let res = api
        .0
        .clone()
        .oneshot(
            Request::post("/api/books/words-book/queue")
                .header("content-type", "application/json")
                .body(Body::from("{not json"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(clean(&v).contains("not valid JSON"), "{v}");
}

#[tokio::test]
async fn tablebase_answers_in_lichess_shape() {
    let (api, _) = Api::new(&[]);
    let fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
    for path in ["/api/tablebase", "/api/tablebase/antichess"] {
        let v = api.ok(&format!("{path}?fen={}", enc(fen))).await;
        assert_eq!(v["category"], "win");
        assert!(v["dtc"].as_u64().unwrap() > 0);
        assert_eq!(v["material"], "KRk");
        let moves = v["moves"].as_array().unwrap();
        assert!(moves.len() > 5);
        for m in moves {
            for key in ["uci", "san", "category", "dtc", "zeroing", "conversion"] {
                assert!(m.get(key).is_some(), "{key} missing in {m}");
            }
        }
        // Best first: the first move wins (the position after it is lost for Black).
        assert_eq!(moves[0]["category"], "loss");
        let rank = |c: &str| match c {
            "loss" => 0,
            "draw" => 1,
            _ => 2,
        };
        let ranks: Vec<i32> = moves
            .iter()
            .map(|m| rank(m["category"].as_str().unwrap()))
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    }
    // Beyond the tables: unknown, and the missing table named.
    let v = api
        .ok(&format!(
            "/api/tablebase?fen={}",
            enc("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
        ))
        .await;
    assert_eq!(v["category"], "unknown");
    assert!(v["missing"].as_str().unwrap().starts_with("KQ"));
    assert_eq!(v["moves"].as_array().unwrap().len(), 20);
    // Random positions: the material asked for, reproducible with a seed.
    let a = api.ok("/api/tablebase/random?material=KRkb&seed=5").await;
    let b = api.ok("/api/tablebase/random?material=KRkb&seed=5").await;
    assert_eq!(a, b);
    assert_eq!(a["material"], "KRkb");
    let v = api
        .ok("/api/tablebase/random?material=KPk&turn=black")
        .await;
    let fen = v["fen"].as_str().unwrap();
    assert!(fen.contains(" b "), "{fen}");
    let probe = api.ok(&format!("/api/tablebase?fen={}", enc(fen))).await;
    assert_ne!(probe["category"], "unknown", "{probe}");
}

/// What a lichess client reads of a tablebase answer, with lichess's types: the same
/// fields at the top and in every move.
fn lichess_fields(v: &Value) {
    assert!(v["category"].is_string(), "category in {v}");
    for key in ["dtz", "precise_dtz", "dtm"] {
        assert!(
            v.get(key).is_some_and(|x| x.is_i64() || x.is_null()),
            "{key} must be an integer or null in {v}"
        );
    }
    for key in [
        "checkmate",
        "stalemate",
        "variant_win",
        "variant_loss",
        "insufficient_material",
    ] {
        assert!(v[key].is_boolean(), "{key} must be a boolean in {v}");
    }
    assert_eq!(v["checkmate"], false, "no check in this game");
    assert!(v["dtm"].is_null(), "no depth to mate: {v}");
    assert_eq!(v["dtz"], v["precise_dtz"], "{v}");
}

#[tokio::test]
async fn lichess_clients_read_the_same_fields() {
    let (api, _) = Api::new(&[]);
    let fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
    // A lichess client writes the FEN with underscores: the same answer.
    let spaces = api
        .ok(&format!("/api/tablebase/antichess?fen={}", enc(fen)))
        .await;
    let underscores = api
        .ok("/api/tablebase/antichess?fen=8/8/8/8/8/2k5/8/KR6_w_-_-_0_1")
        .await;
    assert_eq!(spaces, underscores);
    assert_eq!(underscores["fen"], fen);
    let v = spaces;
    lichess_fields(&v);
    // dtz is the DTC signed for the side to move: White wins here.
    assert_eq!(v["category"], "win");
    assert_eq!(v["dtz"].as_i64(), v["dtc"].as_i64());
    assert!(v["dtz"].as_i64().unwrap() > 0);
    let moves = v["moves"].as_array().unwrap();
    for m in moves {
        lichess_fields(m);
        assert!(m["uci"].is_string() && m["san"].is_string() && m["zeroing"].is_boolean());
        let dtc = m["dtc"].as_i64();
        match m["category"].as_str().unwrap() {
            "win" => assert_eq!(m["dtz"].as_i64(), dtc, "{m}"),
            "loss" => assert_eq!(m["dtz"].as_i64(), dtc.map(|d| -d), "{m}"),
            "draw" => assert_eq!(m["dtz"], 0, "{m}"),
            _ => assert!(m["dtz"].is_null(), "{m}"),
        }
    }
    // The best move leaves Black lost: a negative dtz, as lichess shows a winning move.
    assert!(moves[0]["dtz"].as_i64().unwrap() < 0, "{}", moves[0]);
    // Games over: a stalemate (a win for the stalemated side under these rules) and two
    // bishops that can never meet (lichess's insufficient material).
    let stalemate = api
        .ok("/api/tablebase?fen=8/8/8/8/8/p7/P7/8_w_-_-_0_1")
        .await;
    lichess_fields(&stalemate);
    assert_eq!(
        (
            &stalemate["stalemate"],
            &stalemate["variant_win"],
            &stalemate["category"],
            &stalemate["dtz"]
        ),
        (&json!(true), &json!(true), &json!("win"), &json!(0)),
        "{stalemate}"
    );
    let bishops = api
        .ok("/api/tablebase?fen=8/8/8/8/8/8/1b6/1B6_w_-_-_0_1")
        .await;
    lichess_fields(&bishops);
    assert_eq!(bishops["insufficient_material"], true, "{bishops}");
    assert_eq!(bishops["stalemate"], false, "{bishops}");
    assert_eq!(bishops["category"], "draw", "{bishops}");
    assert_eq!(bishops["dtz"], 0, "{bishops}");
    // A FEN that is wrong with underscores is named as given, with spaces.
    let (status, v) = api.get("/api/tablebase?fen=8/8/8_w_-_-_0_1").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        v["error"].as_str().unwrap().contains("8/8/8 w - - 0 1"),
        "{v}"
    );
}

#[tokio::test]
async fn proofs_and_their_main_line() {
    let (api, _) = Api::new(&[]);
    let v = api.ok("/api/proofs/0").await;
    assert_eq!(v["name"], "e3-na6.proof");
    assert!(v["main_line_san"]
        .as_str()
        .unwrap()
        .starts_with("2. Bxa6 bxa6"));
    assert_eq!(v["explorer"]["moves"], ROOT_MOVES);
    let by_name = api.ok("/api/proofs/e3-na6.proof").await;
    assert_eq!(by_name["id"], 0);
    // Following the main line from the root stays in the proof and ends in a leaf.
    let mut moves = ROOT_MOVES.to_string();
    loop {
        let v = api.ok(&format!("/api/explore?moves={}", enc(&moves))).await;
        let p = &v["proofs"][0];
        assert_eq!(p["in_proof"], true, "left the proof at {moves}");
        match p["main_line"].as_str() {
            Some(next) => moves = format!("{moves} {next}"),
            None => {
                assert!(
                    matches!(p["kind"].as_str(), Some("terminal" | "tablebase")),
                    "{p}"
                );
                break;
            }
        }
    }
}

#[tokio::test]
async fn books_summary_node_queue_pin_and_marks() {
    let (api, locations) = Api::new(&["steer"]);
    let v = api.ok("/api/books/steer").await;
    assert_eq!(v["prover"], "white");
    assert_eq!(v["prolog_uci"], ROOT_MOVES);
    assert_eq!(v["counts"]["searches"], 30);
    assert!(v["counts"]["nodes"].as_u64().unwrap() > 30);
    assert_eq!(v["pin"], Value::Null);
    assert_eq!(v["queue"].as_array().unwrap().len(), 0);
    // A node by its position (explorer style, from the start) and by id.
    let line = format!("{ROOT_MOVES} f1a6 b7a6");
    let node = api
        .ok(&format!("/api/books/steer/node?moves={}", enc(&line)))
        .await;
    assert_eq!(node["line"]["line_uci"], "f1a6 b7a6");
    assert_eq!(node["line"]["line_san"], "2. Bxa6 bxa6");
    assert!(node["children"].as_array().unwrap().len() > 20);
    let id = node["node"]["id"].as_i64().unwrap();
    let by_id = api.ok(&format!("/api/books/steer/node?id={id}")).await;
    assert_eq!(by_id["node"], node["node"]);
    // An open child to steer with.
    let child = node["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "unknown")
        .expect("an open child")
        .clone();
    let child_line = format!("{line} {}", child["uci"].as_str().unwrap());
    // Queue by position, pin by id.
    let (s, v) = api
        .post("/api/books/steer/queue", json!({ "moves": child_line }))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["queued"], child["id"]);
    let (s, v) = api.post("/api/books/steer/pin", json!({ "id": id })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let v = api.ok("/api/books/steer").await;
    assert_eq!(v["queue"][0]["line"]["node"], child["id"]);
    assert_eq!(v["pin"]["line_san"], "2. Bxa6 bxa6");
    // The writes are in the store: another connection (as another process) sees them.
    let mut book = Book::open(&locations[0]).unwrap();
    assert_eq!(book.pinned().unwrap(), Some(id));
    assert_eq!(book.queue().unwrap()[0].node, child["id"].as_i64().unwrap());
    // Clear both.
    let (s, _) = api
        .call(Method::DELETE, "/api/books/steer/queue", None)
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = api
        .post("/api/books/steer/pin", json!({ "clear": true }))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert!(book.queue().unwrap().is_empty());
    assert_eq!(book.pinned().unwrap(), None);
    // Mark the child lost (the opponent refutes it), then remove the mark.
    let (s, v) = api
        .post(
            "/api/books/steer/mark",
            json!({ "id": child["id"], "as": "loss" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["node"]["status"], "marked loss");
    assert_eq!(v["node"]["marked"], true);
    let (s, v) = api
        .post(
            "/api/books/steer/mark",
            json!({ "moves": child_line, "as": "none" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["node"]["marked"], false);
    // Removing a mark that is not there, or marking a proven node, conflicts.
    let (s, v) = api
        .post(
            "/api/books/steer/mark",
            json!({ "id": child["id"], "as": "none" }),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let won = api
        .ok(&format!("/api/books/steer/node?moves={}", enc(&line)))
        .await["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "win" || c["status"] == "loss")
        .cloned();
    if let Some(won) = won {
        let (s, v) = api
            .post(
                "/api/books/steer/mark",
                json!({ "id": won["id"], "as": "win" }),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        assert!(error_of(&v).contains("proven"), "{v}");
    }
    // A position that leaves the book below a leaf says so.
    let deep = api
        .get(&format!(
            "/api/books/steer/node?moves={}",
            enc(&format!("{line} h2h3 a6a5 h3h4 a5a4"))
        ))
        .await;
    assert!(
        deep.0 == StatusCode::NOT_FOUND || deep.0 == StatusCode::OK,
        "{deep:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_page_follows_a_growing_book() {
    let (api, locations) = Api::new(&["live"]);
    let before = api.ok("/api/books/live").await["counts"]["searches"]
        .as_u64()
        .unwrap();
    // `book grow` elsewhere: its own connections, as another process would have.
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let grower = {
        let location = locations[0].clone();
        let stop = Arc::clone(&stop);
        let done = Arc::clone(&done);
        let tables = fixture().tables.clone();
        std::thread::spawn(move || {
            let tb = antichess_tb::Tablebase::open(&tables, antichess_core::Rules::INTERNATIONAL)
                .unwrap();
            let options = GrowOptions {
                workers: 2,
                search_nodes: 300_000,
                hash_bytes: 16 << 20,
                max_searches: Some(12),
                selection: Selection::Weighted { exponent: 2.0 },
                tablebase_units: 3,
                ..GrowOptions::default()
            };
            let end = grow(&location, Some(&tb), &options, &stop, &GrowStats::default());
            done.store(true, Ordering::SeqCst);
            end.unwrap()
        })
    };
    let start = Instant::now();
    let mut saw_worker = false;
    let mut searches_seen = vec![before];
    while !done.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(120) {
        let v = api.ok("/api/books/live").await;
        if let Some(w) = v["workers"].as_array().and_then(|w| w.first()) {
            saw_worker = true;
            assert!(w["worker"].as_str().unwrap().contains(':'));
            assert!(w["line"]["line_uci"].is_string());
        }
        searches_seen.push(v["counts"]["searches"].as_u64().unwrap());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.store(true, Ordering::SeqCst);
    grower.join().unwrap();
    let after = api.ok("/api/books/live").await;
    assert_eq!(after["counts"]["searches"].as_u64().unwrap(), before + 12);
    assert!(
        saw_worker,
        "no worker seen while the book grew: {searches_seen:?}"
    );
    assert!(
        searches_seen.windows(2).all(|w| w[0] <= w[1]),
        "{searches_seen:?}"
    );
    // The history: the search log covers every search; samples are taken by the server.
    let h = api.ok("/api/books/live/history").await;
    let log = h["log"].as_array().unwrap();
    assert_eq!(
        log.last().unwrap()["searches"].as_u64().unwrap(),
        before + 12
    );
    assert!(!h["recent"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn root_samples_build_the_history() {
    let locations = vec![book_copy("sampled")];
    let state = Arc::new(state(locations, None));
    for _ in 0..3 {
        state.books[0].sample().unwrap();
    }
    let api = Api(router(Arc::clone(&state)));
    let h = api.ok("/api/books/sampled/history").await;
    let samples = h["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 3);
    assert!(samples[0]["proof"].is_u64() || samples[0]["proof"] == "inf");
    assert_eq!(samples[2]["searches"], 30);
    // The sampler task of a running server does the same on its own.
    antichess_web::spawn_samplers(&state);
    tokio::time::sleep(Duration::from_millis(700)).await;
    let h = api.ok("/api/books/sampled/history").await;
    assert!(h["samples"].as_array().unwrap().len() >= 5, "{h}");
}

#[tokio::test]
async fn pages_without_a_front_end_say_how_to_build_it() {
    let (api, _) = Api::new(&[]);
    let (s, v) = api.get("/").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        v.as_str().unwrap().contains("npm ci && npm run build"),
        "{v}"
    );
}

#[tokio::test]
async fn pages_are_served_from_dist() {
    let dir = fixture().dir.join(format!("dist-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    for page in ["index.html", "search.html", "tablebase.html"] {
        std::fs::write(dir.join(page), format!("<html>{page}</html>")).unwrap();
    }
    std::fs::write(dir.join("assets/app.js"), "console.log(1)").unwrap();
    let api = Api(router(Arc::new(state(Vec::new(), Some(dir)))));
    for (path, want) in [
        ("/", "index.html"),
        ("/search?book=x", "search.html"),
        ("/tablebase?fen=x", "tablebase.html"),
        ("/assets/app.js", "console.log(1)"),
    ] {
        let (s, v) = api.get(path).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        assert!(v.as_str().unwrap().contains(want), "{path}: {v}");
    }
    let (s, _) = api.get("/assets/missing.js").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// Front-end files as the `embed-web` feature holds them (in memory, by path).
fn built_in(path: &str) -> Option<&'static [u8]> {
    match path {
        "index.html" => Some(b"<html>built-in explorer</html>"),
        "search.html" => Some(b"<html>built-in search</html>"),
        "tablebase.html" => Some(b"<html>built-in tablebase</html>"),
        "assets/explorer.js" => Some(b"console.log(2)"),
        "assets/explorer.css" => Some(b"body{}"),
        _ => None,
    }
}

#[tokio::test]
async fn pages_are_served_from_files_built_into_the_binary() {
    let mut config = common::config(Vec::new(), None);
    config.embedded_web = Some(built_in);
    let app = router(Arc::new(antichess_web::AppState::new(config).unwrap()));
    for (path, want, content_type) in [
        ("/", "built-in explorer", "text/html; charset=utf-8"),
        (
            "/search?book=x",
            "built-in search",
            "text/html; charset=utf-8",
        ),
        (
            "/tablebase?fen=x",
            "built-in tablebase",
            "text/html; charset=utf-8",
        ),
        (
            "/assets/explorer.js",
            "console.log(2)",
            "text/javascript; charset=utf-8",
        ),
        ("/assets/explorer.css", "body{}", "text/css; charset=utf-8"),
        (
            "/assets/missing.js",
            "no file assets/missing.js",
            "text/plain; charset=utf-8",
        ),
        ("/api/status", "\"rules\"", "application/json"),
    ] {
        let res = app
            .clone()
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let got_type = res.headers()["content-type"].to_str().unwrap().to_string();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        let body = String::from_utf8_lossy(&body);
        let want_status = if path.contains("missing") {
            StatusCode::NOT_FOUND
        } else {
            StatusCode::OK
        };
        assert_eq!(status, want_status, "{path}: {body}");
        assert!(body.contains(want), "{path}: {body}");
        assert_eq!(got_type, content_type, "{path}");
    }
    // A dist directory given wins over the files built in.
    let dir = fixture()
        .dir
        .join(format!("dist-over-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    for page in ["index.html", "search.html", "tablebase.html"] {
        std::fs::write(dir.join(page), format!("<html>from dist {page}</html>")).unwrap();
    }
    let mut config = common::config(Vec::new(), Some(dir));
    config.embedded_web = Some(built_in);
    let api = Api(router(Arc::new(
        antichess_web::AppState::new(config).unwrap(),
    )));
    let (s, v) = api.get("/").await;
    assert_eq!(s, StatusCode::OK);
    assert!(v.as_str().unwrap().contains("from dist index.html"), "{v}");
}

#[tokio::test]
async fn solve_searches_the_position_within_its_limits() {
    let (api, _) = Api::new(&[]);
    // 1. e3 Na6 is proved; the proof is extracted and passes the verifier.
    let v = api.ok("/api/solve?moves=e3%20Na6&time=20").await;
    assert_eq!(v["result"], "proved", "{v}");
    assert_eq!(v["prover"], "white");
    assert_eq!(v["proof"], 0);
    assert_eq!(v["disproof"], "inf");
    assert_eq!(v["moves"][0]["san"], "Bxa6", "{v}");
    assert!(
        v["main_line"].as_str().unwrap().starts_with("2. Bxa6 bxa6"),
        "{v}"
    );
    assert_eq!(v["proof_tree"]["verified"], true, "{v}");
    assert!(v["proof_tree"]["nodes"].as_u64().unwrap() > 100, "{v}");
    // The server's limit (10 s) caps what a request asks.
    assert_eq!(v["time_limit"], 10.0, "{v}");
    // Black to prove a win where it is White's move: disproved or unknown, never proved.
    let v = api
        .ok("/api/solve?moves=e3%20Na6&prover=black&time=0.5")
        .await;
    assert_ne!(v["result"], "proved", "{v}");
    assert_eq!(v["proof_tree"], Value::Null, "{v}");
    // A hard position within a short time: unknown, with its numbers.
    let v = api.ok("/api/solve?moves=e3%20c6&time=0.3").await;
    assert_eq!(v["result"], "unknown", "{v}");
    assert!(v["proof"].as_u64().unwrap() > 0, "{v}");
    // Bad input names what is wrong.
    for (uri, needle) in [
        ("/api/solve?moves=e3&prover=pink", "prover"),
        ("/api/solve?moves=e3&time=0", "time 0"),
        ("/api/solve?moves=e3&time=abc", "time"),
        ("/api/solve?moves=e3%20e3", "e3"),
    ] {
        let (status, v) = api.get(uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {v}");
        assert!(error_of(&v).contains(needle), "{uri}: {v}");
    }
}

#[tokio::test]
async fn solve_is_refused_when_busy_or_turned_off() {
    let mut config = antichess_web::ServerConfig::new(antichess_core::Rules::INTERNATIONAL);
    config.solve_slots = 1;
    let state = Arc::new(antichess_web::AppState::new(config).unwrap());
    let api = Api(router(Arc::clone(&state)));
    // Every slot taken: 429 at once, not a wait.
    let held = Arc::clone(&state.solve_slots).try_acquire_owned().unwrap();
    let start = Instant::now();
    let (status, v) = api.get("/api/solve?moves=e3%20Na6").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(error_of(&v).contains("busy"), "{v}");
    assert!(start.elapsed() < Duration::from_secs(5));
    drop(held);
    assert_eq!(
        api.ok("/api/solve?moves=e3%20Na6&time=20").await["result"],
        "proved"
    );
    // --solve-limit 0: the endpoint says it is off.
    let mut config = antichess_web::ServerConfig::new(antichess_core::Rules::INTERNATIONAL);
    config.solve_limit = Duration::ZERO;
    let api = Api(router(Arc::new(
        antichess_web::AppState::new(config).unwrap(),
    )));
    let (status, v) = api.get("/api/solve?moves=e3%20Na6").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
    assert!(error_of(&v).contains("--solve-limit"), "{v}");
}

/// The server shows only proofs that verify (issue 63): the forged 12-byte proof (one
/// "tablebase leaf" of 32 units after 1. e3) is refused by name when the state is made,
/// even with an index directory given (no index of it can exist: only verified proofs are
/// indexed); the fixture's proof is verified with the tables and shown; with its index in
/// the index directory (the record that it verified) it is shown without being verified
/// again, here with no tables at all.
#[test]
fn only_proofs_that_verify_are_shown() {
    use antichess_core::Rules;
    use antichess_proof::{open_or_build_index, test_support::forged_proof, TablebaseOracle};
    use antichess_web::{AppState, ServerConfig};

    let f = fixture();
    let dir = f.dir.join(format!("verified-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let forged = dir.join("forged.proof");
    std::fs::write(&forged, forged_proof()).unwrap();
    let index_dir = dir.join("index");

    let mut config = common::config(Vec::new(), None);
    config.proofs = vec![forged.clone()];
    config.proof_index = Some(index_dir.clone());
    let Err(refused) = AppState::new(config) else {
        panic!("the forged proof was shown");
    };
    assert!(
        refused.contains("forged.proof") && refused.contains("only proofs that verify"),
        "{refused}"
    );

    let shown = AppState::new(common::config(Vec::new(), None)).unwrap();
    assert_eq!(shown.proofs.len(), 1);

    let tables = antichess_tb::Tablebase::open(&f.tables, Rules::INTERNATIONAL).unwrap();
    open_or_build_index(
        &f.proof,
        Rules::INTERNATIONAL,
        &index_dir,
        &Some(TablebaseOracle::new(&tables)),
    )
    .unwrap();
    let mut config = ServerConfig::new(Rules::INTERNATIONAL);
    config.proofs = vec![f.proof.clone()];
    config.proof_index = Some(index_dir);
    let indexed = AppState::new(config).unwrap();
    assert_eq!(
        indexed.proofs[0].summary().counts.total,
        shown.proofs[0].summary().counts.total
    );
}
