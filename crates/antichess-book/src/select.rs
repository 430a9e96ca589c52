//! Choosing the next leaf: a walk from the start node (the root, or the pinned node) down
//! to an open leaf that no other worker holds.
//!
//! At each node the walk picks among the open children either the most proving child
//! ([`Selection::MostProving`], the default: smallest proof number at the prover's nodes,
//! smallest disproof number at the opponent's), the same with a tolerance
//! ([`Selection::Slack`]: among the children within a fraction of the smallest number, the
//! one hardest for the other side), the most proving child unless one move of the prover
//! stands out ([`Selection::Dominant`]: among the prover's moves within a fraction of the
//! smallest proof number, one whose disproof number is a set factor above every other
//! move's), or at random ([`Selection::Weighted`]) with
//! weight `(best / number) ^ exponent`, where `number` is that same proof (or disproof)
//! number and `best` the smallest among the open children, so that the most proving child
//! is always the likeliest.
//!
//! The weighted walk once weighted children by their ratio (disproof / proof at the
//! prover's nodes). That stalls: disproof numbers are sums over the prover's moves, so they
//! grow with every expansion below, and the ratio rewarded the subtree already explored
//! most. The walk then fed one subtree while the sibling that held the
//! node's proof number was never searched, and the root's proof number froze
//! (docs/research/book-walk.md).
//!
//! Any of these rules may weigh in the work already spent ([`Effort`]): at the prover's
//! nodes a move whose subtree holds at least `min_size` positions searched counts as
//! `proof × (1 + size / (fraction × parent's size))`. A subtree that ate most of its
//! parent's work without its proof number falling (a long ending where every move of the
//! prover leaves many replies) then gives way for a while to a sibling whose proof number
//! is up to `1 + 1 / fraction` times larger, on fresh ground; a sibling far worse than
//! that never gets the walk, and a subtree near its end (a small proof number) keeps its
//! turn. The factor is bounded and relative, so the root's best move, holding nearly all
//! the work, is not abandoned for moves whose proof numbers are many times its own. Near
//! the root (`min_depth`) the moves' proof numbers are close to each other early in a run,
//! and weighing the work there spreads it over all of them: those nodes are left to the
//! proof numbers.
//! Children that are decided,
//! leaves under a valid lease, and subtrees found to have no free leaf are skipped; when a
//! node has nothing left the walk marks it and starts again.

use std::collections::HashSet;

use crate::error::Result;
use crate::hints::Hints;
use crate::node::{Node, NodeId};
use crate::store::Txn;

/// How the walk picks a child.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Selection {
    /// At random, with weight `(best / number) ^ exponent`, `number` being the child's
    /// proof number at the prover's nodes and its disproof number at the opponent's, and
    /// `best` the smallest such number among the open children.
    Weighted { exponent: f64 },
    /// The most proving child (the default).
    #[default]
    MostProving,
    /// Among the open children whose number (proof number at the prover's nodes,
    /// disproof number at the opponent's) is within a fraction `slack` of the smallest, the
    /// one whose other number is largest: where the side to move has several moves about
    /// equally near to success, the one the other side finds hardest to answer.
    Slack { slack: f64 },
    /// The most proving child, except at the prover's nodes when the open move with the
    /// largest disproof number has at least `ratio` times the disproof number of every
    /// other open move and a proof number within a fraction `slack` of the smallest: then
    /// that move. The steering that proved 1. e3 Nc6 by hand (the move the opponent could
    /// not find an answer to, among moves alike by proof number), made a rule. With
    /// `scaled`, the tolerance grows with how far the move stands out: a move whose
    /// disproof number is `r` times the next one's may be `slack × ln r / ln ratio` above
    /// the smallest proof number (at most 100% above it), so a move the opponent finds no
    /// answer to at all is followed even when its proof number is a little worse. With
    /// `nearest`, at the opponent's nodes the walk takes, among the replies whose
    /// disproof numbers are within `slack` of the smallest, the one nearest to proved
    /// (smallest proof number): where no reply stands out as a refutation (a move the
    /// opponent has no answer to, every reply's disproof number large and alike), the
    /// disproof numbers say nothing, and the reply that can be won soonest is taken. It
    /// acts only where the node's disproof number is at least [`NEAREST_RATIO`] times its
    /// proof number.
    Dominant {
        ratio: f64,
        slack: f64,
        scaled: bool,
        nearest: bool,
    },
}

