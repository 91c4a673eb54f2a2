//! The checks a baked file's tables pass before [`super::ThrongFile`] hands them out: every
//! count, range, index, string and float, one function per table or concern. Each returns the
//! first problem found as a [`FormatError`] (through the reader's `bad`, which names the file);
//! the reader calls them in a fixed order, so a file with several faults always reports the
//! same one.

use super::error::FormatError;
use super::metadata::Metadata;
use super::records::{
    AnimExtRecord, AnimRecord, BoundsRecord, CharacterRecord, EventRecord, ImageRecord, InfoRecord,
    JointRecord, MAX_JOINTS, MeshRecord, MotionRecord, NONE, ParamRecord, StrRef,
    TEXELS_PER_MATRIX, TexelFormat, VertexRecord, anim_flags, anim_kind, ext_flags, mesh_flags,
};
use super::texels::Texels;

/// Builds the error for a problem described in words (the reader's, naming the file).
pub(super) type Bad<'a> = &'a dyn Fn(String) -> FormatError;

/// `first..first + count` if it lies within `0..len`.
fn range(first: u64, count: u64, len: usize) -> Option<std::ops::Range<usize>> {
    let end = first.checked_add(count)?;
    (end <= len as u64).then_some(first as usize..end as usize)
}

fn finite(xs: &[f32]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// Every table of a file, as read (the small ones copied out, the large ones in place).
pub(super) struct Tables<'a> {
    /// The scene summary.
    pub info: &'a InfoRecord,
    /// The `STRS` bytes.
    pub strings: &'a [u8],
    pub characters: &'a [CharacterRecord],
    pub joints: &'a [JointRecord],
    pub anims: &'a [AnimRecord],
    pub events: &'a [EventRecord],
    pub motion: &'a [MotionRecord],
    pub bounds: &'a [BoundsRecord],
    pub meshes: &'a [MeshRecord],
    pub images: &'a [ImageRecord],
    pub vertices: &'a [VertexRecord],
    pub indices: &'a [u32],
    pub texels: Texels<'a>,
}

impl Tables<'_> {
    /// Checks that `r` lies in the string table and is UTF-8; `what` names its owner.
    fn string(&self, r: StrRef, what: &dyn Fn() -> String, bad: Bad) -> Result<(), FormatError> {
        let bytes = range(r.offset.into(), r.len.into(), self.strings.len())
            .and_then(|rg| self.strings.get(rg))
            .ok_or_else(|| {
                bad(format!(
                    "{}: string at {}+{} lies outside the string table ({} bytes)",
                    what(),
                    r.offset,
                    r.len,
                    self.strings.len()
                ))
            })?;
        std::str::from_utf8(bytes)
            .map(|_| ())
            .map_err(|_| bad(format!("{}: name is not valid UTF-8", what())))
    }
}

/// The texel count in `INFO` matches the `TEXL` section's `bytes`.
pub(super) fn texel_count(
    info: &InfoRecord,
    format: TexelFormat,
    bytes: usize,
    bad: Bad,
) -> Result<(), FormatError> {
    let texel_len = usize::try_from(info.texel_count)
        .ok()
        .and_then(|n| n.checked_mul(format.texel_size()));
    if texel_len != Some(bytes) {
        return Err(bad(format!(
            "INFO says {} {} texels, but section 'TEXL' is {} bytes",
            info.texel_count,
            format.name(),
            bytes
        )));
    }
    Ok(())
}

/// Every texel value is finite.
pub(super) fn texel_values(texels: Texels, bad: Bad) -> Result<(), FormatError> {
    let bad_texel = match texels {
        Texels::F32(t) => t.iter().position(|t| !finite(t)),
        // binary16 is infinite or NaN when all five exponent bits are set.
        Texels::F16(t) => t
            .iter()
            .position(|t| t.iter().any(|b| b & 0x7c00 == 0x7c00)),
    };
    match bad_texel {
        Some(i) => Err(bad(format!(
            "texel {i} holds a value that is not finite (NaN or infinity)"
        ))),
        None => Ok(()),
    }
}

