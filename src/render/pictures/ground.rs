//! The ground under the crowd: the flat plaza or the relief ([`Terrain`], its triangles from
//! [`ground_mesh`]), shaded by `shaders/ground.wgsl` and lit like the characters, with their
//! camera, light and shadows (it draws with a renderer's). A helper beside the crowd renderer, not part of it: the
//! [`Stage`](crate::render::Stage) draws it first in the pass of throng's own pictures; an embedding
//! program draws its own world instead (or this ground, into its pass).

use std::borrow::Cow;

use wgpu::util::DeviceExt as _;

use super::ground_mesh::{GroundVertex, ground_mesh};
use crate::crowd::Terrain;
use crate::render::crowd::CrowdRenderer;
use crate::render::draw::pipelines::{GROUND_WGSL, LIGHTING_WGSL, Stages, entry, pipeline};

/// Half the side of the ground square, metres, at the least: well past the plazas of the
/// crowds the demo, the bench and the test scenes show by default, so that its edge is seldom
/// in view. A larger plaza gets a larger ground ([`ground_half_size`]). The reference images
/// show the ground: changing this changes them.
pub const GROUND_HALF_SIZE: f32 = 200.0;

/// Half the side of the ground under a plaza (or scene) of half-size `plaza_half` metres:
/// [`GROUND_HALF_SIZE`], or three times the plaza's where that is more, so that the ground
/// still reaches the fog at the horizon when the plaza is wider than the default ground
/// (100,000 agents stand on a plaza 775 m across). Crowds of up to about 3,000 agents (a plaza
/// of half-size 67 m) keep the default ground, and their pictures are unchanged.
pub fn ground_half_size(plaza_half: f32) -> f32 {
    if plaza_half.is_finite() {
        GROUND_HALF_SIZE.max(3.0 * plaza_half)
    } else {
        GROUND_HALF_SIZE
    }
}

/// The ground's pipeline and its triangles.
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    terrain: Terrain,
    /// Half the side of the ground's square, metres.
    half: f32,
}

impl Ground {
    /// Builds the pipeline for passes of `renderer`'s format (writing the camera's motion
    /// where it has a velocity attachment), lit by its camera, light and shadows, and uploads
    /// the triangles of `terrain`. Validation errors surface in the caller's error scope
    /// (wgpu's uncaptured-error handler if it has none).
    pub fn new(device: &wgpu::Device, renderer: &CrowdRenderer, terrain: Terrain) -> Self {
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
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32];
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
                constants: &[],
            },
            &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<GroundVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
        );
        let (vertices, indices, index_count) = triangles(device, terrain, GROUND_HALF_SIZE);
        Self {
            pipeline,
            vertices,
            indices,
            index_count,
            terrain,
            half: GROUND_HALF_SIZE,
        }
    }

    /// Makes the ground reach as far as a plaza of half-size `plaza_half` metres needs
    /// ([`ground_half_size`]): its triangles are made again when that differs from the
    /// ground's size now (a crowd's count changed), and left as they are otherwise.
    pub fn reach(&mut self, device: &wgpu::Device, plaza_half: f32) {
        let half = ground_half_size(plaza_half);
        if half != self.half {
            (self.vertices, self.indices, self.index_count) = triangles(device, self.terrain, half);
            self.half = half;
        }
    }

    /// Draws the ground into `pass` (a pass of `renderer`'s format, after
    /// [`CrowdRenderer::prepare`] wrote the frame's camera and light, and
    /// [`CrowdRenderer::encode_shadows`] its shadow map). Sets its own pipeline, bind groups 1
    /// and 3, vertex buffer 0 and the index buffer.
    pub fn draw(&self, pass: &mut wgpu::RenderPass, renderer: &CrowdRenderer) {
        pass.set_pipeline(&self.pipeline);
        renderer.bind_lighting(pass);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.index_count, 0, 0..1);
    }
}

/// The vertex and index buffers of the ground of `terrain` out to `half` metres, and its
/// index count.
fn triangles(
    device: &wgpu::Device,
    terrain: Terrain,
    half: f32,
) -> (wgpu::Buffer, wgpu::Buffer, u32) {
    let (vertices, indices) = ground_mesh(terrain, half);
    let buffer = |label, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    };
    (
        buffer(
            "ground",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        ),
        buffer(
            "ground indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        ),
        indices.len() as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small plazas keep the default ground (their pictures, the reference images among them,
    /// are unchanged); wider ones get three times their size; a size that is not a number
    /// keeps the default.
    #[test]
    fn the_ground_reaches_past_wide_plazas_only() {
        assert_eq!(ground_half_size(1.0), GROUND_HALF_SIZE);
        assert_eq!(ground_half_size(54.8), GROUND_HALF_SIZE); // 2,000 agents
        assert_eq!(ground_half_size(387.3), 3.0 * 387.3); // 100,000 agents
        assert_eq!(ground_half_size(f32::NAN), GROUND_HALF_SIZE);
        assert_eq!(ground_half_size(f32::INFINITY), GROUND_HALF_SIZE);
    }
}
