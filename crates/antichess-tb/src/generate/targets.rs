//! Where the moves that leave a table lead, looked up once per generation: for each side
//! to move, captured role (or none, for a promotion) and promotion, the table of the material left (exact, or in a
//! bound build the bound table for the build's colour) or the value assumed where none
//! exists.

use antichess_core::{Color, Role};

use crate::material::Material;
use crate::table::Table;
use crate::tablebase::{worst_for, Tablebase};
use crate::wdl::Wdl;
use crate::TbError;

/// Where a capture leads: the table of the material it leaves (by the side to move, the
/// captured role and the promotion role), looked up once per generation instead of once
/// per capture.
#[derive(Clone, Copy)]
pub(super) enum CaptureTarget<'a> {
    /// The capture takes the opponent's last piece: the opponent, to move, has won.
    OpponentBare,
    /// The child's table, and whether its colours are swapped.
    Table(&'a Table, bool),
    /// No table of that material: an error if a capture leads there.
    Missing(Material),
    /// No table of that material, in a bound build: this WDL for the side to move after
    /// the capture (the result worst for the colour the table is a bound for).
    Assumed(Wdl),
    /// The capture cannot happen in this table.
    Impossible,
}

/// [`CaptureTarget`]s by side to move, captured role ([`NO_CAPTURE`] for a promotion
/// that captures nothing) and promotion (0 none, else the promotion role's index + 1).
pub(super) type CaptureTargets<'a> = [[[CaptureTarget<'a>; 7]; 7]; 2];

/// The captured-role slot of [`CaptureTargets`] for a promotion without a capture.
pub(super) const NO_CAPTURE: usize = 6;

pub(super) fn capture_targets<'a>(
    material: &Material,
    children: &'a Tablebase,
    bound: Option<Color>,
) -> Result<CaptureTargets<'a>, TbError> {
    let mut targets = [[[CaptureTarget::Impossible; 7]; 7]; 2];
    for side in Color::ALL {
        let them = side.other();
        for captured in 0..=NO_CAPTURE {
            if captured != NO_CAPTURE && material.count(them, Role::ALL[captured]) == 0 {
                continue;
            }
            for promo in 0..7usize {
                let mut child = *material;
                if captured != NO_CAPTURE {
                    let role = Role::ALL[captured];
                    child.set_count(them, role, material.count(them, role) - 1);
                } else if promo == 0 {
                    continue; // neither a capture nor a promotion: the same table
                }
                if promo > 0 {
                    let role = Role::ALL[promo - 1];
                    let pawns = material.count(side, Role::Pawn);
                    if pawns == 0 || role == Role::Pawn {
                        continue;
                    }
                    child.set_count(side, Role::Pawn, pawns - 1);
                    child.set_count(side, role, child.count(side, role) + 1);
                }
                targets[side.index()][captured][promo] = if child.side_units(them) == 0 {
                    CaptureTarget::OpponentBare
                } else {
                    match (children.table_by_key(child.key())?, bound) {
                        (Some((table, swapped)), _) => CaptureTarget::Table(table, swapped),
                        (None, None) => CaptureTarget::Missing(child),
                        (None, Some(c)) => match children.bound_table_by_key(child.key(), c)? {
                            Some((table, swapped)) => CaptureTarget::Table(table, swapped),
                            None => CaptureTarget::Assumed(worst_for(c, them)),
                        },
                    }
                };
            }
        }
    }
    Ok(targets)
}