/// Where the next character's joints, animations, meshes and the next animation's events
/// must start: characters own contiguous, ordered ranges.
#[derive(Default)]
struct Cursor {
    joint: u64,
    anim: u64,
    mesh: u64,
    event: u64,
}

/// Every character with its joints, animations (and their events) and meshes; then that the
/// characters cover the tables exactly and `INFO`'s largest skeleton is right.
pub(super) fn characters(t: &Tables, bad: Bad) -> Result<(), FormatError> {
    let mut next = Cursor::default();
    let mut max_joints = 0;
    for (ci, ch) in t.characters.iter().enumerate() {
        character(t, ci, ch, &mut next, bad)?;
        max_joints = max_joints.max(ch.joint_count);
        joints(t, ci, ch, bad)?;
        for local in 0..ch.anim_count {
            anim(t, ci, ch, ch.first_anim + local, &mut next.event, bad)?;
        }
        meshes(t, ci, ch, bad)?;
    }
    if next.joint != t.joints.len() as u64
        || next.anim != t.anims.len() as u64
        || next.mesh != t.meshes.len() as u64
    {
        return Err(bad(format!(
            "the characters cover {} joints, {} animations and {} meshes, but the tables hold {}, {} and {}",
            next.joint,
            next.anim,
            next.mesh,
            t.joints.len(),
            t.anims.len(),
            t.meshes.len()
        )));
    }
    if next.event != t.events.len() as u64 {
        return Err(bad(format!(
            "the animations cover {} events, but 'EVNT' holds {}",
            next.event,
            t.events.len()
        )));
    }
    if t.info.max_joints != max_joints {
        return Err(bad(format!(
            "INFO says the largest skeleton has {} joints; the characters say {max_joints}",
            t.info.max_joints
        )));
    }
    Ok(())
}

/// Character `ci`'s own fields, and that its ranges follow the previous character's (`next`,
/// advanced past them) and lie within the tables.
fn character(
    t: &Tables,
    ci: usize,
    ch: &CharacterRecord,
    next: &mut Cursor,
    bad: Bad,
) -> Result<(), FormatError> {
    t.string(ch.name, &|| format!("character {ci}"), bad)?;
    if ch.joint_count == 0 || ch.joint_count > MAX_JOINTS {
        return Err(bad(format!(
            "character {ci}: {} joints (1 to {MAX_JOINTS} are allowed)",
            ch.joint_count
        )));
    }
    let mesh_count = u64::from(ch.part_count) * u64::from(ch.lod_count);
    if u64::from(ch.first_joint) != next.joint
        || u64::from(ch.first_anim) != next.anim
        || u64::from(ch.first_mesh) != next.mesh
    {
        return Err(bad(format!(
            "character {ci}: its joints, animations or meshes do not follow the previous character's"
        )));
    }
    next.joint = next.joint.saturating_add(ch.joint_count.into());
    next.anim = next.anim.saturating_add(ch.anim_count.into());
    next.mesh = next.mesh.saturating_add(mesh_count);
    if next.joint > t.joints.len() as u64
        || next.anim > t.anims.len() as u64
        || next.mesh > t.meshes.len() as u64
    {
        return Err(bad(format!(
            "character {ci}: {} joints, {} animations and {} meshes from {}, {} and {} run past the tables ({} joints, {} animations, {} meshes)",
            ch.joint_count,
            ch.anim_count,
            mesh_count,
            ch.first_joint,
            ch.first_anim,
            ch.first_mesh,
            t.joints.len(),
            t.anims.len(),
            t.meshes.len()
        )));
    }
    if ch.part_count > 0 && ch.lod_count == 0 {
        return Err(bad(format!(
            "character {ci}: {} mesh parts but no LOD levels",
            ch.part_count
        )));
    }
    if !(ch.height.is_finite() && ch.height > 0.0) {
        return Err(bad(format!(
            "character {ci}: height {} is not a positive number",
            ch.height
        )));
    }
    Ok(())
}

