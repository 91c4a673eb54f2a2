//! The fixed-size records of a baked `.throng` file's tables, byte for byte as they are stored
//! (little-endian, `#[repr(C)]`, no implicit padding), and the section kinds that hold them.
//! docs/FORMAT.md describes every field; keep the two in step.

use bytemuck::{Pod, Zeroable};

use super::container::SectionKind;

/// Section kinds of a baked file (the writer's order is in `builder.rs` and docs/FORMAT.md).
pub mod kinds {
    use super::SectionKind;
    /// Scene summary: [`super::InfoRecord`].
    pub const INFO: SectionKind = *b"INFO";
    /// UTF-8 string bytes, referenced by [`super::StrRef`].
    pub const STRS: SectionKind = *b"STRS";
    /// [`super::CharacterRecord`] table.
    pub const CHAR: SectionKind = *b"CHAR";
    /// [`super::JointRecord`] table.
    pub const JOIN: SectionKind = *b"JOIN";
    /// [`super::AnimRecord`] table (baked clips and states).
    pub const ANIM: SectionKind = *b"ANIM";
    /// [`super::EventRecord`] table.
    pub const EVNT: SectionKind = *b"EVNT";
    /// [`super::MotionRecord`] per baked frame of animations with root motion.
    pub const MOTN: SectionKind = *b"MOTN";
    /// [`super::BoundsRecord`] per baked frame.
    pub const BNDS: SectionKind = *b"BNDS";
    /// [`super::MeshRecord`] table: one per mesh part and LOD level.
    pub const MESH: SectionKind = *b"MESH";
    /// [`super::VertexRecord`] data of all meshes.
    pub const VERT: SectionKind = *b"VERT";
    /// `u32` triangle-list indices of all meshes.
    pub const INDX: SectionKind = *b"INDX";
    /// [`super::ImageRecord`] table of base-colour images.
    pub const IMAG: SectionKind = *b"IMAG";
    /// RGBA8 pixel bytes of all images.
    pub const PIXL: SectionKind = *b"PIXL";
    /// The bone-matrix texels, linear.
    pub const TEXL: SectionKind = *b"TEXL";
    /// Bake metadata, UTF-8 JSON.
    pub const META: SectionKind = *b"META";
    /// Format 1.1: the glTF node of each joint, one `u32` per `JOIN` record ([`super::NONE`]
    /// for none).
    pub const JNOD: SectionKind = *b"JNOD";
    /// Format 1.1: [`super::AnimExtRecord`] per `ANIM` record: ground speed, foot slide and
    /// source.
    pub const AEXT: SectionKind = *b"AEXT";
    /// Format 1.1: `u32` glTF animation indices that clips came from.
    pub const AGLT: SectionKind = *b"AGLT";
    /// Format 1.1: [`super::ParamRecord`]s, the parameter values states were baked at.
    pub const APRM: SectionKind = *b"APRM";
    /// Format 1.2: [`super::CharExtRecord`] per `CHAR` record: the facing turn baked in.
    pub const CEXT: SectionKind = *b"CEXT";
    /// Format 1.3: skeleton LOD, one `u32` per joint per LOD level of each character
    /// (character by character, LOD-major): the joint, within the character, that the joint
    /// is drawn with at that level — itself, or its nearest kept ancestor.
    pub const JLOD: SectionKind = *b"JLOD";
    /// Format 1.4: [`super::ImpostorRecord`] per `CHAR` record: the character's impostor atlas.
    pub const IMPO: SectionKind = *b"IMPO";
    /// Format 1.4: [`super::ImpostorAnimRecord`] per `ANIM` record: the animation's impostor
    /// frames.
    pub const IMPA: SectionKind = *b"IMPA";
    /// Format 1.4: RGBA8 impostor pixels of all characters (docs/FORMAT.md "Impostors").
    pub const IMPX: SectionKind = *b"IMPX";
}

/// Texels per joint matrix in the bone-matrix texture: the three rows of the affine 3×4
/// matrix, one RGBA texel each (docs/FORMAT.md). Every texel offset of a matrix is a
/// multiple of it; reader, baker, renderer and bench all count with this one constant.
pub const TEXELS_PER_MATRIX: u32 = 3;

