//! One live agent's pose, in parts: the bake's matrices at its phase, and foot IK on the
//! height field. The pelvis (the whole body) is lowered by as much as the lowest foot must go
//! down, and each foot is carried by its leg
//! ([`Leg::apply`](crate::anim::foot_lock::Leg::apply)) so that the lowest corner of its box
//! keeps the height above the ground under it that the animation gave it on flat ground (for
//! a lifted foot, the ground around it: [`foot_ground`]). The pose shown, live pose and IK
//! cross-faded from the bake's, is [`super::Animate::shown`]'s.

use glam::{Mat4, Vec3};

use super::rig::{LiveRig, MAX_FEET, matrix};
use crate::crowd::Terrain;
use crate::crowd::{FramePose, InstanceRecord};
use crate::format::Texels;

/// Where an agent stands: its record's place, heading and scale.
#[derive(Clone, Copy, Debug)]
pub struct LivePlacement {
    /// World position of its origin, metres (on the ground under it).
    pub position: Vec3,
    /// Radians about +y.
    pub heading: f32,
    /// Uniform scale (> 0).
    pub scale: f32,
}

impl LivePlacement {
    /// The placement a record shows.
    pub fn of(r: &InstanceRecord) -> Self {
        let scale = if r.weights[0] > 0.0 {
            r.weights[0]
        } else {
            1.0
        };
        Self {
            position: Vec3::new(r.place[0], r.place[1], r.place[2]),
            heading: r.place[3],
            scale,
        }
    }

    /// The model-space point that [`LivePlacement::world`] carries to world point `w`.
    #[inline]
    pub fn model(&self, w: Vec3) -> Vec3 {
        let (s, c) = self.heading.sin_cos();
        let q = (w - self.position) / self.scale;
        Vec3::new(c * q.x - s * q.z, q.y, s * q.x + c * q.z)
    }

    /// A model-space point in the world, as `place_point` in crowd.wgsl.
    #[inline]
    pub fn world(&self, p: Vec3) -> Vec3 {
        let (s, c) = self.heading.sin_cos();
        let q = p * self.scale;
        Vec3::new(c * q.x + s * q.z, q.y, -s * q.x + c * q.z) + self.position
    }
}

/// Per foot, what the IK did: the model-space contact point it started from, and whether that
/// foot was planted (its contact within [`PLANTED_BAND`] of the height of the character's
/// own ground in the animation).
#[derive(Clone, Copy, Debug, Default)]
pub struct FootContacts {
    /// Feet.
    pub count: usize,
    /// The contact point of each foot before IK (model space, metres).
    pub contact: [Vec3; MAX_FEET],
    /// Which corner of the foot's box it is.
    pub corner: [usize; MAX_FEET],
}

/// A foot whose contact point is at most this fraction of the character's height above the
/// model's ground (y = 0) counts as planted for the foot-ground error: 1.5% (2.7 cm on the
/// 1.8 m mannequin), above the few millimetres a locked stance foot rolls, below a swing.
pub const PLANTED_BAND: f32 = 0.015;

/// The bake's skinning matrices of `pose` for `rig`'s joints into `skin`.
pub fn bake_pose(rig: &LiveRig, texels: &Texels, pose: &FramePose, skin: &mut [Mat4]) {
    for (j, m) in skin.iter_mut().enumerate().take(rig.joints) {
        *m = matrix(pose, texels, j as u32);
    }
}

/// The lowest corner of `foot`'s box in the pose `skin`: its index and place (model space).
#[inline]
fn contact(skin: &[Mat4], foot: &super::rig::LiveFoot) -> (usize, Vec3) {
    let m = skin[foot.joint];
    foot.corners
        .iter()
        .map(|c| (m * *c).truncate())
        .enumerate()
        .min_by(|a, b| a.1.y.total_cmp(&b.1.y))
        .unwrap_or((0, Vec3::ZERO))
}

/// Foot IK on the bake's pose `skin` of an agent at `at` on `terrain`, by `blend` (0: none,
/// the pose left bit-identical; 1: full): see the module docs. Returns the feet's contact
/// points before IK.
pub fn foot_ik(
    rig: &LiveRig,
    at: &LivePlacement,
    terrain: Terrain,
    blend: f32,
    skin: &mut [Mat4],
) -> FootContacts {
    let mut out = FootContacts {
        count: rig.feet.len(),
        ..FootContacts::default()
    };
    let mut delta = [0.0f32; MAX_FEET];
    let mut drop = 0.0f32;
    for (i, foot) in rig.feet.iter().enumerate() {
        let (k, c) = contact(skin, foot);
        out.contact[i] = c;
        out.corner[i] = k;
        let w = at.world(c);
        // How much higher the ground under the foot is than under the agent's origin, in
        // model units: under a planted foot, the ground itself; under a lifted one, eased
        // toward the ground around it (see `foot_ground`).
        let lift = (c.y / (PLANTED_BAND * rig.height).max(1e-6) - 1.0).clamp(0.0, 1.0);
        let ground = foot_ground(terrain, w, lift * lift * (3.0 - 2.0 * lift));
        delta[i] = blend * (ground - at.position.y) / at.scale;
        drop = drop.min(delta[i]);
    }
    if blend <= 0.0 || rig.feet.is_empty() {
        return out;
    }
    if drop < 0.0 {
        for m in skin.iter_mut().take(rig.joints) {
            m.w_axis.y += drop;
        }
    }
    for (foot, d) in rig.feet.iter().zip(delta) {
        foot.leg.apply(Vec3::Y * (d - drop), skin);
    }
    out
}

