//! The bake's meshes on the GPU: every mesh part at every LOD level and every attachment,
//! with its material (base colour factor and image), and which of them make up each
//! character at each level, with each one's place in an agent's region of the CPU path's
//! vertex cache; for a character the baker turned, its bind pose turned the same way, which
//! the static path draws.

use wgpu::util::DeviceExt as _;

use super::attachment::Attachment;
use super::influences::{MAX_INFLUENCES, by_influences};
use crate::format::ThrongFile;
use crate::format::records::{NONE, VertexRecord, turn_vector};
use crate::render::device::Gpu;
use crate::render::error::RenderError;

/// A mesh part at one LOD level, on the GPU.
pub(in crate::render) struct GpuMesh {
    pub character: u32,
    pub lod: u32,
    /// For an attachment: its index in [`Meshes::attachments`], and it is drawn at `lod` and
    /// below.
    pub attachment: Option<usize>,
    pub vertices: wgpu::Buffer,
    /// For a character the baker turned (format 1.2's facing turn): its bind pose turned as
    /// its baked matrices were, for the static path, which draws the bind pose without
    /// them; `None` when not turned (the static path draws `vertices`).
    pub turned: Option<wgpu::Buffer>,
    pub indices: wgpu::Buffer,
    pub vertex_count: u32,
    pub index_count: u32,
    /// Index ranges of the triangles whose vertices need at most `k + 1` influences
    /// (`runs[k]`), which the skinned pipelines draw one by one; the indices are uploaded in
    /// that order.
    pub runs: [std::ops::Range<u32>; MAX_INFLUENCES],
    pub material: wgpu::BindGroup,
}

impl GpuMesh {
    /// The vertices the static path draws: the bind pose, facing as the baked frames do.
    pub fn bind_pose(&self) -> &wgpu::Buffer {
        self.turned.as_ref().unwrap_or(&self.vertices)
    }

    /// The non-empty runs of [`GpuMesh::runs`], with the influences each needs (1 to 4).
    pub fn runs(&self) -> impl Iterator<Item = (usize, std::ops::Range<u32>)> + '_ {
        (1..)
            .zip(&self.runs)
            .filter(|(_, r)| !r.is_empty())
            .map(|(k, r)| (k, r.clone()))
    }
}

/// Every mesh of a bake and its attachments, on the GPU, by character and LOD level.
pub(in crate::render) struct Meshes {
    pub meshes: Vec<GpuMesh>,
    /// Props on joints, kept on the CPU too for the CPU path.
    pub attachments: Vec<Attachment>,
    /// Meshes (indices into `meshes`) of each character at each LOD level, attachments
    /// included: `parts[character * levels + level]`, with each one's first vertex in an
    /// agent's region of the CPU path's vertex cache.
    parts: Vec<Vec<(usize, u32)>>,
    /// LOD levels of the bake.
    pub levels: u32,
    /// The most vertices any character needs at any level, parts and attachments together:
    /// an agent's region in the CPU path's cache.
    pub agent_vertices: u32,
}

/// Uploads meshes, making one material bind group per mesh.
struct Uploader<'a> {
    device: &'a wgpu::Device,
    material_layout: &'a wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl Uploader<'_> {
    /// Vertex and index buffers (triangles grouped by influences) and the material of one
    /// mesh, and its bind pose turned by `turns` quarter turns about +y when that is not 0.
    fn upload(
        &self,
        v: &[VertexRecord],
        i: &[u32],
        color: [f32; 4],
        view: &wgpu::TextureView,
        turns: u8,
    ) -> Upload {
        let device = self.device;
        let (i, runs) = by_influences(v, i);
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh vertices"),
            contents: bytemuck::cast_slice::<VertexRecord, u8>(v),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let turned = (!turns.is_multiple_of(4)).then(|| {
            let turned: Vec<VertexRecord> = v
                .iter()
                .map(|r| VertexRecord {
                    position: turn_vector(r.position, turns),
                    normal: turn_vector(r.normal, turns),
                    ..*r
                })
                .collect();
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("mesh vertices, turned bind pose"),
                contents: bytemuck::cast_slice::<VertexRecord, u8>(&turned),
                usage: wgpu::BufferUsages::VERTEX,
            })
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh indices"),
            contents: bytemuck::cast_slice::<u32, u8>(&i),
            usage: wgpu::BufferUsages::INDEX,
        });
        let factor = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material"),
            contents: bytemuck::cast_slice(&color),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let material = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material"),
            layout: self.material_layout,
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
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        });
        Upload {
            vertices,
            turned,
            indices,
            runs,
            material,
        }
    }
}

