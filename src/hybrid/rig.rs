//! What the live tier needs of a character, found once from the bake alone (so that any
//! bake, from a character file or a bare model, gets a live tier): its joints' bind-space
//! origins, per foot the leg that places it and the box of the vertices it carries, whose
//! lowest corner is where it meets the ground, and its head for the look-at.

use glam::{Mat4, Vec3, Vec4};

use super::error::HybridError;
use super::look::Head;
use crate::anim::foot_lock::Leg;
use crate::anim::{RawSkeleton, Transform, gait};
use crate::crowd::{FramePose, Playback};
use crate::format::ThrongFile;

/// Most joints a live character may have: far more than a crowd character needs, and a
/// bound on each thread's scratch poses (three of 256 matrices, 48 KiB).
pub const MAX_LIVE_JOINTS: usize = 256;

/// Most feet per character the live tier places (a quadruped has four).
pub const MAX_FEET: usize = 8;

/// One foot: the leg that moves it and the corners of its vertices' box (bind space).
#[derive(Clone, Debug)]
pub struct LiveFoot {
    /// The foot joint.
    pub joint: usize,
    /// The leg that places it.
    pub leg: Leg,
    /// The eight corners of the bind-space box of the vertices the foot joint moves most
    /// (its own origin eight times for a foot that moves none).
    pub corners: [Vec4; 8],
}

/// A character of the bake, as the live tier poses it.
#[derive(Clone, Debug)]
pub struct LiveRig {
    /// Joints.
    pub joints: usize,
    /// Each joint's bind-space origin (its skinning matrix carries it to the pose).
    pub bind: Vec<Vec4>,
    /// The feet that have a leg (at most [`MAX_FEET`]).
    pub feet: Vec<LiveFoot>,
    /// Standing height, metres (the bake's).
    pub height: f32,
    /// Its head, for the look-at ([`Head::find`]); `None` when no joint is named so.
    pub head: Option<Head>,
}

impl LiveRig {
    /// The rig of character `c` of `file`: its skeleton from the joint records, its rest
    /// positions from the first frame of its first animation, its feet as the baker finds
    /// them ([`gait::find_feet_skinned`], on their boxes' lowest corners) with their legs ([`Leg::find`]), and their contact boxes from
    /// its LOD 0 meshes.
    ///
    /// # Errors
    /// [`HybridError::Rig`] for a character with more than [`MAX_LIVE_JOINTS`] joints, no
    /// animation, or joint records that do not make a skeleton.
    pub fn new(file: &ThrongFile, c: usize) -> Result<Self, HybridError> {
        let record = file.characters()[c];
        let name = file.str(record.name).to_string();
        let fail = |what: String| HybridError::Rig {
            file: file.name().to_string(),
            character: name.clone(),
            what,
        };
        let n = record.joint_count as usize;
        if n > MAX_LIVE_JOINTS {
            return Err(fail(format!(
                "{n} joints; the live tier poses characters of up to {MAX_LIVE_JOINTS}"
            )));
        }
        let first = record.first_joint as usize;
        let joints = &file.joints()[first..first + n];
        let inverse: Vec<Mat4> = joints
            .iter()
            .map(|j| Mat4::from_cols_array(&j.inverse_bind))
            .collect();
        let names: Vec<String> = joints
            .iter()
            .map(|j| file.str(j.name).to_string())
            .collect();
        let parents: Vec<Option<usize>> = joints
            .iter()
            .map(|j| usize::try_from(j.parent).ok())
            .collect();
        let head = Head::find(&names, &parents);
        let skeleton = RawSkeleton {
            names,
            parents,
            rest: vec![Transform::IDENTITY; n],
            inverse_bind: inverse.clone(),
            root_bases: vec![Mat4::IDENTITY; n],
        }
        .validate()
        .map_err(|e| fail(e.to_string()))?;
        let bind: Vec<Vec4> = inverse.iter().map(|m| m.inverse().w_axis).collect();
        if record.anim_count == 0 {
            return Err(fail("no animation to take its rest pose from".into()));
        }
        let pose = Playback {
            anim_a: record.first_anim,
            ..Playback::default()
        }
        .frame_pose(file);
        let texels = file.texels();
        let skin: Vec<Mat4> = (0..n as u32).map(|j| matrix(&pose, &texels, j)).collect();
        let rest: Vec<Vec3> = skin
            .iter()
            .zip(&bind)
            .map(|(m, b)| (*m * *b).truncate())
            .collect();
        let height = record.height;
        let hips = gait::hips(&skeleton);
        let boxes = foot_boxes(file, c, n);
        // Each joint's bind-space contact points: its box's corners, or its origin 8 times.
        // The feet are found on them moved to this pose (the baker's rule stands a paw, whose
        // joint sits high in its box, on the box's lowest corner): every joint counts as moving.
        let corners: Vec<[Vec4; 8]> = (boxes.iter().zip(&bind))
            .map(|(b, origin)| b.map_or([*origin; 8], |(lo, hi)| box_corners(lo, hi)))
            .collect();
        let moved = |j: usize| {
            let (points, m) = (corners.get(j)?, skin.get(j)?);
            Some(
                points
                    .iter()
                    .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), c| {
                        let p = (*m * *c).truncate();
                        (a.min(p), b.max(p))
                    }),
            )
        };
        let feet = gait::find_feet_skinned(&skeleton, &rest, height, moved)
            .into_iter()
            .filter_map(|joint| {
                let leg = Leg::find(&skeleton, joint, hips, &rest, &bind)?;
                Some(LiveFoot {
                    joint,
                    leg,
                    corners: corners[joint],
                })
            })
            .take(MAX_FEET)
            .collect();
        Ok(Self {
            joints: n,
            bind,
            feet,
            height,
            head,
        })
    }
}

/// The 8 corners (w = 1) of the box from `lo` to `hi`: bit 0 of the index picks x, bit 1 y,
/// bit 2 z (clear: `lo`, set: `hi`).
fn box_corners(lo: Vec3, hi: Vec3) -> [Vec4; 8] {
    std::array::from_fn(|k| {
        let pick = |bit: usize, l: f32, h: f32| if k & bit == 0 { l } else { h };
        Vec4::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
            1.0,
        )
    })
}

/// Joint `j`'s skinning matrix for `pose`, from the bake's texels (as the GPU reads it).
#[inline]
pub(super) fn matrix(pose: &FramePose, texels: &crate::format::Texels, j: u32) -> Mat4 {
    let [r0, r1, r2] = crate::crowd::frame::record::joint_rows(texels, pose, j);
    Mat4::from_cols(r0, r1, r2, Vec4::W).transpose()
}

/// Per joint of character `c`, the bind-space box of the LOD 0 vertices it weighs most in.
fn foot_boxes(file: &ThrongFile, c: usize, joints: usize) -> Vec<Option<(Vec3, Vec3)>> {
    let mut boxes: Vec<Option<(Vec3, Vec3)>> = vec![None; joints];
    for (m, mesh) in file.meshes().iter().enumerate() {
        if mesh.character as usize != c || mesh.lod != 0 {
            continue;
        }
        let (vertices, _) = file.mesh_data(m);
        for v in vertices {
            let top = (0..4)
                .max_by(|&a, &b| v.weights[a].total_cmp(&v.weights[b]))
                .unwrap_or(0);
            let j = v.joints[top] as usize;
            let p = Vec3::from(v.position);
            if let Some(b) = boxes.get_mut(j) {
                *b = Some(b.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p))));
            }
        }
    }
    boxes
}
