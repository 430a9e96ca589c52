//! The Lasker chess answer of `/api/tablebase?game=lasker&fen=...`: the value (0–4,
//! category, depth and metric) of an orthodox endgame position from the Lasker tables in
//! the `lasker` directory beside the server's antichess tables, and every legal move with
//! the value of the position after it (as `antichess tb probe --game lasker --format json`
//! prints) and the FEN after it (the tablebase page plays the moves by it). The server
//! does not build missing tables: the answer names the one to build, with the command that
//! builds it into the directory the server reads (`--tables DIR`, which `serve --tables`
//! does not make the Lasker default). The `fen` may have `_` for its spaces, as every
//! `fen` of the API.

use std::path::PathBuf;

use antichess_core::orthodox::OrthoPosition;
use antichess_tb::lasker::{LaskerTablebase, LaskerValue};
use antichess_tb::Tablebase;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};

/// The Lasker tables directory of a server whose antichess tables are in `tb`.
#[must_use]
pub fn lasker_dir(tb: Option<&Tablebase>) -> Option<PathBuf> {
    let dir = tb?.dir()?;
    Some(dir.parent()?.join("lasker"))
}

fn value_json(v: LaskerValue) -> Value {
    json!({
        "value": v.value,
        "category": v.category(),
        "depth": v.metric().map(|_| v.depth),
        "metric": v.metric(),
    })
}

fn with_value(mut base: Value, v: LaskerValue) -> Value {
    if let (Some(obj), Value::Object(extra)) = (base.as_object_mut(), value_json(v)) {
        obj.extend(extra);
    }
    base
}

/// `path` as one shell word: as it is when it has only characters no shell treats
/// specially, else in single quotes.
fn shell_word(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The answer for `fen` (`_` for spaces allowed) from the tables of `dir`.
pub fn probe(dir: Option<PathBuf>, fen: &str) -> ApiResult<Value> {
    // No FEN has an underscore: lichess's clients write them for spaces.
    let fen = &fen.replace('_', " ");
    let pos = OrthoPosition::from_fen(fen)
        .map_err(|e| ApiError::bad_request(format!("fen \"{fen}\": {e}")))?;
    let men = pos.board().occupied().count();
    if men > 5 {
        return Err(ApiError::bad_request(format!(
            "fen \"{fen}\": {men} men; Lasker tables have at most 5"
        )));
    }
    let dir = dir.ok_or_else(|| {
        ApiError::not_found("this server has no tables directory, so no Lasker tables")
    })?;
    let tb = LaskerTablebase::open(&dir)
        .map_err(|_| ApiError::internal("the Lasker tables directory cannot be read"))?;
    let missing = |e: antichess_tb::TbError| match e {
        antichess_tb::TbError::Missing { material, .. } => ApiError::not_found(format!(
            "no Lasker table for {material} (build it with `antichess tb build --game lasker \
             {material} --tables {}`)",
            shell_word(&dir)
        )),
        other => ApiError::internal(other.to_string()),
    };
    let value = tb.probe(&pos).map_err(missing)?;
    let moves = tb.probe_moves(&pos).map_err(missing)?;
    let moves: Vec<Value> = moves
        .iter()
        .map(|mv| {
            with_value(
                json!({
                    "uci": mv.mv.to_string(),
                    "san": pos.san(mv.mv),
                    "fen": pos.play(mv.mv).fen(),
                }),
                mv.after,
            )
        })
        .collect();
    let mut answer = with_value(json!({ "fen": pos.fen(), "game": "lasker" }), value);
    answer["moves"] = Value::Array(moves);
    Ok(answer)
}
