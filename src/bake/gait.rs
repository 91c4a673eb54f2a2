//! The baker's measuring step: the ground speed of every looping animation without root
//! motion, read from its planted feet ([`crate::anim::gait`]) in the frames just sampled — the
//! feet's points come from the baked skinning matrices, so nothing is evaluated again. A foot's
//! points are the corners of the box of the vertices its joint moves (`measure::JointBoxes`):
//! the lowest is its contact with the ground, which stays put while the joint rolls over it.
//!
//! The speed is along the model's +z: the axis a crowd moves an agent along (an agent at
//! heading 0 faces +z, and `crowd.wgsl` places the model's +z along the agent's forward).

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::facing;
use super::load::Loaded;
use super::lock::FootLock;
use super::measure::JointBoxes;
use super::sample::Sampled;
use super::texels::from_rows;
use crate::anim::Wrap;
use crate::anim::foot_lock::{Leg, offsets};
use crate::anim::gait::{self, NoGait};
use crate::character::Poser;
use crate::format::TEXELS_PER_MATRIX;
use crate::import::Model;

/// The model axis a crowd moves its agents along.
pub(super) const FORWARD: Vec3 = Vec3::Z;

/// [`TEXELS_PER_MATRIX`] as an index.
const ROWS: usize = TEXELS_PER_MATRIX as usize;

/// Contact points per foot: the corners of the box of its vertices.
pub const POINTS: usize = 8;

/// A character's foot joints, found once per character.
#[derive(Clone, Debug, Default)]
pub struct Feet {
    /// Joint indices ([`gait::find_feet_skinned`]).
    pub joints: Vec<usize>,
    /// Per foot, `POINTS` bind-space points its skinning matrix carries: the corners of the
    /// box of the vertices it moves (the lowest is where it touches the ground), or the joint's
    /// own origin 8 times for a joint that moves no vertex.
    pub points: Vec<[Vec4; POINTS]>,
    /// Per foot, the leg that places it ([`Leg::find`]), for locking it to the ground; `None`
    /// for a foot without one.
    pub legs: Vec<Option<Leg>>,
}

/// The feet of `l`, from its rest pose (with the recipe's scale).
pub(super) fn feet(l: &Loaded) -> Feet {
    feet_of(&l.model, &l.boxes, l.scale, l.height)
}

/// A character's rest pose as its feet are found on it ([`feet_of`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestPose {
    /// Per joint, its origin in model space, model units.
    pub origins: Vec<Vec3>,
    /// Per joint, the box (lowest and highest corners, model space, model units) of the
    /// corners of the bind-space box of the vertices it moves, moved to the rest pose: its
    /// bottom is where the joint touches down. `None` for a joint that moves no vertex.
    pub boxes: Vec<Option<(Vec3, Vec3)>>,
    /// Per joint, the bind-space origin (w = 1).
    pub bind: Vec<Vec4>,
}

/// The rest pose of `model` (its joint boxes `boxes`) baked at `scale` (applied in model
/// space): where each joint is and where the vertices it moves touch down. Public so that
/// tests can say how far above the ground a joint that is no foot stands.
pub fn rest_pose(model: &Model, boxes: &JointBoxes, scale: Mat4) -> RestPose {
    let bind: Vec<Vec4> = model
        .skeleton
        .inverse_bind()
        .iter()
        .map(|m| m.inverse().w_axis)
        .collect();
    let mut poser = Poser::new(model);
    let skin: Vec<Mat4> = poser
        .clip(model, None, 0.0, Wrap::Clamp)
        .iter()
        .map(|m| scale * *m)
        .collect();
    let origins = skin
        .iter()
        .zip(&bind)
        .map(|(m, b)| (*m * *b).truncate())
        .collect();
    let moved = skin
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let corners = boxes.corners(j)?;
            Some(
                corners
                    .iter()
                    .map(|c| (*m * *c).truncate())
                    .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
                        (lo.min(p), hi.max(p))
                    }),
            )
        })
        .collect();
    RestPose {
        origins,
        boxes: moved,
        bind,
    }
}

/// The feet the baker measures on `model` (its joint boxes `boxes`) baked at `scale` (applied
/// in model space, as the baker sizes a character) to a character `height` tall (metres, the
/// baked height): [`gait::find_feet_skinned`] on its [`rest_pose`] (skipping foot joints that
/// move no vertex; a leaf stands where the lowest corner of its box does), each foot with its
/// `POINTS`. Public so that benchmarks and tests follow the same feet as the baker.
pub fn feet_of(model: &Model, boxes: &JointBoxes, scale: Mat4, height: f32) -> Feet {
    let skeleton = &model.skeleton;
    let RestPose {
        origins: rest,
        boxes: moved,
        bind,
    } = rest_pose(model, boxes, scale);
    let joints =
        gait::find_feet_skinned(skeleton, &rest, height, |j| moved.get(j).copied().flatten());
    let hips = gait::hips(skeleton);
    Feet {
        points: joints
            .iter()
            .map(|&j| boxes.corners(j).unwrap_or([bind[j]; POINTS]))
            .collect(),
        legs: joints
            .iter()
            .map(|&j| Leg::find(skeleton, j, hips, &rest, &bind))
            .collect(),
        joints,
    }
}

