//! Reading a baked `.throng` file: the container is mapped and checked, the tables are read,
//! then every one is validated (`validate`: every count, range, index, string and float)
//! before anything is handed out, so users of [`ThrongFile`] can index without checks. Small
//! tables are copied out; vertex, index, pixel and texel data stay in the mapped file
//! (zero-copy). A file of format 1.1 or later also has the 1.1 tables (each joint's glTF node,
//! each animation's ground speed, foot slide and source), one of format 1.2 or later each
//! character's facing turn, 1.3 the joints each LOD level skins with, 1.4 the impostors: all
//! checked the same way, and absent in an older file (turn 0, every joint kept, no impostors).

use std::borrow::Cow;
use std::path::Path;

use bytemuck::Pod;

use super::container::{Container, SectionKind};
use super::error::FormatError;
use super::metadata::Metadata;
use super::records::{
    AnimExtRecord, AnimRecord, BoundsRecord, CharExtRecord, CharacterRecord, EventRecord,
    ImageRecord, InfoRecord, JointRecord, MeshRecord, MotionRecord, NONE, ParamRecord, StrRef,
    TEXELS_PER_MATRIX, TexelFormat, VertexRecord, anim_flags, ext_flags, kinds,
};
use super::texels::Texels;
use super::validate::{self, Ext, ImpostorTables, Tables};

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
    /// Format 1.1 tables; all empty for a 1.0 file.
    joint_nodes: Vec<u32>,
    anim_ext: Vec<AnimExtRecord>,
    sources: Vec<u32>,
    params: Vec<ParamRecord>,
    /// Format 1.2 table; empty for an older file.
    char_ext: Vec<CharExtRecord>,
    /// Format 1.3 table; empty for an older file.
    joint_lod: Vec<u32>,
    /// Format 1.4 tables; empty for an older file.
    pub(super) impostors: ImpostorTables,
}

/// What the elements of section `kind` are called in messages.
fn element_name(kind: SectionKind) -> &'static str {
    match kind {
        kinds::VERT => "vertices",
        kinds::INDX => "indices",
        kinds::TEXL => "texels",
        kinds::JNOD => "joint nodes",
        kinds::JLOD => "skeleton LOD entries",
        kinds::AGLT => "glTF animation indices",
        _ => "records",
    }
}

/// The data of section `kind`, which must be a whole number of `T`.
fn whole<'a, T: Pod>(
    c: &'a Container,
    kind: SectionKind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<&'a [u8], FormatError> {
    let data = section(c, kind, bad)?;
    let size = std::mem::size_of::<T>();
    if data.len() % size != 0 {
        return Err(bad(format!(
            "section '{}': {} is not a whole number of {size}-byte {}",
            String::from_utf8_lossy(&kind),
            plural(data.len(), "byte"),
            element_name(kind)
        )));
    }
    Ok(data)
}

/// `n thing`, with an `s` unless `n` is 1.
fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Copies the records of a table section out (the section may be unaligned in memory). The
/// count comes from the section's size, which the container checked against the file's, so
/// a hostile count cannot make this allocate more than the file holds.
fn table<T: Pod>(
    c: &Container,
    kind: SectionKind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<Vec<T>, FormatError> {
    Ok(whole::<T>(c, kind, bad)?
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

fn section<'a>(
    c: &'a Container,
    kind: SectionKind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<&'a [u8], FormatError> {
    c.section(kind).ok_or_else(|| {
        let which = match kind {
            kinds::JNOD | kinds::AEXT | kinds::AGLT | kinds::APRM => "file of format 1.1 or later",
            kinds::CEXT => "file of format 1.2 or later",
            kinds::JLOD => "file of format 1.3 or later",
            kinds::IMPO | kinds::IMPA | kinds::IMPX => "file of format 1.4 or later",
            _ => "baked file",
        };
        bad(format!(
            "no '{}' section (every {which} has one)",
            String::from_utf8_lossy(&kind)
        ))
    })
}

/// A typed view of an in-place section whose alignment the container guarantees.
fn view<'a, T: Pod>(
    c: &'a Container,
    kind: SectionKind,
    bad: &dyn Fn(String) -> FormatError,
) -> Result<&'a [T], FormatError> {
    let data = whole::<T>(c, kind, bad)?;
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
    // Size and alignment were checked just above, so this cannot fail; bytemuck's own words
    // are not for users, should it ever.
    bytemuck::try_cast_slice(data).map_err(|_| {
        bad(format!(
            "section '{}' cannot be read in place",
            String::from_utf8_lossy(&kind)
        ))
    })
}

