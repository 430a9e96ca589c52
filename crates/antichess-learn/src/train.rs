//! Training, [`train`]: L2-regularised logistic regression of "the side to move wins" on the
//! standardised features, fitted by Newton's method (iteratively reweighted least squares,
//! 25 unknowns: the 24 weights and the bias, each step a 25 × 25 Cholesky solve with a
//! step-halving line search). Deterministic: the same rows and options give the same
//! weights, bit for bit.
//!
//! The objective is `Σ ωᵢ loss(rowᵢ) + λ/2 · |w|²` where the row weights `ωᵢ` sum to 1:
//! with [`TrainOptions::balance_sources`] every training source has the same total weight
//! (so one huge proof does not drown the others), otherwise every row weighs the same.
//! `λ` ([`TrainOptions::l2`]) is thus a plain penalty on the standardised weights,
//! independent of the number of rows; the bias is not penalised (beyond 10⁻⁹, which keeps
//! it finite when every row has one label).
//!
//! Sources named in [`TrainOptions::holdout`] are left out of the fit (and of the means and
//! scales) and reported separately: how the model does on lines it never saw.

use std::collections::HashMap;
use std::time::Instant;

use antichess_eval::{Model, FEATURES, FEATURE_COUNT};
use serde::Serialize;

use crate::{LearnError, Row};

/// The unknowns: the weights and the bias (last).
pub(crate) const N: usize = FEATURE_COUNT + 1;

/// Probabilities are clamped to `[EPS, 1 − EPS]` in the log-loss.
const EPS: f64 = 1e-15;

/// What [`train`] does.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// λ, the L2 penalty on the standardised weights (the row weights sum to 1; see the
    /// module documentation). Default 10⁻³.
    pub l2: f64,
    /// The most Newton steps (default 25); the fit stops earlier when a step changes no
    /// weight by more than 10⁻⁹.
    pub iterations: u32,
    /// Sources left out of the fit and reported on their own.
    pub holdout: Vec<String>,
    /// Whether every training source weighs the same in total (default true).
    pub balance_sources: bool,
    /// Features left out of the fit (their weights are 0): for a model meant to add to
    /// what the search already knows (mobility) rather than repeat it.
    pub exclude: Vec<String>,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            l2: 1e-3,
            iterations: 25,
            holdout: Vec::new(),
            balance_sources: true,
            exclude: Vec::new(),
        }
    }
}

/// How the model does on one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceFit {
    /// The source's name.
    pub source: String,
    /// Whether it was held out of the fit.
    pub held_out: bool,
    /// Its rows.
    pub rows: u64,
    /// Its rows whose side to move wins.
    pub wins: u64,
    /// Mean log-loss (natural logarithm) of the model on its rows.
    pub log_loss: f64,
    /// Share of its rows on the right side of 1/2.
    pub accuracy: f64,
    /// Mean log-loss of the constant prediction (the training rows' share of wins, as
    /// weighted): what the features add is the difference.
    pub baseline_log_loss: f64,
}

/// One fitted weight.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureWeight {
    /// The feature's name.
    pub feature: String,
    /// Its weight on the standardised feature (log-odds per standard deviation).
    pub weight: f64,
    /// Its mean over the training rows.
    pub mean: f64,
    /// Its standard deviation over the training rows (1 for a constant feature).
    pub scale: f64,
}

/// What [`train`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainReport {
    /// The training rows.
    pub train_rows: u64,
    /// The held-out rows.
    pub holdout_rows: u64,
    /// Mean log-loss over the training rows (each row counted once, not weighted).
    pub train_log_loss: f64,
    /// Accuracy over the training rows.
    pub train_accuracy: f64,
    /// The constant prediction's log-loss over the training rows.
    pub train_baseline_log_loss: f64,
    /// Mean log-loss over the held-out rows (none if nothing was held out).
    pub holdout_log_loss: Option<f64>,
    /// Accuracy over the held-out rows.
    pub holdout_accuracy: Option<f64>,
    /// The constant prediction's log-loss over the held-out rows.
    pub holdout_baseline_log_loss: Option<f64>,
    /// Per source, in the order first met in the rows.
    pub sources: Vec<SourceFit>,
    /// The fitted weights, by feature.
    pub weights: Vec<FeatureWeight>,
    /// The bias (log-odds at the mean).
    pub bias: f64,
    /// λ.
    pub l2: f64,
    /// Whether the sources were balanced.
    pub balance_sources: bool,
    /// Newton steps taken.
    pub iterations: u32,
    /// Whether the last step changed no weight by more than 10⁻⁹.
    pub converged: bool,
    /// The objective at the end.
    pub objective: f64,
    /// Time spent.
    pub seconds: f64,
}

