//! The HTTP routes: the JSON API under `/api/` and the three pages (`/`, `/search`,
//! `/tablebase`) with their files under `/assets/` (from `web/dist`, or from the files built
//! into the binary by the feature `embed-web`). Handlers whose work takes time
//! (probing tables, looking positions up in proofs, reading or writing books) run it on
//! Tokio's blocking threads (`spawn_blocking`), so the async threads only move bytes.
//! Errors are JSON (`{"error": "..."}`) with a 4xx status for bad input. The write
//! endpoints (queue, clear the queue, pin, mark) pass [`crate::guard::guard_writes`] first;
//! every API request passes [`crate::guard::guard_requests`] (its body read within the body
//! timeout; no file path in an error). Answers show books and tables by name, never by
//! path.
//!
//! | method and path | what |
//! |---|---|
//! | `GET /api/status` | rules, tables, proofs and books loaded |
//! | `GET /api/explore?fen=&moves=&pgn=&book=` | a position and every legal move: tablebase, proofs, book |
//! | `GET /api/tablebase?fen=&game=` (also `/api/tablebase/antichess`) | lichess-shaped tablebase answer (`_` for spaces in `fen` too); `game=lasker`: the Lasker chess value and moves |
//! | `GET /api/tablebase/random?material=&turn=&seed=` | a random legal position of a material |
//! | `GET /api/proofs`, `GET /api/proofs/{id}` | loaded proofs: counts, root, main line |
//! | `GET /api/books`, `GET /api/books/{name}` | books; one book's root, counts, pin, queue, workers |
//! | `GET /api/books/{name}/history` | root samples and the search log's history |
//! | `GET /api/books/{name}/node?id=` or `?fen=&moves=` | a node, its line and children |
//! | `POST /api/books/{name}/queue`, `DELETE /api/books/{name}/queue` | queue a node; clear the queue (write) |
//! | `POST /api/books/{name}/pin` | pin the walk's start (`{"clear": true}` unpins) (write) |
//! | `POST /api/books/{name}/mark` | mark a node `win`, `loss` or `none` (write) |
//! | `GET /api/solve?fen=&moves=&pgn=&prover=&time=` | df-pn on the position for up to `time` seconds |

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use antichess_book::NodeId;
use antichess_core::Color;

use crate::books::{BookHandle, NodeJson};
use crate::error::{ApiError, ApiResult};
use crate::explore::{explore, explorer_query};
use crate::line::{parse_line, Line};
use crate::state::AppState;
use crate::tables::{self, parse_material, random_position, SplitMix};

type Shared = Arc<AppState>;

/// Runs blocking work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f).await?
}

/// A query string read into `T`. A parameter that does not parse is answered with a 400
/// that names the parameter, the value given and what it must be (never the
/// deserialiser's own text).
struct ApiQuery<T>(T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        Query::<T>::try_from_uri(&parts.uri)
            .map(|Query(t)| ApiQuery(t))
            .map_err(|e| query_error(&e, &parts.uri))
    }
}

/// What a parameter (of a query string or a JSON body) must be, in the user's words.
fn expected(name: &str) -> &'static str {
    match name {
        "time" => "a number of seconds",
        "seed" => "a whole number from 0 to 18446744073709551615",
        "id" => "a node id (a whole number)",
        "clear" => "true or false",
        _ => "text",
    }
}

/// The parameter a deserialisation error is about, and the error without it: the errors
/// read "name: what went wrong" when the name is known.
fn parameter_of(detail: &str) -> Option<&str> {
    let (name, _) = detail.split_once(": ")?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(name)
}