/// Most joints a character may have in a file: vertex joint indices are 16-bit (0..=65535),
/// so 65536 joints are addressable. Reader, baker, renderer and bench share this one limit;
/// the animation core's own, `anim::MAX_SKELETON_JOINTS`, is at most this.
pub const MAX_JOINTS: u32 = 65_536;

/// "None" in `u32` index fields.
pub const NONE: u32 = u32::MAX;

/// A string in the `STRS` section: `len` bytes of UTF-8 from byte `offset`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct StrRef {
    /// Byte offset in `STRS`.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

/// Texel formats of the `TEXL` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFormat {
    /// Four little-endian IEEE-754 binary32 per texel (16 bytes): `Rgba32Float`.
    Rgba32F,
    /// Four little-endian IEEE-754 binary16 per texel (8 bytes): `Rgba16Float`.
    Rgba16F,
}

impl TexelFormat {
    /// The code stored in [`InfoRecord::texel_format`].
    pub fn code(self) -> u32 {
        match self {
            Self::Rgba32F => 1,
            Self::Rgba16F => 2,
        }
    }

    /// The format of a stored code.
    pub fn from_code(code: u32) -> Option<Self> {
        match code {
            1 => Some(Self::Rgba32F),
            2 => Some(Self::Rgba16F),
            _ => None,
        }
    }

    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        match self {
            Self::Rgba32F => 16,
            Self::Rgba16F => 8,
        }
    }

    /// Its name in messages and in `throng inspect`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rgba32F => "rgba32f",
            Self::Rgba16F => "rgba16f",
        }
    }
}

/// The `INFO` section (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct InfoRecord {
    /// [`TexelFormat::code`].
    pub texel_format: u32,
    /// Most joints of any character (each frame of it takes `3 × joints` texels).
    pub max_joints: u32,
    /// Texels in `TEXL`; its size is this times the texel size.
    pub texel_count: u64,
    /// Reserved, zero.
    pub reserved: [u32; 4],
}

/// One character (48 bytes): a skeleton, its baked animations and its meshes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CharacterRecord {
    /// Name from the recipe.
    pub name: StrRef,
    /// First joint in `JOIN` and number of joints (at least 1).
    pub first_joint: u32,
    /// Number of joints.
    pub joint_count: u32,
    /// First animation in `ANIM` and number of animations.
    pub first_anim: u32,
    /// Number of animations.
    pub anim_count: u32,
    /// First mesh in `MESH` (`part_count × lod_count` records, LOD-major: all parts of LOD 0,
    /// then LOD 1...).
    pub first_mesh: u32,
    /// Mesh parts per LOD level.
    pub part_count: u32,
    /// LOD levels (at least 1 when there are parts).
    pub lod_count: u32,
    /// Height of the character in its rest pose, model units (> 0): the y extent of the
    /// skinned mesh (or its largest extent, for a mesh lying flat). Errors are reported as
    /// fractions of it.
    pub height: f32,
    /// Reserved, zero.
    pub reserved: [u32; 2],
}

/// One joint (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct JointRecord {
    /// Joint name.
    pub name: StrRef,
    /// Index of the parent within the character (`< ` this joint's index), or -1 for a root.
    pub parent: i32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Inverse bind matrix, column-major: the joint's world matrix in a frame is its skinning
    /// matrix times the inverse of this.
    pub inverse_bind: [f32; 16],
}

/// Animation kinds.
pub mod anim_kind {
    /// A clip of the model, as sampled (root motion removed when the character extracts it).
    pub const CLIP: u32 = 0;
    /// A state of the character's state machine: its blend tree, with IK, at fixed parameters.
    pub const STATE: u32 = 1;
}

/// Animation flag bits.
pub mod anim_flags {
    /// The animation loops: frame `frame_count` is frame 0 again.
    pub const LOOPING: u32 = 1;
    /// `MOTN` holds one record per frame, from `first_motion`.
    pub const ROOT_MOTION: u32 = 2;
}