/// The logistic function, computed without overflow.
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// The log-loss of probability `p` for label `y`.
fn log_loss(p: f64, y: f64) -> f64 {
    let p = p.clamp(EPS, 1.0 - EPS);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// The sources of `rows` in order of appearance, and each one's place in that order;
/// an error naming a held-out source that has no rows.
pub(crate) fn sources_in_order<'a>(
    rows: &'a [Row],
    holdout: &[String],
) -> Result<(Vec<String>, HashMap<&'a str, usize>), LearnError> {
    let mut order: Vec<String> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for row in rows {
        if !index.contains_key(&*row.source) {
            index.insert(&row.source, order.len());
            order.push(row.source.to_string());
        }
    }
    for name in holdout {
        if !index.contains_key(name.as_str()) {
            return Err(LearnError::Invalid(format!(
                "held-out source \"{name}\" has no rows in the data (its sources: {})",
                order.join(", ")
            )));
        }
    }
    Ok((order, index))
}

/// Each feature's mean and standard deviation over `rows` (a spread below 10⁻⁶ counts as
/// 1, so that a constant feature standardises to 0).
pub(crate) fn mean_and_scale(rows: &[&Row]) -> (Vec<f64>, Vec<f64>) {
    let n = rows.len() as f64;
    let mut mean = vec![0.0f64; FEATURE_COUNT];
    for row in rows {
        for i in 0..FEATURE_COUNT {
            mean[i] += f64::from(row.features[i]);
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut scale = vec![0.0f64; FEATURE_COUNT];
    for row in rows {
        for i in 0..FEATURE_COUNT {
            let d = f64::from(row.features[i]) - mean[i];
            scale[i] += d * d;
        }
    }
    for s in &mut scale {
        *s = (*s / n).sqrt();
        if *s < 1e-6 {
            *s = 1.0;
        }
    }
    (mean, scale)
}

/// The standardised features of a row and a constant 1 for the bias.
pub(crate) fn design(row: &Row, mean: &[f64], scale: &[f64]) -> [f64; N] {
    let mut x = [1.0; N];
    for i in 0..FEATURE_COUNT {
        x[i] = (f64::from(row.features[i]) - mean[i]) / scale[i];
    }
    x
}

fn dot(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves `a x = b` for a symmetric positive definite `a` (Cholesky); `None` if `a` is
/// not positive definite.
pub(crate) fn cholesky_solve(a: &[[f64; N]; N], b: &[f64; N]) -> Option<[f64; N]> {
    let mut l = [[0.0f64; N]; N];
    for i in 0..N {
        for j in 0..=i {
            let mut sum = a[i][j];
            for k in 0..j {
                sum -= l[i][k] * l[j][k];
            }
            if i == j {
                if sum <= 0.0 || !sum.is_finite() {
                    return None;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    let mut y = [0.0f64; N];
    for i in 0..N {
        let mut sum = b[i];
        for k in 0..i {
            sum -= l[i][k] * y[k];
        }
        y[i] = sum / l[i][i];
    }
    let mut x = [0.0f64; N];
    for i in (0..N).rev() {
        let mut sum = y[i];
        for k in i + 1..N {
            sum -= l[k][i] * x[k];
        }
        x[i] = sum / l[i][i];
    }
    Some(x)
}

/// The training rows, standardised, with their weights.
struct Fit<'a> {
    x: Vec<[f64; N]>,
    rows: Vec<&'a Row>,
    omega: Vec<f64>,
    penalty: [f64; N],
}

impl Fit<'_> {
    fn objective(&self, theta: &[f64; N]) -> f64 {
        let mut total = 0.0;
        for ((x, row), w) in self.x.iter().zip(&self.rows).zip(&self.omega) {
            total += w * log_loss(sigmoid(dot(x, theta)), f64::from(row.label));
        }
        for i in 0..N {
            total += 0.5 * self.penalty[i] * theta[i] * theta[i];
        }
        total
    }

    /// The gradient and the Hessian of the objective at `theta`.
    fn derivatives(&self, theta: &[f64; N]) -> ([f64; N], [[f64; N]; N]) {
        let mut g = [0.0f64; N];
        let mut h = [[0.0f64; N]; N];
        for ((x, row), w) in self.x.iter().zip(&self.rows).zip(&self.omega) {
            let p = sigmoid(dot(x, theta));
            let r = w * (p - f64::from(row.label));
            let c = w * p * (1.0 - p);
            for i in 0..N {
                g[i] += r * x[i];
                let cx = c * x[i];
                for j in 0..=i {
                    h[i][j] += cx * x[j];
                }
            }
        }
        for i in 0..N {
            g[i] += self.penalty[i] * theta[i];
            h[i][i] += self.penalty[i];
            for j in 0..i {
                h[j][i] = h[i][j];
            }
        }
        (g, h)
    }
}

/// Fits the model on `rows` but those of the held-out sources. See the module
/// documentation.
///
/// # Errors
/// No training rows, a held-out source that is not in the rows, a λ that is negative or
/// not finite, or a fit that fails numerically.
pub fn train(rows: &[Row], options: &TrainOptions) -> Result<(Model, TrainReport), LearnError> {
    let start = Instant::now();
    if !(options.l2.is_finite() && options.l2 >= 0.0) {
        return Err(LearnError::Invalid(format!(
            "the L2 penalty {} is not a number of at least 0",
            options.l2
        )));
    }
    let (order, index) = sources_in_order(rows, &options.holdout)?;
    let mut excluded = [false; FEATURE_COUNT];
    for name in &options.exclude {
        let Some(i) = FEATURES.iter().position(|f| f == name) else {
            return Err(LearnError::Invalid(format!(
                "excluded feature \"{name}\" is not one of the model's ({})",
                FEATURES.join(", ")
            )));
        };
        excluded[i] = true;
    }
    let held = |row: &Row| options.holdout.iter().any(|h| **h == *row.source);
    let train_rows: Vec<&Row> = rows.iter().filter(|r| !held(r)).collect();
    if train_rows.is_empty() {
        return Err(LearnError::Invalid(if rows.is_empty() {
            "the data set has no rows".to_string()
        } else {
            "every source is held out: no rows are left to train on".to_string()
        }));
    }
    let n = train_rows.len() as f64;
    let (mean, scale) = mean_and_scale(&train_rows);
    // Row weights summing to 1.
    let mut per_source = vec![0u64; order.len()];
    for row in &train_rows {
        per_source[index[&*row.source]] += 1;
    }
    let training_sources = per_source.iter().filter(|&&c| c > 0).count() as f64;
    let omega: Vec<f64> = train_rows
        .iter()
        .map(|row| {
            if options.balance_sources {
                1.0 / (training_sources * per_source[index[&*row.source]] as f64)
            } else {
                1.0 / n
            }
        })
        .collect();
    let mut penalty = [options.l2; N];
    penalty[N - 1] = 1e-9;
    let fit = Fit {
        x: train_rows
            .iter()
            .map(|r| {
                let mut x = design(r, &mean, &scale);
                for i in 0..FEATURE_COUNT {
                    if excluded[i] {
                        x[i] = 0.0;
                    }
                }
                x
            })
            .collect(),
        rows: train_rows,
        omega,
        penalty,
    };
    // The weighted share of wins: the baseline, and the bias to start from.
    let prior: f64 = fit
        .rows
        .iter()
        .zip(&fit.omega)
        .map(|(r, w)| w * f64::from(r.label))
        .sum::<f64>()
        .clamp(1e-6, 1.0 - 1e-6);
    let mut theta = [0.0f64; N];
    theta[N - 1] = (prior / (1.0 - prior)).ln();
    let mut value = fit.objective(&theta);
    let (mut steps, mut converged) = (0u32, false);
    while steps < options.iterations {
        steps += 1;
        let (g, h) = fit.derivatives(&theta);
        let delta = cholesky_solve(&h, &g).ok_or_else(|| {
            LearnError::Invalid(
                "the fit failed: the Hessian is not positive definite (give a larger --l2)"
                    .to_string(),
            )
        })?;
        // Halve the step until the objective does not increase.
        let mut t = 1.0;
        let mut next = theta;
        let mut next_value = value;
        for _ in 0..30 {
            for i in 0..N {
                next[i] = theta[i] - t * delta[i];
            }
            next_value = fit.objective(&next);
            if next_value <= value {
                break;
            }
            t *= 0.5;
        }
        if next_value > value {
            converged = true; // no step improves: at the optimum to rounding
            break;
        }
        let change = (0..N)
            .map(|i| (next[i] - theta[i]).abs())
            .fold(0.0, f64::max);
        theta = next;
        value = next_value;
        if change <= 1e-9 {
            converged = true;
            break;
        }
    }
    if theta.iter().any(|t| !t.is_finite()) {
        return Err(LearnError::Invalid(
            "the fit failed: a weight is not finite".to_string(),
        ));
    }
    let mut model = Model::neutral();
    model.mean = mean.clone();
    model.scale = scale.clone();
    model.weights = theta[..FEATURE_COUNT].to_vec();
    model.bias = theta[N - 1];

    // Figures per source, and totals.
    #[derive(Default, Clone, Copy)]
    struct Sums {
        rows: u64,
        wins: u64,
        loss: f64,
        right: u64,
        baseline: f64,
    }
    let mut sums = vec![Sums::default(); order.len()];
    for row in rows {
        let p = sigmoid(model.logit_of(&row.features));
        let y = f64::from(row.label);
        let s = &mut sums[index[&*row.source]];
        s.rows += 1;
        s.wins += u64::from(y > 0.5);
        s.loss += log_loss(p, y);
        s.right += u64::from((p >= 0.5) == (y > 0.5));
        s.baseline += log_loss(prior, y);
    }
    let total = |held_out: bool| {
        let mut t = Sums::default();
        for (name, s) in order.iter().zip(&sums) {
            if options.holdout.contains(name) == held_out {
                t.rows += s.rows;
                t.loss += s.loss;
                t.right += s.right;
                t.baseline += s.baseline;
            }
        }
        t
    };
    let (tr, ho) = (total(false), total(true));
    let mean_of = |x: f64, t: &Sums| x / t.rows as f64;
    let held_figure = |x: f64| (ho.rows > 0).then(|| x / ho.rows as f64);
    let sources: Vec<SourceFit> = order
        .iter()
        .zip(&sums)
        .map(|(name, s)| SourceFit {
            source: name.clone(),
            held_out: options.holdout.contains(name),
            rows: s.rows,
            wins: s.wins,
            log_loss: mean_of(s.loss, s),
            accuracy: mean_of(s.right as f64, s),
            baseline_log_loss: mean_of(s.baseline, s),
        })
        .collect();
    model.provenance.sources = sources
        .iter()
        .map(|s| {
            if s.held_out {
                format!("{} (held out)", s.source)
            } else {
                s.source.clone()
            }
        })
        .collect();
    model.provenance.rows = tr.rows;
    model.provenance.train_log_loss = mean_of(tr.loss, &tr);
    model.provenance.train_accuracy = mean_of(tr.right as f64, &tr);
    model.provenance.holdout_log_loss = held_figure(ho.loss);
    model.provenance.holdout_accuracy = held_figure(ho.right as f64);
    let report = TrainReport {
        train_rows: tr.rows,
        holdout_rows: ho.rows,
        train_log_loss: mean_of(tr.loss, &tr),
        train_accuracy: mean_of(tr.right as f64, &tr),
        train_baseline_log_loss: mean_of(tr.baseline, &tr),
        holdout_log_loss: held_figure(ho.loss),
        holdout_accuracy: held_figure(ho.right as f64),
        holdout_baseline_log_loss: held_figure(ho.baseline),
        sources,
        weights: FEATURES
            .iter()
            .enumerate()
            .map(|(i, name)| FeatureWeight {
                feature: (*name).to_string(),
                weight: model.weights[i],
                mean: mean[i],
                scale: scale[i],
            })
            .collect(),
        bias: model.bias,
        l2: options.l2,
        balance_sources: options.balance_sources,
        iterations: steps,
        converged,
        objective: value,
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok((model, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Rows whose label follows feature 2 (`us_moves`) positively and feature 9
    /// (`us_hanging`) negatively, with noise; the other features are noise.
    fn synthetic(count: usize, source: &str, seed: u64) -> Vec<Row> {
        let source: Arc<str> = Arc::from(source);
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64) / ((1u64 << 53) as f64)
        };
        (0..count)
            .map(|_| {
                let mut features = [0f32; FEATURE_COUNT];
                for f in &mut features {
                    *f = (next() * 10.0) as f32;
                }
                features[7] = 3.0; // a constant feature
                let z = 0.8 * (f64::from(features[2]) - 5.0) - 0.5 * (f64::from(features[9]) - 5.0);
                let label = if next() < sigmoid(z) { 1.0 } else { 0.0 };
                Row {
                    features,
                    label,
                    cost: 1,
                    units: 10,
                    source: source.clone(),
                }
            })
            .collect()
    }

    #[test]
    fn excluded_features_get_no_weight() {
        let rows = synthetic(2000, "a", 3);
        let options = TrainOptions {
            exclude: vec![FEATURES[2].to_string()],
            ..TrainOptions::default()
        };
        let (model, _) = train(&rows, &options).unwrap();
        assert_eq!(model.weights[2], 0.0);
        assert!(model.weights[9] < -0.5, "{:?}", model.weights);
        let e = train(
            &rows,
            &TrainOptions {
                exclude: vec!["material".into()],
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("\"material\" is not one of"), "{e}");
    }

    #[test]
    fn training_recovers_the_planted_weights() {
        let mut rows = synthetic(3000, "a", 1);
        rows.extend(synthetic(1000, "b", 2));
        let options = TrainOptions {
            holdout: vec!["b".to_string()],
            ..TrainOptions::default()
        };
        let (model, report) = train(&rows, &options).unwrap();
        assert!(report.converged, "{report:?}");
        assert_eq!(report.train_rows, 3000);
        assert_eq!(report.holdout_rows, 1000);
        // The standardised weights: planted weight × spread (about 2.9).
        assert!(model.weights[2] > 1.5, "{:?}", model.weights);
        assert!(model.weights[9] < -0.8, "{:?}", model.weights);
        for i in [0, 1, 3, 5, 10, 20] {
            assert!(
                model.weights[i].abs() < 0.3,
                "feature {i}: {:?}",
                model.weights
            );
        }
        assert_eq!(model.scale[7], 1.0);
        assert_eq!(model.weights[7], 0.0);
        let holdout = report.holdout_log_loss.unwrap();
        assert!(holdout < report.holdout_baseline_log_loss.unwrap() - 0.1);
        assert!(report.holdout_accuracy.unwrap() > 0.75);
        assert_eq!(model.provenance.rows, 3000);
        assert_eq!(model.provenance.sources, ["a", "b (held out)"]);
        // The weights file reads back (serde_json may round the last bit of a float).
        let back = Model::from_json(&model.to_json()).unwrap();
        for (a, b) in back.weights.iter().zip(&model.weights) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0));
        }
        // Deterministic.
        let (again, _) = train(&rows, &options).unwrap();
        assert_eq!(again, model);
    }

    #[test]
    fn balancing_gives_every_source_the_same_weight() {
        // Source "big" has label 1 always, "small" label 0 always, with nothing to tell
        // them apart: balanced, the bias is near even odds; unbalanced, it leans to "big".
        let big: Vec<Row> = synthetic(900, "big", 3)
            .into_iter()
            .map(|mut r| {
                r.label = 1.0;
                r.features = [1.0; FEATURE_COUNT];
                r
            })
            .collect();
        let mut rows = big;
        rows.extend(synthetic(100, "small", 4).into_iter().map(|mut r| {
            r.label = 0.0;
            r.features = [1.0; FEATURE_COUNT];
            r
        }));
        let (balanced, _) = train(&rows, &TrainOptions::default()).unwrap();
        assert!(balanced.bias.abs() < 1e-6, "{}", balanced.bias);
        let plain = TrainOptions {
            balance_sources: false,
            ..TrainOptions::default()
        };
        let (unbalanced, _) = train(&rows, &plain).unwrap();
        assert!(
            (unbalanced.bias - 9f64.ln()).abs() < 1e-6,
            "{}",
            unbalanced.bias
        );
    }

    #[test]
    fn bad_options_are_refused() {
        let rows = synthetic(10, "a", 5);
        let e = train(
            &rows,
            &TrainOptions {
                holdout: vec!["zz".into()],
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("\"zz\"") && e.contains("a"), "{e}");
        let e = train(
            &rows,
            &TrainOptions {
                holdout: vec!["a".into()],
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("every source is held out"), "{e}");
        let e = train(&[], &TrainOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no rows"), "{e}");
        let e = train(
            &rows,
            &TrainOptions {
                l2: -1.0,
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("L2"), "{e}");
    }
}
