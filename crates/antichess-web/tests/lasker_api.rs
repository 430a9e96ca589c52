//! `/api/tablebase?game=lasker`: the Lasker chess value and moves from the tables in the
//! `lasker` directory beside the server's antichess tables; the default game stays
//! antichess; an unknown game or a missing table is a 4xx that names it.

use std::sync::Arc;

use antichess_tb::lasker::lasker_build;
use antichess_web::router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use crate::common::{fixture, state};

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, Value) {
    let res = app
        .clone()
        .oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn tablebase_takes_the_game() {
    let lasker = fixture().tables.parent().unwrap().join("lasker");
    lasker_build(&["KQk".parse().unwrap()], &lasker, 1, &|_| {}).unwrap();
    let app = router(Arc::new(state(Vec::new(), None)));

    // Black to move, stalemated: value 1, depth 0, no moves.
    let fen = "7k/5Q2/6K1/8/8/8/8/8%20b%20-%20-%200%201";
    let (status, v) = get(&app, &format!("/api/tablebase?game=lasker&fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["game"], "lasker");
    assert_eq!(v["value"], 1);
    assert_eq!(v["category"], "stalemate-loss");
    assert_eq!(v["depth"], 0);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);

    // White to move mates in one; the best move's position after it is mated.
    let fen = "6k1/8/6K1/8/8/8/8/Q7%20w%20-%20-%200%201";
    let (status, v) = get(&app, &format!("/api/tablebase?game=lasker&fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(
        (v["value"].as_u64(), v["depth"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(v["moves"][0]["category"], "mate-loss");
    // Each move gives the position after it (the tablebase page plays moves by it).
    assert_eq!(v["moves"][0]["san"], "Qa8#");
    assert_eq!(v["moves"][0]["fen"], "Q5k1/8/6K1/8/8/8/8/8 b - - 0 1");

    // The default game is still antichess (its own answer, with "category" win/draw/loss).
    let (status, v) = get(
        &app,
        "/api/tablebase?fen=8/8/8/8/8/2k5/8/KR6%20w%20-%20-%200%201",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert!(v.get("game").is_none() && v["category"].is_string(), "{v}");

    let (status, v) = get(&app, &format!("/api/tablebase?game=chess&fen={fen}")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(v["error"].as_str().unwrap().contains("\"chess\""), "{v}");
    let (status, v) = get(
        &app,
        "/api/tablebase?game=lasker&fen=8/8/8/8/8/2k5/8/KR6%20w%20-%20-%200%201",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(v["error"].as_str().unwrap().contains("KRk"), "{v}");
}

/// Issue 63: the Lasker answer refused `_` for the FEN's spaces (which every `fen` of the
/// API accepts), and its missing-table hint built into the default Lasker directory,
/// which a server started with `--tables DIR` does not read. The hint now names the
/// directory the server reads.
#[tokio::test]
async fn lasker_takes_underscores_and_its_hint_builds_where_the_server_reads() {
    let lasker = fixture().tables.parent().unwrap().join("lasker");
    let app = router(Arc::new(state(Vec::new(), None)));
    // KPk (no test builds it): parsed with `_` for spaces, then missing.
    let (status, v) = get(
        &app,
        "/api/tablebase?game=lasker&fen=8/8/8/8/8/5k2/P7/7K_w_-_-_0_1",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "`antichess tb build --game lasker KPk --tables {}`",
            lasker.display()
        )),
        "{error}"
    );
    // The same position with spaces: the same answer.
    let (status, w) = get(
        &app,
        "/api/tablebase?game=lasker&fen=8/8/8/8/8/5k2/P7/7K%20w%20-%20-%200%201",
    )
    .await;
    assert_eq!((status, &w), (StatusCode::NOT_FOUND, &v));
}
