//! Assembling a baked `.throng` file: tables of records, strings, mesh and texel data, then
//! the container (docs/FORMAT.md). The baker fills a [`Builder`]; [`Builder::write`] puts it
//! on disk atomically. Files are written as format 1.3: the 1.0 tables plus each joint's glTF
//! node and each animation's ground speed, foot slide and source ([`AnimFacts`]) of 1.1,
//! each character's facing turn of 1.2, and the joints each LOD level skins with of 1.3.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use super::container::Writer;
use super::error::FormatError;
use super::metadata::Metadata;
use super::records::{
    AnimExtRecord, AnimRecord, BoundsRecord, CharExtRecord, CharacterRecord, EventRecord,
    ImageRecord, ImpostorAnimRecord, ImpostorRecord, InfoRecord, JointRecord, MeshRecord,
    MotionRecord, NONE, ParamRecord, StrRef, TexelFormat, VertexRecord, ext_flags, kinds,
};
use super::texels::Texels;
use super::validate::{self, Ext, ImpostorTables, Tables};

/// Section alignment of record tables, bytes (the largest field is 8 bytes).
const TABLE_ALIGN: u32 = 8;
/// Alignment of vertex and index data: usable in place as GPU buffers.
const MESH_ALIGN: u32 = 16;
/// Alignment of the texels: a memory page, so a mapped file can be uploaded in place.
const TEXEL_ALIGN: u32 = 4096;
/// Alignment of the impostor pixels: whole RGBA8 pixels and 16-byte rows of four, as vertex
/// data; an upload copies them row by row into a texture anyway.
const IMPOSTOR_ALIGN: u32 = 16;

/// The file name in the messages of [`Builder::to_bytes`], which writes no file.
pub const IN_MEMORY: &str = "(in memory)";

/// Texels of one push, in the file's format.
#[derive(Debug)]
enum TexelChunk {
    F32(Vec<[f32; 4]>),
    F16(Vec<[u16; 4]>),
}

impl TexelChunk {
    fn bytes(&self) -> &[u8] {
        self.texels().bytes()
    }

    fn texels(&self) -> Texels<'_> {
        match self {
            Self::F32(t) => Texels::F32(t),
            Self::F16(t) => Texels::F16(t),
        }
    }
}

/// Where a baked animation came from (format 1.1).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AnimSource {
    /// Not known, or made by throng itself (a procedural clip): nothing is recorded.
    #[default]
    Unknown,
    /// A clip made from these glTF animations (indices into the glTF file's `animations`;
    /// several when throng merged unnamed animations into one clip).
    Clip(Vec<u32>),
    /// A state of the character's state machine.
    State {
        /// Its index among the character's states (sorted by name, as the machine holds them).
        state: u32,
        /// Every parameter of the machine with the value it was baked at (bools and triggers:
        /// 0 or 1).
        params: Vec<(String, f32)>,
    },
}

/// What format 1.1 records about an animation besides its [`AnimRecord`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimFacts {
    /// Ground speed, metres per second (lengths are in metres after the
    /// character's size factor), >= 0; `None` when unknown.
    pub ground_speed: Option<f32>,
    /// Residual slip of the planted foot when an agent moves at `ground_speed`, model units per
    /// second, >= 0; `None` when not measured.
    pub foot_slide: Option<f32>,
    /// Whether the baker locked its planted feet to `ground_speed` (which must be given).
    pub feet_locked: bool,
    /// Where it came from.
    pub source: AnimSource,
}

/// The record of an animation of which nothing is known (its ranges are set where it goes).
const NO_FACTS: AnimExtRecord = AnimExtRecord {
    flags: 0,
    ground_speed: 0.0,
    foot_slide: 0.0,
    state: NONE,
    first_source: 0,
    source_count: 0,
    first_param: 0,
    param_count: 0,
};

