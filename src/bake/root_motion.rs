//! The root motion of a baked animation: per frame, the root's ground position (x, z) and yaw
//! relative to the animation's start, and the motion over one whole cycle, in metres (the
//! character's scale applied). A clip's comes from its extracted track; a state's is
//! accumulated by playing its blend tree with the runtime's code, frame by frame.
//!
//! Also the ground speed an animation declares ([`declared_speed`]), in metres per second.

use glam::{Quat, Vec2, Vec3};

use super::frames::FrameSchedule;
use super::load::Loaded;
use super::plan::{Job, JobSource};
use crate::anim::graph::{Node, TreeState};
use crate::format::records::MotionRecord;

/// Root motion per frame of `schedule` and over the whole cycle (x, z, yaw), or `None` when
/// the job's character has no root motion (a bare model, a clip without a track, a state
/// whose weighted clips have none).
pub(super) fn root_motion(
    l: &Loaded,
    job: &Job,
    schedule: &FrameSchedule,
) -> Option<(Vec<MotionRecord>, [f32; 3])> {
    let ch = l.character.as_ref()?;
    // The track is in model units, as authored: the character's factors make it metres.
    let (sx, sz) = (l.factors.x, l.factors.z);
    let rec = |p: Vec2, yaw: f32| MotionRecord {
        x: p.x * sx,
        z: p.y * sz,
        yaw,
    };
    match &job.source {
        JobSource::Clip(c) => {
            let track = ch.motion.get(*c)?.as_ref()?;
            let frames = (0..schedule.count)
                .map(|i| {
                    let (p, y) = track.at(schedule.time(i));
                    rec(p, y)
                })
                .collect();
            let (p, y) = track.cycle();
            let r = rec(p, y);
            Some((frames, [r.x, r.z, r.yaw]))
        }
        JobSource::State { state, params } => {
            let tree = &ch.machine.states()[*state].tree;
            let mut st = tree.new_state();
            let mut moves = false;
            tree.advance(&ch.model.clips, &[], &mut st, params, 0.0, |_| {});
            for (node, n) in tree.nodes().iter().enumerate() {
                if let Node::Clip { clip, .. } = n
                    && tree.node_weights(&st)[node] > 0.0
                    && ch.motion.get(*clip).is_some_and(Option::is_some)
                {
                    moves = true;
                }
            }
            if !moves {
                return None;
            }
            tree.reset(&mut st);
            let (mut pos, mut yaw) = (Vec3::ZERO, 0.0f32);
            let mut frames = Vec::with_capacity(schedule.count as usize);
            let mut t = 0.0;
            let mut step = |to: f32, st: &mut TreeState| {
                tree.advance(&ch.model.clips, &[], st, params, to - t, |_| {});
                t = to;
                let (m, y) = tree.motion(&ch.model.clips, &ch.motion, st);
                pos += Quat::from_rotation_y(yaw) * Vec3::new(m.x, 0.0, m.y);
                yaw += y;
                rec(Vec2::new(pos.x, pos.z), yaw)
            };
            frames.push(rec(Vec2::ZERO, 0.0));
            for i in 1..schedule.count {
                let r = step(schedule.time(i), &mut st);
                frames.push(r);
            }
            let end = step(schedule.duration, &mut st);
            Some((frames, [end.x, end.z, end.yaw]))
        }
    }
}

/// The parameter whose value is an animation's ground speed when it has no root motion: in
/// the model's units per second as authored (docs/CHARACTER.md).
pub const SPEED_PARAM: &str = "speed";

/// The ground speed `job` of `l` declares, metres per second: with root motion (`cycle`, the
/// motion over its `duration` seconds, already in metres), the distance its root travels over
/// the cycle divided by the cycle's length; else, for a state baked at a value of the
/// [`SPEED_PARAM`] parameter, that value (model units per second) times the character's factor
/// along model +z, the forward axis agents move along (negative for a value below 0); else
/// `None` (unknown).
pub(super) fn declared_speed(
    l: &Loaded,
    job: &Job,
    cycle: Option<[f32; 3]>,
    duration: f32,
) -> Option<f32> {
    match (cycle, &job.param) {
        (Some([x, z, _]), _) if duration > 0.0 => Some(Vec2::new(x, z).length() / duration),
        (_, Some((p, v))) if p == SPEED_PARAM => Some(v * l.factors.z),
        _ => None,
    }
}
