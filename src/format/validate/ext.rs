//! The checks of the format 1.1 tables (docs/FORMAT.md, reading rules 35-39): each joint's
//! glTF node and each animation's ground speed, foot slide, sources and parameter values,
//! against the 1.0 tables they extend; and of the format 1.2 table (rules 40-41): each
//! character's facing turn; and of the format 1.3 table (rules 42-43): the joint each joint is
//! drawn with at each LOD level; then the format 1.4 tables (`super::impostor`, rules 44-47).
//! Run last by [`super::all`], for files of minor version 1 or later.

use super::{Bad, ImpostorTables, Tables, range};
use crate::format::error::FormatError;
use crate::format::records::{
    AnimExtRecord, AnimRecord, CharExtRecord, MAX_FACING_TURNS, NONE, ParamRecord, anim_kind,
    ext_flags,
};

/// The format 1.1 tables of a file, as read or about to be written.
pub(in crate::format) struct Ext<'a> {
    /// glTF node per joint.
    pub joint_nodes: &'a [u32],
    /// One per animation.
    pub anim_ext: &'a [AnimExtRecord],
    /// glTF animation indices of clips.
    pub sources: &'a [u32],
    /// Parameter values of states.
    pub params: &'a [ParamRecord],
    /// Format 1.2: one per character; `None` in a file of minor version 1.
    pub char_ext: Option<&'a [CharExtRecord]>,
    /// Format 1.3: per character, per LOD level, per joint, the joint it is drawn with;
    /// `None` in a file of minor version 1 or 2.
    pub joint_lod: Option<&'a [u32]>,
    /// Format 1.4: the impostor tables; `None` in a file of minor version 1 to 3.
    pub impostors: Option<&'a ImpostorTables>,
}

/// The format 1.1 tables against the 1.0 ones (`t`): one node per joint, one record per
/// animation whose flags, speeds and kind-specific fields are valid, and source and parameter
/// ranges that follow each other in animation order and cover their tables exactly.
pub(super) fn check(t: &Tables, x: &Ext, bad: Bad) -> Result<(), FormatError> {
    if x.joint_nodes.len() != t.joints.len() || x.anim_ext.len() != t.anims.len() {
        return Err(bad(format!(
            "'JNOD' holds {} joint nodes and 'AEXT' {} animation records, but the file has {} joints and {} animations",
            x.joint_nodes.len(),
            x.anim_ext.len(),
            t.joints.len(),
            t.anims.len()
        )));
    }
    let (mut next_source, mut next_param) = (0u64, 0u64);
    for (ai, (a, e)) in t.anims.iter().zip(x.anim_ext).enumerate() {
        let label = t.anim_label(ai);
        anim_ext(&label, a, e, bad)?;
        if u64::from(e.first_source) != next_source || u64::from(e.first_param) != next_param {
            return Err(bad(format!(
                "{label}: its sources start at {} and parameters at {}, not right after the previous animation's ({next_source} and {next_param})",
                e.first_source, e.first_param
            )));
        }
        next_source += u64::from(e.source_count);
        next_param += u64::from(e.param_count);
        let Some(ps) = range(e.first_param.into(), e.param_count.into(), x.params.len()) else {
            return Err(bad(format!(
                "{label}: {} parameters from {} run past the {} in 'APRM'",
                e.param_count,
                e.first_param,
                x.params.len()
            )));
        };
        for (k, p) in x.params[ps].iter().enumerate() {
            t.string(p.name, &|| format!("{label}, parameter {k}"), bad)?;
            if !p.value.is_finite() {
                return Err(bad(format!(
                    "{label}, parameter {k}: value {} is not finite",
                    p.value
                )));
            }
        }
    }
    if next_source != x.sources.len() as u64 || next_param != x.params.len() as u64 {
        return Err(bad(format!(
            "the animations cover {next_source} glTF animation indices and {next_param} parameters, but 'AGLT' holds {} and 'APRM' {}",
            x.sources.len(),
            x.params.len()
        )));
    }
    if let Some(c) = x.char_ext {
        char_ext(t, c, bad)?;
    }
    if let Some(l) = x.joint_lod {
        joint_lod(t, l, bad)?;
    }
    match x.impostors {
        Some(i) => super::impostor::check(t, i, bad),
        None => Ok(()),
    }
}

