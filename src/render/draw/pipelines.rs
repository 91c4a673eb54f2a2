//! The crowd pass's shaders, bind group layouts and render pipelines: shader assembly (the
//! shared skinning function before each shader that skins, the shared lighting before each
//! lit one), the three character pipelines (skinned, bind pose, CPU-skinned), their
//! depth-only twins for the shadow map, the blob shadows' pipeline, the pipeline settings
//! every draw of the pass shares (from the caller's [`PassFormat`]), and the camera, light and
//! shadow uniform.

use std::borrow::Cow;

use super::cpu_skin::SkinnedVertex;
use super::influences::MAX_INFLUENCES;
use crate::crowd::InstanceRecord;
use crate::format::records::VertexRecord;
use crate::render::pass::{Light, PassFormat};
use bytemuck::{Pod, Zeroable};

/// The skinning function, shared by every shader that skins.
pub const SKINNING_WGSL: &str = include_str!("../../../shaders/skinning.wgsl");
/// The camera, the sun and its shadow map, shared by every lit shader.
pub const LIGHTING_WGSL: &str = include_str!("../../../shaders/lighting.wgsl");
/// The crowd shader (after [`SKINNING_WGSL`], [`LIGHTING_WGSL`] and [`INSTANCE_WGSL`]).
pub const CROWD_WGSL: &str = include_str!("../../../shaders/crowd.wgsl");
/// The instance record and placing shared by character shaders (after [`LIGHTING_WGSL`],
/// before [`CROWD_WGSL`] and [`IMPOSTOR_WGSL`]).
pub const INSTANCE_WGSL: &str = include_str!("../../../shaders/instance.wgsl");
/// The impostor shader (after [`LIGHTING_WGSL`] and [`INSTANCE_WGSL`]).
pub const IMPOSTOR_WGSL: &str = include_str!("../../../shaders/impostor.wgsl");
/// The ground shader (after [`LIGHTING_WGSL`]).
pub const GROUND_WGSL: &str = include_str!("../../../shaders/ground.wgsl");

/// The depth format of the shadow map.
pub(in crate::render) const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The camera, light and shadow uniform (group 1, binding 0 of every crowd shader; `Camera`
/// in shaders/lighting.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraUniform {
    view_proj: [f32; 16],
    shadow_view_proj: [f32; 16],
    previous_view_proj: [f32; 16],
    shadow: [f32; 4],
    eye: [f32; 4],
    light: [[f32; 4]; 4],
}

/// What the shaders need of the sun's shadow map this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::render) struct ShadowUniform {
    /// World to the map's clip space.
    pub view_proj: glam::Mat4,
    /// Whether the map is in use.
    pub enabled: bool,
    /// One texel of the map in uv (1 / its side).
    pub texel_uv: f32,
    /// Depth bias, clip z.
    pub bias: f32,
    /// The share of direct light a shadow takes away, 0 to 1.
    pub strength: f32,
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
pub(in crate::render) const SKINNED_VERTEX_ATTRIBUTES: u32 =
    (vertex_attrs().len() + instance_attrs().len()) as u32;

/// An instance record.
pub(in crate::render) const fn instance_attrs() -> [wgpu::VertexAttribute; 4] {
    wgpu::vertex_attr_array![5 => Float32x4, 6 => Float32x4, 7 => Uint32x4, 8 => Unorm8x4]
}

/// The previous frame's instance record, for motion (`Previous` in shaders/crowd.wgsl): all
/// but the tint.
pub(in crate::render) const fn previous_attrs() -> [wgpu::VertexAttribute; 3] {
    wgpu::vertex_attr_array![9 => Float32x4, 10 => Float32x4, 11 => Uint32x4]
}

static INSTANCE_ATTRS: [wgpu::VertexAttribute; 4] = instance_attrs();
static PREVIOUS_ATTRS: [wgpu::VertexAttribute; 3] = previous_attrs();

