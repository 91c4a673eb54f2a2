//! The crowd pass: a bake uploaded once (texels laid out for the device, meshes per part and
//! LOD, base-colour images), then frames drawn with one instanced draw per mesh part and LOD
//! level on the GPU skinning path, or skinned on the CPU and drawn unskinned on the fallback
//! path; plus the static (bind pose) draw that animation cost is measured against, and a
//! ground plane.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use glam::Mat4;
use wgpu::util::DeviceExt as _;

use super::cpu_skin::{SkinnedVertex, skin_instances};
use super::device::{Gpu, TexelLayout};
use super::error::RenderError;
use super::scene::{Agent, LIGHT, frame_pose, record};
use crate::crowd::{FramePose, InstanceRecord};
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
}

impl SkinningPath {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
        }
    }
}

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
    /// Wall time from submitting the frame until the device finished it, seconds.
    pub submit_seconds: f64,
    /// GPU time of the crowd pass from timestamp queries, seconds, where the device has them.
    pub gpu_seconds: Option<f64>,
}

/// The offscreen image a frame is drawn into, and its readback.
pub struct Target {
    /// Width and height, pixels.
    pub size: (u32, u32),
    samples: u32,
    color: wgpu::Texture,
    resolve: Option<wgpu::Texture>,
    // Views made once, not per frame (a view keeps its texture alive).
    color_view: wgpu::TextureView,
    resolve_view: Option<wgpu::TextureView>,
    depth_view: wgpu::TextureView,
}