/// The message of a query string that does not fit the endpoint's parameters.
fn query_error(rejection: &QueryRejection, uri: &Uri) -> ApiError {
    let detail = match rejection {
        QueryRejection::FailedToDeserializeQueryString(e) => {
            std::error::Error::source(e).map(ToString::to_string)
        }
        _ => None,
    }
    .unwrap_or_default();
    if let Some((_, rest)) = detail.split_once("duplicate field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return ApiError::bad_request(format!(
            "the query parameter {name} is given more than once"
        ));
    }
    if let Some(name) = parameter_of(&detail) {
        let given = Query::<Vec<(String, String)>>::try_from_uri(uri)
            .ok()
            .and_then(|Query(pairs)| pairs.into_iter().find(|(k, _)| k == name))
            .map(|(_, v)| v)
            .unwrap_or_default();
        return ApiError::bad_request(format!(
            "the query parameter {name} is \"{given}\": it must be {}",
            expected(name)
        ));
    }
    ApiError::bad_request(
        "the query string could not be read: give parameters as name=value pairs joined by &",
    )
}

/// The message of a JSON body that cannot be read.
fn body<T>(b: Result<Json<T>, JsonRejection>) -> ApiResult<T> {
    b.map(|Json(t)| t).map_err(|e| {
        let message = match &e {
            JsonRejection::JsonDataError(inner) => {
                let detail = std::error::Error::source(inner)
                    .map(ToString::to_string)
                    .unwrap_or_default();
                match parameter_of(&detail) {
                    Some(name) => format!(
                        "request body: the field \"{name}\" must be {}",
                        expected(name)
                    ),
                    None => "request body: send a JSON object, e.g. {\"id\": 3}".to_string(),
                }
            }
            JsonRejection::JsonSyntaxError(_) => "request body: not valid JSON".to_string(),
            JsonRejection::MissingJsonContentType(_) => {
                "request body: send JSON with the header Content-Type: application/json".to_string()
            }
            _ => "the request body could not be read".to_string(),
        };
        ApiError::new(e.status(), message)
    })
}

/// The name in a path (`/api/proofs/{id}`, `/api/books/{name}`).
fn path<T>(p: Result<Path<T>, PathRejection>) -> ApiResult<T> {
    p.map(|Path(t)| t).map_err(|_| {
        ApiError::bad_request("the name in the path is not valid text (percent-encoded UTF-8)")
    })
}

/// A position in a query string or a body.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PositionQuery {
    pub fen: Option<String>,
    pub moves: Option<String>,
    pub pgn: Option<String>,
    pub book: Option<String>,
}

impl PositionQuery {
    fn line(&self, state: &AppState) -> ApiResult<Line> {
        parse_line(
            state.rules,
            self.fen.as_deref(),
            self.moves.as_deref(),
            self.pgn.as_deref(),
        )
    }

    fn names_position(&self) -> bool {
        [&self.fen, &self.moves, &self.pgn]
            .iter()
            .any(|f| f.as_deref().is_some_and(|s| !s.trim().is_empty()))
    }
}

/// A node named by id or by position, in a body or a query.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NodeRef {
    pub id: Option<NodeId>,
    pub fen: Option<String>,
    pub moves: Option<String>,
    pub pgn: Option<String>,
    /// For `pin`: remove the pin.
    #[serde(default)]
    pub clear: bool,
    /// For `mark`: `win`, `loss` or `none`.
    #[serde(rename = "as")]
    pub as_: Option<String>,
}

impl NodeRef {
    fn resolve(&self, state: &AppState, book: &BookHandle) -> ApiResult<antichess_book::Node> {
        let q = PositionQuery {
            fen: self.fen.clone(),
            moves: self.moves.clone(),
            pgn: self.pgn.clone(),
            book: None,
        };
        let line = if self.id.is_none() && q.names_position() {
            Some(q.line(state)?)
        } else {
            None
        };
        book.resolve(self.id, line.as_ref())
    }
}