/// A small xorshift64* generator (selection needs no more).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// Seeded from the clock, the process id and `salt`.
    #[must_use]
    pub fn from_entropy(salt: u64) -> Rng {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Rng::new(t ^ (u64::from(std::process::id()) << 32) ^ salt.rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The child the walk takes from `parent` among `kids` (all open, at least one).
#[must_use]
pub fn pick<'a>(parent: &Node, kids: &[&'a Node], selection: Selection, rng: &mut Rng) -> &'a Node {
    pick_with(parent, kids, selection, None, rng)
}

/// A child's numbers as the walk sees them (its proof number perhaps weighted by
/// [`Effort`]).
#[derive(Debug, Clone, Copy)]
struct Numbers {
    proof: u32,
    disproof: u32,
}

/// [`pick`] on the children's numbers (`or_node`: the prover is to move).
fn choose<'a>(
    or_node: bool,
    kids: &[&'a Numbers],
    selection: Selection,
    rng: &mut Rng,
) -> &'a Numbers {
    let most_proving = || {
        kids.iter()
            .min_by_key(|k| {
                if or_node {
                    (k.proof, u32::MAX - k.disproof)
                } else {
                    (k.disproof, u32::MAX - k.proof)
                }
            })
            .expect("non-empty")
    };
    match selection {
        Selection::MostProving => most_proving(),
        Selection::Dominant {
            ratio,
            slack,
            scaled,
            nearest,
        } => {
            let smallest = kids.iter().map(|k| k.disproof).min().expect("non-empty");
            let proof: u64 = kids.iter().map(|k| u64::from(k.proof)).sum();
            if !or_node && nearest && u64::from(smallest) >= NEAREST_RATIO * proof {
                let limit = within(smallest, slack);
                return kids
                    .iter()
                    .filter(|k| k.disproof <= limit)
                    .min_by_key(|k| (k.proof, k.disproof))
                    .expect("the smallest qualifies");
            }
            if !or_node || kids.len() < 2 {
                return most_proving();
            }
            let best = kids.iter().map(|k| k.proof).min().expect("non-empty");
            // The two largest disproof numbers (ties to the smaller proof number), in one
            // pass.
            let key = |k: &Numbers| (u32::MAX - k.disproof, k.proof);
            let (mut top, mut second) = if key(kids[1]) < key(kids[0]) {
                (kids[1], kids[0])
            } else {
                (kids[0], kids[1])
            };
            for &k in &kids[2..] {
                if key(k) < key(top) {
                    second = top;
                    top = k;
                } else if key(k) < key(second) {
                    second = k;
                }
            }
            let stands_out = f64::from(top.disproof) / f64::from(second.disproof.max(1));
            if stands_out < ratio {
                return most_proving();
            }
            let tolerance = if scaled && ratio > 1.0 {
                (slack * stands_out.ln() / ratio.ln()).min(MAX_SCALED_SLACK.max(slack))
            } else {
                slack
            };
            if top.proof <= within(best, tolerance) {
                top
            } else {
                most_proving()
            }
        }
        Selection::Slack { slack } => {
            let num = |k: &Numbers| if or_node { k.proof } else { k.disproof };
            let other = |k: &Numbers| if or_node { k.disproof } else { k.proof };
            let best = kids.iter().map(|k| num(k)).min().expect("non-empty");
            let limit = within(best, slack);
            kids.iter()
                .filter(|k| num(k) <= limit)
                .max_by_key(|k| (other(k), u32::MAX - num(k)))
                .expect("non-empty")
        }
        Selection::Weighted { exponent } => {
            // The number the side to move minimises: proof at the prover's nodes, disproof
            // at the opponent's. Weights in log space: ln w = exponent * (ln best - ln n).
            let number = |k: &Numbers| f64::from(if or_node { k.proof } else { k.disproof }.max(1));
            let best = kids.iter().map(|k| number(k)).fold(f64::INFINITY, f64::min);
            let weights: Vec<f64> = kids
                .iter()
                .map(|k| (exponent * (best.ln() - number(k).ln())).exp())
                .collect();
            let total: f64 = weights.iter().sum();
            let mut r = rng.next_f64() * total;
            for (k, w) in kids.iter().zip(&weights) {
                if r < *w {
                    return k;
                }
                r -= w;
            }
            kids[kids.len() - 1]
        }
    }
}

