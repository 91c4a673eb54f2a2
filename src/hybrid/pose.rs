//! One live agent's pose: the bake's matrices at its phase, then foot IK on the height field.
//! The pelvis (the whole body) is lowered by as much as the lowest foot must go down, and
//! each foot is carried by its leg ([`Leg::apply`](crate::anim::foot_lock::Leg::apply)) so that the lowest corner of its box keeps
//! the height above the ground under it that the animation gave it on flat ground. All scaled
//! by the agent's blend into the tier, so that at 0 the pose is the bake's, bit for bit.

use glam::{Mat4, Vec3};

use super::rig::{LiveRig, MAX_FEET, matrix};
use crate::crowd::terrain::Terrain;
use crate::crowd::{FramePose, InstanceRecord};
use crate::format::Texels;

/// Where an agent stands: its record's place, heading and scale.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// World position of its origin, metres (on the ground under it).
    pub position: Vec3,
    /// Radians about +y.
    pub heading: f32,
    /// Uniform scale (> 0).
    pub scale: f32,
}

impl Placement {
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
    at: &Placement,
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
        // model units.
        delta[i] = blend * (terrain.height(w.x, w.z) - at.position.y) / at.scale;
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

/// Per planted foot of the pose `skin` (after [`foot_ik`], which gave `contacts`), how far
/// its contact point is above (+) or below (−) where it belongs: at the height above the
/// ground under it that the animation gave it above flat ground. World metres, to `out`.
pub fn foot_errors(
    rig: &LiveRig,
    at: &Placement,
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
pub fn largest_gap(rig: &LiveRig, at: &Placement, a: &[Mat4], b: &[Mat4]) -> f32 {
    a.iter()
        .zip(b)
        .zip(&rig.bind)
        .map(|((p, q), o)| ((*p * *o).truncate() - (*q * *o).truncate()).length() * at.scale)
        .fold(0.0, f32::max)
}