/// The contents of a baked file, table by table. Indices between tables are as documented on
/// the record types; [`crate::format::ThrongFile`] checks them all when reading.
#[derive(Debug)]
pub struct Builder {
    strings: Vec<u8>,
    interned: HashMap<String, StrRef>,
    /// Characters.
    pub characters: Vec<CharacterRecord>,
    /// Format 1.2: the quarter turns about +y (0 to 3) baked into each character's matrices
    /// and bounds, in the order of `characters`; characters past its end are written with 0.
    pub facing_turns: Vec<u8>,
    /// Format 1.3: per character (in the order of `characters`), the joint each joint is drawn
    /// with at each LOD level, LOD-major (`lod_count × joint_count` entries: itself or its
    /// nearest kept ancestor). An empty entry, or a character past its end, is written with
    /// every joint kept.
    pub lod_joints: Vec<Vec<u32>>,
    /// Format 1.4: per character (in the order of `characters`), its impostor atlas;
    /// characters past its end are written without impostors (`views` 0).
    pub impostors: Vec<ImpostorRecord>,
    /// Format 1.4: per animation (in the order of `anims`), its impostor frames; animations
    /// past its end are written with none.
    pub impostor_anims: Vec<ImpostorAnimRecord>,
    /// Format 1.4: the `IMPX` bytes, which `impostors` point into.
    pub impostor_pixels: Vec<u8>,
    /// Joints of all characters, character by character.
    pub joints: Vec<JointRecord>,
    /// The glTF node index of each joint, in the order of `joints` ([`NONE`] for a joint
    /// without one); joints past its end are written without a node.
    pub joint_nodes: Vec<u32>,
    /// Animations of all characters, character by character.
    pub anims: Vec<AnimRecord>,
    /// Format 1.1 facts of each animation, in the order of `anims` (filled by
    /// [`Builder::push_anim_facts`]); animations past its end are written with nothing known.
    pub anim_ext: Vec<AnimExtRecord>,
    /// glTF animation indices of clips, ranges of them named by `anim_ext`.
    pub anim_sources: Vec<u32>,
    /// Parameter values of states, ranges of them named by `anim_ext`.
    pub params: Vec<ParamRecord>,
    /// Events of all animations, animation by animation.
    pub events: Vec<EventRecord>,
    /// Root motion frames.
    pub motion: Vec<MotionRecord>,
    /// Bounds frames.
    pub bounds: Vec<BoundsRecord>,
    /// Mesh parts per LOD, character by character.
    pub meshes: Vec<MeshRecord>,
    /// Vertices of all meshes.
    pub vertices: Vec<VertexRecord>,
    /// Indices of all meshes (relative to each mesh's first vertex).
    pub indices: Vec<u32>,
    /// Images.
    pub images: Vec<ImageRecord>,
    /// Pixels of all images.
    pub pixels: Vec<u8>,
    format: TexelFormat,
    /// Texels in chunks as pushed (moved in, not copied together).
    texels: Vec<TexelChunk>,
    texel_count: u64,
    /// Bake metadata.
    pub metadata: Metadata,
}

impl Builder {
    /// An empty file whose texels will be stored in `format`.
    pub fn new(format: TexelFormat) -> Self {
        Self {
            strings: Vec::new(),
            interned: HashMap::new(),
            characters: Vec::new(),
            facing_turns: Vec::new(),
            lod_joints: Vec::new(),
            impostors: Vec::new(),
            impostor_anims: Vec::new(),
            impostor_pixels: Vec::new(),
            joints: Vec::new(),
            joint_nodes: Vec::new(),
            anims: Vec::new(),
            anim_ext: Vec::new(),
            anim_sources: Vec::new(),
            params: Vec::new(),
            events: Vec::new(),
            motion: Vec::new(),
            bounds: Vec::new(),
            meshes: Vec::new(),
            vertices: Vec::new(),
            indices: Vec::new(),
            images: Vec::new(),
            pixels: Vec::new(),
            format,
            texels: Vec::new(),
            texel_count: 0,
            metadata: Metadata::default(),
        }
    }

    /// The texel format.
    pub fn format(&self) -> TexelFormat {
        self.format
    }

    /// Stores `s` once and returns where it is.
    pub fn string(&mut self, s: &str) -> StrRef {
        if let Some(r) = self.interned.get(s) {
            return *r;
        }
        let r = StrRef {
            offset: self.strings.len() as u32,
            len: s.len() as u32,
        };
        self.strings.extend_from_slice(s.as_bytes());
        self.interned.insert(s.to_string(), r);
        r
    }