/// The model-space positions of `feet`'s points at every frame of `sampled` (frame-major,
/// `frames × feet × POINTS`), read from its skinning matrices (of every joint, or of the feet
/// alone in their order when [`Sampled::feet_only`]); `None` if the texels are short.
pub(super) fn foot_points(l: &Loaded, feet: &Feet, sampled: &Sampled) -> Option<Vec<Vec3>> {
    let n = if sampled.feet_only {
        feet.joints.len()
    } else {
        l.model.skeleton.len()
    };
    let frames = sampled.schedule.count as usize;
    let mut positions = Vec::with_capacity(frames * feet.joints.len() * POINTS);
    for f in 0..frames {
        for (i, (&j, points)) in feet.joints.iter().zip(&feet.points).enumerate() {
            let k = (f * n + if sampled.feet_only { i } else { j }) * ROWS;
            let rows = sampled.texels.get(k..k + ROWS)?;
            let m: Mat4 = from_rows(&[rows[0], rows[1], rows[2]]);
            positions.extend(points.iter().map(|p| (m * *p).truncate()));
        }
    }
    Some(positions)
}

/// Measures again an animation whose feet were locked to the speed `unlocked` measured: the
/// locked frames' own measure when it finds a gait; otherwise (locking can move a stance
/// across a threshold of [`gait::measure`], such as [`gait::MIN_STANCE`]) the speed the feet
/// were locked to, with the slip left at it.
pub(super) fn measure_locked(
    l: &Loaded,
    feet: &Feet,
    sampled: &Sampled,
    unlocked: Measured,
) -> Measured {
    let locked = measure(l, feet, sampled, false);
    if locked.speed.is_some() {
        return locked;
    }
    let (Some(speed), Some(positions)) = (unlocked.speed, foot_points(l, feet, sampled)) else {
        return locked;
    };
    let travel = Vec2::new(FORWARD.x, FORWARD.z) * speed;
    let step = sampled.schedule.step();
    Measured {
        foot_slide: gait::slide_at(
            &positions,
            feet.joints.len(),
            POINTS,
            step,
            l.height,
            travel,
        ),
        ..unlocked
    }
}

/// The lock of `sampled` (an animation of `l`, with feet `feet`, whose frames were turned
/// by `turns` quarter turns) for an agent moving at `speed` (model units per second) along
/// +z; `None` when no foot has a leg or nothing needs correcting.
pub(super) fn lock(
    l: &Loaded,
    feet: &Feet,
    sampled: &Sampled,
    speed: f32,
    turns: u8,
) -> Option<FootLock> {
    if feet.legs.iter().all(Option::is_none) || !sampled.schedule.looping {
        return None;
    }
    let positions = foot_points(l, feet, sampled)?;
    let (frames, count) = (sampled.schedule.count as usize, feet.joints.len());
    let mut out = vec![Vec2::ZERO; frames * count];
    let velocity = Vec2::new(FORWARD.x, FORWARD.z) * speed;
    let step = sampled.schedule.step();
    offsets(
        &positions, count, POINTS, step, l.height, velocity, &mut out,
    );
    for (k, o) in out.iter_mut().enumerate() {
        *o = if feet.legs[k % count].is_some() {
            facing::turn(*o, (4 - turns % 4) % 4)
        } else {
            Vec2::ZERO
        };
    }
    FootLock::new(feet.legs.clone(), out, step)
}

/// What the measuring step found for one animation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Measured {
    /// Ground speed along +z, model units per second, when measured.
    pub speed: Option<f32>,
    /// Residual foot slip at that speed, model units per second, when measured.
    pub foot_slide: Option<f32>,
    /// Where the planted feet say the character travels (x, z of the model, units per
    /// second), whether or not that is along +z: what `facing` turns the character by.
    pub travel: Option<Vec2>,
    /// Something the report should say about it (the feet slide along another axis).
    pub note: Option<String>,
    /// Why a looping animation without root motion has no ground speed.
    pub why_not: Option<NoGait>,
}

/// Measures `job`'s ground speed from its sampled frames: only for a looping animation without
/// root motion (`root_motion` false) of a character with feet; otherwise nothing.
pub(super) fn measure(l: &Loaded, feet: &Feet, sampled: &Sampled, root_motion: bool) -> Measured {
    let s = &sampled.schedule;
    if root_motion || !s.looping {
        return Measured::default();
    }
    if feet.joints.is_empty() {
        return Measured {
            why_not: Some(NoGait::NoFeet),
            ..Measured::default()
        };
    }
    let Some(positions) = foot_points(l, feet, sampled) else {
        return Measured::default();
    };
    match gait::measure(
        &positions,
        feet.joints.len(),
        POINTS,
        s.step(),
        l.height,
        FORWARD,
    ) {
        Ok(g) => Measured {
            speed: Some(g.speed),
            foot_slide: Some(g.foot_slide),
            travel: Some(g.travel),
            note: g.off_axis().then(|| {
                format!(
                    "its planted feet slide more across the forward axis (+z) than along it ({:.3} against {:.3} units/s): it walks along another axis than the crowd moves it",
                    g.lateral.abs(),
                    g.speed
                )
            }),
            why_not: None,
        },
        Err(e) => Measured {
            travel: match e {
                NoGait::NoSlide { travel, .. }
                    if travel.length() >= gait::MIN_SPEED * l.height =>
                {
                    Some(travel)
                }
                _ => None,
            },
            note: match e {
                NoGait::NoSlide {
                    per_height,
                    lateral_per_height,
                    ..
                } if lateral_per_height.abs() > per_height.abs().max(gait::MIN_SPEED) => Some(format!(
                    "its planted feet slide across the forward axis (+z) at {:.3} heights/s, not along it: it walks along another axis than the crowd moves it, so it has no ground speed",
                    lateral_per_height.abs()
                )),
                _ => None,
            },
            why_not: Some(e),
            ..Measured::default()
        },
    }
}