/// One baked animation (96 bytes): `frame_count` frames of `joint_count × 3` texels each.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct AnimRecord {
    /// The clip or state name.
    pub name: StrRef,
    /// The character it belongs to.
    pub character: u32,
    /// [`anim_kind`].
    pub kind: u32,
    /// [`anim_flags`].
    pub flags: u32,
    /// Frames (at least 1).
    pub frame_count: u32,
    /// Texel index of frame 0, joint 0, row 0.
    pub first_texel: u64,
    /// Length in seconds (>= 0): a looping animation repeats after it.
    pub duration: f32,
    /// Frames per second: `frame_count / duration` when looping, `(frame_count - 1) /
    /// duration` otherwise; 0 when that divides by zero (a single clamped frame, a zero
    /// duration).
    pub fps: f32,
    /// For a state baked at a parameter value: the parameter's name (empty otherwise).
    pub param: StrRef,
    /// That parameter's value.
    pub param_value: f32,
    /// First event in `EVNT` and count.
    pub first_event: u32,
    /// Number of events.
    pub event_count: u32,
    /// First record in `MOTN` (`frame_count` of them) when flagged.
    pub first_motion: u32,
    /// Root motion over one whole cycle: x, z (model units) and yaw (radians).
    pub cycle_motion: [f32; 3],
    /// First record in `BNDS` (`frame_count` of them).
    pub first_bounds: u32,
    /// Largest distance, model units, between a vertex skinned at a mid-frame time and the
    /// same vertex skinned with the linear interpolation of the two neighbouring frames.
    pub interpolation_error: f32,
    /// Largest distance, model units, between a vertex skinned with the exact matrices and with
    /// the stored texels (0 for `rgba32f`).
    pub precision_error: f32,
    /// Reserved, zero.
    pub reserved: [u32; 2],
}

/// [`AnimExtRecord::flags`] bits.
pub mod ext_flags {
    /// `ground_speed` holds a value; without it the speed is unknown (and the field is 0).
    pub const GROUND_SPEED: u32 = 1;
    /// `foot_slide` holds a value; without it the slip was not measured (and the field is 0).
    pub const FOOT_SLIDE: u32 = 2;
    /// The baker locked the planted feet to `ground_speed` (which is then set): the legs of
    /// its frames differ from its source's poses by a leg solve (docs/BAKING.md, "Foot
    /// locking").
    pub const FEET_LOCKED: u32 = 4;
    /// Every bit defined.
    pub const ALL: u32 = GROUND_SPEED | FOOT_SLIDE | FEET_LOCKED;
}

/// Format 1.1: what format 1.0's [`AnimRecord`] lacks, one per animation, in the same order
/// (32 bytes): how fast it moves over the ground, how much its planted feet slip at that speed,
/// and where it came from.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct AnimExtRecord {
    /// [`ext_flags`]: which of the two speeds are present, and whether the feet were locked.
    pub flags: u32,
    /// Ground speed, metres per second (lengths are in metres after the
    /// character's size factor), finite and >= 0 when [`ext_flags::GROUND_SPEED`] is set.
    pub ground_speed: f32,
    /// Residual slip of the planted foot when an agent moves at `ground_speed`, model units per
    /// second, finite and >= 0 when [`ext_flags::FOOT_SLIDE`] is set.
    pub foot_slide: f32,
    /// For a state: its index among its character's states (the character file's
    /// `[states.NAME]` tables sorted by name). [`NONE`] for a clip.
    pub state: u32,
    /// For a clip: its first glTF animation index in `AGLT` (0 when `source_count` is 0).
    pub first_source: u32,
    /// The number of glTF animations the clip was made from (0 for a state, and for a clip
    /// whose source is unknown or procedural).
    pub source_count: u32,
    /// For a state: its first parameter value in `APRM` (0 when `param_count` is 0).
    pub first_param: u32,
    /// The number of parameters the state was baked at (every parameter of its character's
    /// state machine; 0 for a clip).
    pub param_count: u32,
}

