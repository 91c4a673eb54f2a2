//! The checks a baked file's tables pass, shared by the reader and the writer: [`super::ThrongFile`]
//! runs them before handing anything out, and [`super::Builder`] runs the very same ones
//! before writing, so throng never writes a file it would refuse to read. Every count, range,
//! index, string and float is checked, one function per table or concern; [`all`] runs them
//! in a fixed order, so a file with several faults always reports the same one. Each returns
//! the first problem found as a [`FormatError`] through the caller's `bad`, which names the
//! file. Messages name a character, animation, joint or mesh by index and, once its name has
//! been checked, by name.

mod ext;
mod impostor;

pub(super) use ext::Ext;
pub(super) use impostor::ImpostorTables;

use super::error::FormatError;
use super::metadata::Metadata;
use super::records::{
    AnimRecord, BoundsRecord, CharacterRecord, EventRecord, ImageRecord, InfoRecord, JointRecord,
    MAX_JOINTS, MeshRecord, MotionRecord, NONE, StrRef, TEXELS_PER_MATRIX, TexelFormat,
    VertexRecord, anim_flags, anim_kind, mesh_flags,
};
use super::texels::Texels;

/// Builds the error for a problem described in words (the caller's, naming the file).
pub(super) type Bad<'a> = &'a dyn Fn(String) -> FormatError;

/// Longest name quoted in a message, characters: a hostile file's name may be megabytes.
const MAX_QUOTED: usize = 40;

/// `first..first + count` if it lies within `0..len`.
fn range(first: u64, count: u64, len: usize) -> Option<std::ops::Range<usize>> {
    let end = first.checked_add(count)?;
    (end <= len as u64).then_some(first as usize..end as usize)
}

fn finite(xs: &[f32]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// Every table of a file, as read (the small ones copied out, the large ones in place) or as
/// about to be written.
pub(super) struct Tables<'a> {
    /// The scene summary.
    pub info: &'a InfoRecord,
    /// The texel format `info` names.
    pub format: TexelFormat,
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
    /// The `PIXL` bytes.
    pub pixels: &'a [u8],
    /// The `META` bytes.
    pub meta: &'a [u8],
    /// The texels, in the chunks they are held in (one for a file read, one per animation
    /// for a file being built), which follow each other in `TEXL`.
    pub texels: &'a [Texels<'a>],
}

/// Runs every check in order: the texel count, the characters with their joints,
/// animations, events and meshes, the texel values, bounds, root motion, images, metadata,
/// and the format 1.1 tables when there are (`ext`; `None` for a 1.0 file). Returns the
/// metadata.
pub(super) fn all(t: &Tables, ext: Option<&Ext>, bad: Bad) -> Result<Metadata, FormatError> {
    texel_count(t, bad)?;
    characters(t, bad)?;
    texel_values(t, bad)?;
    bounds(t, bad)?;
    motion(t, bad)?;
    images(t.images, t.pixels, bad)?;
    let metadata = metadata(t.meta, bad)?;
    if let Some(x) = ext {
        ext::check(t, x, bad)?;
    }
    Ok(metadata)
}

/// `s` as a message quotes it: control characters escaped, at most [`MAX_QUOTED`] characters.
fn quoted(s: &str) -> String {
    let mut q = String::from("'");
    for (i, c) in s.chars().enumerate() {
        if i == MAX_QUOTED {
            q.push('…');
            break;
        }
        if c.is_control() {
            q.extend(c.escape_default());
        } else {
            q.push(c);
        }
    }
    q.push('\'');
    q
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

    /// The string `r`, quoted for a message ([`quoted`]); `'?'` if it is not a valid one.
    fn quote(&self, r: StrRef) -> String {
        range(r.offset.into(), r.len.into(), self.strings.len())
            .and_then(|rg| self.strings.get(rg))
            .and_then(|b| std::str::from_utf8(b).ok())
            .map_or_else(|| "'?'".to_string(), quoted)
    }

    /// Character `ci` with its name, for messages.
    fn character_label(&self, ci: usize) -> String {
        match self.characters.get(ci) {
            Some(c) => format!("character {ci} {}", self.quote(c.name)),
            None => format!("character {ci}"),
        }
    }

    /// Animation `ai` with its name and its character's, for messages.
    fn anim_label(&self, ai: usize) -> String {
        match self.anims.get(ai) {
            Some(a) => format!(
                "{}, animation {ai} {}",
                self.character_label(a.character as usize),
                self.quote(a.name)
            ),
            None => format!("animation {ai}"),
        }
    }

    /// Texels in all chunks.
    fn texel_len(&self) -> u64 {
        self.texels.iter().map(|c| c.len() as u64).sum()
    }
}

