//! Training the cost model, [`train_cost`]: two ridge regressions of ln(subtree size) on
//! the standardised features, one over the proof positions whose side to move is the
//! prover (label 1), one over those whose side to move is the opponent (label 0); rows
//! without a cost (tables, games) are not used. Each is solved exactly (the normal
//! equations, a 25 × 25 Cholesky solve). Deterministic. The weights are read by
//! [`antichess_eval::CostModel`].
//!
//! The objective of each part is `Σ (yᵢ − ŷᵢ)² / n + λ · |w|²` over its n training rows
//! (every row the same weight; the bias is not penalised). Sources named in
//! [`CostTrainOptions::holdout`] are left out of the fit and reported apart.

use std::collections::HashMap;
use std::time::Instant;

use antichess_eval::{CostModel, CostProvenance, Linear, FEATURE_COUNT};
use serde::Serialize;

use crate::train::{cholesky_solve, design, mean_and_scale, sources_in_order, N};
use crate::{LearnError, Row};

/// What [`train_cost`] does.
#[derive(Debug, Clone, PartialEq)]
pub struct CostTrainOptions {
    /// λ, the L2 penalty on the standardised weights. Default 10⁻³.
    pub l2: f64,
    /// Sources left out of the fit and reported on their own.
    pub holdout: Vec<String>,
}

impl Default for CostTrainOptions {
    fn default() -> CostTrainOptions {
        CostTrainOptions {
            l2: 1e-3,
            holdout: Vec::new(),
        }
    }
}

/// How one part of the model does on one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostSourceFit {
    /// The source's name.
    pub source: String,
    /// `prover` or `opponent`: whose turn the rows are.
    pub part: &'static str,
    /// Whether it was held out of the fit.
    pub held_out: bool,
    /// Its rows.
    pub rows: u64,
    /// The mean of ln(cost) over them.
    pub mean_ln_cost: f64,
    /// The mean of the prediction minus the truth.
    pub bias: f64,
    /// The correlation of the prediction with ln(cost) (0 when either is constant).
    pub correlation: f64,
}

/// One part's fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostPartReport {
    /// `prover` or `opponent`.
    pub part: &'static str,
    /// Training rows.
    pub train_rows: u64,
    /// Held-out rows.
    pub holdout_rows: u64,
    /// R² of ln(cost) on the training rows.
    pub train_r2: f64,
    /// R² on the held-out rows (against the held-out rows' own mean).
    pub holdout_r2: Option<f64>,
    /// The weights, by feature name (of the standardised features).
    pub weights: Vec<(String, f64)>,
    /// The prediction at the mean (the training rows' mean ln cost).
    pub bias: f64,
}

/// What [`train_cost`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostTrainReport {
    /// The prover's part and the opponent's.
    pub parts: Vec<CostPartReport>,
    /// Per source and part, in the order first met.
    pub sources: Vec<CostSourceFit>,
    /// Rows without a cost (tables, games), not used.
    pub skipped_rows: u64,
    /// λ.
    pub l2: f64,
    /// Time spent.
    pub seconds: f64,
}

/// Fits one part on its training rows.
fn fit(rows: &[&Row], l2: f64) -> Result<Linear, LearnError> {
    let n = rows.len() as f64;
    let (mean, scale) = mean_and_scale(rows);
    let mut a = [[0.0f64; N]; N];
    let mut b = [0.0f64; N];
    for row in rows {
        let x = design(row, &mean, &scale);
        let y = (row.cost as f64).ln();
        for i in 0..N {
            b[i] += x[i] * y / n;
            for j in 0..=i {
                a[i][j] += x[i] * x[j] / n;
            }
        }
    }
    for i in 0..N {
        if i < FEATURE_COUNT {
            a[i][i] += l2;
        } else {
            a[i][i] += 1e-12;
        }
        for j in 0..i {
            a[j][i] = a[i][j];
        }
    }
    let theta = cholesky_solve(&a, &b).ok_or_else(|| {
        LearnError::Invalid(
            "the fit failed: the normal equations are singular (give a larger --l2)".to_string(),
        )
    })?;
    if theta.iter().any(|t| !t.is_finite()) {
        return Err(LearnError::Invalid(
            "the fit failed: a weight is not finite".to_string(),
        ));
    }
    Ok(Linear {
        mean,
        scale,
        weights: theta[..FEATURE_COUNT].to_vec(),
        bias: theta[N - 1],
    })
}