    /// Records `facts` for the next animation without them (animation `anim_ext.len()`),
    /// storing its source's glTF indices and parameter names.
    pub fn push_anim_facts(&mut self, facts: &AnimFacts) {
        // Ranges follow each other in animation order, so each starts where the tables end.
        let mut r = AnimExtRecord {
            first_source: self.anim_sources.len() as u32,
            first_param: self.params.len() as u32,
            ..NO_FACTS
        };
        if let Some(v) = facts.ground_speed {
            r.flags |= ext_flags::GROUND_SPEED;
            r.ground_speed = v;
        }
        if let Some(v) = facts.foot_slide {
            r.flags |= ext_flags::FOOT_SLIDE;
            r.foot_slide = v;
        }
        if facts.feet_locked {
            r.flags |= ext_flags::FEET_LOCKED;
        }
        match &facts.source {
            AnimSource::Unknown => {}
            AnimSource::Clip(indices) => {
                r.source_count = indices.len() as u32;
                self.anim_sources.extend_from_slice(indices);
            }
            AnimSource::State { state, params } => {
                r.state = *state;
                r.param_count = params.len() as u32;
                for (name, value) in params {
                    let name = self.string(name);
                    self.params.push(ParamRecord {
                        name,
                        value: *value,
                    });
                }
            }
        }
        self.anim_ext.push(r);
    }

    /// Texels stored so far.
    pub fn texel_count(&self) -> u64 {
        self.texel_count
    }

    /// Appends texels given as f32 (converted to the file's format, rounding to nearest even
    /// for f16, as the GPU's own conversion does) and returns the index of the first.
    pub fn push_texels(&mut self, texels: &[[f32; 4]]) -> u64 {
        self.push_texel_vec(texels.to_vec())
    }

    /// As [`Builder::push_texels`], taking the texels by value: f32 texels are moved in, not
    /// copied.
    pub fn push_texel_vec(&mut self, texels: Vec<[f32; 4]>) -> u64 {
        let first = self.texel_count;
        self.texel_count += texels.len() as u64;
        self.texels.push(match self.format {
            TexelFormat::Rgba32F => TexelChunk::F32(texels),
            TexelFormat::Rgba16F => TexelChunk::F16(
                texels
                    .iter()
                    .map(|t| t.map(|x| half::f16::from_f32(x).to_bits()))
                    .collect(),
            ),
        });
        first
    }

    /// Appends an RGBA8 image and returns its index.
    pub fn push_image(&mut self, width: u32, height: u32, rgba: &[u8]) -> u32 {
        self.images.push(ImageRecord {
            width,
            height,
            offset: self.pixels.len() as u64,
        });
        self.pixels.extend_from_slice(rgba);
        (self.images.len() - 1) as u32
    }

    /// The tables the builder derives when writing: each joint's node and each animation's
    /// format 1.1 record (filled in where not pushed), `INFO` and the metadata as JSON.
    ///
    /// # Errors
    /// [`FormatError::BadSection`] if a table outgrew what 32-bit indices can address, or the
    /// metadata cannot be put in JSON.
    fn derived(&self) -> Result<Derived, FormatError> {
        fn fits(kind: &str, n: usize) -> Result<(), FormatError> {
            if n > u32::MAX as usize - 1 {
                return Err(FormatError::BadSection {
                    kind: kind.into(),
                    what: format!("{n} entries; at most {} fit 32-bit indices", u32::MAX - 1),
                });
            }
            Ok(())
        }
        fits("STRS", self.strings.len())?;
        fits("VERT", self.vertices.len())?;
        fits("INDX", self.indices.len())?;
        fits("MOTN", self.motion.len())?;
        fits("BNDS", self.bounds.len())?;
        fits("AGLT", self.anim_sources.len())?;
        fits("APRM", self.params.len())?;
        let too_many = |kind: &str, n: usize, of: &str, m: usize| FormatError::BadSection {
            kind: kind.into(),
            what: format!("{n} entries for {m} {of}"),
        };
        if self.joint_nodes.len() > self.joints.len() {
            return Err(too_many(
                "JNOD",
                self.joint_nodes.len(),
                "joints",
                self.joints.len(),
            ));
        }
        if self.anim_ext.len() > self.anims.len() {
            return Err(too_many(
                "AEXT",
                self.anim_ext.len(),
                "animations",
                self.anims.len(),
            ));
        }
        if self.facing_turns.len() > self.characters.len() {
            return Err(too_many(
                "CEXT",
                self.facing_turns.len(),
                "characters",
                self.characters.len(),
            ));
        }
        let mut char_ext: Vec<CharExtRecord> = self
            .facing_turns
            .iter()
            .map(|&k| CharExtRecord {
                facing_turns: k.into(),
                reserved: [0; 3],
            })
            .collect();
        char_ext.resize(self.characters.len(), CharExtRecord::default());
        let joint_lod = self.joint_lod()?;
        let impostors = self.impostor_tables()?;
        let mut joint_nodes = self.joint_nodes.clone();
        joint_nodes.resize(self.joints.len(), NONE);
        let mut anim_ext = self.anim_ext.clone();
        anim_ext.resize(
            self.anims.len(),
            AnimExtRecord {
                first_source: self.anim_sources.len() as u32,
                first_param: self.params.len() as u32,
                ..NO_FACTS
            },
        );
        let info = InfoRecord {
            texel_format: self.format.code(),
            max_joints: self
                .characters
                .iter()
                .map(|c| c.joint_count)
                .max()
                .unwrap_or(0),
            texel_count: self.texel_count(),
            reserved: [0; 4],
        };
        let meta =
            serde_json::to_vec_pretty(&self.metadata).map_err(|e| FormatError::BadSection {
                kind: "META".into(),
                what: e.to_string(),
            })?;
        Ok(Derived {
            char_ext,
            joint_lod,
            impostors,
            joint_nodes,
            anim_ext,
            info,
            meta,
        })
    }