/// The texel count in `INFO` matches the texels, and their format its format.
fn texel_count(t: &Tables, bad: Bad) -> Result<(), FormatError> {
    let bytes: u64 = t.texels.iter().map(|c| c.bytes().len() as u64).sum();
    let texel_len = t.info.texel_count.checked_mul(t.format.texel_size() as u64);
    if texel_len != Some(bytes) {
        return Err(bad(format!(
            "INFO says {} {} texels, but section 'TEXL' is {} bytes",
            t.info.texel_count,
            t.format.name(),
            bytes
        )));
    }
    Ok(())
}

/// Every texel value is finite; a message names the animation of the first that is not.
fn texel_values(t: &Tables, bad: Bad) -> Result<(), FormatError> {
    let mut first = 0u64;
    let mut bad_texel = None;
    for chunk in t.texels {
        let at = match chunk {
            Texels::F32(c) => c.iter().position(|t| !finite(t)),
            // binary16 is infinite or NaN when all five exponent bits are set.
            Texels::F16(c) => c
                .iter()
                .position(|t| t.iter().any(|b| b & 0x7c00 == 0x7c00)),
        };
        if let Some(i) = at {
            bad_texel = Some(first + i as u64);
            break;
        }
        first += chunk.len() as u64;
    }
    let Some(i) = bad_texel else {
        return Ok(());
    };
    // Each animation's range was checked by `characters`, so this finds the right one.
    let owner = t.anims.iter().enumerate().find(|(_, a)| {
        let joints = t
            .characters
            .get(a.character as usize)
            .map_or(0, |c| u64::from(c.joint_count));
        let n = u64::from(a.frame_count) * joints * u64::from(TEXELS_PER_MATRIX);
        (a.first_texel..a.first_texel.saturating_add(n)).contains(&i)
    });
    let whose = owner.map_or(String::new(), |(ai, _)| format!("{}: ", t.anim_label(ai)));
    Err(bad(format!(
        "{whose}texel {i} holds a value that is not finite (NaN or infinity)"
    )))
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
fn characters(t: &Tables, bad: Bad) -> Result<(), FormatError> {
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
    let label = t.character_label(ci);
    if ch.joint_count == 0 || ch.joint_count > MAX_JOINTS {
        return Err(bad(format!(
            "{label}: {} joints (1 to {MAX_JOINTS} are allowed)",
            ch.joint_count
        )));
    }
    let mesh_count = u64::from(ch.part_count) * u64::from(ch.lod_count);
    if u64::from(ch.first_joint) != next.joint
        || u64::from(ch.first_anim) != next.anim
        || u64::from(ch.first_mesh) != next.mesh
    {
        return Err(bad(format!(
            "{label}: its joints, animations or meshes do not follow the previous character's"
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
            "{label}: {} joints, {} animations and {} meshes from {}, {} and {} run past the tables ({} joints, {} animations, {} meshes)",
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
            "{label}: {} mesh parts but no LOD levels",
            ch.part_count
        )));
    }
    if !(ch.height.is_finite() && ch.height > 0.0) {
        return Err(bad(format!(
            "{label}: height {} is not a positive number",
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
        t.string(
            j.name,
            &|| format!("{}, joint {local}", t.character_label(ci)),
            bad,
        )?;
        let what = || {
            format!(
                "{}, joint {local} {}",
                t.character_label(ci),
                t.quote(j.name)
            )
        };
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
    let what = || format!("{}, animation {ai}", t.character_label(ci));
    t.string(a.name, &what, bad)?;
    t.string(a.param, &what, bad)?;
    let label = format!(
        "{}, animation {ai} {}",
        t.character_label(ci),
        t.quote(a.name)
    );
    anim_fields(ci, &label, a, bad)?;
    anim_frames(t, ch, &label, a, bad)?;
    anim_events(t, ai, &label, a, next_event, bad)
}

/// The owner, kind, flags, frame count and numbers of an animation (`label` in messages).
fn anim_fields(ci: usize, label: &str, a: &AnimRecord, bad: Bad) -> Result<(), FormatError> {
    if a.character as usize != ci {
        return Err(bad(format!(
            "{label}: belongs to character {}, but lies in character {ci}'s range",
            a.character
        )));
    }
    if a.kind != anim_kind::CLIP && a.kind != anim_kind::STATE {
        return Err(bad(format!("{label}: unknown kind {}", a.kind)));
    }
    if a.flags & !(anim_flags::LOOPING | anim_flags::ROOT_MOTION) != 0 {
        return Err(bad(format!("{label}: unknown flags {:#x}", a.flags)));
    }
    if a.frame_count == 0 {
        return Err(bad(format!("{label}: no frames")));
    }
    // (name, value, whether it may be negative)
    let numbers = [
        ("duration", a.duration, false),
        ("rate", a.fps, false),
        ("parameter value", a.param_value, true),
        ("interpolation error", a.interpolation_error, false),
        ("precision error", a.precision_error, false),
        ("cycle motion x", a.cycle_motion[0], true),
        ("cycle motion z", a.cycle_motion[1], true),
        ("cycle motion yaw", a.cycle_motion[2], true),
    ];
    for (name, v, signed) in numbers {
        if !v.is_finite() {
            return Err(bad(format!(
                "{label}: {name} is {v}; it must be finite{}",
                if signed { "" } else { " and not negative" }
            )));
        }
        if !signed && v < 0.0 {
            return Err(bad(format!(
                "{label}: {name} is {v}; it must not be negative"
            )));
        }
    }
    Ok(())
}

/// An animation's per-frame data (`label` in messages): texels (starting at a whole matrix),
/// bounds and, if it has root motion, motion frames, all within their tables.
fn anim_frames(
    t: &Tables,
    ch: &CharacterRecord,
    label: &str,
    a: &AnimRecord,
    bad: Bad,
) -> Result<(), FormatError> {
    let texels_needed =
        u64::from(a.frame_count) * u64::from(ch.joint_count) * u64::from(TEXELS_PER_MATRIX);
    let texel_len = t.texel_len();
    if a.first_texel
        .checked_add(texels_needed)
        .is_none_or(|end| end > texel_len)
    {
        return Err(bad(format!(
            "{label}: {} frames of {} joints from texel {} run past the {texel_len} texels",
            a.frame_count, ch.joint_count, a.first_texel,
        )));
    }
    // Matrices are addressed by matrix index on the GPU (texel / TEXELS_PER_MATRIX): an
    // animation starting mid-matrix would be drawn from the wrong rows.
    if !a.first_texel.is_multiple_of(u64::from(TEXELS_PER_MATRIX)) {
        return Err(bad(format!(
            "{label}: starts at texel {}, not at a whole matrix (a multiple of {TEXELS_PER_MATRIX})",
            a.first_texel
        )));
    }
    if range(a.first_bounds.into(), a.frame_count.into(), t.bounds.len()).is_none() {
        return Err(bad(format!(
            "{label}: bounds of {} frames from {} run past the {} in 'BNDS'",
            a.frame_count,
            a.first_bounds,
            t.bounds.len()
        )));
    }
    if a.flags & anim_flags::ROOT_MOTION != 0
        && range(a.first_motion.into(), a.frame_count.into(), t.motion.len()).is_none()
    {
        return Err(bad(format!(
            "{label}: root motion of {} frames from {} runs past the {} in 'MOTN'",
            a.frame_count,
            a.first_motion,
            t.motion.len()
        )));
    }
    Ok(())
}

/// Animation `ai`'s events (`label` in messages): within 'EVNT', right after the previous
/// animation's (`next_event`, advanced past them), each named, its own, and within the
/// animation.
fn anim_events(
    t: &Tables,
    ai: u32,
    label: &str,
    a: &AnimRecord,
    next_event: &mut u64,
    bad: Bad,
) -> Result<(), FormatError> {
    let Some(evs) = range(a.first_event.into(), a.event_count.into(), t.events.len()) else {
        return Err(bad(format!(
            "{label}: {} events from {} run past the {} in 'EVNT'",
            a.event_count,
            a.first_event,
            t.events.len()
        )));
    };
    if u64::from(a.first_event) != *next_event {
        return Err(bad(format!(
            "{label}: its events start at {}, not right after the previous animation's ({next_event})",
            a.first_event
        )));
    }
    *next_event += u64::from(a.event_count);
    for (k, e) in t.events[evs].iter().enumerate() {
        let what = || format!("{label}, event {k}");
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
        t.string(
            m.name,
            &|| format!("{}, mesh {mi}", t.character_label(ci)),
            bad,
        )?;
        let label = format!("{}, mesh {mi} {}", t.character_label(ci), t.quote(m.name));
        let (lod, part) = (k / u64::from(ch.part_count), k % u64::from(ch.part_count));
        if m.character as usize != ci || u64::from(m.lod) != lod || u64::from(m.part) != part {
            return Err(bad(format!(
                "{label}: says character {}, part {}, LOD {}; its place says character {ci}, part {part}, LOD {lod}",
                m.character, m.part, m.lod
            )));
        }
        mesh_fields(t, &label, m, bad)?;
        mesh_data(t, ch, &label, m, bad)?;
    }
    Ok(())
}

/// A mesh's flags, numbers and image (`label` in messages).
fn mesh_fields(t: &Tables, label: &str, m: &MeshRecord, bad: Bad) -> Result<(), FormatError> {
    if m.flags & !mesh_flags::RIGID != 0 {
        return Err(bad(format!("{label}: unknown flags {:#x}", m.flags)));
    }
    let ratio_ok = m.ratio > 0.0 && m.ratio <= 1.0;
    let error_ok = m.error.is_finite() && m.error >= 0.0;
    if !ratio_ok || !error_ok || !finite(&m.base_color) {
        return Err(bad(format!(
            "{label}: ratio {} must be in (0, 1], error {} finite and >= 0, base colour finite",
            m.ratio, m.error
        )));
    }
    if m.image != NONE && m.image as usize >= t.images.len() {
        return Err(bad(format!(
            "{label}: image {} does not exist ({} images)",
            m.image,
            t.images.len()
        )));
    }
    Ok(())
}

/// A mesh's vertices and indices (`label` in messages): within their sections, whole
/// triangles, indices within its vertices, finite values, joints within its character's
/// skeleton.
fn mesh_data(
    t: &Tables,
    ch: &CharacterRecord,
    label: &str,
    m: &MeshRecord,
    bad: Bad,
) -> Result<(), FormatError> {
    let Some(vs) = range(
        m.first_vertex.into(),
        m.vertex_count.into(),
        t.vertices.len(),
    ) else {
        return Err(bad(format!(
            "{label}: {} vertices from {} run past the {} in 'VERT'",
            m.vertex_count,
            m.first_vertex,
            t.vertices.len()
        )));
    };
    let Some(is) = range(m.first_index.into(), m.index_count.into(), t.indices.len()) else {
        return Err(bad(format!(
            "{label}: {} indices from {} run past the {} in 'INDX'",
            m.index_count,
            m.first_index,
            t.indices.len()
        )));
    };
    // A mesh is drawn from buffers of its own, and a GPU buffer cannot be empty: a mesh of no
    // triangles would stop the renderer, so the reader refuses it (the baker never writes one).
    if m.index_count == 0 {
        return Err(bad(format!("{label}: has no triangles (0 indices)")));
    }
    if !m.index_count.is_multiple_of(3) {
        return Err(bad(format!(
            "{label}: {} indices is not whole triangles",
            m.index_count
        )));
    }
    if let Some(i) = t.indices[is].iter().find(|i| **i >= m.vertex_count) {
        return Err(bad(format!(
            "{label}: index {i} is past its {} vertices",
            m.vertex_count
        )));
    }
    for (k, v) in t.vertices[vs].iter().enumerate() {
        if !finite(&v.position) || !finite(&v.normal) || !finite(&v.uv) || !finite(&v.weights) {
            return Err(bad(format!("{label}, vertex {k}: a value is not finite")));
        }
        if let Some(j) = v.joints.iter().find(|j| u32::from(**j) >= ch.joint_count) {
            return Err(bad(format!(
                "{label}, vertex {k}: joint {j} does not exist ({} joints)",
                ch.joint_count
            )));
        }
    }
    Ok(())
}

/// `"LABEL: "` of the first animation whose records of a per-frame table (its first record
/// as `first` says; only those `has` accepts) include record `i`; empty when none does.
fn owner(
    t: &Tables,
    i: usize,
    has: impl Fn(&AnimRecord) -> bool,
    first: impl Fn(&AnimRecord) -> u32,
) -> String {
    t.anims
        .iter()
        .position(|a| {
            has(a) && {
                let start = u64::from(first(a));
                (start..start + u64::from(a.frame_count)).contains(&(i as u64))
            }
        })
        .map_or(String::new(), |ai| format!("{}: ", t.anim_label(ai)))
}

/// Every bounds frame is finite with min at most max.
fn bounds(t: &Tables, bad: Bad) -> Result<(), FormatError> {
    for (bi, b) in t.bounds.iter().enumerate() {
        if !finite(&b.min) || !finite(&b.max) || (0..3).any(|k| b.min[k] > b.max[k]) {
            return Err(bad(format!(
                "{}bounds {bi}: not finite, or min above max",
                owner(t, bi, |_| true, |a| a.first_bounds)
            )));
        }
    }
    Ok(())
}

/// Every root-motion frame is finite.
fn motion(t: &Tables, bad: Bad) -> Result<(), FormatError> {
    match t.motion.iter().position(|m| !finite(&[m.x, m.z, m.yaw])) {
        Some(i) => Err(bad(format!(
            "{}root motion {i}: not finite",
            owner(
                t,
                i,
                |a| a.flags & anim_flags::ROOT_MOTION != 0,
                |a| a.first_motion
            )
        ))),
        None => Ok(()),
    }
}

/// Every image has pixels and they lie within `pixels` (the `PIXL` bytes).
fn images(images: &[ImageRecord], pixels: &[u8], bad: Bad) -> Result<(), FormatError> {
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
fn metadata(meta: &[u8], bad: Bad) -> Result<Metadata, FormatError> {
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