/// Character `ci`'s joints (whose range [`character`] checked): names, parents first, finite
/// inverse binds.
fn joints(t: &Tables, ci: usize, ch: &CharacterRecord, bad: Bad) -> Result<(), FormatError> {
    for local in 0..ch.joint_count {
        let j = &t.joints[(ch.first_joint + local) as usize];
        let what = || format!("character {ci}, joint {local}");
        t.string(j.name, &what, bad)?;
        if j.parent < -1 || (j.parent >= 0 && j.parent as u32 >= local) {
            return Err(bad(format!(
                "{}: parent {} is not an earlier joint (joints are stored parents first)",
                what(),
                j.parent
            )));
        }
        if !finite(&j.inverse_bind) {
            return Err(bad(format!(
                "{}: inverse bind matrix is not finite",
                what()
            )));
        }
    }
    Ok(())
}

/// Animation `ai` of character `ci` (whose range [`character`] checked): its fields, the
/// texels, bounds and root motion it points at, and its events, which must start at
/// `next_event` (advanced past them).
fn anim(
    t: &Tables,
    ci: usize,
    ch: &CharacterRecord,
    ai: u32,
    next_event: &mut u64,
    bad: Bad,
) -> Result<(), FormatError> {
    let a = &t.anims[ai as usize];
    let what = || format!("animation {ai}");
    t.string(a.name, &what, bad)?;
    t.string(a.param, &what, bad)?;
    anim_fields(ci, ai, a, bad)?;
    anim_frames(t, ch, ai, a, bad)?;
    anim_events(t, ai, a, next_event, bad)
}

/// Animation `ai`'s owner, kind, flags, frame count and numbers.
fn anim_fields(ci: usize, ai: u32, a: &AnimRecord, bad: Bad) -> Result<(), FormatError> {
    if a.character as usize != ci {
        return Err(bad(format!(
            "animation {ai}: belongs to character {}, but lies in character {ci}'s range",
            a.character
        )));
    }
    if a.kind != anim_kind::CLIP && a.kind != anim_kind::STATE {
        return Err(bad(format!("animation {ai}: unknown kind {}", a.kind)));
    }
    if a.flags & !(anim_flags::LOOPING | anim_flags::ROOT_MOTION) != 0 {
        return Err(bad(format!("animation {ai}: unknown flags {:#x}", a.flags)));
    }
    if a.frame_count == 0 {
        return Err(bad(format!("animation {ai}: no frames")));
    }
    let numbers = [
        a.duration,
        a.fps,
        a.param_value,
        a.interpolation_error,
        a.precision_error,
    ];
    if !finite(&numbers)
        || !finite(&a.cycle_motion)
        || a.duration < 0.0
        || a.fps < 0.0
        || a.interpolation_error < 0.0
        || a.precision_error < 0.0
    {
        return Err(bad(format!(
            "animation {ai}: duration, rate, parameter, errors and motion must be finite (and not negative)"
        )));
    }
    Ok(())
}

