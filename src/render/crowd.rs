//! The crowd pass: a bake uploaded once (texels laid out for the device, meshes per part and
//! LOD, base-colour images), then frames drawn with one instanced draw per mesh part and LOD
//! level on the GPU skinning path, or skinned on the CPU and drawn unskinned on the fallback
//! path; plus the static (bind pose) draw that animation cost is measured against, and a
//! ground plane.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use glam::Mat4;
use wgpu::util::DeviceExt as _;

use std::ops::Range;

use rayon::prelude::*;

use super::LIGHT;
use super::attachment::Attachment;
use super::cpu_skin::{SkinnedVertex, skin_into};
use super::device::{Gpu, TexelLayout};
use super::error::RenderError;
use super::target::{DEPTH_FORMAT, FrameViews, TARGET_FORMAT, Target};
use crate::crowd::scene::{Placement, frame_pose, record};
use crate::crowd::{DrawRange, FramePose, InstanceRecord};
use crate::format::records::{NONE, VertexRecord};
use crate::format::{TexelFormat, ThrongFile};

/// The skinning function, shared by every shader that skins.
pub const SKINNING_WGSL: &str = include_str!("../../shaders/skinning.wgsl");
/// The crowd shader (after [`SKINNING_WGSL`]).
pub const CROWD_WGSL: &str = include_str!("../../shaders/crowd.wgsl");
/// The ground shader.
pub const GROUND_WGSL: &str = include_str!("../../shaders/ground.wgsl");

/// Most joints a skinned vertex may reference: the shader's joint indices are u16 in the file
/// and texel indices are 32-bit.
pub const MAX_SHADER_JOINTS: u32 = 65_536;

/// How characters are skinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinningPath {
    /// In the vertex shader, from the texel texture.
    Gpu,
    /// On the CPU (rayon), into a vertex buffer drawn unskinned.
    Cpu,
    /// In the vertex shader, from joint matrices the CPU evaluated this frame and wrote with
    /// [`CrowdRenderer::upload_live`] (the live baseline `throng bench` measures against).
    Live,
}

impl SkinningPath {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
            Self::Live => "live",
        }
    }
}

/// The sky: the colour frames are cleared to.
const SKY: wgpu::Color = wgpu::Color {
    r: 0.56,
    g: 0.68,
    b: 0.80,
    a: 1.0,
};

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraUniform {
    view_proj: [f32; 16],
    light: [f32; 4],
}

/// A mesh part at one LOD level, on the GPU.
struct GpuMesh {
    character: u32,
    lod: u32,
    /// For an attachment: its index in `attachments`, and it is drawn at `lod` and below.
    attachment: Option<usize>,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    vertex_count: u32,
    index_count: u32,
    material: wgpu::BindGroup,
}

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

/// A bake on the GPU with the pipelines that draw it.
pub struct CrowdRenderer {
    layout: TexelLayout,
    texels: wgpu::BindGroup,
    texel_view: wgpu::TextureView,
    layout_uniform: wgpu::Buffer,
    camera: wgpu::Buffer,
    camera_group: wgpu::BindGroup,
    meshes: Vec<GpuMesh>,
    skinned: wgpu::RenderPipeline,
    unskinned_bind: wgpu::RenderPipeline,
    unskinned_world: wgpu::RenderPipeline,
    ground: wgpu::RenderPipeline,
    ground_vertices: wgpu::Buffer,
    /// Props on joints, kept on the CPU too for the CPU path.
    attachments: Vec<Attachment>,
    /// Meshes (indices into `meshes`) of each character at each LOD level, attachments
    /// included: `parts[character * levels + level]`, with each one's first vertex in an
    /// agent's region of the CPU path's vertex cache.
    parts: Vec<Vec<(usize, u32)>>,
    levels: u32,
    /// Vertices per agent in the CPU path's cache: the most any character needs at any
    /// level, parts and attachments together.
    cpu_stride: u32,
    instances: Option<wgpu::Buffer>,
    cpu_vertices: Option<wgpu::Buffer>,
    /// The CPU path's skinned vertices, one region of `cpu_stride` vertices per agent, kept
    /// between frames so only agents whose record changed are skinned again.
    cpu_cache: Vec<SkinnedVertex>,
    /// Whether `cpu_cache` (and its GPU copy) matches the records uploaded last; false after
    /// a frame on another path.
    cpu_fresh: bool,
    /// Per agent: the index of its skinning job this frame (`NO_JOB` for none).
    cpu_job_of: Vec<u32>,
    cpu_jobs: Vec<CpuJob>,
    /// Per-frame scratch of [`CrowdRenderer::draw`], kept so that frames allocate nothing
    /// once warm.
    order_scratch: Vec<u32>,
    draw_scratch: Vec<DrawRange>,
    record_scratch: Vec<InstanceRecord>,
    samples: u32,
    format: wgpu::TextureFormat,
    timer: Option<Timer>,
    /// The live path's matrices: an rgba32f texture laid out like the bake's texels, and its
    /// bind group (made on first use, grown as needed).
    live: Option<LiveTexels>,
    texel_bgl: wgpu::BindGroupLayout,
}

