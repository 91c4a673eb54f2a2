//! Variants of the mannequin made the way Mixamo-style tools export characters: Mixamo's
//! `mixamorig:` joint names (with its Spine2 and toe-base joints), centimetres under a 0.01 scale
//! on an `Armature` node, end joints that move no vertices, a run whose last key misses its first
//! in one hand, hips that drift, walks and runs with root motion or in place at a chosen speed,
//! a walk that lifts its feet little, a run that pumps its arms, and a character that faces −z.
//! They are test characters for loop detection, ground speed, feet, facing and units, made by
//! the project's own generator; [`Variant::default`] is the mannequin itself, byte for byte.
//!
//! Every trait keeps the character the same size and the same motion in metres: a variant
//! differs from the mannequin only in what its trait says.

use glam::{Quat, Vec2, Vec3};

use super::rig::{JOINTS, idx};

/// Walking speed of the mannequin's `walk` clip (played in place), metres per second.
pub const WALK_SPEED: f32 = 1.2;
/// Running speed of the mannequin's `run` clip (played in place), metres per second.
pub const RUN_SPEED: f32 = 3.0;
/// How high the mannequin's walk lifts the ankle at mid-swing above its path from toe-off to
/// heel strike, metres.
pub const WALK_STEP_HEIGHT: f32 = 0.1;
/// How far the mannequin's run swings each upper arm forward and back from its mean, radians.
pub const RUN_ARM_SWING: f32 = 0.55;

/// The prefix Mixamo puts before every joint name.
pub const MIXAMO_PREFIX: &str = "mixamorig:";

/// Mixamo's names of the mannequin's 19 joints, in the mannequin's joint order (without
/// [`MIXAMO_PREFIX`]). The mannequin's chest is Mixamo's Spine1; Mixamo's Spine2 and toe bases
/// are joints the mannequin lacks, added by [`Naming::Mixamo`].
pub const MIXAMO_NAMES: [&str; 19] = [
    "Hips",
    "Spine",
    "Spine1",
    "Neck",
    "Head",
    "LeftShoulder",
    "LeftArm",
    "LeftForeArm",
    "LeftHand",
    "RightShoulder",
    "RightArm",
    "RightForeArm",
    "RightHand",
    "LeftUpLeg",
    "LeftLeg",
    "LeftFoot",
    "RightUpLeg",
    "RightLeg",
    "RightFoot",
];

/// The seam of the `mixamo-seam` variant, in frames of the hand's motion: a fifth of a frame,
/// a pop nobody sees (issue 50's run: 3.6 cm against 17 to 21 cm per frame).
pub const SMALL_SEAM: f32 = 0.2;

/// The seam of the `mixamo-seam-large` variant, in frames of the hand's motion: more than a
/// whole frame's motion, a jump at the wrap that a clip playing once should keep.
pub const LARGE_SEAM: f32 = 1.5;

/// The run's arm swing in the seam variants, radians: a sprinter's arm pump, as fast Mixamo
/// runs have. It moves the left hand 10.8 cm per frame (the mannequin's 0.55 moves it 5.6 cm),
/// so a fifth of a frame's motion is 2.2 cm, 1.2% of the height (1.7% over the hand's mesh),
/// more than a fixed 1%, as in issue 50's run (2.1%).
pub const SEAM_ARM_SWING: f32 = 1.2;

/// How high the `mixamo-low-walk` variant's swing lifts the ankle, metres: 3 cm, a walk that
/// clears the floor by little, as people and Mixamo's walks do.
pub const LOW_STEP: f32 = 0.03;

/// The sideways hips drift of the `mixamo-drift` variant, metres per cycle along +x: 5 cm, a
/// few times the 1.8 mm the baker leaves in (`bake::plan::DRIFT_MIN`) and under the 18 mm loop
/// tolerance, as hand-cleaned captures drift.
pub const DRIFT: f32 = 0.05;