/// Format 1.1: one parameter value a state was baked at (12 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ParamRecord {
    /// The parameter's name.
    pub name: StrRef,
    /// Its value (bools and triggers: 0 or 1), finite.
    pub value: f32,
}

/// Format 1.2: what format 1.0's [`CharacterRecord`] lacks, one per character, in the same
/// order (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CharExtRecord {
    /// Quarter turns about +y (0 to 3, each +90°: model (x, z) to (z, −x)) the baker applied
    /// to every skinning matrix and `BNDS` box of the character, so that it walks along +z;
    /// 0 when it kept its authored facing.
    pub facing_turns: u32,
    /// Reserved, zero.
    pub reserved: [u32; 3],
}

/// Most quarter turns [`CharExtRecord::facing_turns`] may hold (four would be none).
pub const MAX_FACING_TURNS: u32 = 3;

/// `v` (a point or direction in model space) turned by `k` quarter turns about +y, each
/// mapping (x, z) to (z, −x): the rotation by `k × 90°` about +y, exactly (a permutation with
/// a sign change). The one quarter turn of the format's `facing_turns`.
pub fn turn_vector(v: [f32; 3], k: u8) -> [f32; 3] {
    (0..k % 4).fold(v, |[x, y, z], _| [z, y, -x])
}

/// The skinning matrix `m` (column-major, 16 values) turned by `k` quarter turns about +y
/// ([`turn_vector`]): the rotation multiplies `m` on the left, turning each column, so the
/// result is exact. What the baker does to the matrices of a character it turns, and what a
/// runtime that makes matrices itself (the bench's live baseline) does to match.
pub fn turn_matrix(m: [f32; 16], k: u8) -> [f32; 16] {
    let mut m = m;
    for col in m.chunks_exact_mut(4) {
        let [x, y, z] = turn_vector([col[0], col[1], col[2]], k);
        col[..3].copy_from_slice(&[x, y, z]);
    }
    m
}

/// An event marker (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct EventRecord {
    /// The animation it belongs to.
    pub anim: u32,
    /// Event name.
    pub name: StrRef,
    /// Time in the animation, seconds, in [0, duration].
    pub time: f32,
}

/// Root motion at one frame (12 bytes), relative to frame 0: position on the ground plane and
/// heading, in the character's frame at frame 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MotionRecord {
    /// Model x, model units.
    pub x: f32,
    /// Model z, model units.
    pub z: f32,
    /// Turn about +y, radians.
    pub yaw: f32,
}

/// Bounds of the skinned mesh (all parts, LOD 0) at one frame (24 bytes), model space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BoundsRecord {
    /// Smallest x, y, z.
    pub min: [f32; 3],
    /// Largest x, y, z.
    pub max: [f32; 3],
}

/// Mesh flag bits.
pub mod mesh_flags {
    /// Every vertex is bound 100% to one joint (a rigid part).
    pub const RIGID: u32 = 1;
}

/// One mesh part at one LOD level (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MeshRecord {
    /// Part name.
    pub name: StrRef,
    /// The character it belongs to.
    pub character: u32,
    /// Part index within the character.
    pub part: u32,
    /// LOD level (0 = full detail).
    pub lod: u32,
    /// [`mesh_flags`].
    pub flags: u32,
    /// Requested triangle ratio, in (0, 1].
    pub ratio: f32,
    /// Geometric error of the simplification, model units (0 for LOD 0).
    pub error: f32,
    /// First vertex in `VERT` and count.
    pub first_vertex: u32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// First index in `INDX` and count (a multiple of 3); indices are relative to
    /// `first_vertex`.
    pub first_index: u32,
    /// Number of indices.
    pub index_count: u32,
    /// Linear RGBA base colour factor.
    pub base_color: [f32; 4],
    /// Base-colour image in `IMAG`, or [`NONE`].
    pub image: u32,
    /// Reserved, zero.
    pub reserved: [u32; 3],
}