/// Joint matrices evaluated on the CPU, on the GPU.
struct LiveTexels {
    texture: wgpu::Texture,
    layout: TexelLayout,
    group: wgpu::BindGroup,
}

/// An agent the CPU path skins this frame: character, LOD level, pose.
#[derive(Clone, Copy, Debug)]
struct CpuJob {
    character: u32,
    level: u32,
    pose: FramePose,
}

const NO_JOB: u32 = u32::MAX;

/// Most memory the CPU path may keep for skinned vertices (CPU and GPU copies each), bytes.
pub const CPU_CACHE_LIMIT: usize = 768 << 20;

/// How a renderer is built.
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// Samples per pixel of the targets it draws into (1 or 4; see [`Target::best_samples`]).
    pub samples: u32,
    /// Colour format of those targets ([`TARGET_FORMAT`] offscreen; a window's surface
    /// format).
    pub format: wgpu::TextureFormat,
    /// Props on joints.
    pub attachments: Vec<Attachment>,
}

/// What a frame shows, in the crowd's slot order (see `crowd::schedule`).
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
}

/// Timestamp queries around the crowd pass: the query set, and buffers to resolve and read
/// them.
struct Timer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

fn vertex_attrs() -> [wgpu::VertexAttribute; 5] {
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint16x4, 4 => Float32x4]
}
fn plain_attrs() -> [wgpu::VertexAttribute; 3] {
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2]
}
fn instance_attrs() -> [wgpu::VertexAttribute; 4] {
    wgpu::vertex_attr_array![5 => Float32x4, 6 => Float32x4, 7 => Uint32x4, 8 => Unorm8x4]
}

/// Why the GPU skinning path cannot draw `file` on `gpu`, if it cannot.
pub fn gpu_path_unavailable(gpu: &Gpu, file: &ThrongFile) -> Option<String> {
    let count = file.info().texel_count;
    let l = &gpu.limits;
    if TexelLayout::choose(
        count,
        l.max_texture_dimension_2d,
        l.max_texture_array_layers,
    )
    .is_none()
    {
        return Some(format!(
            "its {count} texels do not fit a {}x{} texture of {} layers (the device's limits)",
            l.max_texture_dimension_2d, l.max_texture_dimension_2d, l.max_texture_array_layers
        ));
    }
    if l.max_vertex_attributes < 9 {
        return Some(format!(
            "the device allows {} vertex attributes; GPU skinning needs 9",
            l.max_vertex_attributes
        ));
    }
    if file.info().max_joints > MAX_SHADER_JOINTS {
        return Some(format!(
            "a skeleton has {} joints; the shader supports {MAX_SHADER_JOINTS}",
            file.info().max_joints
        ));
    }
    None
}

impl CrowdRenderer {
    /// Uploads `file` (texels, meshes, images) to `gpu` and builds the pipelines for targets
    /// with `samples` samples per pixel.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the texels cannot be laid out within the device's
    /// limits even for the CPU path's needs (the texture is still uploaded for parity tests
    /// only when it fits), [`RenderError::Gpu`] for shader or pipeline errors.
    pub fn new(gpu: &Gpu, file: &ThrongFile, samples: u32) -> Result<Self, RenderError> {
        Self::with_options(
            gpu,
            file,
            RendererOptions {
                samples,
                format: TARGET_FORMAT,
                attachments: Vec::new(),
            },
        )
    }