impl ThrongFile {
    /// Maps, checks and validates the file at `path`.
    ///
    /// # Errors
    /// [`FormatError`] saying what is wrong and where; never panics on any content. As
    /// [`Container::open`] for the container, then [`FormatError::Malformed`] for a section or
    /// record that is inconsistent.
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
                "section 'INFO': {}, expected {}",
                plural(info_bytes.len(), "byte"),
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
        let characters: Vec<CharacterRecord> = table(&c, kinds::CHAR, &bad)?;
        let joints: Vec<JointRecord> = table(&c, kinds::JOIN, &bad)?;
        let anims: Vec<AnimRecord> = table(&c, kinds::ANIM, &bad)?;
        let events: Vec<EventRecord> = table(&c, kinds::EVNT, &bad)?;
        let motion: Vec<MotionRecord> = table(&c, kinds::MOTN, &bad)?;
        let bounds: Vec<BoundsRecord> = table(&c, kinds::BNDS, &bad)?;
        let meshes: Vec<MeshRecord> = table(&c, kinds::MESH, &bad)?;
        let images: Vec<ImageRecord> = table(&c, kinds::IMAG, &bad)?;
        let vertices: &[VertexRecord] = view(&c, kinds::VERT, &bad)?;
        let indices: &[u32] = view(&c, kinds::INDX, &bad)?;
        let pixels = section(&c, kinds::PIXL, &bad)?;
        let meta = section(&c, kinds::META, &bad)?;
        let texels = match format {
            TexelFormat::Rgba32F => Texels::F32(view(&c, kinds::TEXL, &bad)?),
            TexelFormat::Rgba16F => Texels::F16(view(&c, kinds::TEXL, &bad)?),
        };
        // Format 1.0 does not define these kinds: a 1.0 file's sections of them are skipped.
        let (joint_nodes, anim_ext, sources, params) = if c.version().1 >= 1 {
            (
                table::<u32>(&c, kinds::JNOD, &bad)?,
                table::<AnimExtRecord>(&c, kinds::AEXT, &bad)?,
                table::<u32>(&c, kinds::AGLT, &bad)?,
                table::<ParamRecord>(&c, kinds::APRM, &bad)?,
            )
        } else {
            Default::default()
        };
        // Likewise for the kind format 1.2 adds, in a file of an older minor version.
        let char_ext = if c.version().1 >= 2 {
            Some(table::<CharExtRecord>(&c, kinds::CEXT, &bad)?)
        } else {
            None
        };
        // And format 1.3's.
        let joint_lod = if c.version().1 >= 3 {
            Some(table::<u32>(&c, kinds::JLOD, &bad)?)
        } else {
            None
        };
        // And format 1.4's, the impostors.
        let impostors = if c.version().1 >= 4 {
            Some(ImpostorTables {
                records: table(&c, kinds::IMPO, &bad)?,
                anims: table(&c, kinds::IMPA, &bad)?,
                pixels: section(&c, kinds::IMPX, &bad)?.len() as u64,
            })
        } else {
            None
        };
        let ext = Ext {
            joint_nodes: &joint_nodes,
            anim_ext: &anim_ext,
            sources: &sources,
            params: &params,
            char_ext: char_ext.as_deref(),
            joint_lod: joint_lod.as_deref(),
            impostors: impostors.as_ref(),
        };
        let tables = Tables {
            info: &info,
            format,
            strings,
            characters: &characters,
            joints: &joints,
            anims: &anims,
            events: &events,
            motion: &motion,
            bounds: &bounds,
            meshes: &meshes,
            images: &images,
            vertices,
            indices,
            pixels,
            meta,
            texels: &[texels],
        };
        let metadata = validate::all(&tables, (c.version().1 >= 1).then_some(&ext), &bad)?;
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
            joint_nodes,
            anim_ext,
            sources,
            params,
            char_ext: char_ext.unwrap_or_default(),
            joint_lod: joint_lod.unwrap_or_default(),
            impostors: impostors.unwrap_or_default(),
        })
    }

    /// The joint (an index within character `character`) each of its joints is drawn with at
    /// LOD level `lod` (format 1.3, `JLOD`): itself, or its nearest kept ancestor when the
    /// baker collapsed it there (docs/FORMAT.md, "JLOD"). The vertices of that level are
    /// already bound to kept joints only; the texels still hold every joint. The identity for
    /// a file older than 1.3; empty for an index past the characters or their levels.
    pub fn lod_joints(&self, character: usize, lod: usize) -> Cow<'_, [u32]> {
        let Some(ch) = self.characters.get(character) else {
            return Cow::Borrowed(&[]);
        };
        let n = ch.joint_count as usize;
        if lod >= ch.lod_count as usize {
            return Cow::Borrowed(&[]);
        }
        if self.joint_lod.is_empty() {
            return Cow::Owned((0..n as u32).collect());
        }
        // Validated: each character's levels follow the previous character's (rule 42).
        let start: usize = self.characters[..character]
            .iter()
            .map(|c| c.joint_count as usize * c.lod_count as usize)
            .sum::<usize>()
            + lod * n;
        Cow::Borrowed(self.joint_lod.get(start..start + n).unwrap_or(&[]))
    }

    /// How many joints character `character` skins with at LOD level `lod`: those of
    /// [`ThrongFile::lod_joints`] drawn with themselves (all of them for a file older than
    /// 1.3; 0 past the characters or their levels).
    pub fn lod_joint_count(&self, character: usize, lod: usize) -> usize {
        let map = self.lod_joints(character, lod);
        map.iter()
            .enumerate()
            .filter(|(j, m)| **m as usize == *j)
            .count()
    }

    /// Quarter turns about +y (0 to 3, each +90°: model (x, z) to (z, −x)) the baker applied
    /// to character `character`'s skinning matrices and bounds so that it walks along +z
    /// (format 1.2, `CEXT`); 0 for a character kept as authored, for a file older than 1.2,
    /// and for an index past the characters. A path that draws the model's own bind pose (no
    /// texels) turns it by this much to face as the baked frames do.
    pub fn facing_turns(&self, character: usize) -> u8 {
        // Validated to 0..=3 (rule 41), so the narrowing keeps the value.
        self.char_ext
            .get(character)
            .map_or(0, |c| c.facing_turns.min(3) as u8)
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

    /// The glTF node index of joint `joint` (an index into [`ThrongFile::joints`]); `None`
    /// for a joint without one, and for every joint of a format 1.0 file.
    pub fn joint_node(&self, joint: usize) -> Option<u32> {
        self.joint_nodes.get(joint).copied().filter(|n| *n != NONE)
    }

    /// The format 1.1 record of animation `anim` (an index into [`ThrongFile::anims`]);
    /// `None` for a format 1.0 file, which records none of it.
    pub fn anim_ext(&self, anim: usize) -> Option<&AnimExtRecord> {
        self.anim_ext.get(anim)
    }

    /// The recorded ground speed of animation `anim`, model units per second (>= 0); `None`
    /// when unknown or not recorded (format 1.0).
    pub fn ground_speed(&self, anim: usize) -> Option<f32> {
        let e = self.anim_ext(anim)?;
        (e.flags & ext_flags::GROUND_SPEED != 0).then_some(e.ground_speed)
    }

    /// The recorded foot slide of animation `anim` at its ground speed, model units per
    /// second (>= 0); `None` when not measured or not recorded (format 1.0).
    pub fn foot_slide(&self, anim: usize) -> Option<f32> {
        let e = self.anim_ext(anim)?;
        (e.flags & ext_flags::FOOT_SLIDE != 0).then_some(e.foot_slide)
    }

    /// Whether the baker locked the planted feet of animation `anim` to its ground speed
    /// (its legs then differ from the source's poses); false for a format 1.0 file.
    pub fn feet_locked(&self, anim: usize) -> bool {
        self.anim_ext(anim)
            .is_some_and(|e| e.flags & ext_flags::FEET_LOCKED != 0)
    }

    /// The glTF animation indices clip `anim` was made from (empty for a state, an unknown or
    /// procedural source, or a format 1.0 file).
    pub fn clip_sources(&self, anim: usize) -> &[u32] {
        self.anim_ext(anim)
            .and_then(|e| {
                let first = e.first_source as usize;
                self.sources.get(first..first + e.source_count as usize)
            })
            .unwrap_or(&[])
    }

    /// For a state: its index among its character's states, and every parameter value it was
    /// baked at (names through [`ThrongFile::str`]); `None` for a clip, a state whose source is
    /// unknown, or a format 1.0 file.
    pub fn state_source(&self, anim: usize) -> Option<(u32, &[ParamRecord])> {
        let e = self.anim_ext(anim).filter(|e| e.state != NONE)?;
        let first = e.first_param as usize;
        Some((
            e.state,
            self.params
                .get(first..first + e.param_count as usize)
                .unwrap_or(&[]),
        ))
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
        self.anims
            .get(anim)
            .map_or((0, 0, 0.0), |a| frames_of(a, time))
    }

    /// [`ThrongFile::frames_at`] as whole-matrix indices: where each of the two frames'
    /// joint 0 starts, counted in matrices ([`TEXELS_PER_MATRIX`] texels) from the first
    /// texel, as instance records hold them; `anim` in range. One look-up of the animation
    /// and its character for both frames: the crowd calls this for every agent stepped.
    ///
    /// # Panics
    /// If `anim` is out of range.
    // Always inlined, as is `Playback::frame_pose` around it: the crowd's step calls it once or
    // twice per agent, and out of line (as it once was) a step took about 60 more instructions.
    #[inline(always)]
    pub fn matrices_at(&self, anim: usize, time: f32) -> (u32, u32, f32) {
        let a = &self.anims[anim];
        let (f0, f1, w) = frames_of(a, time);
        let joints = u64::from(self.characters[a.character as usize].joint_count);
        // Every animation starts at a whole matrix (validated), so this division is exact.
        let first = a.first_texel / u64::from(TEXELS_PER_MATRIX);
        let at = |frame: u32| (first + u64::from(frame) * joints) as u32;
        (at(f0), at(f1), w)
    }

    /// The texel index of joint 0, row 0 of frame `frame` of animation `anim` (both in range).
    #[inline]
    pub fn frame_base(&self, anim: usize, frame: u32) -> u64 {
        self.texel_index(anim, frame, 0, 0)
    }

    /// The texel index of row `row` (0..[`TEXELS_PER_MATRIX`]) of joint `joint` at frame `frame` of animation
    /// `anim` (all within range).
    #[inline]
    pub fn texel_index(&self, anim: usize, frame: u32, joint: u32, row: u32) -> u64 {
        let a = &self.anims[anim];
        let joints = self.characters[a.character as usize].joint_count;
        a.first_texel
            + (u64::from(frame) * u64::from(joints) + u64::from(joint))
                * u64::from(TEXELS_PER_MATRIX)
            + u64::from(row)
    }
}