/// The per-instance buffer of [`InstanceRecord`]s ([`instance_attrs`]).
pub(in crate::render) fn instance_buffer() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<InstanceRecord>() as u64,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &INSTANCE_ATTRS,
    }
}

/// The instance buffers a pipeline of a pass of `format` reads after its vertices: the
/// records, then the previous frame's ([`previous_attrs`]) where the pass has a velocity
/// attachment.
pub(in crate::render) fn record_buffers(
    format: &PassFormat,
) -> Vec<Option<wgpu::VertexBufferLayout<'static>>> {
    let previous = wgpu::VertexBufferLayout {
        attributes: &PREVIOUS_ATTRS,
        ..instance_buffer()
    };
    std::iter::once(Some(instance_buffer()))
        .chain(format.velocity.then_some(Some(previous)))
        .collect()
}

/// The entry point of a shader for a pass of `format`: `plain`, or `motion` where the pass
/// has a velocity attachment.
pub(in crate::render) fn entry<'a>(
    format: &PassFormat,
    plain: &'a str,
    motion: &'a str,
) -> &'a str {
    if format.velocity { motion } else { plain }
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
/// material (group 2), the shadow map (group 3).
pub(in crate::render) struct Layouts {
    /// The texel texture and its layout uniform (also read by compute passes).
    pub texel: wgpu::BindGroupLayout,
    /// The camera and light uniform.
    pub camera: wgpu::BindGroupLayout,
    /// A material: base colour factor, image and sampler.
    pub material: wgpu::BindGroupLayout,
    /// The shadow map and its comparison sampler.
    pub shadow: wgpu::BindGroupLayout,
}

/// A uniform buffer binding.
pub(in crate::render) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
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

/// A 2D texture binding of float samples (`filterable` or not), single-sampled.
pub(in crate::render) fn texture_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    filterable: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
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
                texture_entry(1, wgpu::ShaderStages::FRAGMENT, true),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        // Impostors look the sun up once per agent, in the vertex stage.
        let lit = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let shadow = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow map"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: lit,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: lit,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        Self {
            texel,
            camera,
            material,
            shadow,
        }
    }
}

/// The camera and light uniform on the GPU, with its bind group.
pub(in crate::render) struct Camera {
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

    /// Writes the camera's view-projection (and the previous frame's, for motion), the light
    /// and the shadow map's use, for a pass of `format` (its depth test tells where the far
    /// plane is).
    pub fn write(
        &self,
        queue: &wgpu::Queue,
        [view_proj, previous_view_proj]: [glam::Mat4; 2],
        format: &PassFormat,
        light: &Light,
        shadow: &ShadowUniform,
    ) {
        let eye = eye_of(view_proj);
        let reversed = format.depth_compare == wgpu::CompareFunction::Greater;
        let far = far_point(view_proj, reversed).map(|p| p.distance(eye));
        queue.write_buffer(
            &self.buffer,
            0,
            bytemuck::bytes_of(&CameraUniform {
                view_proj: view_proj.to_cols_array(),
                previous_view_proj: previous_view_proj.to_cols_array(),
                eye: eye.extend(1.0).to_array(),
                light: light.uniform(far),
                shadow_view_proj: shadow.view_proj.to_cols_array(),
                shadow: [
                    f32::from(u8::from(shadow.enabled)),
                    shadow.texel_uv,
                    shadow.bias,
                    shadow.strength,
                ],
            }),
        );
    }
}

/// Where the camera of `view_proj` (world to clip space) is, world space, for distance fog:
/// the point every perspective ray starts from, or for an orthographic projection (whose
/// rays start nowhere) the middle of its near plane.
pub(in crate::render) fn eye_of(view_proj: glam::Mat4) -> glam::Vec3 {
    let inverse = view_proj.inverse();
    // The eye projects to (0, 0, z, 0): its homogeneous point is the inverse's z column.
    let eye = inverse.z_axis;
    if eye.w.abs() > 1e-6 * eye.truncate().length().max(1e-30) {
        eye.truncate() / eye.w
    } else {
        inverse.project_point3(glam::Vec3::ZERO)
    }
}