/// The router over a state.
pub fn router(state: Shared) -> Router {
    // Everything that changes a book; `guard_writes` decides who may.
    let writes = Router::new()
        .route(
            "/books/{name}/queue",
            axum::routing::post(queue_push).delete(queue_clear),
        )
        .route("/books/{name}/pin", axum::routing::post(pin))
        .route("/books/{name}/mark", axum::routing::post(mark))
        .route_layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            crate::guard::guard_writes,
        ));
    let api = Router::new()
        .route("/status", get(status))
        .route("/explore", get(explore_handler))
        .route("/solve", get(solve_handler))
        .route("/tablebase", get(tablebase))
        .route("/tablebase/antichess", get(tablebase))
        .route("/tablebase/random", get(random))
        .route("/proofs", get(proofs))
        .route("/proofs/{id}", get(proof))
        .route("/books", get(books))
        .route("/books/{name}", get(book_summary))
        .route("/books/{name}/history", get(book_history))
        .route("/books/{name}/node", get(book_node))
        .merge(writes)
        .fallback(api_not_found)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            crate::guard::guard_requests,
        ));
    let mut app = Router::new().nest("/api", api);
    match state.web_dist.clone() {
        Some(dist) => {
            let no_cache = SetResponseHeaderLayer::overriding(
                header::CACHE_CONTROL,
                HeaderValue::from_static("no-cache"),
            );
            app = app
                .route_service("/", ServeFile::new(dist.join("index.html")))
                .route_service("/search", ServeFile::new(dist.join("search.html")))
                .route_service("/tablebase", ServeFile::new(dist.join("tablebase.html")))
                .nest_service("/assets", ServeDir::new(dist.join("assets")))
                .layer(no_cache);
        }
        None => match state.embedded_web {
            Some(files) => {
                let page = |name: &'static str| get(move || async move { embedded(files, name) });
                app = app
                    .route("/", page("index.html"))
                    .route("/search", page("search.html"))
                    .route("/tablebase", page("tablebase.html"))
                    .route(
                        "/assets/{*path}",
                        get(move |Path(path): Path<String>| async move {
                            embedded(files, &format!("assets/{path}"))
                        }),
                    )
                    .layer(SetResponseHeaderLayer::overriding(
                        header::CACHE_CONTROL,
                        HeaderValue::from_static("no-cache"),
                    ));
            }
            None => {
                app = app
                    .route("/", get(no_front_end))
                    .route("/search", get(no_front_end))
                    .route("/tablebase", get(no_front_end));
            }
        },
    }
    app.with_state(state)
}

/// A file of the front end built into the binary, or 404.
fn embedded(files: crate::assets::EmbeddedFiles, path: &str) -> Response {
    match files(path) {
        Some(bytes) => (
            [(header::CONTENT_TYPE, crate::assets::content_type(path))],
            bytes,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, format!("no file {path}\n")).into_response(),
    }
}

async fn api_not_found(axum::extract::OriginalUri(uri): axum::extract::OriginalUri) -> ApiError {
    ApiError::not_found(format!("no API endpoint {}", uri.path()))
}

async fn no_front_end() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "The server runs without its front end (the API is under /api/). Build it with `{}` and start `antichess serve` again.\n",
            crate::assets::BUILD_COMMAND
        ),
    )
        .into_response()
}

async fn status(State(state): State<Shared>) -> Json<Value> {
    let tables = state.tablebase.as_ref().map(|tb| {
        json!({
            "dir": tb.dir().map(|d| d.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())),
            "materials": tb.materials().len(),
            "complete_units": state.tables_units,
        })
    });
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "rules": state.rules.to_string(),
        "writes": match state.write_rule() {
            crate::guard::WriteRule::Open => "open",
            crate::guard::WriteRule::Token => "token",
            crate::guard::WriteRule::ReadOnly => "read-only",
        },
        "tables": tables,
        "proofs": state.proofs.iter().map(|p| p.summary()).collect::<Vec<_>>(),
        "books": state.books.iter().map(|b| book_entry(b)).collect::<Vec<_>>(),
    }))
}

