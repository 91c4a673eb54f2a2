//! One frame of the crowd pass, in and out: what it shows ([`CrowdFrame`], the crowd's
//! records and draw ranges in slot order) and what drawing it cost ([`FrameStats`]).

use std::ops::Range;
use std::sync::atomic::AtomicBool;

use crate::crowd::{AgentData, Crowd, DrawRange, InstanceRecord};

/// What one frame drew.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Instances drawn.
    pub instances: usize,
    /// Draw calls issued for characters.
    pub draws: usize,
    /// Vertices skinned on the CPU (fallback path).
    pub cpu_skinned_vertices: usize,
    /// CPU time skinning, seconds.
    pub cpu_skin_seconds: f64,
    /// Instance records written to the GPU.
    pub records_written: usize,
    /// Bytes written to GPU buffers (instance records and CPU-skinned vertices).
    pub uploaded_bytes: usize,
    /// CPU time writing instance records and skinned vertices to GPU buffers, seconds.
    pub upload_seconds: f64,
    /// Wall time from submitting the frame until the device finished it, seconds.
    pub submit_seconds: f64,
    /// GPU time of the crowd pass from timestamp queries, seconds, where the device has them.
    pub gpu_seconds: Option<f64>,
}

/// What a frame shows, in the crowd's slot order (see `crowd::frame::schedule`).
#[derive(Clone, Copy)]
pub struct CrowdFrame<'a> {
    /// Every agent's instance record, by slot.
    pub records: &'a [InstanceRecord],
    /// Slots whose records changed since they were last uploaded.
    pub dirty: &'a [Range<u32>],
    /// The visible slots: one range per character and LOD level.
    pub draws: &'a [DrawRange],
    /// The agent in each slot.
    pub slot_agent: &'a [u32],
    /// Told when a renderer has written `dirty` ([`CrowdRenderer::prepare`]): the crowd then
    /// forgets those changes before it makes new ones (see [`Crowd::clear_dirty`]). `None`
    /// for a frame that is not a crowd's.
    ///
    /// [`CrowdRenderer::prepare`]: super::CrowdRenderer::prepare
    pub prepared: Option<&'a AtomicBool>,
}

impl<'a> CrowdFrame<'a> {
    /// What `crowd` shows after its last [`Crowd::update`]: its records, the slots that
    /// changed since a renderer last prepared it (or [`Crowd::clear_dirty`]), its draw ranges
    /// and slots.
    pub fn of<S: AgentData>(crowd: &'a Crowd<S>) -> Self {
        Self {
            records: crowd.records(),
            dirty: crowd.dirty(),
            draws: crowd.draws(),
            slot_agent: crowd.slot_agent(),
            prepared: Some(crowd.prepared_flag()),
        }
    }
}