/// [`ThrongFile::frames_at`] of animation `a`.
#[inline]
fn frames_of(a: &AnimRecord, time: f32) -> (u32, u32, f32) {
    let (n, d) = (a.frame_count, a.duration);
    if !(d > 0.0 && time.is_finite()) || n < 2 && a.flags & anim_flags::LOOPING == 0 || n < 1 {
        return (0, 0, 0.0);
    }
    // `x` below is never negative, so truncating is flooring (`floor` is a library call on
    // baseline x86-64), and `f0` is below `n`, so one comparison wraps it (not a division).
    if a.flags & anim_flags::LOOPING != 0 {
        let u = time / d;
        // Callers mostly keep the time within one lap already: no `fmodf` call then.
        let u = if (0.0..1.0).contains(&u) {
            u
        } else {
            u.rem_euclid(1.0)
        };
        let x = u * n as f32;
        let f0 = (x as u32).min(n - 1);
        let w = (x - f0 as f32).clamp(0.0, 1.0);
        (f0, if f0 + 1 < n { f0 + 1 } else { 0 }, w)
    } else {
        let x = (time / d).clamp(0.0, 1.0) * (n - 1) as f32;
        let f0 = (x as u32).min(n - 2);
        let w = (x - f0 as f32).clamp(0.0, 1.0);
        (f0, f0 + 1, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Builder;
    use crate::format::records::anim_kind;

    /// One character of one joint and one single-frame animation whose texels start at
    /// `first_texel` (texels up to there are padding).
    fn one_frame(first_texel: u64) -> Builder {
        let mut b = Builder::new(TexelFormat::Rgba32F);
        let name = b.string("c");
        b.joints.push(JointRecord {
            name,
            parent: -1,
            reserved: 0,
            inverse_bind: glam::Mat4::IDENTITY.to_cols_array(),
        });
        let texels = first_texel as usize + TEXELS_PER_MATRIX as usize;
        b.push_texels(&vec![[0.0; 4]; texels]);
        b.bounds.push(BoundsRecord::default());
        b.anims.push(AnimRecord {
            name,
            kind: anim_kind::CLIP,
            frame_count: 1,
            first_texel,
            ..AnimRecord::default()
        });
        b.characters.push(CharacterRecord {
            name,
            joint_count: 1,
            anim_count: 1,
            height: 1.0,
            ..CharacterRecord::default()
        });
        b
    }

    /// What the reader says of `b`'s tables written as they are (unchecked).
    fn read_error(b: &Builder) -> String {
        let bytes = b.to_writer().unwrap().to_bytes();
        match ThrongFile::from_bytes(&bytes, "x.throng") {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn animations_start_at_a_whole_matrix() {
        let ok = one_frame(3).to_bytes().unwrap();
        assert!(ThrongFile::from_bytes(&ok, "x.throng").is_ok());
        let b = one_frame(1);
        let why = "character 0 'c', animation 0 'c': starts at texel 1, not at a whole matrix (a multiple of 3)";
        assert_eq!(read_error(&b), format!("x.throng: {why}"));
        // The writer refuses it in the reader's words: one validation, shared.
        assert_eq!(
            b.to_bytes().unwrap_err().to_string(),
            format!("(in memory): not written: {why}")
        );
    }

    #[test]
    fn numbers_out_of_range_are_named_and_never_written() {
        let dir = std::env::temp_dir().join(format!("throng-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.throng");
        let old = one_frame(0).to_bytes().unwrap();
        std::fs::write(&path, &old).unwrap();
        for (edit, why) in [
            (
                (|b: &mut Builder| b.anims[0].interpolation_error = f32::INFINITY)
                    as fn(&mut Builder),
                "animation 0 'c': interpolation error is inf; it must be finite and not negative",
            ),
            (
                |b| b.anims[0].cycle_motion[2] = f32::NAN,
                "animation 0 'c': cycle motion yaw is NaN; it must be finite",
            ),
            (
                |b| b.anims[0].duration = -1.0,
                "animation 0 'c': duration is -1; it must not be negative",
            ),
            (
                |b| {
                    b.push_texel_vec(vec![[f32::NAN; 4]; 3]);
                },
                "texel 3 holds a value that is not finite",
            ),
            (
                |b| b.bounds[0].max[1] = f32::INFINITY,
                "animation 0 'c': bounds 0: not finite",
            ),
        ] {
            let mut b = one_frame(0);
            edit(&mut b);
            let e = b.write(&path).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{}: not written: ", path.display())) && e.contains(why),
                "{e}"
            );
            assert_eq!(std::fs::read(&path).unwrap(), old, "{why}");
            assert!(read_error(&b).contains(why), "{}", read_error(&b));
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn opening_errors_say_their_cause_once() {
        let missing = ThrongFile::open(Path::new("no/such.throng")).err().unwrap();
        let text = missing.to_string();
        assert!(text.starts_with("no/such.throng: opening: "), "{text}");
        assert!(std::error::Error::source(&missing).is_none(), "{text}");
        let dir = std::env::temp_dir();
        let folder = ThrongFile::open(&dir).err().unwrap().to_string();
        assert_eq!(
            folder,
            format!("{}: is a folder, not a .throng file", dir.display())
        );
    }

    #[test]
    fn names_in_messages_are_escaped_and_cut() {
        let mut b = one_frame(1);
        let long = format!("a\x1b[31m{}", "n".repeat(100));
        b.characters[0].name = b.string(&long);
        let e = read_error(&b);
        assert!(
            e.contains(&format!("character 0 'a\\u{{1b}}[31m{}…'", "n".repeat(34))),
            "{e}"
        );
        assert!(!e.contains('\u{1b}'), "{e}");
    }
}
