//! What a bake reports about what it made: per character and animation, the counts, rates and
//! measured errors `throng bake` prints and tests check.

use crate::format::TexelFormat;

/// What was baked for one animation.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimReport {
    /// Clip or state name.
    pub name: String,
    /// `clip` or `state`.
    pub kind: &'static str,
    /// For a state baked at a parameter value: the parameter and value.
    pub param: Option<(String, f32)>,
    /// Duration, seconds.
    pub duration: f32,
    /// Frames.
    pub frames: u32,
    /// Frames per second.
    pub fps: f32,
    /// Whether the rate was chosen by `fps = "auto"`.
    pub auto_rate: bool,
    /// Whether it loops.
    pub looping: bool,
    /// Largest mid-frame interpolation error, metres (a bound; see `bake::measure`).
    pub interpolation_error: f32,
    /// Largest error f16 texels make, metres (a bound), whatever the precision chosen;
    /// `None` when the recipe asks for f32 (it is not measured).
    pub f16_error: Option<f32>,
    /// Events stored.
    pub events: usize,
    /// Whether root motion is stored.
    pub root_motion: bool,
    /// The ground speed it declares, metres per second: its root motion over a cycle divided
    /// by the cycle's length, else the value of the `speed` parameter it was baked at (model
    /// units per second) times the character's factor along +z; `None` when neither.
    pub declared_speed: Option<f32>,
    /// A note on something approximate (a state whose layers do not repeat with it).
    pub note: Option<String>,
}

/// What was baked for one character.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterReport {
    /// Name.
    pub name: String,
    /// Joints.
    pub joints: usize,
    /// Height in the rest pose, metres (its scale applied; see docs/BAKING.md).
    pub height: f32,
    /// Triangles per LOD level (all parts).
    pub lod_triangles: Vec<usize>,
    /// Largest simplification error per LOD level, metres.
    pub lod_errors: Vec<f32>,
    /// Animations.
    pub anims: Vec<AnimReport>,
    /// Import warnings and notes.
    pub warnings: Vec<String>,
}

/// What a bake made.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeReport {
    /// Characters.
    pub characters: Vec<CharacterReport>,
    /// Texel format written.
    pub format: TexelFormat,
    /// Why that format.
    pub format_reason: String,
    /// Texels written.
    pub texels: u64,
}
