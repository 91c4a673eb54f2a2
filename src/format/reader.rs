//! Reading a baked `.throng` file: the container is mapped and checked, then every table is
//! validated before anything is handed out — every count, range, index, string and float —
//! so users of [`ThrongFile`] can index without checks. Small tables are copied out; vertex,
//! index, pixel and texel data stay in the mapped file (zero-copy).

use std::path::Path;

use bytemuck::Pod;

use super::container::{Container, Kind};
use super::error::FormatError;
use super::metadata::Metadata;
use super::records::{
    AnimRecord, BoundsRecord, CharacterRecord, EventRecord, ImageRecord, InfoRecord, JointRecord,
    MeshRecord, MotionRecord, NONE, StrRef, TexelFormat, VertexRecord, anim_flags, anim_kind,
    kinds, mesh_flags,
};

/// Most joints a character may have: joint indices are 16-bit.
pub const MAX_JOINTS: u32 = 65_536;

/// A validated baked file.
pub struct ThrongFile {
    container: Container,
    info: InfoRecord,
    format: TexelFormat,
    characters: Vec<CharacterRecord>,
    joints: Vec<JointRecord>,
    anims: Vec<AnimRecord>,
    events: Vec<EventRecord>,
    motion: Vec<MotionRecord>,
    bounds: Vec<BoundsRecord>,
    meshes: Vec<MeshRecord>,
    images: Vec<ImageRecord>,
    metadata: Metadata,
}

/// The texel data in place, in the file's format.
#[derive(Clone, Copy, Debug)]
pub enum Texels<'a> {
    /// `Rgba32Float` texels.
    F32(&'a [[f32; 4]]),
    /// `Rgba16Float` texels as raw binary16 bits.
    F16(&'a [[u16; 4]]),
}

impl Texels<'_> {
    /// Number of texels.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(t) => t.len(),
            Self::F16(t) => t.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Texel `i` as f32 (`i < len`).
    #[inline]
    pub fn get(&self, i: usize) -> [f32; 4] {
        match self {
            Self::F32(t) => t[i],
            Self::F16(t) => t[i].map(|b| half::f16::from_bits(b).to_f32()),
        }
    }

    /// The raw bytes, as stored.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Self::F32(t) => bytemuck::cast_slice(t),
            Self::F16(t) => bytemuck::cast_slice(t),
        }
    }
}