/// One vertex (56 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VertexRecord {
    /// Bind-pose position.
    pub position: [f32; 3],
    /// Bind-pose unit normal.
    pub normal: [f32; 3],
    /// Texture coordinate (glTF convention: v down).
    pub uv: [f32; 2],
    /// Four joint indices within the character.
    pub joints: [u16; 4],
    /// Their weights, summing to 1.
    pub weights: [f32; 4],
}

/// One RGBA8 image (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ImageRecord {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Byte offset of its first pixel in `PIXL`; rows top first, `width × 4` bytes each, sRGB.
    pub offset: u64,
}

/// Format 1.4: a character's animated impostors (docs/FORMAT.md "Impostors"): pictures of it
/// from `views × views` directions on a hemi-octahedral grid ([`crate::format::impostor`]),
/// one `cell`-pixel square per view, for each of `frame_count` impostor frames. A frame is
/// two RGBA8 planes of `(views·cell)²` pixels, colour then normal-depth, stored from byte
/// `first_pixel` of `IMPX`, frame after frame. `views` 0: the character has none.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ImpostorRecord {
    /// Views along each side of the hemi-octahedral grid: odd, 3 to 33; 0 for none.
    pub views: u32,
    /// Side of one view's square, pixels (1 to 256; 0 for none).
    pub cell: u32,
    /// Impostor frames of the character (all its animations').
    pub frame_count: u32,
    /// The LOD level whose mesh the pictures were drawn from.
    pub level: u32,
    /// Centre of every view's square, model units, in the baked frame (after the facing turn).
    pub centre: [f32; 3],
    /// Half the side of a view's square, model units (> 0): every baked frame's bounds fit in
    /// the sphere of this radius about `centre`.
    pub radius: f32,
    /// Byte offset of the character's first frame in `IMPX`.
    pub first_pixel: u64,
    /// Reserved, zero.
    pub reserved: [u32; 2],
}

/// Format 1.4: the impostor frames of one animation, `frame_count` of its character's from
/// `first_frame`. Frame k shows the animation at `k/frame_count` of its duration when it
/// loops, `k/(frame_count − 1)` when it is clamped. `frame_count` 0: its character has none.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ImpostorAnimRecord {
    /// First frame, among its character's impostor frames.
    pub first_frame: u32,
    /// Frames (at least 1 for a looping animation, 2 for a clamped one, where its character
    /// has impostors).
    pub frame_count: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes_are_the_documented_ones() {
        use std::mem::size_of;
        assert_eq!(size_of::<StrRef>(), 8);
        assert_eq!(size_of::<InfoRecord>(), 32);
        assert_eq!(size_of::<CharacterRecord>(), 48);
        assert_eq!(size_of::<JointRecord>(), 80);
        assert_eq!(size_of::<AnimRecord>(), 96);
        assert_eq!(size_of::<EventRecord>(), 16);
        assert_eq!(size_of::<MotionRecord>(), 12);
        assert_eq!(size_of::<BoundsRecord>(), 24);
        assert_eq!(size_of::<MeshRecord>(), 80);
        assert_eq!(size_of::<VertexRecord>(), 56);
        assert_eq!(size_of::<ImageRecord>(), 16);
        assert_eq!(size_of::<AnimExtRecord>(), 32);
        assert_eq!(size_of::<ParamRecord>(), 12);
        assert_eq!(size_of::<CharExtRecord>(), 16);
        assert_eq!(size_of::<ImpostorRecord>(), 48);
        assert_eq!(size_of::<ImpostorAnimRecord>(), 8);
    }

    #[test]
    fn a_quarter_turn_maps_x_z_to_z_minus_x() {
        // A translation to (1, 2, 3): turned once it is at (3, 2, -1); four turns are none.
        let mut m = [0.0; 16];
        (m[0], m[5], m[10], m[15]) = (1.0, 1.0, 1.0, 1.0);
        (m[12], m[13], m[14]) = (1.0, 2.0, 3.0);
        let t = turn_matrix(m, 1);
        assert_eq!((t[12], t[13], t[14]), (3.0, 2.0, -1.0));
        assert_eq!(turn_matrix(turn_matrix(m, 3), 1), m);
        assert_eq!(turn_matrix(m, 4), m);
    }
}