/// The format 1.3 table `l` against the characters and joints of `t` (rules 42-43): as many
/// entries as the characters' LOD levels times their joints, each joint drawn with itself or
/// with what its parent is drawn with, so each names the joint or its nearest kept ancestor
/// (a root is always kept). One pass in parents-first order: linear even for a hostile chain.
fn joint_lod(t: &Tables, l: &[u32], bad: Bad) -> Result<(), FormatError> {
    let want: u64 = t
        .characters
        .iter()
        .map(|c| u64::from(c.lod_count) * u64::from(c.joint_count))
        .sum();
    if l.len() as u64 != want {
        return Err(bad(format!(
            "'JLOD' holds {} entries, but the characters' LOD levels times their joints are {want}",
            l.len()
        )));
    }
    let mut at = 0usize;
    for (ci, ch) in t.characters.iter().enumerate() {
        let n = ch.joint_count as usize;
        // Rules 9 and 12 held: the character's joints lie in `JOIN`, parents first.
        let joints = t.joints.get(ch.first_joint as usize..).unwrap_or(&[]);
        for lod in 0..ch.lod_count as usize {
            let map = l.get(at..at + n).unwrap_or(&[]);
            at += n;
            for (j, &m) in map.iter().enumerate() {
                let parent = joints
                    .get(j)
                    .and_then(|jr| usize::try_from(jr.parent).ok())
                    .filter(|p| *p < j);
                let parents_is = parent.and_then(|p| map.get(p)).copied();
                if m as usize != j && Some(m) != parents_is {
                    return Err(bad(format!(
                        "{}: LOD {lod} draws joint {j} with joint {m}, neither itself nor what its parent is drawn with ({})",
                        t.character_label(ci),
                        parents_is.map_or_else(|| "it has none".to_string(), |p| p.to_string())
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The format 1.2 table `c` against the characters of `t` (rules 40-41): one record per
/// character, each facing turn 0 to 3.
fn char_ext(t: &Tables, c: &[CharExtRecord], bad: Bad) -> Result<(), FormatError> {
    if c.len() != t.characters.len() {
        return Err(bad(format!(
            "'CEXT' holds {} character records, but the file has {} characters",
            c.len(),
            t.characters.len()
        )));
    }
    for (ci, e) in c.iter().enumerate() {
        if e.facing_turns > MAX_FACING_TURNS {
            return Err(bad(format!(
                "{}: facing turn of {} quarter turns, expected 0 to {MAX_FACING_TURNS}",
                t.character_label(ci),
                e.facing_turns
            )));
        }
    }
    Ok(())
}

/// An animation's format 1.1 record `e` (`label` in messages): known flags (FEET_LOCKED only
/// with GROUND_SPEED), speeds finite and
/// >= 0 when present, no state or parameters for a clip, no glTF sources for a state.
fn anim_ext(label: &str, a: &AnimRecord, e: &AnimExtRecord, bad: Bad) -> Result<(), FormatError> {
    if e.flags & !ext_flags::ALL != 0 {
        return Err(bad(format!("{label}: unknown 1.1 flags {:#x}", e.flags)));
    }
    if e.flags & ext_flags::FEET_LOCKED != 0 && e.flags & ext_flags::GROUND_SPEED == 0 {
        return Err(bad(format!(
            "{label}: feet locked without a ground speed to lock them to"
        )));
    }
    let ok = |bit: u32, v: f32| e.flags & bit == 0 || (v.is_finite() && v >= 0.0);
    if !ok(ext_flags::GROUND_SPEED, e.ground_speed) || !ok(ext_flags::FOOT_SLIDE, e.foot_slide) {
        return Err(bad(format!(
            "{label}: ground speed {} and foot slide {} must be finite and >= 0 when present",
            e.ground_speed, e.foot_slide
        )));
    }
    let clip = a.kind == anim_kind::CLIP;
    if clip && (e.state != NONE || e.param_count != 0) || !clip && e.source_count != 0 {
        return Err(bad(format!(
            "{label}: a {} cannot have {}",
            if clip { "clip" } else { "state" },
            if clip {
                "a state or parameter values"
            } else {
                "glTF animation sources"
            }
        )));
    }
    Ok(())
}
