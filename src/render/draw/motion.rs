//! What motion vectors need of the previous frame: the camera it was seen through and, per
//! slot, the instance record the agent now in that slot was drawn with (a second instance
//! buffer the motion pipelines read beside this frame's). Kept only for passes with a
//! velocity attachment.
//!
//! The previous records are kept on the CPU by agent, not by slot, because slots move
//! between frames (an agent changing LOD level or update phase moves, and both slots are
//! marked dirty). Only slots dirty this frame or the last are written: a slot clean in both
//! shows the same record as before, so its previous record is its record; a slot dirty last
//! frame but clean now is an agent the update-rate LOD holds: its previous record becomes its
//! record (no motion, as drawn); a slot dirty now gets what its agent was drawn with.

use std::ops::Range;

use super::upload::ensure_buffer;
use crate::crowd::InstanceRecord;
use crate::render::device::Gpu;
use crate::render::error::RenderError;
use crate::render::frame::CrowdFrame;

/// The previous frame, for motion vectors.
#[derive(Default)]
pub(in crate::render) struct Motion {
    /// The previous records by slot, on the GPU (vertex buffer 2 of the motion pipelines).
    pub buffer: Option<wgpu::Buffer>,
    /// Per agent: the record it was drawn with in the last frame prepared, if any.
    drawn: Vec<Option<InstanceRecord>>,
    /// The dirty runs of the last frame prepared.
    last_dirty: Vec<Range<u32>>,
    /// Scratch for one run of previous records (kept so that warm frames allocate nothing).
    scratch: Vec<InstanceRecord>,
    /// The camera of the last frame prepared.
    view_proj: Option<glam::Mat4>,
    /// Whether the buffer must be written whole (after [`Motion::forget`]).
    stale: bool,
}

impl Motion {
    /// This frame's camera and the previous frame's (this one's on a first frame), and
    /// remembers this one for the next frame.
    pub fn cameras(&mut self, view_proj: glam::Mat4) -> [glam::Mat4; 2] {
        let previous = self.view_proj.replace(view_proj).unwrap_or(view_proj);
        [view_proj, previous]
    }

    /// Forgets the previous frame: the next frame shows no motion at all (its previous camera
    /// and records are its own).
    pub fn forget(&mut self) {
        self.drawn.clear();
        self.view_proj = None;
        self.stale = true;
    }

    /// Writes the previous records of `frame`'s slots that need it (see the module docs) and
    /// remembers what each agent is drawn with now. Returns the bytes written.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when there is no buffer after growing it.
    pub fn write(&mut self, gpu: &Gpu, frame: &CrowdFrame) -> Result<usize, RenderError> {
        let grown = ensure_buffer(
            gpu,
            &mut self.buffer,
            (std::mem::size_of_val(frame.records) as u64).max(4),
            wgpu::BufferUsages::VERTEX,
            "previous instances",
        );
        let buffer = self.buffer.take();
        let Some(gpu_buffer) = buffer.as_ref() else {
            return Err(RenderError::Gpu("no previous-instance buffer".into()));
        };
        let size = std::mem::size_of::<InstanceRecord>() as u64;
        let mut bytes = 0;
        self.plan(frame, grown, |slot, records| {
            let data = bytemuck::cast_slice(records);
            gpu.queue
                .write_buffer(gpu_buffer, u64::from(slot) * size, data);
            bytes += data.len();
        });
        self.buffer = buffer;
        Ok(bytes)
    }

    /// The writes [`Motion::write`] makes, in order, to `emit` (the first slot and the
    /// previous records from there; later writes win): every slot when `whole` or after
    /// [`Motion::forget`], else those of the module docs.
    fn plan(
        &mut self,
        frame: &CrowdFrame,
        whole: bool,
        mut emit: impl FnMut(u32, &[InstanceRecord]),
    ) {
        let records = frame.records;
        let n = records.len() as u32;
        if self.drawn.len() < frame.slot_agent.len() {
            self.drawn.resize(frame.slot_agent.len(), None);
        }
        let full = 0..n;
        let dirty = if whole || self.stale {
            std::slice::from_ref(&full)
        } else {
            frame.dirty
        };
        let clamp = |r: &Range<u32>| r.start.min(n)..r.end.min(n);
        // Held since the last frame: drawn as they are, so their previous record is their
        // record. Written first: runs dirty now are written again below.
        for run in self.last_dirty.iter().map(clamp) {
            emit(run.start, &records[run.start as usize..run.end as usize]);
        }
        for run in dirty.iter().map(clamp) {
            self.scratch.clear();
            for s in run.clone() {
                let record = records[s as usize];
                let agent = frame.slot_agent.get(s as usize).map(|&a| a as usize);
                let drawn = agent.and_then(|a| self.drawn.get_mut(a));
                // An agent seen for the first time has not moved.
                let previous = match drawn {
                    Some(d) => d.replace(record).unwrap_or(record),
                    None => record,
                };
                self.scratch.push(previous);
            }
            emit(run.start, &self.scratch);
        }
        self.last_dirty.clear();
        self.last_dirty.extend(dirty.iter().map(clamp));
        self.stale = false;
    }
}