/// Animation `ai`'s per-frame data: texels (starting at a whole matrix), bounds and, if it
/// has root motion, motion frames, all within their tables.
fn anim_frames(
    t: &Tables,
    ch: &CharacterRecord,
    ai: u32,
    a: &AnimRecord,
    bad: Bad,
) -> Result<(), FormatError> {
    let texels_needed =
        u64::from(a.frame_count) * u64::from(ch.joint_count) * u64::from(TEXELS_PER_MATRIX);
    if range(a.first_texel, texels_needed, t.texels.len()).is_none() {
        return Err(bad(format!(
            "animation {ai}: {} frames of {} joints from texel {} run past the {} texels",
            a.frame_count,
            ch.joint_count,
            a.first_texel,
            t.texels.len()
        )));
    }
    // Matrices are addressed by matrix index on the GPU (texel / TEXELS_PER_MATRIX): an
    // animation starting mid-matrix would be drawn from the wrong rows.
    if !a.first_texel.is_multiple_of(u64::from(TEXELS_PER_MATRIX)) {
        return Err(bad(format!(
            "animation {ai}: starts at texel {}, not at a whole matrix (a multiple of {TEXELS_PER_MATRIX})",
            a.first_texel
        )));
    }
    if range(a.first_bounds.into(), a.frame_count.into(), t.bounds.len()).is_none() {
        return Err(bad(format!(
            "animation {ai}: bounds of {} frames from {} run past the {} in 'BNDS'",
            a.frame_count,
            a.first_bounds,
            t.bounds.len()
        )));
    }
    if a.flags & anim_flags::ROOT_MOTION != 0
        && range(a.first_motion.into(), a.frame_count.into(), t.motion.len()).is_none()
    {
        return Err(bad(format!(
            "animation {ai}: root motion of {} frames from {} runs past the {} in 'MOTN'",
            a.frame_count,
            a.first_motion,
            t.motion.len()
        )));
    }
    Ok(())
}

/// Animation `ai`'s events: within 'EVNT', right after the previous animation's
/// (`next_event`, advanced past them), each named, its own, and within the animation.
fn anim_events(
    t: &Tables,
    ai: u32,
    a: &AnimRecord,
    next_event: &mut u64,
    bad: Bad,
) -> Result<(), FormatError> {
    let Some(evs) = range(a.first_event.into(), a.event_count.into(), t.events.len()) else {
        return Err(bad(format!(
            "animation {ai}: {} events from {} run past the {} in 'EVNT'",
            a.event_count,
            a.first_event,
            t.events.len()
        )));
    };
    if u64::from(a.first_event) != *next_event {
        return Err(bad(format!(
            "animation {ai}: its events start at {}, not right after the previous animation's ({next_event})",
            a.first_event
        )));
    }
    *next_event += u64::from(a.event_count);
    for (k, e) in t.events[evs].iter().enumerate() {
        let what = || format!("animation {ai}, event {k}");
        t.string(e.name, &what, bad)?;
        if e.anim != ai || !(e.time >= 0.0 && e.time <= a.duration) {
            return Err(bad(format!(
                "{}: belongs to animation {} at {} s (must be this one, within 0..{} s)",
                what(),
                e.anim,
                e.time,
                a.duration
            )));
        }
    }
    Ok(())
}

/// Character `ci`'s meshes (whose range [`character`] checked), LOD-major: each record, then
/// its vertices and indices.
fn meshes(t: &Tables, ci: usize, ch: &CharacterRecord, bad: Bad) -> Result<(), FormatError> {
    let mesh_count = u64::from(ch.part_count) * u64::from(ch.lod_count);
    for k in 0..mesh_count {
        let mi = u64::from(ch.first_mesh) + k;
        let m = &t.meshes[mi as usize];
        t.string(m.name, &|| format!("mesh {mi}"), bad)?;
        let (lod, part) = (k / u64::from(ch.part_count), k % u64::from(ch.part_count));
        if m.character as usize != ci || u64::from(m.lod) != lod || u64::from(m.part) != part {
            return Err(bad(format!(
                "mesh {mi}: says character {}, part {}, LOD {}; its place says character {ci}, part {part}, LOD {lod}",
                m.character, m.part, m.lod
            )));
        }
        mesh_fields(t, mi, m, bad)?;
        mesh_data(t, ch, mi, m, bad)?;
    }
    Ok(())
}