fn book_entry(b: &BookHandle) -> Value {
    json!({
        "name": b.name,
        "location": b.public_location(),
        "rules": b.meta.rules.to_string(),
        "prover": b.meta.prover.name(),
        "root_fen": b.meta.root_fen,
        "explorer": explorer_query(b.root_position(), &b.meta.prolog),
    })
}

#[derive(Debug, Deserialize)]
struct SolveQuery {
    fen: Option<String>,
    moves: Option<String>,
    pgn: Option<String>,
    prover: Option<String>,
    time: Option<f64>,
}

async fn solve_handler(
    State(state): State<Shared>,
    ApiQuery(q): ApiQuery<SolveQuery>,
) -> ApiResult<Json<Value>> {
    let line = parse_line(
        state.rules,
        q.fen.as_deref(),
        q.moves.as_deref(),
        q.pgn.as_deref(),
    )?;
    let request = crate::solve::SolveRequest::parse(
        line.position(),
        q.prover.as_deref(),
        q.time,
        state.solve_limit,
    )?;
    let Ok(permit) = Arc::clone(&state.solve_slots).try_acquire_owned() else {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "the solver is busy with other positions: try again in a few seconds",
        ));
    };
    blocking(move || {
        let _permit = permit;
        crate::solve::solve(
            &line,
            &request,
            state.tablebase.as_ref(),
            state.tables_units,
        )
        .map(Json)
    })
    .await
}

async fn explore_handler(
    State(state): State<Shared>,
    ApiQuery(q): ApiQuery<PositionQuery>,
) -> ApiResult<Json<Value>> {
    blocking(move || {
        let line = q.line(&state)?;
        let book = state.book_or_default(q.book.as_deref())?.cloned();
        explore(&state, &line, book.as_deref()).map(Json)
    })
    .await
}

/// `/api/tablebase`: a position and `game` (`antichess`, the default, or `lasker`).
#[derive(Debug, Clone, Default, Deserialize)]
struct TablebaseQuery {
    #[serde(flatten)]
    position: PositionQuery,
    game: Option<String>,
}

