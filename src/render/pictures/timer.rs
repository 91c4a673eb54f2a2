//! GPU time of the crowd pass: two timestamp queries around it, resolved into a buffer and
//! read back after the frame, where the device has timestamps.

use crate::render::device::Gpu;

/// Bytes of the two resolved u64 timestamps.
const TIMESTAMP_BYTES: u64 = 16;

/// Timestamp queries around the crowd pass: the query set, and buffers to resolve and read
/// them.
pub(in crate::render) struct Timer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timer {
    /// A timer on `gpu`, or `None` where it has no timestamp queries.
    pub fn new(gpu: &Gpu) -> Option<Self> {
        let device = &gpu.device;
        gpu.timestamps.then(|| Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("crowd pass time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: TIMESTAMP_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps readback"),
                size: TIMESTAMP_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        })
    }

    /// The pass's timestamp writes: at its beginning and its end.
    pub fn pass_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Resolves the queries into the readback buffer, after the pass in `encoder`.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, TIMESTAMP_BYTES);
    }

    /// The pass's GPU time, seconds, once the frame finished (`None` if the readback fails).
    pub fn read(&self, gpu: &Gpu) -> Option<f64> {
        let data = gpu.read_buffer(&self.readback, "timestamps").ok()?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(data.get(..TIMESTAMP_BYTES as usize)?);
        let ns =
            ticks[1].saturating_sub(ticks[0]) as f64 * f64::from(gpu.queue.get_timestamp_period());
        Some(ns * 1e-9)
    }
}
