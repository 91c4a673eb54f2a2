//! What a bake reports about what it made: per character and animation, the counts, rates and
//! measured errors `throng bake` prints and tests check.

pub use super::impostor::ImpostorReport;
use crate::format::TexelFormat;

/// A length in metres as `throng bake` and `throng inspect` print it, in the unit that suits
/// its size: millimetres under 1 cm (`0.42 mm`, `8.7 mm`), centimetres under 1 m (`3.3 cm`),
/// else metres (`1.83 m`); `0 m` for 0. Rounded to 0.01 mm under 1 mm, 0.1 mm under 1 cm,
/// 1 mm under 1 m and 1 cm above: the errors and distances it prints are bounds and measures,
/// of which two or three digits say enough.
pub fn length(metres: f32) -> String {
    let size = metres.abs();
    if metres == 0.0 {
        "0 m".into()
    } else if size < 0.001 {
        format!("{:.2} mm", metres * 1000.0)
    } else if size < 0.01 {
        format!("{:.1} mm", metres * 1000.0)
    } else if size < 1.0 {
        format!("{:.1} cm", metres * 100.0)
    } else {
        // Past f32's range of lengths worth reading (and NaN) too.
        format!("{metres:.2} m")
    }
}

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
    /// by the cycle's length, else the value of the `speed` parameter it was baked at (the
    /// model's units per second) times the character's factor along +z; `None` when neither.
    pub declared_speed: Option<f32>,
    /// A note on something approximate (a state whose layers do not repeat with it, feet that
    /// slide along another axis than forward).
    pub note: Option<String>,
    /// Ground speed measured from the planted feet (`anim::gait`) for a looping animation
    /// without root motion: metres per second along the model's +z, the axis a crowd moves
    /// agents along (> 0). `None` when not measured or when it has no ground speed.
    pub measured_speed: Option<f32>,
    /// With `measured_speed`: the residual slip of the planted feet when the character moves
    /// at that speed, metres per second (RMS over planted samples, ≥ 0).
    pub foot_slide: Option<f32>,
    /// Why a looping animation has no ground speed, neither declared nor measured (a foot
    /// never lifts, is not planted long enough, the feet do not slide back); `None` for one
    /// that has a ground speed and for one played once. The file's metadata keeps it
    /// (`no_ground_speed`, docs/FORMAT.md).
    pub no_ground_speed: Option<String>,
    /// For a clip: how far its last pose is from its first, every point of the mesh, with any
    /// removed root drift taken out, as a fraction of the height (≥ 0; it loops when this is
    /// within `LOOP_TOLERANCE`, 0.01, or small next to its motion, `loop_seam_frames`, unless
    /// the recipe says). `None` for a state.
    pub loop_seam: Option<f32>,
    /// For a clip whose seam is over `LOOP_TOLERANCE` and that the recipe does not call `once`
    /// or `loop`: its worst joint's seam in frames of that joint's mean motion per frame (≥ 0;
    /// it loops when this is at most `LOOP_FRAMES`, 1, and the seam within `LOOP_CAP`, 0.05).
    pub loop_seam_frames: Option<f32>,
    /// Horizontal root drift removed from the frames of a looping clip, metres over the clip
    /// (the length of the hips' travel); `None` when nothing was removed.
    pub root_drift: Option<f32>,
    /// For a cycle whose planted feet were locked to its measured ground speed (`bake::lock`):
    /// the largest horizontal correction given to a foot, metres; `None` when none was.
    pub foot_lock: Option<f32>,
}

impl AnimReport {
    /// The measured figures as short texts for the bake report's `extra` column: ground speed
    /// and foot slide (metres per second), loop seam (% of the height), the largest foot
    /// lock and the root drift removed ([`length`]s).
    pub fn figures(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(v), Some(slide)) = (self.measured_speed, self.foot_slide) {
            out.push(format!(
                "ground speed {v:.3} m/s (feet), foot slide {slide:.3} m/s"
            ));
        }
        if let Some(seam) = self.loop_seam {
            out.push(match self.loop_seam_frames {
                Some(f) => format!("seam {:.2}% ({f:.2} frames of its motion)", seam * 100.0),
                None => format!("seam {:.2}%", seam * 100.0),
            });
        }
        if let Some(d) = self.foot_lock {
            out.push(format!("feet locked (up to {})", length(d)));
        }
        if let Some(d) = self.root_drift {
            out.push(format!("root drift {} removed", length(d)));
        }
        out
    }
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
    /// Joints each LOD level skins with (docs/BAKING.md, "Skeleton LOD"): all of them at
    /// LOD 0 and when the recipe turns skeleton LOD off, fewer where small joints collapsed
    /// onto their ancestors. Empty for a character without meshes.
    pub lod_joints: Vec<usize>,
    /// Animations.
    pub anims: Vec<AnimReport>,
    /// The joints the baker measures ground speed on and locks to the ground (its feet,
    /// `anim::gait::find_feet_skinned`), by name, in joint order; empty when it has none.
    pub feet: Vec<String>,
    /// Import warnings and notes.
    pub warnings: Vec<String>,
    /// Quarter turns about +y (0 to 3, each +90°: model (x, z) to (z, −x)) the baker gave the
    /// character so that it walks along +z, the crowd's forward (docs/BAKING.md, "Facing");
    /// its texels are those of the model turned so.
    pub quarter_turns: u8,
    /// Its animated impostors (format 1.4; docs/BAKING.md, "Recipes", `[impostors]`): `None`
    /// when the recipe turns them off or it has no meshes or animations.
    pub impostors: Option<ImpostorReport>,
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

#[cfg(test)]
mod tests {
    use super::length;

    #[test]
    fn lengths_print_in_the_unit_that_suits_them() {
        for (metres, text) in [
            (0.0, "0 m"),
            (0.000_42, "0.42 mm"),
            (0.008_71, "8.7 mm"),
            (0.0329, "3.3 cm"),
            (0.865, "86.5 cm"),
            (1.832, "1.83 m"),
            (-0.0329, "-3.3 cm"),
        ] {
            assert_eq!(length(metres), text, "{metres} m");
        }
    }
}
