//! The ground: one large square at y = 0 under the crowd, shaded by `shaders/ground.wgsl`,
//! drawn first in the crowd pass.

use std::borrow::Cow;

use wgpu::util::DeviceExt as _;

use super::pipelines::{GROUND_WGSL, Layouts, PassTargets, Stages};

/// Half the side of the ground square, metres: well past the plazas of the crowds the demo,
/// the bench and the test scenes show, so that its edge is seldom in view. The reference
/// images show the ground: changing this changes them.
pub const GROUND_HALF_SIZE: f32 = 200.0;

/// Bytes per ground vertex: x and z as two f32.
const GROUND_VERTEX_BYTES: u64 = 8;

/// The ground's pipeline and its two triangles.
pub(super) struct Ground {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
}

impl Ground {
    /// Builds the pipeline (validation errors surface in the caller's error scope) and
    /// uploads the square.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, targets: PassTargets) -> Self {
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
        let pipeline = targets.pipeline(
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
        Self { pipeline, vertices }
    }

    /// Draws the ground into `pass`, whose group 1 is the camera.
    pub fn draw(&self, pass: &mut wgpu::RenderPass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..6, 0..1);
    }
}