/// How the walk weighs the work already spent below the prover's moves (see the module's
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effort {
    /// A move holding this fraction of its parent's work has its proof number doubled.
    pub fraction: f64,
    /// Moves with fewer positions searched below them are taken at their proof number.
    pub min_size: u64,
    /// Nodes fewer plies than this below the book's root choose by proof number alone.
    pub min_depth: u32,
}

/// [`pick`], with the work already spent weighed in at the prover's nodes at least
/// `min_depth` plies deep when `effort` is set: each open move's proof number is
/// multiplied by `1 + size / (fraction × parent's size)` (if its size is at least
/// `min_size`) before `selection` chooses.
#[must_use]
pub fn pick_with<'a>(
    parent: &Node,
    kids: &[&'a Node],
    selection: Selection,
    effort: Option<Effort>,
    rng: &mut Rng,
) -> &'a Node {
    // (threshold, scale) where the work is weighed in.
    let weight = effort
        .filter(|e| e.fraction > 0.0 && parent.prover_to_move && parent.depth >= e.min_depth)
        .map(|e| (e.min_size, e.fraction * parent.size.max(1) as f64));
    let numbers: Vec<Numbers> = kids
        .iter()
        .map(|k| Numbers {
            proof: match weight {
                // Saturates at u32::MAX (the cast does), like every proof number.
                Some((min_size, scale)) if k.size >= min_size => {
                    (f64::from(k.proof) * (1.0 + k.size as f64 / scale)).ceil() as u32
                }
                _ => k.proof,
            },
            disproof: k.disproof,
        })
        .collect();
    let refs: Vec<&Numbers> = numbers.iter().collect();
    let picked = choose(parent.prover_to_move, &refs, selection, rng);
    let index = refs
        .iter()
        .position(|k| std::ptr::eq(*k, picked))
        .expect("choose returns one of the children");
    kids[index]
}

/// The nearest-reply walk acts at an opponent's node whose disproof number is at least
/// this many times its proof number (no refutation in sight).
const NEAREST_RATIO: u64 = 10;

/// The largest tolerance of the scaled dominant walk (a move at most twice the smallest
/// proof number).
const MAX_SCALED_SLACK: f64 = 1.0;

/// The largest number within the fraction `slack` above `best` (the cast saturates; `best`
/// itself always qualifies).
fn within(best: u32, slack: f64) -> u32 {
    ((f64::from(best) * (1.0 + slack.max(0.0))) as u32).max(best)
}