/// What [`Uploader::upload`] made of one mesh.
struct Upload {
    vertices: wgpu::Buffer,
    turned: Option<wgpu::Buffer>,
    indices: wgpu::Buffer,
    runs: [std::ops::Range<u32>; MAX_INFLUENCES],
    material: wgpu::BindGroup,
}

impl Meshes {
    /// Uploads the meshes and images of `file` and `attachments`, with materials for
    /// `material_layout`.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] for an attachment on a character the bake does not have.
    pub fn new(
        gpu: &Gpu,
        file: &ThrongFile,
        attachments: Vec<Attachment>,
        material_layout: &wgpu::BindGroupLayout,
    ) -> Result<Self, RenderError> {
        let device = &gpu.device;
        let uploader = Uploader {
            device,
            material_layout,
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("base colour"),
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..Default::default()
            }),
        };
        // Images, and a white texel for meshes without one.
        let mut image_views: Vec<wgpu::TextureView> = (0..file.images().len())
            .map(|i| {
                let im = &file.images()[i];
                image_view(gpu, im.width, im.height, file.pixels(i))
            })
            .collect();
        image_views.push(image_view(gpu, 1, 1, &[255; 4]));
        let white = image_views.len() - 1;
        let mut meshes = Vec::with_capacity(file.meshes().len() + attachments.len());
        for (mi, m) in file.meshes().iter().enumerate() {
            let (v, i) = file.mesh_data(mi);
            let view = &image_views[if m.image == NONE {
                white
            } else {
                m.image as usize
            }];
            let turns = file.facing_turns(m.character as usize);
            let u = uploader.upload(v, i, m.base_color, view, turns);
            meshes.push(GpuMesh {
                character: m.character,
                lod: m.lod,
                attachment: None,
                vertices: u.vertices,
                turned: u.turned,
                indices: u.indices,
                vertex_count: m.vertex_count,
                index_count: m.index_count,
                runs: u.runs,
                material: u.material,
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
            // In the character's bind space, so turned with it.
            let turns = file.facing_turns(a.character as usize);
            let u = uploader.upload(&a.vertices, &a.indices, a.color, &image_views[white], turns);
            meshes.push(GpuMesh {
                character: a.character,
                lod: a.max_level,
                attachment: Some(k),
                vertices: u.vertices,
                turned: u.turned,
                indices: u.indices,
                vertex_count: a.vertices.len() as u32,
                index_count: a.indices.len() as u32,
                runs: u.runs,
                material: u.material,
            });
        }
        let levels = file.meshes().iter().map(|m| m.lod + 1).max().unwrap_or(1);
        let (parts, agent_vertices) = parts_by_level(&meshes, characters, levels);
        Ok(Self {
            meshes,
            attachments,
            parts,
            levels,
            agent_vertices,
        })
    }

    /// Which influence counts some mesh's triangles need: `[k]` for `k + 1`.
    pub fn influences_used(&self) -> [bool; MAX_INFLUENCES] {
        std::array::from_fn(|k| self.meshes.iter().any(|m| !m.runs[k].is_empty()))
    }

    /// The parts of `character` at LOD `level` (clamped to the bake's levels): mesh index and
    /// first vertex in an agent's CPU cache region.
    pub fn parts_of(&self, character: u32, level: u32) -> &[(usize, u32)] {
        let level = level.min(self.levels - 1);
        self.parts
            .get((character * self.levels + level) as usize)
            .map_or(&[][..], |p| &p[..])
    }
}

/// Parts per (character, level), with their place in an agent's CPU cache region; and the
/// most vertices of any (character, level).
fn parts_by_level(
    meshes: &[GpuMesh],
    characters: u32,
    levels: u32,
) -> (Vec<Vec<(usize, u32)>>, u32) {
    let mut parts = vec![Vec::new(); (characters * levels) as usize];
    let mut most = 0u32;
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
            most = most.max(offset);
        }
    }
    (parts, most)
}

/// A base-colour image (sRGB) on the GPU.
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