/// The middle of the far plane of `view_proj` (clip depth 1, or 0 when `reversed`), world
/// space, or `None` where it is infinitely far.
pub(in crate::render) fn far_point(view_proj: glam::Mat4, reversed: bool) -> Option<glam::Vec3> {
    let depth = if reversed { 0.0 } else { 1.0 };
    let p = view_proj.inverse() * glam::Vec4::new(0.0, 0.0, depth, 1.0);
    (p.w.abs() > 1e-9 * p.truncate().length()).then(|| p.truncate() / p.w)
}

/// Values of a stage's pipeline constants (`override` in WGSL), by name.
pub(in crate::render) type Constants<'a> = [(&'a str, f64)];

/// A shader module with the entry points of one pipeline.
pub(in crate::render) struct Stages<'a> {
    pub module: &'a wgpu::ShaderModule,
    pub vertex: &'a str,
    pub fragment: &'a str,
    /// The vertex stage's pipeline constants.
    pub constants: &'a Constants<'a>,
}

/// A pipeline of a pass of `format`: its samples, colour and depth formats and depth test,
/// back-face culling.
pub(in crate::render) fn pipeline(
    format: &PassFormat,
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    stages: &Stages,
    buffers: &[Option<wgpu::VertexBufferLayout>],
) -> wgpu::RenderPipeline {
    pipeline_with(format, device, label, layout, stages, buffers, None)
}

/// [`pipeline`], opaque where `blend` is `None`; else blended by it into the colour
/// attachment, with the depth test but without writing depth or velocity (what is behind a
/// partly covered pixel still shows, and moves as it does).
pub(in crate::render) fn pipeline_with(
    format: &PassFormat,
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    stages: &Stages,
    buffers: &[Option<wgpu::VertexBufferLayout>],
    blend: Option<wgpu::BlendState>,
) -> wgpu::RenderPipeline {
    let color = wgpu::ColorTargetState {
        blend,
        ..format.color.into()
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: stages.module,
            entry_point: Some(stages.vertex),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: stages.constants,
                ..Default::default()
            },
            buffers,
        },
        primitive: wgpu::PrimitiveState {
            cull_mode: Some(wgpu::Face::Back),
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: format.depth,
            depth_write_enabled: Some(blend.is_none()),
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
            targets: &format.targets(color, blend.is_none()),
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A depth-only pipeline drawing into the shadow map: back faces culled, a slope-scaled
/// depth bias against self-shadowing acne.
fn shadow_pipeline(
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
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: stages.constants,
                ..Default::default()
            },
            buffers,
        },
        primitive: wgpu::PrimitiveState {
            cull_mode: Some(wgpu::Face::Back),
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: SHADOW_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: wgpu::DepthBiasState {
                constant: 2,
                slope_scale: 2.0,
                clamp: 0.0,
            },
        }),
        multisample: Default::default(),
        fragment: None,
        multiview_mask: None,
        cache: None,
    })
}

