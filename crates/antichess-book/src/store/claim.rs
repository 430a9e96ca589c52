//! The one definition of a claimable leaf: the leaf a worker may claim, with a lease, to
//! search it. A node is claimable at time `now` when it is
//!
//! - **open**: neither won nor lost — its proof and disproof numbers are both non-zero
//!   (a decided status always comes with a zero number, see [`crate::node`]);
//! - **a leaf**: not expanded;
//! - **free**: no worker holds it, or the lease of the one that did ran out
//!   (`lease_until <= now`; a claim without an end is treated as free).
//!
//! The rule is written here twice, once for each side of the store trait, and nowhere
//! else: [`Node::is_claimable`] in Rust (the walk and the queue ask it of nodes they have
//! read) and [`claimable_sql`] as the SQL condition that both stores' `claim` statements
//! test while they take the lease (so that two workers never both win a leaf). The book
//! tests claim the same nodes through both on both stores.

use crate::node::Node;

impl Node {
    /// A leaf a worker could claim now (see the module documentation).
    #[must_use]
    pub fn is_claimable(&self, now_ms: i64) -> bool {
        self.is_open() && !self.expanded && !self.is_leased(now_ms)
    }

    /// Under a lease that has not expired.
    #[must_use]
    pub fn is_leased(&self, now_ms: i64) -> bool {
        self.claimed_by.is_some() && self.lease_until.is_some_and(|t| t > now_ms)
    }
}

/// SQL: the node is an open leaf (claimable but for leases).
pub(crate) const OPEN_LEAF_SQL: &str = "expanded = 0 AND proof <> 0 AND disproof <> 0";

/// SQL: the node is under a lease valid at the parameter `now`.
#[must_use]
pub(crate) fn leased_sql(now: &str) -> String {
    format!("claimed_by IS NOT NULL AND lease_until > {now}")
}

/// SQL: the node is claimable at the parameter `now` ([`Node::is_claimable`]).
#[must_use]
pub(crate) fn claimable_sql(now: &str) -> String {
    format!(
        "{OPEN_LEAF_SQL} AND (claimed_by IS NULL OR lease_until IS NULL OR lease_until <= {now})"
    )
}