/// The colour format of offscreen targets.
pub const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

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
    instances: Option<wgpu::Buffer>,
    cpu_vertices: Option<wgpu::Buffer>,
    /// Per-frame scratch, kept so that frames allocate nothing once warm: CPU-skinned
    /// vertices, instance order, per-character instance ranges, (mesh, first vertex) of each
    /// CPU-skinned mesh.
    cpu_scratch: Vec<SkinnedVertex>,
    order_scratch: Vec<usize>,
    range_scratch: Vec<(u32, std::ops::Range<u32>)>,
    cpu_offsets: Vec<(usize, u32)>,
    pose_scratch: Vec<FramePose>,
    record_scratch: Vec<InstanceRecord>,
    samples: u32,
    timer: Option<Timer>,
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
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("bone texels"),
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
        });
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
        let mut meshes = Vec::with_capacity(file.meshes().len());
        for (mi, m) in file.meshes().iter().enumerate() {
            let (v, i) = file.mesh_data(mi);
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
                contents: bytemuck::cast_slice(&m.base_color),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let view = &image_views[if m.image == NONE {
                white
            } else {
                m.image as usize
            }];
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
            meshes.push(GpuMesh {
                character: m.character,
                lod: m.lod,
                vertices,
                indices,
                vertex_count: m.vertex_count,
                index_count: m.index_count,
                material,
            });
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
                    targets: &[Some(TARGET_FORMAT.into())],
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
            instances: None,
            cpu_vertices: None,
            cpu_scratch: Vec::new(),
            order_scratch: Vec::new(),
            range_scratch: Vec::new(),
            cpu_offsets: Vec::new(),
            pose_scratch: Vec::new(),
            record_scratch: Vec::new(),
            samples,
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

    fn ensure_buffer(
        gpu: &Gpu,
        slot: &mut Option<wgpu::Buffer>,
        bytes: u64,
        usage: wgpu::BufferUsages,
        label: &str,
    ) {
        if slot.as_ref().is_none_or(|b| b.size() < bytes) {
            *slot = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.next_power_of_two().max(256),
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
    }

    /// Draws `agents` (sorted by character, as [`super::scene::agents`] makes them... any order
    /// is accepted; they are grouped here) at LOD `lod` with `path`, the ground, into `target`,
    /// seen through `view_proj`, optionally `static_pose` (bind pose, no skinning). Submits and
    /// returns what was drawn.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a GPU operation fails validation.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        target: &Target,
        agents: &[Agent],
        view_proj: Mat4,
        path: SkinningPath,
        static_pose: bool,
        lod: u32,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = FrameStats::default();
        let l = glam::Vec3::from_slice(&LIGHT[..3]).normalize();
        gpu.queue.write_buffer(
            &self.camera,
            0,
            bytemuck::bytes_of(&CameraUniform {
                view_proj: view_proj.to_cols_array(),
                light: [l.x, l.y, l.z, LIGHT[3]],
            }),
        );
        // Instances grouped by character (a stable order, so each group is a contiguous range).
        let order = &mut self.order_scratch;
        order.clear();
        order.extend(0..agents.len());
        order.sort_by_key(|&i| agents[i].character);
        self.pose_scratch.clear();
        self.record_scratch.clear();
        let ranges = &mut self.range_scratch;
        ranges.clear();
        for (k, &i) in order.iter().enumerate() {
            let pose = frame_pose(file, &agents[i]);
            self.pose_scratch.push(pose);
            self.record_scratch.push(record(&agents[i], &pose));
            let c = agents[i].character;
            match ranges.last_mut() {
                Some((lc, range)) if *lc == c => range.end = k as u32 + 1,
                _ => ranges.push((c, k as u32..k as u32 + 1)),
            }
        }
        let ranges = &self.range_scratch;
        let instance_bytes =
            (self.record_scratch.len() * std::mem::size_of::<InstanceRecord>()) as u64;
        Self::ensure_buffer(
            gpu,
            &mut self.instances,
            instance_bytes.max(4),
            wgpu::BufferUsages::VERTEX,
            "instances",
        );
        let Some(instances) = self.instances.as_ref() else {
            return Err(RenderError::Gpu("no instance buffer".into()));
        };
        if instance_bytes > 0 {
            gpu.queue
                .write_buffer(instances, 0, bytemuck::cast_slice(&self.record_scratch));
        }
        // CPU path: skin every (instance, part) at this LOD into one vertex buffer.
        self.cpu_offsets.clear();
        if path == SkinningPath::Cpu && !static_pose {
            let start = std::time::Instant::now();
            let mut total = 0usize;
            for (c, range) in ranges {
                for (mi, m) in self.meshes.iter().enumerate() {
                    if m.character == *c && m.lod == lod {
                        self.cpu_offsets.push((mi, total as u32));
                        total += range.len() * m.vertex_count as usize;
                    }
                }
            }
            self.cpu_scratch.resize(total, SkinnedVertex::default());
            let texels = file.texels();
            for &(mi, first) in &self.cpu_offsets {
                let Some((_, range)) = ranges.iter().find(|(c, _)| *c == self.meshes[mi].character)
                else {
                    continue;
                };
                let (vertices, _) = file.mesh_data(mi);
                let poses = &self.pose_scratch[range.start as usize..range.end as usize];
                let out = &mut self.cpu_scratch[first as usize..][..poses.len() * vertices.len()];
                skin_instances(&texels, poses, vertices, out);
            }
            stats.cpu_skinned_vertices = total;
            stats.cpu_skin_seconds = start.elapsed().as_secs_f64();
            let bytes = (total * std::mem::size_of::<SkinnedVertex>()) as u64;
            Self::ensure_buffer(
                gpu,
                &mut self.cpu_vertices,
                bytes.max(4),
                wgpu::BufferUsages::VERTEX,
                "cpu skinned vertices",
            );
            if let (Some(b), true) = (self.cpu_vertices.as_ref(), bytes > 0) {
                gpu.queue
                    .write_buffer(b, 0, bytemuck::cast_slice(&self.cpu_scratch));
            }
        }

        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd frame"),
            });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target.color_view,
                    depth_slice: None,
                    resolve_target: target.resolve_view.as_ref(),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.56,
                            g: 0.68,
                            b: 0.80,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &target.depth_view,
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
            pass.set_vertex_buffer(1, instances.slice(..));
            match (path, static_pose) {
                (_, true) | (SkinningPath::Gpu, false) => {
                    if static_pose {
                        pass.set_pipeline(&self.unskinned_bind);
                    } else {
                        pass.set_pipeline(&self.skinned);
                        pass.set_bind_group(0, &self.texels, &[]);
                    }
                    for (c, range) in ranges {
                        for m in self
                            .meshes
                            .iter()
                            .filter(|m| m.character == *c && m.lod == lod)
                        {
                            pass.set_bind_group(2, &m.material, &[]);
                            pass.set_vertex_buffer(0, m.vertices.slice(..));
                            pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                            pass.draw_indexed(0..m.index_count, 0, range.clone());
                            stats.draws += 1;
                        }
                    }
                }
                (SkinningPath::Cpu, false) => {
                    pass.set_pipeline(&self.unskinned_world);
                    if let Some(b) = self.cpu_vertices.as_ref() {
                        pass.set_vertex_buffer(0, b.slice(..));
                    }
                    for (mi, first) in &self.cpu_offsets {
                        let m = &self.meshes[*mi];
                        let Some((_, range)) = ranges.iter().find(|(c, _)| *c == m.character)
                        else {
                            continue;
                        };
                        pass.set_bind_group(2, &m.material, &[]);
                        pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                        for (k, inst) in range.clone().enumerate() {
                            let base = *first + k as u32 * m.vertex_count;
                            pass.draw_indexed(0..m.index_count, base as i32, inst..inst + 1);
                            stats.draws += 1;
                        }
                    }
                }
            }
        }
        if let Some(t) = &self.timer {
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.readback, 0, 16);
        }
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
        stats.instances = agents.len();
        Ok(stats)
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