#[cfg(test)]
// Dirty runs are slices of ranges: one run is a slice of one range, not a mistake.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::crowd::DrawRange;

    /// A record told apart by `x` (its place's x).
    fn at(x: f32) -> InstanceRecord {
        InstanceRecord {
            place: [x, 0.0, 0.0, 0.0],
            weights: [1.0, 0.0, 0.0, 0.0],
            frames: [0; 4],
            tint: [255; 4],
        }
    }

    /// Plans a frame into `gpu` (the previous-record buffer, mirrored).
    fn frame(
        motion: &mut Motion,
        gpu: &mut Vec<InstanceRecord>,
        records: &[InstanceRecord],
        dirty: &[Range<u32>],
        slot_agent: &[u32],
    ) {
        let draws: [DrawRange; 0] = [];
        let frame = CrowdFrame {
            records,
            dirty,
            draws: &draws,
            slot_agent,
            prepared: None,
        };
        gpu.resize(records.len(), at(f32::NAN));
        motion.plan(&frame, false, |start, data| {
            gpu[start as usize..start as usize + data.len()].copy_from_slice(data);
        });
    }

    fn xs(records: &[InstanceRecord]) -> Vec<f32> {
        records.iter().map(|r| r.place[0]).collect()
    }

    #[test]
    fn previous_records_follow_agents_hold_and_catch_up() {
        let mut motion = Motion::default();
        motion.forget();
        let mut gpu = Vec::new();
        // Frame 0: first sight, no motion.
        frame(
            &mut motion,
            &mut gpu,
            &[at(0.0), at(10.0), at(20.0)],
            &[0..3],
            &[0, 1, 2],
        );
        assert_eq!(xs(&gpu), [0.0, 10.0, 20.0]);
        // Frame 1: agents 0 and 1 move; agent 2 is held (clean).
        frame(
            &mut motion,
            &mut gpu,
            &[at(1.0), at(11.0), at(20.0)],
            &[0..2],
            &[0, 1, 2],
        );
        assert_eq!(xs(&gpu), [0.0, 10.0, 20.0]);
        // Frame 2: agent 0 is held now (its previous record becomes its record); agents 1 and
        // 2 swap slots, agent 2 catching up two steps.
        frame(
            &mut motion,
            &mut gpu,
            &[at(1.0), at(22.0), at(12.0)],
            &[1..3],
            &[0, 2, 1],
        );
        assert_eq!(xs(&gpu), [1.0, 20.0, 11.0]);
        // Frame 3: nothing changes: no motion anywhere.
        frame(
            &mut motion,
            &mut gpu,
            &[at(1.0), at(22.0), at(12.0)],
            &[],
            &[0, 2, 1],
        );
        assert_eq!(xs(&gpu), [1.0, 22.0, 12.0]);
        // After forgetting: no motion, even where records change.
        motion.forget();
        frame(
            &mut motion,
            &mut gpu,
            &[at(5.0), at(6.0), at(7.0)],
            &[0..3],
            &[0, 2, 1],
        );
        assert_eq!(xs(&gpu), [5.0, 6.0, 7.0]);
    }

    #[test]
    fn the_camera_moves_from_the_last_frame_and_not_across_a_forget() {
        let mut motion = Motion::default();
        let (a, b) = (
            glam::Mat4::IDENTITY,
            glam::Mat4::from_scale(glam::Vec3::splat(2.0)),
        );
        assert_eq!(motion.cameras(a), [a, a]);
        assert_eq!(motion.cameras(b), [b, a]);
        motion.forget();
        assert_eq!(motion.cameras(a), [a, a]);
    }
}