    /// Like [`CrowdRenderer::new`], for targets of `options.format` and with attachments.
    ///
    /// # Errors
    /// As [`CrowdRenderer::new`]; [`RenderError::Unsupported`] for an attachment on a
    /// character the bake does not have.
    pub fn with_options(
        gpu: &Gpu,
        file: &ThrongFile,
        options: RendererOptions,
    ) -> Result<Self, RenderError> {
        let RendererOptions {
            samples,
            format: target_format,
            attachments,
        } = options;
        let device = &gpu.device;
        if let Some(a) = file.anims().iter().position(|a| a.first_texel % 3 != 0) {
            return Err(RenderError::Unsupported {
                file: file.name().to_string(),
                what: format!(
                    "animation {a} starts at texel {}, not at a whole matrix (a multiple of 3); throng cannot draw it",
                    file.anims()[a].first_texel
                ),
            });
        }
        let count = file.info().texel_count;
        let l = &gpu.limits;
        // A bake too large for the texture still renders on the CPU path, which reads texels
        // from the file; the texture then holds a single texel.
        let layout = TexelLayout::choose(
            count,
            l.max_texture_dimension_2d,
            l.max_texture_array_layers,
        )
        .unwrap_or(TexelLayout {
            width: 3,
            height: 1,
            layers: 1,
            shift: 0,
            hshift: 31,
        });
        let fits = layout.capacity() >= count;
        let format = match file.format() {
            TexelFormat::Rgba32F => wgpu::TextureFormat::Rgba32Float,
            TexelFormat::Rgba16F => wgpu::TextureFormat::Rgba16Float,
        };
        let texture = texel_texture(device, layout, format, "bone texels");
        if fits {
            upload_texels(gpu, &texture, layout, file);
        }
        let texel_view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let layout_uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("texel layout"),
            contents: bytemuck::cast_slice(&layout.uniform()),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let texel_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("texels"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let texels = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("texels"),
            layout: &texel_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&texel_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: layout_uniform.as_entire_binding(),
                },
            ],
        });
        let camera = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("camera"),
            size: std::mem::size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let camera_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let camera_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("camera"),
            layout: &camera_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: camera.as_entire_binding(),
            }],
        });
        let material_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
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
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        // Images, and a white texel for meshes without one.
        let mut image_views: Vec<wgpu::TextureView> = (0..file.images().len())
            .map(|i| {
                let im = &file.images()[i];
                image_view(gpu, im.width, im.height, file.pixels(i))
            })
            .collect();
        image_views.push(image_view(gpu, 1, 1, &[255; 4]));
        let white = image_views.len() - 1;
        let upload_mesh =
            |v: &[VertexRecord], i: &[u32], color: [f32; 4], view: &wgpu::TextureView| {
                let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("mesh vertices"),
                    contents: bytemuck::cast_slice::<VertexRecord, u8>(v),
                    usage: wgpu::BufferUsages::VERTEX,
                });
                let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("mesh indices"),
                    contents: bytemuck::cast_slice::<u32, u8>(i),
                    usage: wgpu::BufferUsages::INDEX,
                });
                let factor = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("material"),
                    contents: bytemuck::cast_slice(&color),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let material = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("material"),
                    layout: &material_bgl,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: factor.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(view),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                    ],
                });
                (vertices, indices, material)
            };
        let mut meshes = Vec::with_capacity(file.meshes().len() + attachments.len());
        for (mi, m) in file.meshes().iter().enumerate() {
            let (v, i) = file.mesh_data(mi);
            let view = &image_views[if m.image == NONE {
                white
            } else {
                m.image as usize
            }];
            let (vertices, indices, material) = upload_mesh(v, i, m.base_color, view);
            meshes.push(GpuMesh {
                character: m.character,
                lod: m.lod,
                attachment: None,
                vertices,
                indices,
                vertex_count: m.vertex_count,
                index_count: m.index_count,
                material,
            });
        }
        let characters = file.characters().len() as u32;
        for (k, a) in attachments.iter().enumerate() {
            if a.character >= characters {
                return Err(RenderError::Unsupported {
                    file: file.name().to_string(),
                    what: format!(
                        "{} is for character {}, but the bake has {characters}",
                        a.name, a.character
                    ),
                });
            }
            let (vertices, indices, material) =
                upload_mesh(&a.vertices, &a.indices, a.color, &image_views[white]);
            meshes.push(GpuMesh {
                character: a.character,
                lod: a.max_level,
                attachment: Some(k),
                vertices,
                indices,
                vertex_count: a.vertices.len() as u32,
                index_count: a.indices.len() as u32,
                material,
            });
        }
        // Parts per (character, level), with their place in an agent's CPU cache region.
        let levels = file.meshes().iter().map(|m| m.lod + 1).max().unwrap_or(1);
        let mut parts = vec![Vec::new(); (characters * levels) as usize];
        let mut cpu_stride = 0u32;
        for c in 0..characters {
            for level in 0..levels {
                let mut offset = 0;
                let list = &mut parts[(c * levels + level) as usize];
                for (mi, m) in meshes.iter().enumerate() {
                    let drawn = match m.attachment {
                        None => m.lod == level,
                        Some(_) => level <= m.lod,
                    };
                    if m.character == c && drawn {
                        list.push((mi, offset));
                        offset += m.vertex_count;
                    }
                }
                cpu_stride = cpu_stride.max(offset);
            }
        }

        let crowd_source = format!("{SKINNING_WGSL}\n{CROWD_WGSL}");
        let crowd = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(crowd_source)),
        });
        let ground_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ground.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(GROUND_WGSL)),
        });
        let skinned_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinned"),
            bind_group_layouts: &[Some(&texel_bgl), Some(&camera_bgl), Some(&material_bgl)],
            immediate_size: 0,
        });
        let unskinned_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unskinned"),
            bind_group_layouts: &[None, Some(&camera_bgl), Some(&material_bgl)],
            immediate_size: 0,
        });
        let ground_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ground"),
            bind_group_layouts: &[None, Some(&camera_bgl)],
            immediate_size: 0,
        });
        let (va, pa, ia) = (vertex_attrs(), plain_attrs(), instance_attrs());
        let instance_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<InstanceRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &ia,
        };
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        module: &wgpu::ShaderModule,
                        vs: &str,
                        fs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: Some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(target_format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let skinned = pipeline(
            "skinned",
            &skinned_layout,
            &crowd,
            "vs_skinned",
            "fs_lit",
            &[
                Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<VertexRecord>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &va,
                }),
                Some(instance_layout.clone()),
            ],
        );
        let unskinned_bind = pipeline(
            "static",
            &unskinned_layout,
            &crowd,
            "vs_unskinned",
            "fs_lit",
            &[
                Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<VertexRecord>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &pa,
                }),
                Some(instance_layout.clone()),
            ],
        );
        let unskinned_world = pipeline(
            "cpu skinned",
            &unskinned_layout,
            &crowd,
            "vs_unskinned",
            "fs_lit",
            &[
                Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<SkinnedVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &pa,
                }),
                Some(instance_layout.clone()),
            ],
        );
        let ground_attrs = wgpu::vertex_attr_array![0 => Float32x2];
        let ground = pipeline(
            "ground",
            &ground_layout,
            &ground_module,
            "vs_ground",
            "fs_ground",
            &[Some(wgpu::VertexBufferLayout {
                array_stride: 8,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &ground_attrs,
            })],
        );
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!("building the pipelines: {e}")));
        }
        let g = 200.0f32;
        let ground_vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ground"),
            contents: bytemuck::cast_slice(&[-g, -g, -g, g, g, g, -g, -g, g, g, g, -g]),
            usage: wgpu::BufferUsages::VERTEX,
        });
        Ok(Self {
            layout,
            texels,
            texel_view,
            layout_uniform,
            camera,
            camera_group,
            meshes,
            skinned,
            unskinned_bind,
            unskinned_world,
            ground,
            ground_vertices,
            attachments,
            parts,
            levels,
            cpu_stride,
            instances: None,
            cpu_vertices: None,
            cpu_cache: Vec::new(),
            cpu_fresh: false,
            cpu_job_of: Vec::new(),
            cpu_jobs: Vec::new(),
            order_scratch: Vec::new(),
            draw_scratch: Vec::new(),
            record_scratch: Vec::new(),
            samples,
            format: target_format,
            live: None,
            texel_bgl,
            timer: gpu.timestamps.then(|| Timer {
                queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("crowd pass time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps"),
                    size: 16,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                readback: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps readback"),
                    size: 16,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            }),
        })
    }

    /// The texel layout chosen for the device.
    pub fn layout(&self) -> TexelLayout {
        self.layout
    }

    /// A bind group of the texels and their layout (group 0 of skinning shaders) for
    /// `layout`, e.g. one a compute pipeline derived.
    pub fn texel_group_for(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("texels"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&self.texel_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.layout_uniform.as_entire_binding(),
                },
            ],
        })
    }

    /// Samples per pixel of the targets this renderer draws into.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Makes `slot` a buffer of at least `bytes`; true when it made a new one (empty).
    fn ensure_buffer(
        gpu: &Gpu,
        slot: &mut Option<wgpu::Buffer>,
        bytes: u64,
        usage: wgpu::BufferUsages,
        label: &str,
    ) -> bool {
        let grow = slot.as_ref().is_none_or(|b| b.size() < bytes);
        if grow {
            *slot = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.next_power_of_two().max(256),
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        grow
    }

    /// Why the CPU path cannot keep skinned vertices for `agents` agents, if it cannot:
    /// it keeps every agent's vertices between frames so that only agents whose record
    /// changed are skinned again, within [`CPU_CACHE_LIMIT`].
    pub fn cpu_path_unavailable(&self, agents: usize) -> Option<String> {
        let bytes = agents * self.cpu_stride as usize * std::mem::size_of::<SkinnedVertex>();
        (bytes > CPU_CACHE_LIMIT).then(|| {
            format!(
                "CPU skinning keeps {} vertices per agent; {agents} agents would need {} MiB, more than its {} MiB limit",
                self.cpu_stride,
                bytes >> 20,
                CPU_CACHE_LIMIT >> 20
            )
        })
    }

    /// The most agents the CPU path can keep (see [`CrowdRenderer::cpu_path_unavailable`]).
    pub fn cpu_path_capacity(&self) -> usize {
        CPU_CACHE_LIMIT / (self.cpu_stride.max(1) as usize * std::mem::size_of::<SkinnedVertex>())
    }

    /// LOD levels of the bake.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// The colour format of the targets it draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Draws `agents` (in any order; they are grouped by character here) at LOD `lod` with
    /// `path`, the ground, into `target`, seen through `view_proj`, optionally `static_pose`
    /// (bind pose, no skinning). Every record is written. Submits, waits and returns what
    /// was drawn.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a GPU operation fails validation;
    /// [`RenderError::Unsupported`] when the CPU path cannot hold that many agents.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        target: &Target,
        agents: &[Placement],
        view_proj: Mat4,
        path: SkinningPath,
        static_pose: bool,
        lod: u32,
    ) -> Result<FrameStats, RenderError> {
        // Slots grouped by character (a stable order, so each group is one range).
        let mut order = std::mem::take(&mut self.order_scratch);
        let mut records = std::mem::take(&mut self.record_scratch);
        let mut draws = std::mem::take(&mut self.draw_scratch);
        order.clear();
        order.extend(0..agents.len() as u32);
        order.sort_by_key(|&i| agents[i as usize].character);
        records.clear();
        draws.clear();
        for (k, &i) in order.iter().enumerate() {
            let agent = &agents[i as usize];
            records.push(record(agent, &frame_pose(file, agent)));
            let k = k as u32;
            match draws.last_mut() {
                Some(d) if d.character == agent.character => d.slots.end = k + 1,
                _ => draws.push(DrawRange {
                    character: agent.character,
                    level: lod,
                    slots: k..k + 1,
                }),
            }
        }
        // Everything is new this frame, also to the CPU path's cache.
        self.cpu_fresh = false;
        let all = 0..records.len() as u32;
        let frame = CrowdFrame {
            records: &records,
            dirty: std::slice::from_ref(&all),
            draws: &draws,
            slot_agent: &order,
        };
        let result = self.render(
            gpu,
            file,
            &target.views(),
            &frame,
            view_proj,
            path,
            static_pose,
        );
        self.order_scratch = order;
        self.record_scratch = records;
        self.draw_scratch = draws;
        result
    }

    /// Draws a crowd frame into `views` seen through `view_proj`: uploads what changed,
    /// encodes the pass, submits and waits (so that the statistics are the frame's).
    ///
    /// # Errors
    /// As [`CrowdRenderer::upload`] and [`RenderError::Gpu`] when drawing fails.
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        views: &FrameViews,
        frame: &CrowdFrame,
        view_proj: Mat4,
        path: SkinningPath,
        static_pose: bool,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = self.upload(gpu, file, frame, view_proj, path, static_pose)?;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd frame"),
            });
        stats.draws = self.encode(&mut encoder, views, frame, path, static_pose);
        self.submit(gpu, encoder, &mut stats)?;
        Ok(stats)
    }

    /// Writes the camera, the frame's changed instance records and, on the CPU path, skins
    /// the agents whose record changed (all visible ones after a frame on another path) and
    /// writes their vertices. Returns the statistics so far (instances, CPU skinning,
    /// uploads).
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the CPU path cannot hold that many agents.
    pub fn upload(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        frame: &CrowdFrame,
        view_proj: Mat4,
        path: SkinningPath,
        static_pose: bool,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = FrameStats {
            instances: frame.draws.iter().map(|d| d.slots.len()).sum(),
            ..Default::default()
        };
        let l = glam::Vec3::from_slice(&LIGHT[..3]).normalize();
        gpu.queue.write_buffer(
            &self.camera,
            0,
            bytemuck::bytes_of(&CameraUniform {
                view_proj: view_proj.to_cols_array(),
                light: [l.x, l.y, l.z, LIGHT[3]],
            }),
        );
        let start = std::time::Instant::now();
        let record_size = std::mem::size_of::<InstanceRecord>();
        let bytes = std::mem::size_of_val(frame.records) as u64;
        let grown = Self::ensure_buffer(
            gpu,
            &mut self.instances,
            bytes.max(4),
            wgpu::BufferUsages::VERTEX,
            "instances",
        );
        let Some(instances) = self.instances.as_ref() else {
            return Err(RenderError::Gpu("no instance buffer".into()));
        };
        let n = frame.records.len() as u32;
        let full = 0..n;
        // A new buffer holds nothing yet: everything is written.
        let runs = if grown {
            std::slice::from_ref(&full)
        } else {
            frame.dirty
        };
        for run in runs {
            let run = run.start.min(n)..run.end.min(n);
            if run.is_empty() {
                continue;
            }
            gpu.queue.write_buffer(
                instances,
                u64::from(run.start) * record_size as u64,
                bytemuck::cast_slice(&frame.records[run.start as usize..run.end as usize]),
            );
            stats.records_written += run.len();
        }
        stats.uploaded_bytes += stats.records_written * record_size;
        stats.upload_seconds += start.elapsed().as_secs_f64();
        if path == SkinningPath::Cpu && !static_pose {
            self.skin_on_cpu(gpu, file, frame, &mut stats)?;
        } else {
            self.cpu_fresh = false;
        }
        Ok(stats)
    }

    /// Writes joint matrices evaluated on the CPU for the live path: `rows` holds three texels
    /// (the rows of a 3x4 matrix) per matrix, linearly, as the bake's texels; an instance
    /// drawn on [`SkinningPath::Live`] names its first matrix in its record's frame bases.
    /// Returns the seconds the write took.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when that many matrices do not fit the device's texture
    /// limits.
    pub fn upload_live(&mut self, gpu: &Gpu, rows: &[[f32; 4]]) -> Result<f64, RenderError> {
        let count = rows.len() as u64;
        if self
            .live
            .as_ref()
            .is_none_or(|l| l.layout.capacity() < count)
        {
            let l = &gpu.limits;
            // Room for twice as many, so a growing crowd does not remake it every frame.
            let layout = TexelLayout::choose(
                (count * 2).max(3),
                l.max_texture_dimension_2d,
                l.max_texture_array_layers,
            )
            .ok_or_else(|| RenderError::Unsupported {
                file: "live matrices".into(),
                what: format!(
                    "{count} texels do not fit a {}x{} texture of {} layers",
                    l.max_texture_dimension_2d,
                    l.max_texture_dimension_2d,
                    l.max_texture_array_layers
                ),
            })?;
            let texture = texel_texture(
                &gpu.device,
                layout,
                wgpu::TextureFormat::Rgba32Float,
                "live matrices",
            );
            let view = texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            });
            let uniform = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("live texel layout"),
                    contents: bytemuck::cast_slice(&layout.uniform()),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("live matrices"),
                layout: &self.texel_bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            });
            self.live = Some(LiveTexels {
                texture,
                layout,
                group,
            });
        }
        let start = std::time::Instant::now();
        if let Some(live) = &self.live {
            write_texels(
                gpu,
                &live.texture,
                live.layout,
                bytemuck::cast_slice(rows),
                16,
            );
        }
        Ok(start.elapsed().as_secs_f64())
    }

    /// The CPU path's part of [`CrowdRenderer::upload`].
    fn skin_on_cpu(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        frame: &CrowdFrame,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let agents = frame.slot_agent.len();
        if let Some(why) = self.cpu_path_unavailable(agents) {
            return Err(RenderError::Unsupported {
                file: file.name().to_string(),
                what: why,
            });
        }
        let stride = self.cpu_stride as usize;
        let vertex_size = std::mem::size_of::<SkinnedVertex>();
        let grown = Self::ensure_buffer(
            gpu,
            &mut self.cpu_vertices,
            ((agents * stride * vertex_size) as u64).max(4),
            wgpu::BufferUsages::VERTEX,
            "cpu skinned vertices",
        );
        if grown || self.cpu_cache.len() < agents * stride {
            self.cpu_cache
                .resize(agents * stride, SkinnedVertex::default());
            self.cpu_fresh = false;
        }
        let start = std::time::Instant::now();
        // Jobs: the visible agents whose record changed (all visible ones when the cache is
        // stale). Draw ranges and dirty runs are both in slot order.
        self.cpu_jobs.clear();
        self.cpu_job_of.clear();
        self.cpu_job_of.resize(agents, NO_JOB);
        let full = 0..frame.records.len() as u32;
        let runs = if self.cpu_fresh {
            frame.dirty
        } else {
            std::slice::from_ref(&full)
        };
        for d in frame.draws {
            for run in runs {
                let (s0, s1) = (run.start.max(d.slots.start), run.end.min(d.slots.end));
                for s in s0..s1 {
                    let (Some(&a), Some(r)) = (
                        frame.slot_agent.get(s as usize),
                        frame.records.get(s as usize),
                    ) else {
                        continue;
                    };
                    if let Some(j) = self.cpu_job_of.get_mut(a as usize) {
                        *j = self.cpu_jobs.len() as u32;
                        self.cpu_jobs.push(CpuJob {
                            character: d.character,
                            level: d.level,
                            pose: FramePose::from_record(r),
                        });
                    }
                }
            }
        }
        let texels = file.texels();
        let (jobs, job_of) = (&self.cpu_jobs, &self.cpu_job_of);
        let (parts, levels, meshes, attachments) =
            (&self.parts, self.levels, &self.meshes, &self.attachments);
        let skinned: usize = self.cpu_cache[..agents * stride]
            .par_chunks_mut(stride.max(1))
            .zip(job_of.par_iter())
            .map(|(region, &j)| {
                let Some(job) = jobs.get(j as usize) else {
                    return 0;
                };
                let level = job.level.min(levels - 1);
                let mut count = 0;
                for &(mi, offset) in &parts[(job.character * levels + level) as usize] {
                    let vertices = match meshes[mi].attachment {
                        Some(k) => &attachments[k].vertices[..],
                        None => file.mesh_data(mi).0,
                    };
                    let out = &mut region[offset as usize..][..vertices.len()];
                    skin_into(&texels, &job.pose, vertices, out);
                    count += vertices.len();
                }
                count
            })
            .sum();
        stats.cpu_skinned_vertices = skinned;
        stats.cpu_skin_seconds = start.elapsed().as_secs_f64();
        // Upload the regions of agents skinned, merging neighbours.
        let start = std::time::Instant::now();
        let Some(buffer) = self.cpu_vertices.as_ref() else {
            return Err(RenderError::Gpu("no CPU vertex buffer".into()));
        };
        let mut a = 0;
        while a < agents {
            if self.cpu_job_of[a] == NO_JOB {
                a += 1;
                continue;
            }
            let first = a;
            while a < agents && self.cpu_job_of[a] != NO_JOB {
                a += 1;
            }
            let data = bytemuck::cast_slice(&self.cpu_cache[first * stride..a * stride]);
            gpu.queue
                .write_buffer(buffer, (first * stride * vertex_size) as u64, data);
            stats.uploaded_bytes += data.len();
        }
        stats.upload_seconds += start.elapsed().as_secs_f64();
        self.cpu_fresh = true;
        Ok(())
    }

    /// Encodes the crowd pass (ground, then one instanced draw per character part and LOD
    /// level on the GPU path, one draw per instance and part on the CPU path) into
    /// `encoder`, with its timestamps. Returns the number of character draws.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &FrameViews,
        frame: &CrowdFrame,
        path: SkinningPath,
        static_pose: bool,
    ) -> usize {
        let mut draws = 0;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: views.color,
                    depth_slice: None,
                    resolve_target: views.resolve,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(SKY),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: views.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: self
                    .timer
                    .as_ref()
                    .map(|t| wgpu::RenderPassTimestampWrites {
                        query_set: &t.queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(1, &self.camera_group, &[]);
            pass.set_pipeline(&self.ground);
            pass.set_vertex_buffer(0, self.ground_vertices.slice(..));
            pass.draw(0..6, 0..1);
            let Some(instances) = self.instances.as_ref() else {
                return 0;
            };
            pass.set_vertex_buffer(1, instances.slice(..));
            let parts_of = |d: &DrawRange| {
                let level = d.level.min(self.levels - 1);
                self.parts
                    .get((d.character * self.levels + level) as usize)
                    .map_or(&[][..], |p| &p[..])
            };
            if static_pose || path != SkinningPath::Cpu {
                if static_pose {
                    pass.set_pipeline(&self.unskinned_bind);
                } else {
                    pass.set_pipeline(&self.skinned);
                    let texels = match (&self.live, path) {
                        (Some(live), SkinningPath::Live) => &live.group,
                        _ => &self.texels,
                    };
                    pass.set_bind_group(0, texels, &[]);
                }
                for d in frame.draws {
                    for &(mi, _) in parts_of(d) {
                        let m = &self.meshes[mi];
                        pass.set_bind_group(2, &m.material, &[]);
                        pass.set_vertex_buffer(0, m.vertices.slice(..));
                        pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                        pass.draw_indexed(0..m.index_count, 0, d.slots.clone());
                        draws += 1;
                    }
                }
            } else if let Some(vertices) = self.cpu_vertices.as_ref() {
                pass.set_pipeline(&self.unskinned_world);
                pass.set_vertex_buffer(0, vertices.slice(..));
                for d in frame.draws {
                    for &(mi, offset) in parts_of(d) {
                        let m = &self.meshes[mi];
                        pass.set_bind_group(2, &m.material, &[]);
                        pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                        for s in d.slots.clone() {
                            let Some(&a) = frame.slot_agent.get(s as usize) else {
                                continue;
                            };
                            let base = a * self.cpu_stride + offset;
                            pass.draw_indexed(0..m.index_count, base as i32, s..s + 1);
                            draws += 1;
                        }
                    }
                }
            }
        }
        if let Some(t) = &self.timer {
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.readback, 0, 16);
        }
        draws
    }

    /// Submits `encoder`, waits for the device and fills in the wall and GPU times.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the frame fails validation or the device is lost.
    pub fn submit(
        &self,
        gpu: &Gpu,
        encoder: wgpu::CommandEncoder,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let start = std::time::Instant::now();
        gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Gpu(format!("waiting for the frame: {e}")))?;
        stats.submit_seconds = start.elapsed().as_secs_f64();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!("drawing: {e}")));
        }
        stats.gpu_seconds = self.read_timer(gpu);
        Ok(())
    }

    /// The crowd pass's GPU time from the timestamp queries, seconds (`None` without them).
    fn read_timer(&self, gpu: &Gpu) -> Option<f64> {
        let t = self.timer.as_ref()?;
        let data = gpu.read_buffer(&t.readback, "timestamps").ok()?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(data.get(..16)?);
        let ns =
            ticks[1].saturating_sub(ticks[0]) as f64 * f64::from(gpu.queue.get_timestamp_period());
        Some(ns * 1e-9)
    }
}

