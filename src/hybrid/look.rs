//! The optional look-at of live agents: the head (and what it carries) turned toward a point,
//! the camera in the demo, within limits, about the head joint's own origin.
//!
//! The head is the first joint (parents first) whose name has "head" in it, in any case, and
//! not "end", "top" or "nub" (leaf markers some rigs add above the head); a character without
//! one does not look. The turn is a yaw about the model's up axis and a pitch about its
//! sideways axis from the model's forward (+z, which the baker turns every character to
//! face), clamped to [`MAX_YAW`] and [`MAX_PITCH`], and eased out for a point behind the
//! agent (from [`BEHIND_FROM`] to [`BEHIND_TO`] off its forward), where a clamped head would
//! swing from one shoulder to the other as the point crosses behind it.

use glam::{Mat4, Quat, Vec3};

/// The largest head turn to either side, radians (70°).
pub const MAX_YAW: f32 = 70.0 * std::f32::consts::PI / 180.0;
/// The largest head tilt up or down, radians (30°).
pub const MAX_PITCH: f32 = 30.0 * std::f32::consts::PI / 180.0;
/// From this angle off the forward, radians (100°), the look eases out...
pub const BEHIND_FROM: f32 = 100.0 * std::f32::consts::PI / 180.0;
/// ...to none at this one (140°).
pub const BEHIND_TO: f32 = 140.0 * std::f32::consts::PI / 180.0;

/// A character's head: the joint and every joint it carries, parents first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The head joint.
    pub joint: usize,
    /// The head and its descendants.
    pub carried: Vec<usize>,
}

impl Head {
    /// The head of a skeleton of joints named `names` with `parents` (parents first), if it
    /// has one (see the module docs).
    pub fn find(names: &[String], parents: &[Option<usize>]) -> Option<Self> {
        let joint = names.iter().position(|n| {
            let n = n.to_lowercase();
            n.contains("head") && !["end", "top", "nub"].iter().any(|m| n.contains(m))
        })?;
        let mut inside = vec![false; names.len()];
        inside[joint] = true;
        for j in joint + 1..names.len() {
            if let Some(p) = parents.get(j).copied().flatten() {
                inside[j] = inside[p];
            }
        }
        Some(Self {
            joint,
            carried: (0..names.len()).filter(|&j| inside[j]).collect(),
        })
    }
}

/// Turns `head` of the pose `skin` (model space; its joints' bind-space origins are `bind`)
/// toward the model-space point `target`, by `weight` (0: not at all, 1: fully), within the
/// limits (see the module docs).
pub fn look_at(head: &Head, bind: &[glam::Vec4], target: Vec3, weight: f32, skin: &mut [Mat4]) {
    if weight <= 0.0 {
        return;
    }
    let pivot = (skin[head.joint] * bind[head.joint]).truncate();
    let d = target - pivot;
    let flat = d.x.hypot(d.z);
    if flat <= f32::EPSILON && d.y.abs() <= f32::EPSILON {
        return;
    }
    let yaw = d.x.atan2(d.z);
    let behind = ((yaw.abs() - BEHIND_FROM) / (BEHIND_TO - BEHIND_FROM)).clamp(0.0, 1.0);
    let w = weight * (1.0 - behind * behind * (3.0 - 2.0 * behind));
    if w <= 0.0 {
        return;
    }
    let pitch = d.y.atan2(flat);
    let turn = Quat::from_rotation_y(w * yaw.clamp(-MAX_YAW, MAX_YAW))
        * Quat::from_rotation_x(-w * pitch.clamp(-MAX_PITCH, MAX_PITCH));
    let about =
        Mat4::from_translation(pivot) * Mat4::from_quat(turn) * Mat4::from_translation(-pivot);
    for &j in &head.carried {
        skin[j] = about * skin[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_head_is_the_first_joint_named_so_and_carries_its_descendants() {
        let n = names(&["hips", "spine", "neck", "Head", "HeadTop_End", "jaw", "arm"]);
        let parents = [None, Some(0), Some(1), Some(2), Some(3), Some(3), Some(1)];
        let h = Head::find(&n, &parents).unwrap();
        assert_eq!(h.joint, 3);
        assert_eq!(h.carried, vec![3, 4, 5]);
        assert!(Head::find(&names(&["root", "head_end"]), &[None, Some(0)]).is_none());
    }

    /// One joint at (0, 1.5, 0) (identity skinning), in model space.
    fn turned(target: Vec3, weight: f32) -> Vec3 {
        let head = Head {
            joint: 0,
            carried: vec![0],
        };
        let bind = [glam::Vec4::new(0.0, 1.5, 0.0, 1.0)];
        let mut skin = [Mat4::IDENTITY];
        look_at(&head, &bind, target, weight, &mut skin);
        // Where the head's forward (+z) now points.
        skin[0].transform_vector3(Vec3::Z)
    }

    #[test]
    fn the_head_turns_toward_the_target_within_the_limits() {
        // 30° to the left (+x), level: turned by exactly that.
        let f = turned(Vec3::new(30f32.to_radians().tan(), 1.5, 1.0), 1.0);
        assert!((f.x.atan2(f.z) - 30f32.to_radians()).abs() < 1e-5, "{f}");
        assert!(f.y.abs() < 1e-6);
        // Far to the side: clamped at the limit.
        let f = turned(Vec3::new(10.0, 1.5, 0.5), 1.0);
        assert!((f.x.atan2(f.z) - MAX_YAW).abs() < 1e-5, "{f}");
        // Above: tilted up, clamped.
        let f = turned(Vec3::new(0.0, 11.5, 1.0), 1.0);
        assert!((f.y.atan2(f.z) - MAX_PITCH).abs() < 1e-5, "{f}");
        // Straight behind: not at all; half weight: half the turn.
        assert!(turned(Vec3::new(0.0, 1.5, -5.0), 1.0).abs_diff_eq(Vec3::Z, 1e-6));
        let f = turned(Vec3::new(30f32.to_radians().tan(), 1.5, 1.0), 0.5);
        assert!((f.x.atan2(f.z) - 15f32.to_radians()).abs() < 1e-5, "{f}");
    }
}