/// Writes the file's texels into `texture`, layer by layer, in place from the mapped file
/// (the last layer's tail is padded with zeros).
fn upload_texels(gpu: &Gpu, texture: &wgpu::Texture, layout: TexelLayout, file: &ThrongFile) {
    let texels = file.texels();
    let bytes = texels.bytes();
    let texel = file.format().texel_size();
    let layer_bytes = layout.width as usize * layout.height as usize * texel;
    for layer in 0..layout.layers {
        let start = layer as usize * layer_bytes;
        if start >= bytes.len() {
            break;
        }
        let end = (start + layer_bytes).min(bytes.len());
        let data: Cow<[u8]> = if end - start == layer_bytes {
            Cow::Borrowed(&bytes[start..end])
        } else {
            let mut padded = bytes[start..end].to_vec();
            padded.resize(layer_bytes, 0);
            Cow::Owned(padded)
        };
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            &data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(layout.width * texel as u32),
                rows_per_image: Some(layout.height),
            },
            wgpu::Extent3d {
                width: layout.width,
                height: layout.height,
                depth_or_array_layers: 1,
            },
        );
    }
}

impl Target {
    /// An offscreen target of `width` × `height` pixels with `samples` samples per pixel (4
    /// when the device supports it for the target format, see [`Target::best_samples`]).
    pub fn new(gpu: &Gpu, width: u32, height: u32, samples: u32) -> Self {
        let make = |label, format, samples, usage| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let out_usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let (color, resolve) = if samples > 1 {
            (
                make(
                    "msaa colour",
                    TARGET_FORMAT,
                    samples,
                    wgpu::TextureUsages::RENDER_ATTACHMENT,
                ),
                Some(make("colour", TARGET_FORMAT, 1, out_usage)),
            )
        } else {
            (make("colour", TARGET_FORMAT, 1, out_usage), None)
        };
        let depth = make(
            "depth",
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        Self {
            size: (width, height),
            samples,
            color_view: color.create_view(&Default::default()),
            resolve_view: resolve.as_ref().map(|r| r.create_view(&Default::default())),
            depth_view: depth.create_view(&Default::default()),
            color,
            resolve,
        }
    }

    /// 4 if the device can multisample both the colour and the depth format 4 times, else 1.
    pub fn best_samples(gpu: &Gpu) -> u32 {
        let ok = |f| {
            gpu.adapter
                .get_texture_format_features(f)
                .flags
                .sample_count_supported(4)
        };
        if ok(TARGET_FORMAT) && ok(DEPTH_FORMAT) {
            4
        } else {
            1
        }
    }

    /// Samples per pixel.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Reads the image back: RGBA8 (sRGB), rows top first.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when mapping fails.
    pub fn read(&self, gpu: &Gpu) -> Result<image::RgbaImage, RenderError> {
        let (w, h) = self.size;
        let row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(row) * u64::from(h),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let source = self.resolve.as_ref().unwrap_or(&self.color);
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("readback"),
            });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: source,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        gpu.queue.submit([encoder.finish()]);
        let data = gpu.read_buffer(&buffer, "image readback")?;
        let mut pixels = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h as usize {
            let start = y * row as usize;
            pixels.extend_from_slice(&data[start..start + (w * 4) as usize]);
        }
        image::RgbaImage::from_raw(w, h, pixels)
            .ok_or_else(|| RenderError::Gpu("readback size mismatch".into()))
    }
}
