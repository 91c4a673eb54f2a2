//! The "motion vectors" view of the demo, and a helper for anyone checking their own: draws
//! a velocity attachment ([`Velocity`]) as colours over a target, hue for the direction of
//! the screen motion and brightness for its speed (`shaders/motion_view.wgsl`).

use std::borrow::Cow;

use wgpu::util::DeviceExt as _;

use crate::render::draw::pipelines::{texture_entry, uniform_entry};
use crate::render::target::Velocity;

/// The view's shader.
pub const MOTION_VIEW_WGSL: &str = include_str!("../../../shaders/motion_view.wgsl");

/// Pixels of motion a frame drawn at full brightness: a walker seen across a window moves a
/// few pixels a frame at 60 frames a second.
pub const FULL_PIXELS: f32 = 8.0;

/// Draws a velocity attachment as colours into a colour target of one format.
pub struct MotionView {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// The bind group of the velocity texture last bound ([`MotionView::bind`]).
    group: Option<wgpu::BindGroup>,
}

impl MotionView {
    /// The view's pipeline for targets of `format` (single-sampled). Validation errors
    /// surface in the caller's error scope.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("motion_view.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(MOTION_VIEW_WGSL)),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("motion view"),
            entries: &[
                texture_entry(0, wgpu::ShaderStages::FRAGMENT, false),
                uniform_entry(1, wgpu::ShaderStages::FRAGMENT),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("motion view"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("motion view"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_full"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_motion"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("motion view"),
            contents: bytemuck::cast_slice(&[FULL_PIXELS, 0.0, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        Self {
            pipeline,
            layout,
            uniform,
            group: None,
        }
    }

    /// Reads `velocity` from now on (call again when it is remade, e.g. on a resize).
    pub fn bind(&mut self, device: &wgpu::Device, velocity: &Velocity) {
        self.group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("motion view"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&velocity.view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.uniform.as_entire_binding(),
                },
            ],
        }));
    }

    /// Draws the bound velocity over all of `out` (of the view's format and the velocity's
    /// size), in a pass of its own on `encoder`, after the pass that wrote it. Nothing before
    /// [`MotionView::bind`].
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, out: &wgpu::TextureView) {
        let Some(group) = &self.group else { return };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("motion view"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: out,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.draw(0..3, 0..1);
    }
}