/// The blob shadows' pipeline: soft dark ellipses blended over what the pass holds, depth
/// tested (hidden behind nearer things) but not written.
fn blob_pipeline(
    device: &wgpu::Device,
    format: &PassFormat,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    instances: wgpu::VertexBufferLayout,
) -> wgpu::RenderPipeline {
    let corner = wgpu::vertex_attr_array![0 => Float32x4];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("blob shadows"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_blob"),
            compilation_options: Default::default(),
            buffers: &[vertices(BLOB_CORNER_BYTES, &corner), Some(instances)],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: format.depth,
            depth_write_enabled: Some(false),
            depth_compare: Some(format.depth_compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: format.samples,
            ..Default::default()
        },
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_blob"),
            compilation_options: Default::default(),
            targets: &format.targets(
                wgpu::ColorTargetState {
                    format: format.color,
                    // Colour × (1 − alpha): the blob darkens; the target's alpha stays.
                    blend: Some(wgpu::BlendState {
                        color: wgpu::BlendComponent {
                            src_factor: wgpu::BlendFactor::Zero,
                            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                            operation: wgpu::BlendOperation::Add,
                        },
                        alpha: wgpu::BlendComponent {
                            src_factor: wgpu::BlendFactor::Zero,
                            dst_factor: wgpu::BlendFactor::One,
                            operation: wgpu::BlendOperation::Add,
                        },
                    }),
                    write_mask: wgpu::ColorWrites::ALL,
                },
                false,
            ),
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Bytes of a blob's corner: model-space x and z, and its place on the ellipse (two f32 each).
pub(in crate::render) const BLOB_CORNER_BYTES: usize = 16;

/// The skinned pipelines of one pass, by the influences their vertices need: `[k]` for
/// `k + 1` (the `INFLUENCES` constant of shaders/skinning.wgsl); only those some mesh needs
/// are built.
pub(in crate::render) type ByInfluences = [Option<wgpu::RenderPipeline>; MAX_INFLUENCES];

/// The pipeline of `pipelines` for triangles whose vertices need `k` influences (1 to 4): its
/// own, or failing that one that serves more.
pub(in crate::render) fn for_influences(
    pipelines: &ByInfluences,
    k: usize,
) -> Option<&wgpu::RenderPipeline> {
    pipelines.get(k.max(1) - 1..)?.iter().flatten().next()
}

/// The character pipelines.
pub(in crate::render) struct Pipelines {
    /// GPU skinning from texels (baked or live).
    pub skinned: ByInfluences,
    /// The bind pose, unskinned (the static path).
    pub unskinned_bind: wgpu::RenderPipeline,
    /// Vertices the CPU skinned (the CPU path), placed by their instance record.
    pub unskinned_world: wgpu::RenderPipeline,
    /// [`Pipelines::skinned`] into the shadow map, depth only.
    pub shadow_skinned: ByInfluences,
    /// [`Pipelines::unskinned_bind`] into the shadow map.
    pub shadow_bind: wgpu::RenderPipeline,
    /// [`Pipelines::unskinned_world`] into the shadow map.
    pub shadow_world: wgpu::RenderPipeline,
    /// Blob shadows.
    pub blob: wgpu::RenderPipeline,
}

impl Pipelines {
    /// Assembles the crowd shader and builds the pipelines, the skinned ones for the
    /// influences in `used` (`used[k]`: some triangle's vertices need `k + 1`); validation
    /// errors surface in the caller's error scope.
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        format: &PassFormat,
        used: [bool; MAX_INFLUENCES],
    ) -> Self {
        let crowd_source =
            format!("{SKINNING_WGSL}\n{LIGHTING_WGSL}\n{INSTANCE_WGSL}\n{CROWD_WGSL}");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(crowd_source)),
        });
        let layout = |label, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let (texel, camera) = (Some(&layouts.texel), Some(&layouts.camera));
        let (material, shadow) = (Some(&layouts.material), Some(&layouts.shadow));
        let skinned_layout = layout("skinned", &[texel, camera, material, shadow]);
        let unskinned_layout = layout("unskinned", &[None, camera, material, shadow]);
        let skinned_shadow_layout = layout("skinned shadow", &[texel, camera]);
        let unskinned_shadow_layout = layout("unskinned shadow", &[None, camera]);
        let (va, pa) = (vertex_attrs(), plain_attrs());
        let instances = instance_buffer();
        // The character pipelines read the previous records as a third buffer where the pass
        // has a velocity attachment.
        let records = &record_buffers(format);
        let stages = |vertex| Stages {
            module: &module,
            vertex,
            fragment: entry(format, "fs_lit", "fs_lit_motion"),
            constants: &[],
        };
        let with = |vertex| {
            std::iter::once(vertex)
                .chain(records.iter().cloned())
                .collect::<Vec<_>>()
        };
        let baked = std::mem::size_of::<VertexRecord>();
        let cpu = std::mem::size_of::<SkinnedVertex>();
        let shadow = |label, layout, stages: &Stages, size, attributes| {
            shadow_pipeline(
                device,
                label,
                layout,
                stages,
                &[vertices(size, attributes), Some(instances.clone())],
            )
        };
        // One skinned pipeline (and its shadow) per count of influences in use, built from the
        // value of the shader's INFLUENCES constant.
        let by_influences = |build: &dyn Fn(&Constants) -> wgpu::RenderPipeline| {
            std::array::from_fn(|k| used[k].then(|| build(&[("INFLUENCES", (k + 1) as f64)])))
        };
        Self {
            skinned: by_influences(&|constants| {
                pipeline(
                    format,
                    device,
                    "skinned",
                    &skinned_layout,
                    &Stages {
                        constants,
                        ..stages(entry(format, "vs_skinned", "vs_skinned_motion"))
                    },
                    &with(vertices(baked, &va)),
                )
            }),
            unskinned_bind: pipeline(
                format,
                device,
                "static",
                &unskinned_layout,
                &stages(entry(format, "vs_unskinned", "vs_unskinned_motion")),
                &with(vertices(baked, &pa)),
            ),
            unskinned_world: pipeline(
                format,
                device,
                "cpu skinned",
                &unskinned_layout,
                &stages(entry(format, "vs_unskinned", "vs_unskinned_motion")),
                &with(vertices(cpu, &pa)),
            ),
            shadow_skinned: by_influences(&|constants| {
                shadow(
                    "skinned shadow",
                    &skinned_shadow_layout,
                    &Stages {
                        constants,
                        ..stages("vs_shadow_skinned")
                    },
                    baked,
                    &va,
                )
            }),
            shadow_bind: shadow(
                "static shadow",
                &unskinned_shadow_layout,
                &stages("vs_shadow_unskinned"),
                baked,
                &pa,
            ),
            shadow_world: shadow(
                "cpu skinned shadow",
                &unskinned_shadow_layout,
                &stages("vs_shadow_unskinned"),
                cpu,
                &pa,
            ),
            blob: blob_pipeline(device, format, &unskinned_shadow_layout, &module, instances),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};

    fn view() -> Mat4 {
        glam::camera::rh::view::look_at_mat4(Vec3::new(3.0, 4.0, 12.0), Vec3::ZERO, Vec3::Y)
    }

    #[test]
    fn the_eye_and_far_plane_come_back_out_of_a_perspective() {
        let proj = glam::camera::rh::proj::directx::perspective(0.8, 1.5, 0.1, 250.0);
        let vp = proj * view();
        let eye = eye_of(vp);
        // f32 inverse of a matrix with entries up to ~1e3: a few micrometres.
        assert!(eye.distance(Vec3::new(3.0, 4.0, 12.0)) < 1e-3, "{eye}");
        let far = far_point(vp, false).unwrap().distance(eye);
        // 250 m to 0.1%: the far plane's depth is where f32 depth is least exact.
        assert!((far - 250.0).abs() < 0.25, "{far}");
    }

    #[test]
    fn an_orthographic_eye_is_its_near_plane_and_infinite_reversed_z_has_no_far_plane() {
        let ortho = glam::camera::rh::proj::directx::orthographic(-5.0, 5.0, -5.0, 5.0, 1.0, 50.0);
        let vp = ortho * view();
        let eye = eye_of(vp);
        let to_target = (Vec3::ZERO - Vec3::new(3.0, 4.0, 12.0)).normalize();
        // One metre in front of the camera, on its axis.
        assert!(
            eye.distance(Vec3::new(3.0, 4.0, 12.0) + to_target) < 1e-3,
            "{eye}"
        );
        let infinite = glam::camera::rh::proj::directx::perspective_infinite_reverse(0.8, 1.5, 0.1);
        assert!(far_point(infinite * view(), true).is_none());
    }
}