/// The named variants `throng gen-mannequin --variant NAME` writes ([`Variant::named`]), with
/// what each one is.
pub const VARIANTS: [(&str, &str); 8] = [
    (
        "mannequin",
        "the built-in mannequin, byte for byte assets/mannequin.glb",
    ),
    (
        "mixamo",
        "Mixamo's rig: mixamorig: names (with Spine2 and toe bases), centimetres under a 0.01 scale on an Armature node, end joints (head top, toe ends) that move no vertices",
    ),
    (
        "mixamo-seam",
        "mixamo, its run pumping the arms (1.2 rad swing) and its last key missing its first in the left hand by 0.2 of that hand's motion per frame (a loop to anyone watching)",
    ),
    (
        "mixamo-seam-large",
        "mixamo-seam with the left hand 1.5 frames of its motion off (a jump: plays once)",
    ),
    (
        "mixamo-low-walk",
        "mixamo, its walk's swing lifting the ankle 3 cm (the mannequin's: 10 cm), a foot clearing the floor by little",
    ),
    (
        "mixamo-drift",
        "mixamo, its hips drifting 5 cm sideways (+x) over every walk and run cycle",
    ),
    (
        "mixamo-root-motion",
        "mixamo, its walk and run travelling forward on the hips (root motion) instead of in place",
    ),
    (
        "mixamo-back",
        "mixamo, facing and walking along -z (turned 180 degrees)",
    ),
];

/// How the joints are named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// The mannequin's own names (`hips`, `thigh_l` ...).
    #[default]
    Mannequin,
    /// Mixamo's: [`MIXAMO_PREFIX`] and [`MIXAMO_NAMES`], plus Mixamo's `Spine2` (between the
    /// mannequin's chest and its neck and shoulders) and `LeftToeBase`/`RightToeBase` (at the
    /// ball of the foot), which carry the upper chest's and the toes' vertices and are never
    /// keyed, so the body moves exactly as the mannequin's.
    Mixamo,
}

/// A variant of the mannequin: which traits of Mixamo-style exports it has. The default is the
/// mannequin itself ([`super::generate_glb`]'s bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variant {
    /// Joint names (default: the mannequin's).
    pub naming: Naming,
    /// Lengths authored in centimetres (positions, joint translations, inverse binds, hips
    /// keys) under a 0.01 scale on a root `Armature` node, so the model is the same size in
    /// metres. Default: metres, no `Armature` node.
    pub centimetres: bool,
    /// Leaf end joints that move no vertices, in the skin as exporters put them: one at the
    /// top of the head and one at each toe tip (`HeadTop_End`, `LeftToe_End`, `RightToe_End`;
    /// `head_end`, `toe_end_l`, `toe_end_r` with the mannequin's names). Default: none.
    pub end_joints: bool,
    /// The whole character turned 180° about +Y in its data (mesh, joints, keys), so it faces
    /// and walks along −z. Default: facing +z.
    pub facing_back: bool,
    /// Walk and run in place (default, as Mixamo's "In Place" clips: no root motion, a planted
    /// foot slides back at the clip's speed), or, when false, travelling forward on the hips'
    /// translation at that speed with planted feet still in model space.
    pub in_place: bool,
    /// The walk's authored speed, metres per second, 0.8 to 1.6 (default [`WALK_SPEED`]).
    pub walk_speed: f32,
    /// The run's authored speed, metres per second, 2 to 4 (default [`RUN_SPEED`]).
    pub run_speed: f32,
    /// How high the walk's swing lifts the ankle at mid-swing, above its path from toe-off
    /// to heel strike, metres, 0 to 0.15 (default [`WALK_STEP_HEIGHT`], 0.1).
    pub walk_step_height: f32,
    /// How far the run swings each upper arm forward and back from its mean, radians, 0.2 to
    /// 1.5 (default [`RUN_ARM_SWING`], 0.55).
    pub run_arm_swing: f32,
    /// How far the run's last key leaves the left hand from its first, in frames of that
    /// hand's motion: its mean model-space displacement between consecutive keys over the
    /// seamless cycle, before any drift or root motion. 0 to 10; 0 (default) is seamless. Made
    /// by turning the left upper arm about its swing axis at the last key alone, as a cut that
    /// does not match its start leaves one limb off.
    pub run_seam: f32,
    /// How far the hips (and with them the whole body) drift over each walk and run cycle,
    /// (x, z) metres in the character's own frame (+z forward), growing linearly from the first
    /// key to the last; each component within ±1 m. Default none.
    pub hips_drift: Vec2,
}

