//! The root motion of a baked animation: per frame, the root's ground position (x, z) and yaw
//! relative to the animation's start, and the motion over one whole cycle, in the recipe's
//! scale. A clip's comes from its extracted track; a state's is accumulated by playing its
//! blend tree with the runtime's code, frame by frame.

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
    let (sx, sz) = (l.scale.x_axis.x, l.scale.z_axis.z);
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