/// How far around a lifted foot the ground it follows is averaged, world metres: a swing
/// foot crossing a step edge then rises or falls with the share of the disc that has crossed,
/// as up a slope, rather than by the whole rise in one frame.
pub const SWING_RADIUS: f32 = 0.25;

/// Points of the disc [`foot_ground`] averages, on a sunflower spiral (even over the disc,
/// and their projections on any direction spread, so that no two cross an edge together).
const SWING_POINTS: usize = 24;

/// The ground a foot at world point `w` follows, metres: the height under it when planted
/// (`lift` 0), the mean height over a disc of [`SWING_RADIUS`] around it when lifted (`lift`
/// 1), and between for a `lift` between.
pub fn foot_ground(terrain: Terrain, w: Vec3, lift: f32) -> f32 {
    let here = terrain.height(w.x, w.z);
    if lift <= 0.0 {
        return here;
    }
    // The golden angle.
    let turn = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut sum = 0.0;
    for k in 0..SWING_POINTS {
        let r = SWING_RADIUS * ((k as f32 + 0.5) / SWING_POINTS as f32).sqrt();
        let (s, c) = (k as f32 * turn).sin_cos();
        sum += terrain.height(w.x + r * c, w.z + r * s);
    }
    here + lift * (sum / SWING_POINTS as f32 - here)
}

/// Per planted foot of the pose `skin` (after [`foot_ik`], which gave `contacts`), how far
/// its contact point is above (+) or below (−) where it belongs: at the height above the
/// ground under it that the animation gave it above flat ground. World metres, to `out`.
pub fn foot_errors(
    rig: &LiveRig,
    at: &LivePlacement,
    terrain: Terrain,
    contacts: &FootContacts,
    skin: &[Mat4],
    out: &mut impl FnMut(f32),
) {
    for (i, foot) in rig.feet.iter().enumerate().take(contacts.count) {
        let before = contacts.contact[i];
        if before.y > PLANTED_BAND * rig.height {
            continue;
        }
        // The same corner, wherever the IK carried it.
        let corner = foot.corners[contacts.corner[i]];
        let w = at.world((skin[foot.joint] * corner).truncate());
        let want = terrain.height(w.x, w.z) + before.y * at.scale;
        out(w.y - want);
    }
}

/// The largest distance, world metres, between a joint of pose `a` and the same joint of
/// pose `b` of an agent at `at`.
pub fn largest_gap(rig: &LiveRig, at: &LivePlacement, a: &[Mat4], b: &[Mat4]) -> f32 {
    a.iter()
        .zip(b)
        .zip(&rig.bind)
        .map(|((p, q), o)| ((*p * *o).truncate() - (*q * *o).truncate()).length() * at.scale)
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::plaza::terrain::{RISE, TERRACE_MIN};

    #[test]
    fn model_undoes_world() {
        let at = LivePlacement {
            position: Vec3::new(3.0, 0.4, -2.0),
            heading: 1.1,
            scale: 0.8,
        };
        let p = Vec3::new(0.3, 1.2, -0.5);
        // f32 rounding through a rotation, a scale and their inverses.
        assert!(at.model(at.world(p)).abs_diff_eq(p, 1e-5));
    }

    #[test]
    fn a_lifted_foot_crosses_a_step_edge_in_slices_a_planted_one_follows_the_ground() {
        // Up the terrace's -x steps along z = 0 at 3 m/s, 60 Hz: 5 cm per frame.
        let t = Terrain::Relief;
        let (mut worst_lifted, mut worst_planted) = (0f32, 0f32);
        let mut last: Option<(f32, f32)> = None;
        let mut x = TERRACE_MIN.x - 2.0;
        while x < TERRACE_MIN.x + 0.5 {
            let w = Vec3::new(x, 0.0, 0.0);
            let now = (foot_ground(t, w, 1.0), foot_ground(t, w, 0.0));
            assert_eq!(now.1, t.height(x, 0.0), "planted: the ground itself");
            if let Some(l) = last {
                worst_lifted = worst_lifted.max((now.0 - l.0).abs());
                worst_planted = worst_planted.max((now.1 - l.1).abs());
            }
            last = Some(now);
            x += 0.05;
        }
        println!("per frame: planted {worst_planted} m, lifted {worst_lifted} m");
        // The planted ground jumps a whole rise at an edge. The lifted one climbs the steps
        // as a slope would: with three edges inside its disc, up to a third of the stairs'
        // 0.15/0.35 rise per run and the points' discreteness, under a third of a rise per
        // 5 cm (a simulation of the spiral over every heading gave 4.4 cm at worst).
        assert!((worst_planted - RISE).abs() < 0.01, "{worst_planted}");
        assert!(worst_lifted < RISE / 3.0, "{worst_lifted}");
    }
}