/// Mesh `mi`'s flags, numbers and image.
fn mesh_fields(t: &Tables, mi: u64, m: &MeshRecord, bad: Bad) -> Result<(), FormatError> {
    if m.flags & !mesh_flags::RIGID != 0 {
        return Err(bad(format!("mesh {mi}: unknown flags {:#x}", m.flags)));
    }
    let ratio_ok = m.ratio > 0.0 && m.ratio <= 1.0;
    let error_ok = m.error.is_finite() && m.error >= 0.0;
    if !ratio_ok || !error_ok || !finite(&m.base_color) {
        return Err(bad(format!(
            "mesh {mi}: ratio {} must be in (0, 1], error {} finite and >= 0, base colour finite",
            m.ratio, m.error
        )));
    }
    if m.image != NONE && m.image as usize >= t.images.len() {
        return Err(bad(format!(
            "mesh {mi}: image {} does not exist ({} images)",
            m.image,
            t.images.len()
        )));
    }
    Ok(())
}

/// Mesh `mi`'s vertices and indices: within their sections, whole triangles, indices within
/// its vertices, finite values, joints within its character's skeleton.
fn mesh_data(
    t: &Tables,
    ch: &CharacterRecord,
    mi: u64,
    m: &MeshRecord,
    bad: Bad,
) -> Result<(), FormatError> {
    let Some(vs) = range(
        m.first_vertex.into(),
        m.vertex_count.into(),
        t.vertices.len(),
    ) else {
        return Err(bad(format!(
            "mesh {mi}: {} vertices from {} run past the {} in 'VERT'",
            m.vertex_count,
            m.first_vertex,
            t.vertices.len()
        )));
    };
    let Some(is) = range(m.first_index.into(), m.index_count.into(), t.indices.len()) else {
        return Err(bad(format!(
            "mesh {mi}: {} indices from {} run past the {} in 'INDX'",
            m.index_count,
            m.first_index,
            t.indices.len()
        )));
    };
    if !m.index_count.is_multiple_of(3) {
        return Err(bad(format!(
            "mesh {mi}: {} indices is not whole triangles",
            m.index_count
        )));
    }
    if let Some(i) = t.indices[is].iter().find(|i| **i >= m.vertex_count) {
        return Err(bad(format!(
            "mesh {mi}: index {i} is past its {} vertices",
            m.vertex_count
        )));
    }
    for (k, v) in t.vertices[vs].iter().enumerate() {
        if !finite(&v.position) || !finite(&v.normal) || !finite(&v.uv) || !finite(&v.weights) {
            return Err(bad(format!("mesh {mi}, vertex {k}: a value is not finite")));
        }
        if let Some(j) = v.joints.iter().find(|j| u32::from(**j) >= ch.joint_count) {
            return Err(bad(format!(
                "mesh {mi}, vertex {k}: joint {j} does not exist ({} joints)",
                ch.joint_count
            )));
        }
    }
    Ok(())
}

/// Every bounds frame is finite with min at most max.
pub(super) fn bounds(bounds: &[BoundsRecord], bad: Bad) -> Result<(), FormatError> {
    for (bi, b) in bounds.iter().enumerate() {
        if !finite(&b.min) || !finite(&b.max) || (0..3).any(|k| b.min[k] > b.max[k]) {
            return Err(bad(format!("bounds {bi}: not finite, or min above max")));
        }
    }
    Ok(())
}

/// Every root-motion frame is finite.
pub(super) fn motion(motion: &[MotionRecord], bad: Bad) -> Result<(), FormatError> {
    match motion.iter().position(|m| !finite(&[m.x, m.z, m.yaw])) {
        Some(i) => Err(bad(format!("root motion {i}: not finite"))),
        None => Ok(()),
    }
}

/// Every image has pixels and they lie within `pixels` (the `PIXL` bytes).
pub(super) fn images(images: &[ImageRecord], pixels: &[u8], bad: Bad) -> Result<(), FormatError> {
    for (ii, im) in images.iter().enumerate() {
        let size = u64::from(im.width) * u64::from(im.height) * 4;
        if im.width == 0 || im.height == 0 || range(im.offset, size, pixels.len()).is_none() {
            return Err(bad(format!(
                "image {ii}: {}x{} pixels from byte {} do not fit the {} bytes of 'PIXL'",
                im.width,
                im.height,
                im.offset,
                pixels.len()
            )));
        }
    }
    Ok(())
}