impl Default for Variant {
    fn default() -> Self {
        Self {
            naming: Naming::Mannequin,
            centimetres: false,
            end_joints: false,
            facing_back: false,
            in_place: true,
            walk_speed: WALK_SPEED,
            run_speed: RUN_SPEED,
            walk_step_height: WALK_STEP_HEIGHT,
            run_arm_swing: RUN_ARM_SWING,
            run_seam: 0.0,
            hips_drift: Vec2::ZERO,
        }
    }
}

/// Why a variant cannot be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VariantError {
    /// No variant has that name.
    #[error("mannequin variant: no variant '{name}'; variants are: {list}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are, comma-separated.
        list: String,
    },
    /// A number is outside the range the generator can make.
    #[error("mannequin variant: {what} is {value}, outside {min} to {max} {unit}")]
    OutOfRange {
        /// Which field (`walk_speed` ...).
        what: &'static str,
        /// Its value.
        value: f32,
        /// The smallest allowed.
        min: f32,
        /// The largest allowed.
        max: f32,
        /// Its unit.
        unit: &'static str,
    },
}

impl Variant {
    /// Mixamo's rig: [`Naming::Mixamo`], centimetres and end joints; the mannequin's clips.
    pub fn mixamo() -> Self {
        Self {
            naming: Naming::Mixamo,
            centimetres: true,
            end_joints: true,
            ..Self::default()
        }
    }

    /// The variant called `name` (one of [`VARIANTS`]).
    ///
    /// # Errors
    /// [`VariantError::Unknown`] for any other name.
    pub fn named(name: &str) -> Result<Self, VariantError> {
        let mixamo = Self::mixamo();
        Ok(match name {
            "mannequin" => Self::default(),
            "mixamo" => mixamo,
            "mixamo-seam" => Self {
                run_seam: SMALL_SEAM,
                run_arm_swing: SEAM_ARM_SWING,
                ..mixamo
            },
            "mixamo-seam-large" => Self {
                run_seam: LARGE_SEAM,
                run_arm_swing: SEAM_ARM_SWING,
                ..mixamo
            },
            "mixamo-low-walk" => Self {
                walk_step_height: LOW_STEP,
                ..mixamo
            },
            "mixamo-drift" => Self {
                hips_drift: Vec2::new(DRIFT, 0.0),
                ..mixamo
            },
            "mixamo-root-motion" => Self {
                in_place: false,
                ..mixamo
            },
            "mixamo-back" => Self {
                facing_back: true,
                ..mixamo
            },
            _ => {
                return Err(VariantError::Unknown {
                    name: name.to_string(),
                    list: VARIANTS.map(|(n, _)| n).join(", "),
                });
            }
        })
    }

    /// Checks the numbers against the ranges the generator can make: speeds whose strides the
    /// legs reach without crouching low, a seam the upper arm's turn can make, a drift that
    /// keeps the character near its place.
    ///
    /// # Errors
    /// [`VariantError::OutOfRange`] naming the first field out of range (or not finite).
    pub fn check(&self) -> Result<(), VariantError> {
        let fields = [
            ("walk_speed", self.walk_speed, 0.8, 1.6, "m/s"),
            ("run_speed", self.run_speed, 2.0, 4.0, "m/s"),
            ("walk_step_height", self.walk_step_height, 0.0, 0.15, "m"),
            ("run_arm_swing", self.run_arm_swing, 0.2, 1.5, "rad"),
            (
                "run_seam",
                self.run_seam,
                0.0,
                10.0,
                "frames of the hand's motion",
            ),
            ("hips_drift.x", self.hips_drift.x, -1.0, 1.0, "m"),
            ("hips_drift.z", self.hips_drift.y, -1.0, 1.0, "m"),
        ];
        for (what, value, min, max, unit) in fields {
            // NaN is in no range, so it is refused too.
            if !(min..=max).contains(&value) {
                return Err(VariantError::OutOfRange {
                    what,
                    value,
                    min,
                    max,
                    unit,
                });
            }
        }
        Ok(())
    }