    /// Checks everything as [`crate::format::ThrongFile`] checks a file it reads (the same
    /// code: throng never writes what it would refuse to read); `name` is the file in
    /// messages. [`Builder::write`] and [`Builder::to_bytes`] call this first.
    ///
    /// # Errors
    /// [`FormatError::Unwritable`] naming `name` and the first problem, as the reader would
    /// name it; [`FormatError::BadSection`] as [`Builder::to_writer`].
    pub fn validate(&self, name: &str) -> Result<(), FormatError> {
        self.check(&self.derived()?, name)
    }

    fn check(&self, d: &Derived, name: &str) -> Result<(), FormatError> {
        let bad = |what: String| FormatError::Unwritable {
            file: name.to_string(),
            what,
        };
        let texels: Vec<Texels> = self.texels.iter().map(TexelChunk::texels).collect();
        let tables = Tables {
            info: &d.info,
            format: self.format,
            strings: &self.strings,
            characters: &self.characters,
            joints: &self.joints,
            anims: &self.anims,
            events: &self.events,
            motion: &self.motion,
            bounds: &self.bounds,
            meshes: &self.meshes,
            images: &self.images,
            vertices: &self.vertices,
            indices: &self.indices,
            pixels: &self.pixels,
            meta: &d.meta,
            texels: &texels,
        };
        let ext = Ext {
            joint_nodes: &d.joint_nodes,
            anim_ext: &d.anim_ext,
            sources: &self.anim_sources,
            params: &self.params,
            char_ext: Some(&d.char_ext),
            joint_lod: Some(&d.joint_lod),
            impostors: Some(&d.impostors),
        };
        validate::all(&tables, Some(&ext), &bad).map(|_| ())
    }

