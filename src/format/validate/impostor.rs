//! The checks of the format 1.4 tables (docs/FORMAT.md, reading rules 44-47): each
//! character's impostor atlas (`IMPO`) and each animation's impostor frames (`IMPA`), against
//! the characters, animations and the size of the impostor pixels (`IMPX`). The pixels
//! themselves are not checked: any byte is a colour. Run by `ext::check`, for files of minor
//! version 4 or later.

use super::{Bad, Tables};
use crate::format::error::FormatError;
use crate::format::impostor::frame_bytes;
use crate::format::records::{ImpostorAnimRecord, ImpostorRecord, anim_flags};

/// Most views along a side of the grid.
const MAX_VIEWS: u32 = 33;
/// Largest view square, pixels.
const MAX_CELL: u32 = 256;
/// Largest atlas side (`views × cell`), pixels.
const MAX_SIDE: u64 = 16_384;

/// The format 1.4 tables of a file, as read or about to be written.
#[derive(Default)]
pub(in crate::format) struct ImpostorTables {
    /// One per character.
    pub records: Vec<ImpostorRecord>,
    /// One per animation.
    pub anims: Vec<ImpostorAnimRecord>,
    /// Size of `IMPX`, bytes.
    pub pixels: u64,
}

/// The format 1.4 tables `x` against the characters and animations of `t` (rules 44-47).
pub(super) fn check(t: &Tables, x: &ImpostorTables, bad: Bad) -> Result<(), FormatError> {
    // Rule 44.
    if x.records.len() != t.characters.len() || x.anims.len() != t.anims.len() {
        return Err(bad(format!(
            "'IMPO' holds {} impostor records and 'IMPA' {} animation records, but the file has {} characters and {} animations",
            x.records.len(),
            x.anims.len(),
            t.characters.len(),
            t.anims.len()
        )));
    }
    for (ci, (ch, r)) in t.characters.iter().zip(&x.records).enumerate() {
        let label = t.character_label(ci);
        record(&label, r, ch.lod_count, x.pixels, bad)?;
        // Rules 1-8 held: the character's animations lie in `ANIM`.
        let first = ch.first_anim as usize;
        let anims = t.anims.get(first..).unwrap_or(&[]).iter();
        for (k, (a, ia)) in anims
            .zip(x.anims.get(first..).unwrap_or(&[]))
            .take(ch.anim_count as usize)
            .enumerate()
        {
            let label = t.anim_label(first + k);
            if r.views == 0 {
                if ia.first_frame != 0 || ia.frame_count != 0 {
                    return Err(bad(format!(
                        "{label}: impostor frames {}+{}, but its character has no impostors (views 0)",
                        ia.first_frame, ia.frame_count
                    )));
                }
                continue;
            }
            // Rule 46.
            let looping = a.flags & anim_flags::LOOPING != 0;
            let least = if looping { 1 } else { 2 };
            if ia.frame_count < least {
                return Err(bad(format!(
                    "{label}: {} impostor frames, a {} animation needs at least {least}",
                    ia.frame_count,
                    if looping { "looping" } else { "clamped" }
                )));
            }
            if u64::from(ia.first_frame) + u64::from(ia.frame_count) > u64::from(r.frame_count) {
                return Err(bad(format!(
                    "{label}: impostor frames {}+{} run past its character's {}",
                    ia.first_frame, ia.frame_count, r.frame_count
                )));
            }
        }
    }
    Ok(())
}

/// One character's record `r` (`label` in messages; `lods` its LOD levels, `pixels` the size
/// of `IMPX`): rules 45 and 47.
fn record(
    label: &str,
    r: &ImpostorRecord,
    lods: u32,
    pixels: u64,
    bad: Bad,
) -> Result<(), FormatError> {
    if r.views == 0 {
        if r.cell != 0 || r.frame_count != 0 || r.level != 0 || r.first_pixel != 0 {
            return Err(bad(format!(
                "{label}: no impostors (views 0), but cell {}, {} frames, LOD {} and first pixel {}",
                r.cell, r.frame_count, r.level, r.first_pixel
            )));
        }
    } else if r.views.is_multiple_of(2) || !(3..=MAX_VIEWS).contains(&r.views) {
        return Err(bad(format!(
            "{label}: {} impostor views per side, expected an odd number from 3 to {MAX_VIEWS}",
            r.views
        )));
    } else if !(1..=MAX_CELL).contains(&r.cell) {
        return Err(bad(format!(
            "{label}: impostor cells of {} pixels, expected 1 to {MAX_CELL}",
            r.cell
        )));
    } else if u64::from(r.views) * u64::from(r.cell) > MAX_SIDE {
        return Err(bad(format!(
            "{label}: impostor atlas of {} views × {} pixels is {} pixels wide, more than {MAX_SIDE}",
            r.views,
            r.cell,
            u64::from(r.views) * u64::from(r.cell)
        )));
    } else if !(r.centre.iter().all(|v| v.is_finite()) && r.radius.is_finite() && r.radius > 0.0) {
        return Err(bad(format!(
            "{label}: impostor centre {:?} and radius {} must be finite, the radius > 0",
            r.centre, r.radius
        )));
    } else if r.frame_count == 0 {
        return Err(bad(format!("{label}: impostors with 0 frames")));
    } else if r.level >= lods {
        return Err(bad(format!(
            "{label}: impostors drawn from LOD {}, but it has {lods} LOD levels",
            r.level
        )));
    }
    if r.reserved != [0; 2] {
        return Err(bad(format!(
            "{label}: impostor reserved fields {:?} are not zero",
            r.reserved
        )));
    }
    if r.views == 0 {
        return Ok(());
    }
    // Rule 47.
    if !r.first_pixel.is_multiple_of(4) {
        return Err(bad(format!(
            "{label}: impostor pixels start at byte {}, not a multiple of 4",
            r.first_pixel
        )));
    }
    let end = u64::from(r.frame_count)
        .checked_mul(frame_bytes(r.views, r.cell))
        .and_then(|n| n.checked_add(r.first_pixel));
    if end.is_none_or(|e| e > pixels) {
        return Err(bad(format!(
            "{label}: {} impostor frames of {} bytes from byte {} run past the {pixels} bytes of 'IMPX'",
            r.frame_count,
            frame_bytes(r.views, r.cell),
            r.first_pixel
        )));
    }
    Ok(())
}