/// Sums for R² and correlation.
#[derive(Default, Clone, Copy)]
struct Sums {
    n: f64,
    y: f64,
    yy: f64,
    p: f64,
    pp: f64,
    py: f64,
    err: f64,
}

impl Sums {
    fn add(&mut self, y: f64, p: f64) {
        self.n += 1.0;
        self.y += y;
        self.yy += y * y;
        self.p += p;
        self.pp += p * p;
        self.py += p * y;
        self.err += (y - p) * (y - p);
    }

    fn r2(&self) -> f64 {
        let var = self.yy - self.y * self.y / self.n;
        if var <= 0.0 {
            0.0
        } else {
            1.0 - self.err / var
        }
    }

    fn correlation(&self) -> f64 {
        let vy = self.yy - self.y * self.y / self.n;
        let vp = self.pp - self.p * self.p / self.n;
        let c = self.py - self.p * self.y / self.n;
        if vy <= 0.0 || vp <= 0.0 {
            0.0
        } else {
            c / (vy * vp).sqrt()
        }
    }
}

/// Fits the cost model on the proof rows of `rows` but those of the held-out sources. See
/// the module documentation.
///
/// # Errors
/// No proof rows of either kind to train on, a held-out source that is not in the rows, a
/// λ that is negative or not finite, or a fit that fails numerically.
pub fn train_cost(
    rows: &[Row],
    options: &CostTrainOptions,
) -> Result<(CostModel, CostTrainReport), LearnError> {
    let start = Instant::now();
    if !(options.l2.is_finite() && options.l2 >= 0.0) {
        return Err(LearnError::Invalid(format!(
            "the L2 penalty {} is not a number of at least 0",
            options.l2
        )));
    }
    let (order, index) = sources_in_order(rows, &options.holdout)?;
    let held = |row: &Row| options.holdout.iter().any(|h| **h == *row.source);
    let skipped_rows = rows.iter().filter(|r| r.cost == 0).count() as u64;
    let mut model = CostModel::constant();
    let mut parts = Vec::new();
    let mut per_source: Vec<(usize, &'static str, bool, Sums)> = Vec::new();
    for (label, part) in [(1.0f32, "prover"), (0.0f32, "opponent")] {
        let of_part = |r: &&Row| r.cost > 0 && r.label == label;
        let train: Vec<&Row> = rows.iter().filter(of_part).filter(|r| !held(r)).collect();
        if train.is_empty() {
            return Err(LearnError::Invalid(format!(
                "no proof rows whose side to move is the {part} to train on (a cost model \
                 needs the rows of proof files)"
            )));
        }
        let linear = fit(&train, options.l2)?;
        let (mut tr, mut ho) = (Sums::default(), Sums::default());
        let mut sources: HashMap<usize, Sums> = HashMap::new();
        for row in rows.iter().filter(of_part) {
            let (y, p) = ((row.cost as f64).ln(), linear.predict(&row.features));
            if held(row) {
                ho.add(y, p)
            } else {
                tr.add(y, p)
            }
            sources.entry(index[&*row.source]).or_default().add(y, p);
        }
        let mut keys: Vec<usize> = sources.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            per_source.push((k, part, options.holdout.contains(&order[k]), sources[&k]));
        }
        parts.push(CostPartReport {
            part,
            train_rows: tr.n as u64,
            holdout_rows: ho.n as u64,
            train_r2: tr.r2(),
            holdout_r2: (ho.n > 0.0).then(|| ho.r2()),
            weights: antichess_eval::FEATURES
                .iter()
                .zip(&linear.weights)
                .map(|(f, w)| ((*f).to_string(), *w))
                .collect(),
            bias: linear.bias,
        });
        if label == 1.0 {
            model.prover = linear;
        } else {
            model.opponent = linear;
        }
    }
    let sources = per_source
        .into_iter()
        .map(|(k, part, held_out, s)| CostSourceFit {
            source: order[k].clone(),
            part,
            held_out,
            rows: s.n as u64,
            mean_ln_cost: s.y / s.n,
            bias: (s.p - s.y) / s.n,
            correlation: s.correlation(),
        })
        .collect();
    model.provenance = CostProvenance {
        sources: order
            .iter()
            .filter(|s| !options.holdout.contains(s))
            .cloned()
            .collect(),
        holdout: options.holdout.clone(),
        rows: parts.iter().map(|p| p.train_rows).sum(),
        train_r2: [parts[0].train_r2, parts[1].train_r2],
        holdout_r2: match (parts[0].holdout_r2, parts[1].holdout_r2) {
            (Some(a), Some(b)) => Some([a, b]),
            _ => None,
        },
    };
    Ok((
        model,
        CostTrainReport {
            parts,
            sources,
            skipped_rows,
            l2: options.l2,
            seconds: start.elapsed().as_secs_f64(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Rows whose ln(cost) is planted: 1 + 0.5 × feature 2 for the prover's rows, 4 −
    /// 0.25 × feature 3 for the opponent's, features drawn from a small generator.
    fn planted(count: usize, source: &str) -> Vec<Row> {
        let source: Arc<str> = Arc::from(source);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 1000) as f32 / 100.0
        };
        (0..count)
            .map(|i| {
                let mut features = [0.0f32; FEATURE_COUNT];
                for f in &mut features {
                    *f = next();
                }
                let prover = i % 2 == 0;
                let ln = if prover {
                    1.0 + 0.5 * f64::from(features[2])
                } else {
                    4.0 - 0.25 * f64::from(features[3])
                };
                Row {
                    features,
                    label: if prover { 1.0 } else { 0.0 },
                    cost: ln.exp().round().max(1.0) as u64,
                    units: 10,
                    source: source.clone(),
                }
            })
            .collect()
    }

    #[test]
    fn the_planted_costs_are_recovered_for_each_kind_of_position() {
        let mut rows = planted(4000, "a");
        rows.extend(planted(1000, "b"));
        let options = CostTrainOptions {
            l2: 0.0,
            holdout: vec!["b".to_string()],
        };
        let (model, report) = train_cost(&rows, &options).unwrap();
        // Rounding the cost to an integer blurs ln(cost) a little.
        let prover_w = model.prover.weights[2] / model.prover.scale[2];
        let opponent_w = model.opponent.weights[3] / model.opponent.scale[3];
        assert!((prover_w - 0.5).abs() < 0.02, "{prover_w}");
        assert!((opponent_w + 0.25).abs() < 0.02, "{opponent_w}");
        assert!(report.parts.iter().all(|p| p.train_r2 > 0.95), "{report:?}");
        assert!(report.parts.iter().all(|p| p.holdout_r2.unwrap() > 0.95));
        assert_eq!(report.parts[0].holdout_rows, 500);
        assert!(report.sources.iter().any(|s| s.source == "b" && s.held_out));
        // The file reads back to the same predictions (serde_json's parsing may differ
        // from the written decimal in the last bit).
        let back = CostModel::from_json(&model.to_json()).unwrap();
        for row in rows.iter().take(50) {
            for prover in [true, false] {
                let (a, b) = (
                    back.ln_cost_of(&row.features, prover),
                    model.ln_cost_of(&row.features, prover),
                );
                assert!((a - b).abs() < 1e-9, "{a} {b}");
            }
        }
    }

    #[test]
    fn rows_without_a_cost_are_refused_or_skipped() {
        let mut rows = planted(100, "a");
        for r in &mut rows {
            r.cost = 0;
        }
        let e = train_cost(&rows, &CostTrainOptions::default()).unwrap_err();
        assert!(e.to_string().contains("no proof rows"), "{e}");
        let mut mixed = planted(100, "p");
        mixed.extend(rows);
        let (_, report) = train_cost(&mixed, &CostTrainOptions::default()).unwrap();
        assert_eq!(report.skipped_rows, 100);
        let e = train_cost(
            &mixed,
            &CostTrainOptions {
                l2: -1.0,
                holdout: vec![],
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("L2"), "{e}");
    }
}