/// The `META` section's bytes as bake metadata: a JSON object with every field, no object in
/// it naming a key twice (a reader could not tell which of two values is meant).
pub(super) fn metadata(meta: &[u8], bad: Bad) -> Result<Metadata, FormatError> {
    serde_json::from_slice::<super::metadata::UniqueKeys>(meta)
        .map_err(|e| format!("not JSON with unique keys: {e}"))
        .and_then(|v| {
            if v.0.is_object() {
                serde_json::from_value(v.0).map_err(|e| e.to_string())
            } else {
                Err("not a JSON object".to_string())
            }
        })
        .map_err(|e| bad(format!("section 'META' is not valid bake metadata: {e}")))
}

/// The format 1.1 tables of a file, as read.
pub(super) struct Ext<'a> {
    /// glTF node per joint.
    pub joint_nodes: &'a [u32],
    /// One per animation.
    pub anim_ext: &'a [AnimExtRecord],
    /// glTF animation indices of clips.
    pub sources: &'a [u32],
    /// Parameter values of states.
    pub params: &'a [ParamRecord],
}

/// The format 1.1 tables against the 1.0 ones (`t`): one node per joint, one record per
/// animation whose flags, speeds and kind-specific fields are valid, and source and parameter
/// ranges that follow each other in animation order and cover their tables exactly.
pub(super) fn ext(t: &Tables, x: &Ext, bad: Bad) -> Result<(), FormatError> {
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
        anim_ext(ai, a, e, bad)?;
        if u64::from(e.first_source) != next_source || u64::from(e.first_param) != next_param {
            return Err(bad(format!(
                "animation {ai}: its sources start at {} and parameters at {}, not right after the previous animation's ({next_source} and {next_param})",
                e.first_source, e.first_param
            )));
        }
        next_source += u64::from(e.source_count);
        next_param += u64::from(e.param_count);
        let Some(ps) = range(e.first_param.into(), e.param_count.into(), x.params.len()) else {
            return Err(bad(format!(
                "animation {ai}: {} parameters from {} run past the {} in 'APRM'",
                e.param_count,
                e.first_param,
                x.params.len()
            )));
        };
        for (k, p) in x.params[ps].iter().enumerate() {
            t.string(p.name, &|| format!("animation {ai}, parameter {k}"), bad)?;
            if !p.value.is_finite() {
                return Err(bad(format!(
                    "animation {ai}, parameter {k}: value {} is not finite",
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
    Ok(())
}

/// Animation `ai`'s format 1.1 record `e`: known flags, speeds finite and >= 0 when present,
/// no state or parameters for a clip, no glTF sources for a state.
fn anim_ext(ai: usize, a: &AnimRecord, e: &AnimExtRecord, bad: Bad) -> Result<(), FormatError> {
    if e.flags & !ext_flags::ALL != 0 {
        return Err(bad(format!(
            "animation {ai}: unknown 1.1 flags {:#x}",
            e.flags
        )));
    }
    if e.flags & ext_flags::FEET_LOCKED != 0 && e.flags & ext_flags::GROUND_SPEED == 0 {
        return Err(bad(format!(
            "animation {ai}: feet locked without a ground speed to lock them to"
        )));
    }
    let ok = |bit: u32, v: f32| e.flags & bit == 0 || (v.is_finite() && v >= 0.0);
    if !ok(ext_flags::GROUND_SPEED, e.ground_speed) || !ok(ext_flags::FOOT_SLIDE, e.foot_slide) {
        return Err(bad(format!(
            "animation {ai}: ground speed {} and foot slide {} must be finite and >= 0 when present",
            e.ground_speed, e.foot_slide
        )));
    }
    let clip = a.kind == anim_kind::CLIP;
    if clip && (e.state != NONE || e.param_count != 0) || !clip && e.source_count != 0 {
        return Err(bad(format!(
            "animation {ai}: a {} cannot have {}",
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