/// Copies the records of a table section out (the section may be unaligned in memory).
fn table<T: Pod>(
    c: &Container,
    kind: Kind,
    name: &str,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<Vec<T>, FormatError> {
    let data = section(c, kind, bad)?;
    let size = std::mem::size_of::<T>();
    if data.len() % size != 0 {
        return Err(bad(format!(
            "section '{name}' is {} bytes, not a whole number of {size}-byte records",
            data.len()
        )));
    }
    Ok(data
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

fn section<'a>(
    c: &'a Container,
    kind: Kind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<&'a [u8], FormatError> {
    c.section(kind).ok_or_else(|| {
        bad(format!(
            "no '{}' section (every baked file has one)",
            String::from_utf8_lossy(&kind)
        ))
    })
}

/// A typed view of an in-place section whose alignment the container guarantees.
fn view<'a, T: Pod>(
    c: &'a Container,
    kind: Kind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<&'a [T], FormatError> {
    let data = section(c, kind, bad)?;
    let start = c
        .sections()
        .iter()
        .find(|s| s.kind == kind)
        .map_or(0, |s| s.range.start);
    let align = std::mem::align_of::<T>();
    if start % align != 0 {
        return Err(bad(format!(
            "section '{}' starts at byte {start}, not a multiple of {align} as its data needs",
            String::from_utf8_lossy(&kind)
        )));
    }
    bytemuck::try_cast_slice(data).map_err(|e| {
        bad(format!(
            "section '{}' ({} bytes) cannot be read as {}-byte elements: {e}",
            String::from_utf8_lossy(&kind),
            data.len(),
            std::mem::size_of::<T>()
        ))
    })
}

/// `first..first + count` if it lies within `0..len`.
fn range(first: u64, count: u64, len: usize) -> Option<std::ops::Range<usize>> {
    let end = first.checked_add(count)?;
    (end <= len as u64).then_some(first as usize..end as usize)
}

fn finite(xs: &[f32]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

impl ThrongFile {
    /// Maps, checks and validates the file at `path`.
    ///
    /// # Errors
    /// [`FormatError`] saying what is wrong and where; never panics on any content.
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        Self::from_container(Container::open(path)?)
    }

    /// Validates a file held in memory; `name` is used in messages.
    ///
    /// # Errors
    /// As [`ThrongFile::open`].
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Self, FormatError> {
        Self::from_container(Container::from_bytes(bytes, name)?)
    }

    fn from_container(c: Container) -> Result<Self, FormatError> {
        let file = c.name().to_string();
        let bad = |what: String| FormatError::Malformed {
            file: file.clone(),
            what,
        };
        if cfg!(target_endian = "big") {
            return Err(bad("this build runs on a big-endian machine; .throng files are little-endian and are read in place".into()));
        }
        let info_bytes = section(&c, kinds::INFO, &bad)?;
        if info_bytes.len() != std::mem::size_of::<InfoRecord>() {
            return Err(bad(format!(
                "section 'INFO' is {} bytes, expected {}",
                info_bytes.len(),
                std::mem::size_of::<InfoRecord>()
            )));
        }
        let info: InfoRecord = bytemuck::pod_read_unaligned(info_bytes);
        let format = TexelFormat::from_code(info.texel_format).ok_or_else(|| {
            bad(format!(
                "unknown texel format {} (1 = rgba32f, 2 = rgba16f)",
                info.texel_format
            ))
        })?;
        let strings = section(&c, kinds::STRS, &bad)?;
        let characters: Vec<CharacterRecord> = table(&c, kinds::CHAR, "CHAR", &bad)?;
        let joints: Vec<JointRecord> = table(&c, kinds::JOIN, "JOIN", &bad)?;
        let anims: Vec<AnimRecord> = table(&c, kinds::ANIM, "ANIM", &bad)?;
        let events: Vec<EventRecord> = table(&c, kinds::EVNT, "EVNT", &bad)?;
        let motion: Vec<MotionRecord> = table(&c, kinds::MOTN, "MOTN", &bad)?;
        let bounds: Vec<BoundsRecord> = table(&c, kinds::BNDS, "BNDS", &bad)?;
        let meshes: Vec<MeshRecord> = table(&c, kinds::MESH, "MESH", &bad)?;
        let images: Vec<ImageRecord> = table(&c, kinds::IMAG, "IMAG", &bad)?;
        let vertices: &[VertexRecord] = view(&c, kinds::VERT, &bad)?;
        let indices: &[u32] = view(&c, kinds::INDX, &bad)?;
        let pixels = section(&c, kinds::PIXL, &bad)?;
        let texel_bytes = section(&c, kinds::TEXL, &bad)?;

        let string = |r: StrRef, what: &dyn Fn() -> String| -> Result<(), FormatError> {
            let bytes = range(r.offset.into(), r.len.into(), strings.len())
                .and_then(|rg| strings.get(rg))
                .ok_or_else(|| {
                    bad(format!(
                        "{}: string at {}+{} lies outside the string table ({} bytes)",
                        what(),
                        r.offset,
                        r.len,
                        strings.len()
                    ))
                })?;
            std::str::from_utf8(bytes)
                .map(|_| ())
                .map_err(|_| bad(format!("{}: name is not valid UTF-8", what())))
        };

        // Texels: the count matches the section, and every value is finite.
        let texel_len = usize::try_from(info.texel_count)
            .ok()
            .and_then(|n| n.checked_mul(format.texel_size()));
        if texel_len != Some(texel_bytes.len()) {
            return Err(bad(format!(
                "INFO says {} {} texels, but section 'TEXL' is {} bytes",
                info.texel_count,
                format.name(),
                texel_bytes.len()
            )));
        }
        let texels = match format {
            TexelFormat::Rgba32F => Texels::F32(view(&c, kinds::TEXL, &bad)?),
            TexelFormat::Rgba16F => Texels::F16(view(&c, kinds::TEXL, &bad)?),
        };
        let bad_texel = match texels {
            Texels::F32(t) => t.iter().position(|t| !finite(t)),
            // binary16 is infinite or NaN when all five exponent bits are set.
            Texels::F16(t) => t
                .iter()
                .position(|t| t.iter().any(|b| b & 0x7c00 == 0x7c00)),
        };
        if let Some(i) = bad_texel {
            return Err(bad(format!(
                "texel {i} holds a value that is not finite (NaN or infinity)"
            )));
        }

        // Characters own contiguous, ordered ranges of joints, animations and meshes.
        let (mut next_joint, mut next_anim, mut next_mesh) = (0u64, 0u64, 0u64);
        let mut next_event = 0u64;
        let mut max_joints = 0;
        for (ci, ch) in characters.iter().enumerate() {
            let what = || format!("character {ci}");
            string(ch.name, &what)?;
            if ch.joint_count == 0 || ch.joint_count > MAX_JOINTS {
                return Err(bad(format!(
                    "character {ci}: {} joints (1 to {MAX_JOINTS} are allowed)",
                    ch.joint_count
                )));
            }
            max_joints = max_joints.max(ch.joint_count);
            let mesh_count = u64::from(ch.part_count) * u64::from(ch.lod_count);
            if u64::from(ch.first_joint) != next_joint
                || u64::from(ch.first_anim) != next_anim
                || u64::from(ch.first_mesh) != next_mesh
            {
                return Err(bad(format!(
                    "character {ci}: its joints, animations or meshes do not follow the previous character's"
                )));
            }
            next_joint = next_joint.saturating_add(ch.joint_count.into());
            next_anim = next_anim.saturating_add(ch.anim_count.into());
            next_mesh = next_mesh.saturating_add(mesh_count);
            if next_joint > joints.len() as u64
                || next_anim > anims.len() as u64
                || next_mesh > meshes.len() as u64
            {
                return Err(bad(format!(
                    "character {ci}: {} joints, {} animations and {} meshes from {}, {} and {} run past the tables ({} joints, {} animations, {} meshes)",
                    ch.joint_count,
                    ch.anim_count,
                    mesh_count,
                    ch.first_joint,
                    ch.first_anim,
                    ch.first_mesh,
                    joints.len(),
                    anims.len(),
                    meshes.len()
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
            for local in 0..ch.joint_count {
                let j = &joints[(ch.first_joint + local) as usize];
                let what = || format!("character {ci}, joint {local}");
                string(j.name, &what)?;
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
            for local in 0..ch.anim_count {
                let ai = ch.first_anim + local;
                let a = &anims[ai as usize];
                let what = || format!("animation {ai}");
                string(a.name, &what)?;
                string(a.param, &what)?;
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
                let texels_needed = u64::from(a.frame_count) * u64::from(ch.joint_count) * 3;
                if range(a.first_texel, texels_needed, texels.len()).is_none() {
                    return Err(bad(format!(
                        "animation {ai}: {} frames of {} joints from texel {} run past the {} texels",
                        a.frame_count,
                        ch.joint_count,
                        a.first_texel,
                        texels.len()
                    )));
                }
                if range(a.first_bounds.into(), a.frame_count.into(), bounds.len()).is_none() {
                    return Err(bad(format!(
                        "animation {ai}: bounds of {} frames from {} run past the {} in 'BNDS'",
                        a.frame_count,
                        a.first_bounds,
                        bounds.len()
                    )));
                }
                if a.flags & anim_flags::ROOT_MOTION != 0
                    && range(a.first_motion.into(), a.frame_count.into(), motion.len()).is_none()
                {
                    return Err(bad(format!(
                        "animation {ai}: root motion of {} frames from {} runs past the {} in 'MOTN'",
                        a.frame_count,
                        a.first_motion,
                        motion.len()
                    )));
                }
                let Some(evs) = range(a.first_event.into(), a.event_count.into(), events.len())
                else {
                    return Err(bad(format!(
                        "animation {ai}: {} events from {} run past the {} in 'EVNT'",
                        a.event_count,
                        a.first_event,
                        events.len()
                    )));
                };
                if u64::from(a.first_event) != next_event {
                    return Err(bad(format!(
                        "animation {ai}: its events start at {}, not right after the previous animation's ({next_event})",
                        a.first_event
                    )));
                }
                next_event += u64::from(a.event_count);
                for (k, e) in events[evs].iter().enumerate() {
                    let what = || format!("animation {ai}, event {k}");
                    string(e.name, &what)?;
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
            }
            for k in 0..mesh_count {
                let mi = u64::from(ch.first_mesh) + k;
                let m = &meshes[mi as usize];
                let what = || format!("mesh {mi}");
                string(m.name, &what)?;
                let (lod, part) = (k / u64::from(ch.part_count), k % u64::from(ch.part_count));
                if m.character as usize != ci
                    || u64::from(m.lod) != lod
                    || u64::from(m.part) != part
                {
                    return Err(bad(format!(
                        "mesh {mi}: says character {}, part {}, LOD {}; its place says character {ci}, part {part}, LOD {lod}",
                        m.character, m.part, m.lod
                    )));
                }
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
                if m.image != NONE && m.image as usize >= images.len() {
                    return Err(bad(format!(
                        "mesh {mi}: image {} does not exist ({} images)",
                        m.image,
                        images.len()
                    )));
                }
                let Some(vs) = range(m.first_vertex.into(), m.vertex_count.into(), vertices.len())
                else {
                    return Err(bad(format!(
                        "mesh {mi}: {} vertices from {} run past the {} in 'VERT'",
                        m.vertex_count,
                        m.first_vertex,
                        vertices.len()
                    )));
                };
                let Some(is) = range(m.first_index.into(), m.index_count.into(), indices.len())
                else {
                    return Err(bad(format!(
                        "mesh {mi}: {} indices from {} run past the {} in 'INDX'",
                        m.index_count,
                        m.first_index,
                        indices.len()
                    )));
                };
                if !m.index_count.is_multiple_of(3) {
                    return Err(bad(format!(
                        "mesh {mi}: {} indices is not whole triangles",
                        m.index_count
                    )));
                }
                if let Some(i) = indices[is].iter().find(|i| **i >= m.vertex_count) {
                    return Err(bad(format!(
                        "mesh {mi}: index {i} is past its {} vertices",
                        m.vertex_count
                    )));
                }
                for (k, v) in vertices[vs].iter().enumerate() {
                    if !finite(&v.position)
                        || !finite(&v.normal)
                        || !finite(&v.uv)
                        || !finite(&v.weights)
                    {
                        return Err(bad(format!("mesh {mi}, vertex {k}: a value is not finite")));
                    }
                    if let Some(j) = v.joints.iter().find(|j| u32::from(**j) >= ch.joint_count) {
                        return Err(bad(format!(
                            "mesh {mi}, vertex {k}: joint {j} does not exist ({} joints)",
                            ch.joint_count
                        )));
                    }
                }
            }
        }
        if next_joint != joints.len() as u64
            || next_anim != anims.len() as u64
            || next_mesh != meshes.len() as u64
        {
            return Err(bad(format!(
                "the characters cover {next_joint} joints, {next_anim} animations and {next_mesh} meshes, but the tables hold {}, {} and {}",
                joints.len(),
                anims.len(),
                meshes.len()
            )));
        }
        if next_event != events.len() as u64 {
            return Err(bad(format!(
                "the animations cover {next_event} events, but 'EVNT' holds {}",
                events.len()
            )));
        }
        if info.max_joints != max_joints {
            return Err(bad(format!(
                "INFO says the largest skeleton has {} joints; the characters say {max_joints}",
                info.max_joints
            )));
        }
        for (bi, b) in bounds.iter().enumerate() {
            if !finite(&b.min) || !finite(&b.max) || (0..3).any(|k| b.min[k] > b.max[k]) {
                return Err(bad(format!("bounds {bi}: not finite, or min above max")));
            }
        }
        if let Some(i) = motion.iter().position(|m| !finite(&[m.x, m.z, m.yaw])) {
            return Err(bad(format!("root motion {i}: not finite")));
        }
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
        let meta = section(&c, kinds::META, &bad)?;
        let metadata: Metadata = serde_json::from_slice::<serde_json::Value>(meta)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|v| {
                if v.is_object() {
                    serde_json::from_value(v).map_err(|e| e.to_string())
                } else {
                    Err("not a JSON object".to_string())
                }
            })
            .map_err(|e| bad(format!("section 'META' is not valid bake metadata: {e}")))?;
        Ok(Self {
            container: c,
            info,
            format,
            characters,
            joints,
            anims,
            events,
            motion,
            bounds,
            meshes,
            images,
            metadata,
        })
    }

    /// The file name used in messages.
    pub fn name(&self) -> &str {
        self.container.name()
    }

    /// The container (header, sections).
    pub fn container(&self) -> &Container {
        &self.container
    }

    /// The scene summary.
    pub fn info(&self) -> &InfoRecord {
        &self.info
    }

    /// The texel format.
    pub fn format(&self) -> TexelFormat {
        self.format
    }

    /// A string of the string table (validated at load; empty for a reference that is not
    /// one of this file's).
    pub fn str(&self, r: StrRef) -> &str {
        self.container
            .section(kinds::STRS)
            .and_then(|s| s.get(r.offset as usize..r.offset as usize + r.len as usize))
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Characters.
    pub fn characters(&self) -> &[CharacterRecord] {
        &self.characters
    }

    /// All joints; a character's are `first_joint..first_joint + joint_count`.
    pub fn joints(&self) -> &[JointRecord] {
        &self.joints
    }

    /// All animations.
    pub fn anims(&self) -> &[AnimRecord] {
        &self.anims
    }

    /// All events.
    pub fn events(&self) -> &[EventRecord] {
        &self.events
    }

    /// All root-motion frames.
    pub fn motion(&self) -> &[MotionRecord] {
        &self.motion
    }

    /// All bounds frames.
    pub fn bounds(&self) -> &[BoundsRecord] {
        &self.bounds
    }

    /// All meshes.
    pub fn meshes(&self) -> &[MeshRecord] {
        &self.meshes
    }

    /// All images.
    pub fn images(&self) -> &[ImageRecord] {
        &self.images
    }

    /// Bake metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// All vertices, in place.
    pub fn vertices(&self) -> &[VertexRecord] {
        self.container
            .section(kinds::VERT)
            .and_then(|b| bytemuck::try_cast_slice(b).ok())
            .unwrap_or(&[])
    }

    /// All indices, in place.
    pub fn indices(&self) -> &[u32] {
        self.container
            .section(kinds::INDX)
            .and_then(|b| bytemuck::try_cast_slice(b).ok())
            .unwrap_or(&[])
    }

    /// The vertices and indices of mesh `m` (an index into [`ThrongFile::meshes`]).
    pub fn mesh_data(&self, m: usize) -> (&[VertexRecord], &[u32]) {
        let Some(r) = self.meshes.get(m) else {
            return (&[], &[]);
        };
        let v = self.vertices();
        let i = self.indices();
        let (fv, fi) = (r.first_vertex as usize, r.first_index as usize);
        (
            v.get(fv..fv + r.vertex_count as usize).unwrap_or(&[]),
            i.get(fi..fi + r.index_count as usize).unwrap_or(&[]),
        )
    }

    /// The RGBA8 pixels of image `i`.
    pub fn pixels(&self, i: usize) -> &[u8] {
        let Some(im) = self.images.get(i) else {
            return &[];
        };
        let size = im.width as usize * im.height as usize * 4;
        self.container
            .section(kinds::PIXL)
            .and_then(|p| p.get(im.offset as usize..im.offset as usize + size))
            .unwrap_or(&[])
    }

    /// The texels, in place.
    pub fn texels(&self) -> Texels<'_> {
        let data = self.container.section(kinds::TEXL).unwrap_or(&[]);
        match self.format {
            TexelFormat::Rgba32F => Texels::F32(bytemuck::try_cast_slice(data).unwrap_or(&[])),
            TexelFormat::Rgba16F => Texels::F16(bytemuck::try_cast_slice(data).unwrap_or(&[])),
        }
    }

    /// The animation named `name` of character `character`.
    pub fn find_anim(&self, character: usize, name: &str) -> Option<usize> {
        let c = self.characters.get(character)?;
        (c.first_anim as usize..(c.first_anim + c.anim_count) as usize)
            .find(|&a| self.str(self.anims[a].name) == name)
    }

    /// The two frames to interpolate between at `time` seconds into animation `anim` (an
    /// index into [`ThrongFile::anims`]) and the weight of the second, in [0, 1]: a looping
    /// animation wraps (frame `frame_count` is frame 0), a clamped one holds its ends. This is
    /// the sampling rule of docs/FORMAT.md.
    pub fn frames_at(&self, anim: usize, time: f32) -> (u32, u32, f32) {
        let Some(a) = self.anims.get(anim) else {
            return (0, 0, 0.0);
        };
        let (n, d) = (a.frame_count, a.duration);
        if !(d > 0.0 && time.is_finite()) || n < 2 && a.flags & anim_flags::LOOPING == 0 || n < 1 {
            return (0, 0, 0.0);
        }
        if a.flags & anim_flags::LOOPING != 0 {
            let u = (time / d).rem_euclid(1.0);
            let x = u * n as f32;
            let f0 = (x.floor() as u32).min(n - 1);
            let w = (x - f0 as f32).clamp(0.0, 1.0);
            (f0, (f0 + 1) % n, w)
        } else {
            let x = (time / d).clamp(0.0, 1.0) * (n - 1) as f32;
            let f0 = (x.floor() as u32).min(n - 2);
            let w = (x - f0 as f32).clamp(0.0, 1.0);
            (f0, f0 + 1, w)
        }
    }

    /// The texel index of joint 0, row 0 of frame `frame` of animation `anim` (both in range).
    #[inline]
    pub fn frame_base(&self, anim: usize, frame: u32) -> u64 {
        self.texel_index(anim, frame, 0, 0)
    }

    /// The texel index of row `row` (0..3) of joint `joint` at frame `frame` of animation
    /// `anim` (all within range).
    #[inline]
    pub fn texel_index(&self, anim: usize, frame: u32, joint: u32, row: u32) -> u64 {
        let a = &self.anims[anim];
        let joints = self.characters[a.character as usize].joint_count;
        a.first_texel
            + (u64::from(frame) * u64::from(joints) + u64::from(joint)) * 3
            + u64::from(row)
    }
}