async fn tablebase(
    State(state): State<Shared>,
    ApiQuery(q): ApiQuery<TablebaseQuery>,
) -> ApiResult<Json<Value>> {
    let TablebaseQuery { position: q, game } = q;
    let Some(fen) = q.fen.clone().filter(|f| !f.trim().is_empty()) else {
        return Err(ApiError::bad_request("give a position: ?fen=..."));
    };
    match game.as_deref().map(str::trim) {
        None | Some("") | Some("antichess") => {}
        Some("lasker") => {
            let dir = crate::lasker::lasker_dir(state.tablebase.as_deref());
            return blocking(move || crate::lasker::probe(dir, &fen).map(Json)).await;
        }
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "game \"{other}\": expected antichess or lasker"
            )))
        }
    }
    blocking(move || {
        let line = q.line(&state)?;
        let report = tables::probe(state.tablebase.as_deref(), line.position())?;
        Ok(Json(
            serde_json::to_value(report).map_err(|e| ApiError::internal(e.to_string()))?,
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
struct RandomQuery {
    material: Option<String>,
    turn: Option<String>,
    seed: Option<u64>,
}

async fn random(
    State(state): State<Shared>,
    ApiQuery(q): ApiQuery<RandomQuery>,
) -> ApiResult<Json<Value>> {
    let text = q
        .material
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| ApiError::bad_request("give a material: ?material=KRkb"))?;
    let material = parse_material(&text)?;
    let turn = match q.turn.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None | Some("random") => None,
        Some(t) => Some(Color::from_name(t).ok_or_else(|| {
            ApiError::bad_request(format!("turn \"{t}\": expected white, black or random"))
        })?),
    };
    let mut rng = q.seed.map_or_else(SplitMix::from_time, SplitMix::new);
    let pos = random_position(&material, state.rules, turn, &mut rng)?;
    Ok(Json(json!({
        "fen": pos.fen(),
        "material": material.name(),
    })))
}

async fn proofs(State(state): State<Shared>) -> Json<Value> {
    Json(json!(state
        .proofs
        .iter()
        .map(|p| p.summary())
        .collect::<Vec<_>>()))
}

async fn proof(
    State(state): State<Shared>,
    id: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Value>> {
    let id = path(id)?;
    let proof = id
        .parse::<usize>()
        .ok()
        .and_then(|i| state.proofs.get(i))
        .or_else(|| state.proofs.iter().find(|p| p.name == id))
        .ok_or_else(|| {
            ApiError::not_found(match state.proofs.len() {
                0 => format!(
                    "no proof \"{id}\": the server has no proofs (start it with --proof FILE)"
                ),
                1 => format!(
                    "no proof \"{id}\": the only proof has id 0 (name \"{}\")",
                    state.proofs[0].name
                ),
                n => format!(
                    "no proof \"{id}\": the ids are 0 to {}, or give a proof's name",
                    n - 1
                ),
            })
        })?;
    let mut summary = serde_json::to_value(proof.summary()).unwrap_or(Value::Null);
    summary["explorer"] = explorer_query(proof.root(), proof.prolog());
    Ok(Json(summary))
}

async fn books(State(state): State<Shared>) -> Json<Value> {
    Json(json!(state
        .books
        .iter()
        .map(|b| book_entry(b))
        .collect::<Vec<_>>()))
}

fn named_book(
    state: &AppState,
    name: Result<Path<String>, PathRejection>,
) -> ApiResult<Arc<BookHandle>> {
    let name = path(name)?;
    state.book(&name).cloned()
}

async fn book_summary(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    blocking(move || {
        let mut v = book.summary()?;
        v["explorer"] = explorer_query(book.root_position(), &book.meta.prolog);
        Ok(Json(v))
    })
    .await
}

async fn book_history(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    let every = state.sample_every.as_secs_f64();
    blocking(move || {
        let mut v = book.history()?;
        v["sample_every_s"] = json!(every);
        Ok(Json(v))
    })
    .await
}

async fn book_node(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
    ApiQuery(q): ApiQuery<NodeRef>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    blocking(move || {
        let node = q.resolve(&state, &book)?;
        book.node_detail(node.id).map(Json)
    })
    .await
}

async fn queue_push(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
    b: Result<Json<NodeRef>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    let r = body(b)?;
    blocking(move || {
        let node = r.resolve(&state, &book)?;
        book.queue_push(node.id)?;
        Ok(Json(json!({ "queued": node.id })))
    })
    .await
}

async fn queue_clear(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    blocking(move || {
        book.queue_clear()?;
        Ok(Json(json!({ "cleared": true })))
    })
    .await
}

async fn pin(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
    b: Result<Json<NodeRef>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    let r = body(b)?;
    blocking(move || {
        if r.clear {
            book.pin(None)?;
            return Ok(Json(json!({ "pin": null })));
        }
        let node = r.resolve(&state, &book)?;
        book.pin(Some(node.id))?;
        Ok(Json(json!({ "pin": node.id })))
    })
    .await
}

async fn mark(
    State(state): State<Shared>,
    name: Result<Path<String>, PathRejection>,
    b: Result<Json<NodeRef>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let book = named_book(&state, name)?;
    let r = body(b)?;
    let win = match r.as_.as_deref().map(str::trim) {
        Some("win") => Some(true),
        Some("loss") => Some(false),
        Some("none") => None,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "as \"{other}\": expected win, loss or none"
            )))
        }
        None => return Err(ApiError::bad_request("give \"as\": win, loss or none")),
    };
    blocking(move || {
        let node = r.resolve(&state, &book)?;
        let (node, root, now) = book.mark(node.id, win)?;
        Ok(Json(json!({
            "node": NodeJson::of(&node, None, now),
            "root": NodeJson::of(&root, None, now),
        })))
    })
    .await
}