    /// The container holding everything, as it is: not validated, so that tests can make
    /// hostile files with it. [`Builder::write`] and [`Builder::to_bytes`] validate first.
    ///
    /// # Errors
    /// [`FormatError::BadSection`] if a table outgrew what 32-bit indices can address, or the
    /// metadata cannot be put in JSON.
    pub fn to_writer(&self) -> Result<Writer<'_>, FormatError> {
        self.writer(self.derived()?)
    }

    /// The `JLOD` table: `lod_joints` as given, with every joint kept for the characters it
    /// leaves out (none for one whose counts are past what a file may hold). An entry of the
    /// wrong length is written as it is: validation refuses it (rule 42) after the counts it
    /// depends on, in the reader's words.
    fn joint_lod(&self) -> Result<Vec<u32>, FormatError> {
        if self.lod_joints.len() > self.characters.len() {
            return Err(FormatError::BadSection {
                kind: "JLOD".into(),
                what: format!(
                    "{} entries for {} characters",
                    self.lod_joints.len(),
                    self.characters.len()
                ),
            });
        }
        let mut out = Vec::new();
        for (ci, c) in self.characters.iter().enumerate() {
            match self.lod_joints.get(ci).filter(|l| !l.is_empty()) {
                Some(l) => out.extend_from_slice(l),
                // No real bake comes near 2^26 entries (1024 levels of the most joints).
                None if u64::from(c.joint_count) * u64::from(c.lod_count) <= 1 << 26 => {
                    (0..c.lod_count).for_each(|_| out.extend(0..c.joint_count));
                }
                None => {}
            }
        }
        Ok(out)
    }

    /// The `IMPO` and `IMPA` tables: `impostors` and `impostor_anims` as given, the
    /// characters and animations past their ends without impostors.
    fn impostor_tables(&self) -> Result<ImpostorTables, FormatError> {
        for (kind, n, of, m) in [
            (
                "IMPO",
                self.impostors.len(),
                "characters",
                self.characters.len(),
            ),
            (
                "IMPA",
                self.impostor_anims.len(),
                "animations",
                self.anims.len(),
            ),
        ] {
            if n > m {
                return Err(FormatError::BadSection {
                    kind: kind.into(),
                    what: format!("{n} entries for {m} {of}"),
                });
            }
        }
        let mut records = self.impostors.clone();
        records.resize(self.characters.len(), ImpostorRecord::default());
        let mut anims = self.impostor_anims.clone();
        anims.resize(self.anims.len(), ImpostorAnimRecord::default());
        Ok(ImpostorTables {
            records,
            anims,
            pixels: self.impostor_pixels.len() as u64,
        })
    }

    /// The container of the tables and `d`.
    fn writer(&self, d: Derived) -> Result<Writer<'_>, FormatError> {
        let Derived {
            char_ext,
            joint_lod,
            impostors,
            joint_nodes,
            anim_ext,
            info,
            meta,
        } = d;
        let texels: Vec<Cow<[u8]>> = self.texels.iter().map(|c| c.bytes().into()).collect();
        let mut w = Writer::new();
        w.add(kinds::INFO, TABLE_ALIGN, bytemuck::bytes_of(&info).to_vec())?
            .add(kinds::STRS, 1, &self.strings[..])?
            .add(
                kinds::CHAR,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.characters),
            )?
            .add(
                kinds::CEXT,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&char_ext).to_vec(),
            )?
            .add(
                kinds::JOIN,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.joints),
            )?
            .add(
                kinds::JNOD,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&joint_nodes).to_vec(),
            )?
            .add(
                kinds::JLOD,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&joint_lod).to_vec(),
            )?
            .add(
                kinds::IMPO,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&impostors.records).to_vec(),
            )?
            .add(
                kinds::ANIM,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.anims),
            )?
            .add(
                kinds::AEXT,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&anim_ext).to_vec(),
            )?
            .add(
                kinds::AGLT,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.anim_sources),
            )?
            .add(
                kinds::APRM,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.params),
            )?
            .add(
                kinds::IMPA,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&impostors.anims).to_vec(),
            )?
            .add(
                kinds::EVNT,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.events),
            )?
            .add(
                kinds::MOTN,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.motion),
            )?
            .add(
                kinds::BNDS,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.bounds),
            )?
            .add(
                kinds::MESH,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.meshes),
            )?
            .add(
                kinds::IMAG,
                TABLE_ALIGN,
                bytemuck::cast_slice::<_, u8>(&self.images),
            )?
            .add(kinds::META, 1, meta)?
            .add(
                kinds::VERT,
                MESH_ALIGN,
                bytemuck::cast_slice::<VertexRecord, u8>(&self.vertices),
            )?
            .add(
                kinds::INDX,
                MESH_ALIGN,
                bytemuck::cast_slice::<u32, u8>(&self.indices),
            )?
            .add(kinds::PIXL, MESH_ALIGN, &self.pixels[..])?
            .add_chunks(kinds::TEXL, TEXEL_ALIGN, texels)?
            .add(kinds::IMPX, IMPOSTOR_ALIGN, &self.impostor_pixels[..])?;
        Ok(w)
    }

    /// The file's bytes, once [`Builder::validate`] passes (its messages name the file
    /// "(in memory)").
    ///
    /// # Errors
    /// As [`Builder::validate`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, FormatError> {
        let d = self.derived()?;
        self.check(&d, IN_MEMORY)?;
        Ok(self.writer(d)?.to_bytes())
    }

    /// Writes the file to `path` atomically (see [`Writer::write`]) once [`Builder::validate`]
    /// passes; when it does not, nothing is written and a file already at `path` stays as it
    /// was.
    ///
    /// # Errors
    /// As [`Builder::validate`] and [`Writer::write`].
    pub fn write(&self, path: &Path) -> Result<(), FormatError> {
        let d = self.derived()?;
        self.check(&d, &path.display().to_string())?;
        self.writer(d)?.write(path)
    }
}

/// What [`Builder::derived`] makes.
struct Derived {
    char_ext: Vec<CharExtRecord>,
    joint_lod: Vec<u32>,
    impostors: ImpostorTables,
    joint_nodes: Vec<u32>,
    anim_ext: Vec<AnimExtRecord>,
    info: InfoRecord,
    meta: Vec<u8>,
}