    /// File units per metre: 100 in centimetres, else 1.
    pub(super) fn unit(&self) -> f32 {
        if self.centimetres { 100.0 } else { 1.0 }
    }

    /// A direction of the mannequin's frame in the file's: turned 180° about +Y when facing
    /// back.
    pub(super) fn turn(&self, v: Vec3) -> Vec3 {
        if self.facing_back {
            Vec3::new(-v.x, v.y, -v.z)
        } else {
            v
        }
    }

    /// A point or offset of the mannequin's frame (metres) in the file's frame and units.
    pub(super) fn place(&self, p: Vec3) -> Vec3 {
        self.turn(p) * self.unit()
    }

    /// A joint's local rotation in the file's frame: conjugated by the facing turn, so that
    /// every joint's model-space transform is turned with the mesh.
    pub(super) fn turn_rotation(&self, q: Quat) -> Quat {
        if self.facing_back {
            Quat::from_xyzw(-q.x, q.y, -q.z, q.w)
        } else {
            q
        }
    }
}

/// Height of Mixamo's Spine2 above the ground, metres: between the chest (1.24) and the neck
/// (1.47), where Mixamo's rigs put it.
const SPINE2_Y: f32 = 1.36;
/// Mixamo's toe base (the ball of the foot) and toe end (its tip) on the mannequin's foot,
/// which runs from z = -0.06 to 0.19 with its centre line 3 cm above the ground at the toe.
const TOE_BASE_Z: f32 = 0.11;
const TOE_END_Z: f32 = 0.19;
const TOE_Y: f32 = 0.03;
/// The top of the head ellipsoid (its highest ring), where `HeadTop_End` sits.
const HEAD_TOP: Vec3 = Vec3::new(0.0, 1.79, 0.025);

/// One joint of a variant's rig.
pub(super) struct RigJoint {
    pub name: String,
    /// Index of its parent in the rig (parents come first).
    pub parent: Option<usize>,
    /// Rest position in the mannequin's frame, metres.
    pub position: Vec3,
}

/// A variant's joints, in depth-first order (every parent before its children and each subtree
/// contiguous, as exporters write them), and where the mannequin's joints are among them.
pub(super) struct Rig {
    pub joints: Vec<RigJoint>,
    /// The rig index of each of the mannequin's joints.
    pub of: [usize; 19],
    /// Mixamo's Spine2, when the rig has it.
    spine2: Option<usize>,
    /// Mixamo's left and right toe bases, when the rig has them.
    toe_bases: [Option<usize>; 2],
    /// The end joints, which move no vertices.
    pub ends: Vec<usize>,
}

impl Rig {
    /// The rig of `v`: the mannequin's joints in their order, each followed by the joints a
    /// variant adds below it.
    pub fn new(v: &Variant) -> Self {
        let mixamo = v.naming == Naming::Mixamo;
        let name = |j: usize| match v.naming {
            Naming::Mannequin => JOINTS[j].name.to_string(),
            Naming::Mixamo => format!("{MIXAMO_PREFIX}{}", MIXAMO_NAMES[j]),
        };
        let extra = |mixamo_name: &str, own: &str| match v.naming {
            Naming::Mannequin => own.to_string(),
            Naming::Mixamo => format!("{MIXAMO_PREFIX}{mixamo_name}"),
        };
        let mut rig = Self {
            joints: Vec::new(),
            of: [0; 19],
            spine2: None,
            toe_bases: [None; 2],
            ends: Vec::new(),
        };
        for (j, def) in JOINTS.iter().enumerate() {
            // Spine2 takes the chest's children (neck and shoulders).
            let parent = def.parent.map(|p| match rig.spine2 {
                Some(s) if p == idx::CHEST => s,
                _ => rig.of[p],
            });
            rig.of[j] = rig.push(name(j), parent, def.position);
            let here = Some(rig.of[j]);
            match j {
                idx::CHEST if mixamo => {
                    let at = Vec3::new(0.0, SPINE2_Y, 0.0);
                    rig.spine2 = Some(rig.push(extra("Spine2", "spine2"), here, at));
                }
                idx::HEAD if v.end_joints => {
                    let end = rig.push(extra("HeadTop_End", "head_end"), here, HEAD_TOP);
                    rig.ends.push(end);
                }
                idx::FOOT_L | idx::FOOT_R => {
                    let (side, own) = if j == idx::FOOT_L {
                        ("Left", 0)
                    } else {
                        ("Right", 1)
                    };
                    let x = def.position.x;
                    let mut tip_parent = here;
                    if mixamo {
                        let at = Vec3::new(x, TOE_Y, TOE_BASE_Z);
                        let own_name = ["toe_base_l", "toe_base_r"][own];
                        let base = rig.push(extra(&format!("{side}ToeBase"), own_name), here, at);
                        rig.toe_bases[own] = Some(base);
                        tip_parent = Some(base);
                    }
                    if v.end_joints {
                        let own_name = ["toe_end_l", "toe_end_r"][own];
                        let at = Vec3::new(x, TOE_Y, TOE_END_Z);
                        let end =
                            rig.push(extra(&format!("{side}Toe_End"), own_name), tip_parent, at);
                        rig.ends.push(end);
                    }
                }
                _ => {}
            }
        }
        rig
    }

