//! The ground: one large square at y = 0 under the crowd, shaded by `shaders/ground.wgsl`
//! and lit like the characters, with their camera, light and shadows (it draws with a
//! renderer's). A helper beside the crowd renderer, not part of it: the
//! [`Stage`](super::Stage) draws it first in the pass of throng's own pictures; an embedding
//! program draws its own world instead (or this ground, into its pass).

use std::borrow::Cow;

use wgpu::util::DeviceExt as _;

use super::crowd::CrowdRenderer;
use super::pipelines::{GROUND_WGSL, LIGHTING_WGSL, Stages, entry, pipeline};

/// Half the side of the ground square, metres: well past the plazas of the crowds the demo,
/// the bench and the test scenes show, so that its edge is seldom in view. The reference
/// images show the ground: changing this changes them.
pub const GROUND_HALF_SIZE: f32 = 200.0;

/// Bytes per ground vertex: x and z as two f32.
const GROUND_VERTEX_BYTES: u64 = 8;

/// The ground's pipeline and its two triangles.
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
}

impl Ground {
    /// Builds the pipeline for passes of `renderer`'s format (writing the camera's motion
    /// where it has a velocity attachment), lit by its camera, light and shadows, and uploads
    /// the square. Validation errors surface in the caller's error scope
    /// (wgpu's uncaptured-error handler if it has none).
    pub fn new(device: &wgpu::Device, renderer: &CrowdRenderer) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ground.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(format!("{LIGHTING_WGSL}\n{GROUND_WGSL}"))),
        });
        let (camera, shadow) = renderer.lit_layouts();
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ground"),
            bind_group_layouts: &[None, Some(camera), None, Some(shadow)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x2];
        let format = renderer.pass_format();
        let pipeline = pipeline(
            &format,
            device,
            "ground",
            &layout,
            &Stages {
                module: &module,
                vertex: entry(&format, "vs_ground", "vs_ground_motion"),
                fragment: entry(&format, "fs_ground", "fs_ground_motion"),
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

    /// Draws the ground into `pass` (a pass of `renderer`'s format, after
    /// [`CrowdRenderer::prepare`] wrote the frame's camera and light, and
    /// [`CrowdRenderer::encode_shadows`] its shadow map). Sets its own pipeline, bind groups 1
    /// and 3 and vertex buffer 0.
    pub fn draw(&self, pass: &mut wgpu::RenderPass, renderer: &CrowdRenderer) {
        pass.set_pipeline(&self.pipeline);
        renderer.bind_lighting(pass);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..6, 0..1);
    }
}
