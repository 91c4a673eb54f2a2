//! The crowd pass's shaders, bind group layouts and render pipelines: shader assembly (the
//! shared skinning function before each shader that skins), the three character pipelines
//! (skinned, bind pose, CPU-skinned), the pipeline settings every draw of the pass shares
//! (from the caller's [`PassFormat`]), and the camera and light uniform.

use std::borrow::Cow;

use super::cpu_skin::SkinnedVertex;
use super::pass::{Light, PassFormat};
use crate::crowd::InstanceRecord;
use crate::format::records::VertexRecord;
use bytemuck::{Pod, Zeroable};

/// The skinning function, shared by every shader that skins.
pub const SKINNING_WGSL: &str = include_str!("../../shaders/skinning.wgsl");
/// The crowd shader (after [`SKINNING_WGSL`]).
pub const CROWD_WGSL: &str = include_str!("../../shaders/crowd.wgsl");
/// The ground shader.
pub const GROUND_WGSL: &str = include_str!("../../shaders/ground.wgsl");

/// The camera and light uniform (group 1, binding 0 of every crowd shader).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraUniform {
    view_proj: [f32; 16],
    light: [f32; 4],
}

/// Vertex attributes of a baked vertex for the skinned pipeline.
const fn vertex_attrs() -> [wgpu::VertexAttribute; 5] {
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint16x4, 4 => Float32x4]
}
/// Position, normal and uv only, for the unskinned pipelines.
fn plain_attrs() -> [wgpu::VertexAttribute; 3] {
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2]
}
/// Vertex attributes the skinned pipeline reads: a skinned vertex's and an instance record's.
pub(super) const SKINNED_VERTEX_ATTRIBUTES: u32 =
    (vertex_attrs().len() + instance_attrs().len()) as u32;

/// An instance record.
const fn instance_attrs() -> [wgpu::VertexAttribute; 4] {
    wgpu::vertex_attr_array![5 => Float32x4, 6 => Float32x4, 7 => Uint32x4, 8 => Unorm8x4]
}

/// A per-vertex buffer of `size`-byte vertices.
fn vertices(
    size: usize,
    attributes: &[wgpu::VertexAttribute],
) -> Option<wgpu::VertexBufferLayout<'_>> {
    Some(wgpu::VertexBufferLayout {
        array_stride: size as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes,
    })
}

/// The bind group layouts of the crowd shaders: texels (group 0), camera (group 1),
/// material (group 2).
pub(super) struct Layouts {
    /// The texel texture and its layout uniform (also read by compute passes).
    pub texel: wgpu::BindGroupLayout,
    /// The camera and light uniform.
    pub camera: wgpu::BindGroupLayout,
    /// A material: base colour factor, image and sampler.
    pub material: wgpu::BindGroupLayout,
}

/// A uniform buffer binding.
fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Layouts {
    /// Makes the three layouts on `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        let skinning = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE;
        let texel = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("texels"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: skinning,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                uniform_entry(1, skinning),
            ],
        });
        let camera = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[uniform_entry(
                0,
                wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            )],
        });
        let material = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        Self {
            texel,
            camera,
            material,
        }
    }
}

/// The camera and light uniform on the GPU, with its bind group.
pub(super) struct Camera {
    buffer: wgpu::Buffer,
    /// Group 1 of every crowd shader.
    pub group: wgpu::BindGroup,
}

impl Camera {
    /// Makes the uniform (written by [`Camera::write`] before each frame).
    pub fn new(device: &wgpu::Device, layouts: &Layouts) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("camera"),
            size: std::mem::size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("camera"),
            layout: &layouts.camera,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        Self { buffer, group }
    }

    /// Writes the camera's view-projection and the light.
    pub fn write(&self, queue: &wgpu::Queue, view_proj: glam::Mat4, light: &Light) {
        queue.write_buffer(
            &self.buffer,
            0,
            bytemuck::bytes_of(&CameraUniform {
                view_proj: view_proj.to_cols_array(),
                light: light.uniform(),
            }),
        );
    }
}

/// A shader module with the entry points of one pipeline.
pub(super) struct Stages<'a> {
    pub module: &'a wgpu::ShaderModule,
    pub vertex: &'a str,
    pub fragment: &'a str,
}

/// A pipeline of a pass of `format`: its samples, colour and depth formats and depth test,
/// back-face culling.
pub(super) fn pipeline(
    format: &PassFormat,
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    stages: &Stages,
    buffers: &[Option<wgpu::VertexBufferLayout>],
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: stages.module,
            entry_point: Some(stages.vertex),
            compilation_options: Default::default(),
            buffers,
        },
        primitive: wgpu::PrimitiveState {
            cull_mode: Some(wgpu::Face::Back),
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: format.depth,
            depth_write_enabled: Some(true),
            depth_compare: Some(format.depth_compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: format.samples,
            ..Default::default()
        },
        fragment: Some(wgpu::FragmentState {
            module: stages.module,
            entry_point: Some(stages.fragment),
            compilation_options: Default::default(),
            targets: &[Some(format.color.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The character pipelines.
pub(super) struct Pipelines {
    /// GPU skinning from texels (baked or live).
    pub skinned: wgpu::RenderPipeline,
    /// The bind pose, unskinned (the static path).
    pub unskinned_bind: wgpu::RenderPipeline,
    /// Vertices the CPU skinned (the CPU path), placed by their instance record.
    pub unskinned_world: wgpu::RenderPipeline,
}

impl Pipelines {
    /// Assembles the crowd shader and builds the pipelines; validation errors surface in the
    /// caller's error scope.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: &PassFormat) -> Self {
        let crowd_source = format!("{SKINNING_WGSL}\n{CROWD_WGSL}");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(crowd_source)),
        });
        let skinned_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinned"),
            bind_group_layouts: &[
                Some(&layouts.texel),
                Some(&layouts.camera),
                Some(&layouts.material),
            ],
            immediate_size: 0,
        });
        let unskinned_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unskinned"),
            bind_group_layouts: &[None, Some(&layouts.camera), Some(&layouts.material)],
            immediate_size: 0,
        });
        let (va, pa, ia) = (vertex_attrs(), plain_attrs(), instance_attrs());
        let instances = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<InstanceRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &ia,
        };
        let stages = |vertex| Stages {
            module: &module,
            vertex,
            fragment: "fs_lit",
        };
        let baked = std::mem::size_of::<VertexRecord>();
        Self {
            skinned: pipeline(
                format,
                device,
                "skinned",
                &skinned_layout,
                &stages("vs_skinned"),
                &[vertices(baked, &va), Some(instances.clone())],
            ),
            unskinned_bind: pipeline(
                format,
                device,
                "static",
                &unskinned_layout,
                &stages("vs_unskinned"),
                &[vertices(baked, &pa), Some(instances.clone())],
            ),
            unskinned_world: pipeline(
                format,
                device,
                "cpu skinned",
                &unskinned_layout,
                &stages("vs_unskinned"),
                &[
                    vertices(std::mem::size_of::<SkinnedVertex>(), &pa),
                    Some(instances),
                ],
            ),
        }
    }
}