/// Walks from `start` to a free open leaf, choosing by `selection` (and `effort`, see
/// [`pick_with`]), except at the prover's nodes that `hints` names a move for (see
/// [`crate::hints`]). `excluded` collects nodes known to have no
/// free leaf (it may be reused for the next walk of the same claim attempt). Returns
/// `None` if there is none below `start`.
#[allow(clippy::too_many_arguments)]
pub fn walk(
    txn: &mut dyn Txn,
    start: NodeId,
    selection: Selection,
    effort: Option<Effort>,
    hints: Option<&Hints>,
    rng: &mut Rng,
    now_ms: i64,
    excluded: &mut HashSet<NodeId>,
) -> Result<Option<NodeId>> {
    'restart: loop {
        if excluded.contains(&start) {
            return Ok(None);
        }
        let Some(mut node) = txn.node(start)? else {
            return Ok(None);
        };
        loop {
            if !node.is_open() {
                excluded.insert(node.id);
                continue 'restart;
            }
            if !node.expanded {
                if node.is_claimable(now_ms) {
                    return Ok(Some(node.id));
                }
                excluded.insert(node.id);
                continue 'restart;
            }
            let children = txn.children(node.id)?;
            // The record's move at a prover's node, unless it was found lost.
            if let Some(uci) = hints
                .filter(|_| node.prover_to_move)
                .and_then(|h| h.get(node.key))
            {
                if let Some(kid) = children
                    .iter()
                    .find(|k| k.uci.as_deref() == Some(uci) && k.is_open())
                {
                    if excluded.contains(&kid.id) || (!kid.expanded && kid.is_leased(now_ms)) {
                        excluded.insert(node.id);
                        continue 'restart;
                    }
                    node = kid.clone();
                    continue;
                }
            }
            let open: Vec<&Node> = children
                .iter()
                .filter(|k| {
                    k.is_open() && !excluded.contains(&k.id) && (k.expanded || !k.is_leased(now_ms))
                })
                .collect();
            if open.is_empty() {
                excluded.insert(node.id);
                continue 'restart;
            }
            let next = pick_with(&node, &open, selection, effort, rng).clone();
            node = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::{Position, Rules};

    fn node(prover_to_move: bool, proof: u32, disproof: u32) -> Node {
        let pos = Position::start(Rules::INTERNATIONAL);
        Node::leaf(None, None, 0, &pos, prover_to_move, proof, disproof, 0)
    }

    /// How often the weighted walk picks each of `kids` below `parent`, in 10,000 draws.
    fn shares(parent: &Node, kids: &[Node]) -> Vec<u32> {
        let refs: Vec<&Node> = kids.iter().collect();
        let mut rng = Rng::new(7);
        let mut counts = vec![0; kids.len()];
        for _ in 0..10_000 {
            let picked = pick(
                parent,
                &refs,
                Selection::Weighted { exponent: 2.0 },
                &mut rng,
            );
            counts[refs.iter().position(|k| std::ptr::eq(*k, picked)).unwrap()] += 1;
        }
        counts
    }

    /// The numbers of a stalled book (1. e3 Nf6, 1,500 searches of 100K nodes): the child
    /// holding the prover node's proof number 47 had a small disproof number, its sibling
    /// with proof number 87 a large one. The ratio walk took the sibling 99.9% of the time.
    #[test]
    fn the_most_proving_child_is_the_likeliest() {
        let kids = [
            node(false, 47, 100),
            node(false, 87, 13_655),
            node(false, 92, 1_565),
        ];
        let counts = shares(&node(true, 47, 15_320), &kids);
        assert!(counts[0] > counts[1] && counts[0] > counts[2], "{counts:?}");
        assert!(counts[0] > 5_000, "{counts:?}");
        // At the opponent's nodes the same holds for disproof numbers.
        let kids = [node(true, 1, 16_272), node(true, 47, 17_662)];
        let counts = shares(&node(false, 48, 16_272), &kids);
        assert!(counts[0] > counts[1], "{counts:?}");
    }

    #[test]
    fn most_proving_is_the_default() {
        assert_eq!(Selection::default(), Selection::MostProving);
        let kids = [node(false, 9, 1), node(false, 3, 1_000), node(false, 3, 10)];
        let refs: Vec<&Node> = kids.iter().collect();
        let picked = pick(
            &node(true, 3, 1_011),
            &refs,
            Selection::MostProving,
            &mut Rng::new(1),
        );
        assert!(
            std::ptr::eq(picked, &kids[1]),
            "ties go to the larger disproof number"
        );
    }

    /// The numbers of 1. e3 Nc6 ... 6... Nf6 7. exf6 Qxf6 (twelfth session): White's moves
    /// had proof numbers within 20% of each other, and 8. a5 alone a disproof number of 1.5
    /// million (it won in 7 minutes once pinned).
    #[test]
    fn the_slack_walk_takes_the_hardest_to_answer_among_the_nearly_best() {
        let kids = [
            node(false, 5_257, 6_316),
            node(false, 5_262, 1_543_496),
            node(false, 5_312, 67_123),
            node(false, 7_000, 9_000_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let parent = node(true, 5_257, 10_000_000);
        let mut rng = Rng::new(1);
        let most = pick(&parent, &refs, Selection::MostProving, &mut rng);
        assert!(std::ptr::eq(most, &kids[0]));
        let slack = pick(&parent, &refs, Selection::Slack { slack: 0.2 }, &mut rng);
        assert!(
            std::ptr::eq(slack, &kids[1]),
            "7,000 is more than 20% above 5,257"
        );
        let none = pick(&parent, &refs, Selection::Slack { slack: 0.0 }, &mut rng);
        assert!(std::ptr::eq(none, &kids[0]));
        // At the opponent's nodes the roles of the numbers swap.
        let kids = [
            node(true, 10, 100),
            node(true, 900, 110),
            node(true, 50_000, 500),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let slack = pick(
            &node(false, 50_910, 100),
            &refs,
            Selection::Slack { slack: 0.2 },
            &mut rng,
        );
        assert!(std::ptr::eq(slack, &kids[1]));
        // Saturated numbers: no overflow, the smallest qualifies.
        let kids = [node(false, u32::MAX, 0), node(false, u32::MAX, 5)];
        let refs: Vec<&Node> = kids.iter().collect();
        let picked = pick(
            &node(true, u32::MAX, 5),
            &refs,
            Selection::Slack { slack: 0.2 },
            &mut rng,
        );
        assert!(std::ptr::eq(picked, &kids[1]));
    }

    #[test]
    fn the_dominant_walk_leaves_most_proving_only_for_a_move_that_stands_out() {
        let dominant = Selection::Dominant {
            ratio: 10.0,
            slack: 0.2,
            scaled: false,
            nearest: false,
        };
        let mut rng = Rng::new(1);
        // The Nc6 numbers: 8. a5 (1.5 M) stands 23 times above the next (67 K).
        let kids = [
            node(false, 5_257, 6_316),
            node(false, 5_262, 1_543_496),
            node(false, 5_312, 67_123),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let parent = node(true, 5_257, 10_000_000);
        assert!(std::ptr::eq(
            pick(&parent, &refs, dominant, &mut rng),
            &kids[1]
        ));
        // Ten times is not reached (1.5 M against 200 K): most proving.
        let kids = [
            node(false, 5_257, 6_316),
            node(false, 5_262, 1_543_496),
            node(false, 5_312, 200_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, dominant, &mut rng),
            &kids[0]
        ));
        // The standing-out move is too far above the smallest proof number.
        let kids = [node(false, 5_257, 6_316), node(false, 7_000, 9_000_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, dominant, &mut rng),
            &kids[0]
        ));
        // The opponent's nodes: most proving (smallest disproof number).
        let kids = [node(true, 10, 100), node(true, 9, 100_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&node(false, 19, 100), &refs, dominant, &mut rng),
            &kids[0]
        ));
        // One child, saturated numbers: no overflow.
        let kids = [node(false, u32::MAX, u32::MAX), node(false, u32::MAX, 0)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&node(true, u32::MAX, 5), &refs, dominant, &mut rng),
            &kids[0]
        ));
        let one = [node(false, 3, 4)];
        let refs: Vec<&Node> = one.iter().collect();
        assert!(std::ptr::eq(
            pick(&node(true, 3, 4), &refs, dominant, &mut rng),
            &one[0]
        ));
    }

    #[test]
    fn the_scaled_dominant_walk_tolerates_more_the_further_a_move_stands_out() {
        let fixed = Selection::Dominant {
            ratio: 3.0,
            slack: 0.2,
            scaled: false,
            nearest: false,
        };
        let scaled = Selection::Dominant {
            ratio: 3.0,
            slack: 0.2,
            scaled: true,
            nearest: false,
        };
        let mut rng = Rng::new(1);
        let parent = node(true, 7_000, 10_000_000);
        // The c6 numbers of the nineteenth session: 2. Bb5 twelve times every other move's
        // disproof number, its proof number 30% above the smallest. ln 12 / ln 3 = 2.26,
        // so the tolerance is 45%.
        let kids = [
            node(false, 7_000, 60_000),
            node(false, 9_100, 817_422),
            node(false, 7_100, 68_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, fixed, &mut rng),
            &kids[0]
        ));
        assert!(std::ptr::eq(
            pick(&parent, &refs, scaled, &mut rng),
            &kids[1]
        ));
        // Only three times above: the tolerance stays 20%.
        let kids = [node(false, 7_000, 60_000), node(false, 9_100, 204_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, scaled, &mut rng),
            &kids[0]
        ));
        // However far it stands out, never more than twice the smallest proof number.
        let kids = [node(false, 7_000, 1), node(false, 14_001, 4_000_000_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, scaled, &mut rng),
            &kids[0]
        ));
        let kids = [node(false, 7_000, 1), node(false, 14_000, 4_000_000_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, scaled, &mut rng),
            &kids[1]
        ));
    }

    #[test]
    fn the_nearest_reply_walk_takes_the_reply_nearest_to_proved_among_alike_refutations() {
        let nearest = Selection::Dominant {
            ratio: 3.0,
            slack: 0.2,
            scaled: false,
            nearest: true,
        };
        let mut rng = Rng::new(1);
        // The Nh6 numbers below 2. Ba6 bxa6 3. Qh5: every reply's disproof number about
        // 270,000, their proof numbers from 227 to 5,288.
        let kids = [
            node(true, 3_746, 269_551),
            node(true, 1_625, 269_684),
            node(true, 227, 284_031),
            node(true, 349, 271_068),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let parent = node(false, 16_586, 269_551);
        assert!(std::ptr::eq(
            pick(&parent, &refs, nearest, &mut rng),
            &kids[2]
        ));
        // A reply that stands out as a refutation (smallest disproof number, the others
        // beyond the slack) is still taken.
        let kids = [node(true, 3_746, 1_000), node(true, 227, 284_031)];
        let refs: Vec<&Node> = kids.iter().collect();
        assert!(std::ptr::eq(
            pick(&parent, &refs, nearest, &mut rng),
            &kids[0]
        ));
    }

    fn sized(proof: u32, disproof: u32, size: u64) -> Node {
        Node {
            size,
            ..node(false, proof, disproof)
        }
    }

    /// The numbers of 1. e3 c6 2. Bb5 cxb5 3. b4 Qa5 4. bxa5 a6 (fourteenth session's
    /// book): 5. Qh5 held the proof number, 708, with 80 billion positions searched below
    /// it; 5. Na3 stood at 3,468 with 40 million.
    #[test]
    fn the_effort_walk_leaves_a_subtree_that_ate_the_work() {
        let effort = Some(Effort {
            fraction: 0.25,
            min_size: 1_000_000_000,
            min_depth: 0,
        });
        let kids = [
            sized(708, 400_000_000, 80_000_000_000),
            sized(3_468, 9_000_000, 40_000_000),
            sized(4_000, 9_000_000, 2_000_000_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let parent = Node {
            size: 82_040_000_001,
            ..node(true, 708, 418_000_000)
        };
        let mut rng = Rng::new(1);
        let off = pick_with(&parent, &refs, Selection::MostProving, None, &mut rng);
        assert!(std::ptr::eq(off, &kids[0]), "without it: most proving");
        let on = pick_with(&parent, &refs, Selection::MostProving, effort, &mut rng);
        assert!(std::ptr::eq(on, &kids[1]), "708 × 4.9 > 3,468");
        // Far worse siblings never get the walk: at most 1 + 1 / fraction = 5 times.
        let kids = [
            sized(861, 400_000_000, 80_000_000_000),
            sized(6_439, 9_000_000, 2_000_000_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let on = pick_with(&parent, &refs, Selection::MostProving, effort, &mut rng);
        assert!(std::ptr::eq(on, &kids[0]), "861 × 4.9 < 6,439 × 1.1");
        // A subtree near its end keeps its turn, whatever it cost.
        let kids = [
            sized(5, 1_000, 80_000_000_000),
            sized(3_468, 9_000_000, 40_000_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let on = pick_with(&parent, &refs, Selection::MostProving, effort, &mut rng);
        assert!(std::ptr::eq(on, &kids[0]), "5 × 4.9 < 3,468");
        // Below min_size the proof number alone counts (a fresh search's children).
        let kids = [sized(10, 5, 900_000_000), sized(12, 5, 1_000)];
        let refs: Vec<&Node> = kids.iter().collect();
        let small = Node {
            size: 900_001_001,
            ..node(true, 10, 10)
        };
        let on = pick_with(&small, &refs, Selection::MostProving, effort, &mut rng);
        assert!(std::ptr::eq(on, &kids[0]));
        // The opponent's nodes are untouched: all their moves must be answered anyway.
        let kids = [
            Node {
                size: 80_000_000_000,
                ..node(true, 10, 100)
            },
            node(true, 9, 100_000),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let opponent = Node {
            size: 80_000_000_002,
            ..node(false, 19, 100)
        };
        let picked = pick_with(&opponent, &refs, Selection::MostProving, effort, &mut rng);
        assert!(std::ptr::eq(picked, &kids[0]));
        // Saturated numbers stay saturated; the other rules see the weighted numbers too.
        let kids = [
            sized(u32::MAX, 5, 1 << 40),
            sized(1_000, 5, 0),
            sized(900, 6_000_000, 1 << 40),
        ];
        let refs: Vec<&Node> = kids.iter().collect();
        let big = Node {
            size: (1 << 41) + 1,
            ..node(true, 900, 6_000_010)
        };
        let dominant = Selection::Dominant {
            ratio: 10.0,
            slack: 0.2,
            scaled: false,
            nearest: false,
        };
        assert!(std::ptr::eq(
            pick_with(&big, &refs, dominant, None, &mut rng),
            &kids[2]
        ));
        let picked = pick_with(&big, &refs, dominant, effort, &mut rng);
        assert!(
            std::ptr::eq(picked, &kids[1]),
            "900 × 3 is no longer within 20% of 1,000"
        );
        // Above min_depth the proof numbers alone choose.
        let shallow = effort.map(|e| Effort {
            min_depth: big.depth + 1,
            ..e
        });
        let picked = pick_with(&big, &refs, dominant, shallow, &mut rng);
        assert!(std::ptr::eq(picked, &kids[2]));
    }
}