    fn push(&mut self, name: String, parent: Option<usize>, position: Vec3) -> usize {
        self.joints.push(RigJoint {
            name,
            parent,
            position,
        });
        self.joints.len() - 1
    }

    /// Rest translation of joint `i` relative to its parent, the mannequin's frame, metres.
    pub fn local_offset(&self, i: usize) -> Vec3 {
        let joint = &self.joints[i];
        match joint.parent {
            Some(p) => joint.position - self.joints[p].position,
            None => joint.position,
        }
    }

    /// The influences `list` (mannequin joints) of a vertex at rest position `p` (the
    /// mannequin's frame, metres) as rig joints: each joint by its rig joint, but the chest's
    /// share of a vertex above Spine2 goes to Spine2 and a foot's share of a vertex in front of
    /// the toe base to the toe base. Neither is ever keyed, so each follows its parent rigidly
    /// and the skinned body is the mannequin's.
    pub fn influences(&self, p: Vec3, list: &[(usize, f32)]) -> Vec<(usize, f32)> {
        list.iter()
            .map(|&(j, w)| {
                let moved = match j {
                    idx::CHEST => self.spine2.filter(|_| p.y >= SPINE2_Y),
                    idx::FOOT_L => self.toe_bases[0].filter(|_| p.z >= TOE_BASE_Z),
                    idx::FOOT_R => self.toe_bases[1].filter(|_| p.z >= TOE_BASE_Z),
                    _ => None,
                };
                (moved.unwrap_or(self.of[j]), w)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rig_is_the_mannequins_skeleton() {
        let rig = Rig::new(&Variant::default());
        assert_eq!(rig.joints.len(), JOINTS.len());
        for (j, def) in JOINTS.iter().enumerate() {
            assert_eq!(rig.of[j], j);
            assert_eq!(rig.joints[j].name, def.name);
            assert_eq!(rig.joints[j].parent, def.parent);
            assert_eq!(rig.local_offset(j), super::super::rig::local_offset(j));
        }
        assert!(rig.ends.is_empty());
    }

    #[test]
    fn the_mixamo_rig_is_depth_first_with_its_extra_joints() {
        let rig = Rig::new(&Variant::mixamo());
        let names: Vec<&str> = rig.joints.iter().map(|j| j.name.as_str()).collect();
        // The 19 mapped joints, Spine2, two toe bases and three ends.
        assert_eq!(names.len(), 19 + 1 + 2 + 3, "{names:?}");
        for (j, n) in MIXAMO_NAMES.iter().enumerate() {
            assert_eq!(names[rig.of[j]], format!("mixamorig:{n}"));
        }
        // Depth-first: each joint's parent comes before it, and a subtree is contiguous (the
        // joint after a leaf is a child of one of the leaf's ancestors).
        for (i, joint) in rig.joints.iter().enumerate().skip(1) {
            let p = joint.parent.expect("one root");
            assert!(p < i);
            let mut up = rig.joints[i - 1].parent;
            let mut ok = p == i - 1;
            while let Some(a) = up {
                ok |= a == p;
                up = rig.joints[a].parent;
            }
            assert!(ok, "{} breaks the depth-first order", joint.name);
        }
        let parent_of = |n: &str| {
            let i = names.iter().position(|x| *x == n).unwrap();
            names[rig.joints[i].parent.unwrap()]
        };
        assert_eq!(parent_of("mixamorig:Spine2"), "mixamorig:Spine1");
        assert_eq!(parent_of("mixamorig:Neck"), "mixamorig:Spine2");
        assert_eq!(parent_of("mixamorig:RightShoulder"), "mixamorig:Spine2");
        assert_eq!(parent_of("mixamorig:LeftToe_End"), "mixamorig:LeftToeBase");
        assert_eq!(parent_of("mixamorig:HeadTop_End"), "mixamorig:Head");
        for &e in &rig.ends {
            assert!(
                rig.joints.iter().all(|j| j.parent != Some(e)),
                "ends are leaves"
            );
        }
    }

    #[test]
    fn end_joints_take_no_weights_and_the_extra_joints_take_some() {
        let v = Variant::mixamo();
        let rig = Rig::new(&v);
        let body = super::super::body::build();
        let mut used = vec![0usize; rig.joints.len()];
        for (p, list) in body.positions.iter().zip(&body.influences) {
            for (j, w) in rig.influences(*p, list) {
                if w > 0.0 {
                    used[j] += 1;
                }
            }
        }
        for &e in &rig.ends {
            assert_eq!(used[e], 0, "{} moves vertices", rig.joints[e].name);
        }
        for n in ["Spine2", "LeftToeBase", "RightToeBase"] {
            let i = rig
                .joints
                .iter()
                .position(|j| j.name == format!("mixamorig:{n}"))
                .unwrap();
            assert!(used[i] > 10, "{n} moves only {} vertices", used[i]);
        }
    }

    #[test]
    fn named_variants_are_valid_and_unknown_names_list_them() {
        for (name, _) in VARIANTS {
            let v = Variant::named(name).unwrap();
            assert_eq!(v.check(), Ok(()), "{name}");
        }
        assert_eq!(Variant::named("mannequin"), Ok(Variant::default()));
        let err = Variant::named("maximo").unwrap_err().to_string();
        assert!(
            err.contains("'maximo'") && err.contains("mixamo-seam-large"),
            "{err}"
        );
    }

    #[test]
    fn numbers_out_of_range_are_refused_by_name() {
        for (v, what) in [
            (
                Variant {
                    walk_speed: 3.0,
                    ..Variant::default()
                },
                "walk_speed is 3",
            ),
            (
                Variant {
                    run_seam: f32::NAN,
                    ..Variant::default()
                },
                "run_seam is NaN",
            ),
            (
                Variant {
                    run_seam: -0.1,
                    ..Variant::default()
                },
                "run_seam is -0.1",
            ),
            (
                Variant {
                    hips_drift: Vec2::new(0.0, 2.0),
                    ..Variant::default()
                },
                "hips_drift.z is 2",
            ),
        ] {
            let err = v.check().unwrap_err().to_string();
            assert!(err.contains(what), "{err}");
        }
    }

    #[test]
    fn the_turn_is_a_half_turn_about_up() {
        let v = Variant {
            facing_back: true,
            ..Variant::default()
        };
        let half = Quat::from_rotation_y(std::f32::consts::PI);
        let p = Vec3::new(0.3, 1.2, -0.7);
        assert!(v.turn(p).abs_diff_eq(half * p, 1e-6));
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.4, -0.9, 0.2);
        assert!(
            v.turn_rotation(q)
                .abs_diff_eq(half * q * half.inverse(), 1e-6)
        );
        // Metres and no turn leave the numbers exactly as they are.
        let d = Variant::default();
        assert_eq!(d.place(p), p);
        assert_eq!(d.turn_rotation(q), q);
    }
}