fn image_view(gpu: &Gpu, width: u32, height: u32, rgba: &[u8]) -> wgpu::TextureView {
    let texture = gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("base colour"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        rgba,
    );
    texture.create_view(&Default::default())
}

/// A 2D array texture for texels laid out as `layout`.
fn texel_texture(
    device: &wgpu::Device,
    layout: TexelLayout,
    format: wgpu::TextureFormat,
    label: &str,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: layout.width,
            height: layout.height,
            // wgpu's GL backend makes a one-layer texture a plain 2D texture, which a
            // texture_2d_array binding then reads as zeros: always allocate two or more.
            depth_or_array_layers: layout.layers.max(2),
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

/// Writes the file's texels into `texture`, layer by layer, in place from the mapped file
/// (the last layer's tail is padded with zeros).
fn upload_texels(gpu: &Gpu, texture: &wgpu::Texture, layout: TexelLayout, file: &ThrongFile) {
    write_texels(
        gpu,
        texture,
        layout,
        file.texels().bytes(),
        file.format().texel_size(),
    );
}

/// Writes linear texels (`texel` bytes each) into `texture` laid out as `layout`: whole rows
/// straight from `bytes`, layer by layer, and a last partial row padded with zeros. Rows past
/// the data are left as they are.
fn write_texels(
    gpu: &Gpu,
    texture: &wgpu::Texture,
    layout: TexelLayout,
    bytes: &[u8],
    texel: usize,
) {
    let row_bytes = layout.width as usize * texel;
    let layer_rows = layout.height as usize;
    let write = |row: usize, data: &[u8], rows: usize| {
        let (layer, y) = (row / layer_rows, row % layer_rows);
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: y as u32,
                    z: layer as u32,
                },
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row_bytes as u32),
                rows_per_image: Some(rows as u32),
            },
            wgpu::Extent3d {
                width: layout.width,
                height: rows as u32,
                depth_or_array_layers: 1,
            },
        );
    };
    let whole = bytes.len() / row_bytes;
    // Whole rows, one write per layer (a write cannot cross layers here).
    let mut row = 0;
    while row < whole {
        let rows = (layer_rows - row % layer_rows).min(whole - row);
        write(row, &bytes[row * row_bytes..(row + rows) * row_bytes], rows);
        row += rows;
    }
    let tail = &bytes[whole * row_bytes..];
    if !tail.is_empty() {
        let mut padded = tail.to_vec();
        padded.resize(row_bytes, 0);
        write(whole, &padded, 1);
    }
}
