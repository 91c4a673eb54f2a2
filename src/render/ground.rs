//! The ground: one large square at y = 0 under the crowd, shaded by `shaders/ground.wgsl`
//! and lit like the characters. A helper beside the crowd renderer, not part of it: the
//! [`Stage`](super::Stage) draws it first in the pass of throng's own pictures; an embedding
//! program draws its own world instead (or this ground, into its pass).

use std::borrow::Cow;

use wgpu::util::DeviceExt as _;

use super::pass::{Light, PassFormat};
use super::pipelines::{Camera, GROUND_WGSL, Layouts, Stages, pipeline};

/// Half the side of the ground square, metres: well past the plazas of the crowds the demo,
/// the bench and the test scenes show, so that its edge is seldom in view. The reference
/// images show the ground: changing this changes them.
pub const GROUND_HALF_SIZE: f32 = 200.0;

/// Bytes per ground vertex: x and z as two f32.
const GROUND_VERTEX_BYTES: u64 = 8;

/// The ground's pipeline, its two triangles and its camera.
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    camera: Camera,
}

impl Ground {
    /// Builds the pipeline for passes of `format` and uploads the square. Validation errors
    /// surface in the caller's error scope (wgpu's uncaptured-error handler if it has none).
    pub fn new(device: &wgpu::Device, format: &PassFormat) -> Self {
        let layouts = Layouts::new(device);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ground.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(GROUND_WGSL)),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ground"),
            bind_group_layouts: &[None, Some(&layouts.camera)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x2];
        let pipeline = pipeline(
            format,
            device,
            "ground",
            &layout,
            &Stages {
                module: &module,
                vertex: "vs_ground",
                fragment: "fs_ground",
            },
            &[Some(wgpu::VertexBufferLayout {
                array_stride: GROUND_VERTEX_BYTES,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
        );
        let g = GROUND_HALF_SIZE;
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ground"),
            contents: bytemuck::cast_slice(&[-g, -g, -g, g, g, g, -g, -g, g, g, g, -g]),
            usage: wgpu::BufferUsages::VERTEX,
        });
        Self {
            pipeline,
            vertices,
            camera: Camera::new(device, &layouts),
        }
    }

    /// Writes the frame's camera (world to wgpu clip space) and light, before the pass is
    /// submitted.
    pub fn prepare(&self, queue: &wgpu::Queue, view_proj: glam::Mat4, light: &Light) {
        self.camera.write(queue, view_proj, light);
    }

    /// Draws the ground into `pass` (a pass of the format it was built for). Sets its own
    /// pipeline, bind group 1 and vertex buffer 0.
    pub fn draw(&self, pass: &mut wgpu::RenderPass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(1, &self.camera.group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..6, 0..1);
    }
}
