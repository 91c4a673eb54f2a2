//! The impostor tier on the GPU: each character's impostor atlas (format 1.4) in two texture
//! arrays (colour, normal-depth), a table that turns an instance record's matrix base back
//! into impostor frames, and the pipeline that draws one camera-facing square per agent
//! (`shaders/impostor.wgsl`). Instance records are the meshes' own, so an agent moves between
//! the tiers without a new record.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};

use super::impostor_mips::{frame_mips, mip_levels};
use super::pipelines::{
    IMPOSTOR_WGSL, INSTANCE_WGSL, LIGHTING_WGSL, Layouts, Stages, entry, pipeline_with,
    record_buffers, texture_entry, uniform_entry,
};
use crate::crowd::DrawRange;
use crate::format::records::{ImpostorRecord, anim_flags};
use crate::format::{TEXELS_PER_MATRIX, ThrongFile};
use crate::render::device::Gpu;
use crate::render::pass::PassFormat;

/// Corners of an impostor's square: two triangles.
const CORNERS: u32 = 6;

/// The `Atlas` uniform of shaders/impostor.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct AtlasUniform {
    sphere: [f32; 4],
    grid: [u32; 4],
    table: [u32; 4],
    layer: [f32; 4],
}

/// Where a character's impostor frames lie in its texture arrays: `per_row × per_row` frames
/// (at most `per_layer` used) of `side` pixels per layer. One frame per layer where the
/// device allows as many layers as frames; else frames packed in rows within the device's
/// largest 2D texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImpostorLayout {
    /// A frame's side, pixels (views × cell).
    pub side: u32,
    /// Frames along a layer's row.
    pub per_row: u32,
    /// Frames per layer.
    pub per_layer: u32,
    /// A layer's width and height, pixels (see [`ImpostorLayout::allocated`]).
    pub size: (u32, u32),
    /// Layers.
    pub layers: u32,
}

impl ImpostorLayout {
    /// The texture to allocate, width, height and layers: `size` and `layers`, with at least
    /// two layers and, where that would make square layers in a multiple of six, one more
    /// row. wgpu's GL backend picks a texture's kind when it is made: one layer makes a plain
    /// 2D texture and square layers in a multiple of six a cube array, and a
    /// `texture_2d_array` binding reads either as zeros (black, opaque).
    pub fn allocated(&self) -> (u32, u32, u32) {
        let layers = self.layers.max(2);
        let (w, h) = self.size;
        let h = if w == h && layers.is_multiple_of(6) {
            h + 1
        } else {
            h
        };
        (w, h, layers)
    }
}

impl ImpostorLayout {
    /// The layout of `frames` frames of `side` pixels within `max_dim` pixels and
    /// `max_layers` layers, or why there is none.
    ///
    /// # Errors
    /// A message saying which limit the frames do not fit.
    pub fn choose(frames: u32, side: u32, max_dim: u32, max_layers: u32) -> Result<Self, String> {
        let frames = frames.max(1);
        if side == 0 || side > max_dim {
            return Err(format!(
                "a frame of {side} px is larger than the device's {max_dim} px textures"
            ));
        }
        if frames <= max_layers {
            return Ok(Self {
                side,
                per_row: 1,
                per_layer: 1,
                size: (side, side),
                layers: frames,
            });
        }
        let fit = max_dim / side;
        let need = frames.div_ceil(max_layers.max(1));
        let per_row = (1..=fit).find(|r| r * r >= need).ok_or_else(|| {
            format!("{frames} frames of {side} px do not fit {max_layers} layers of {max_dim} px")
        })?;
        let per_layer = need.min(per_row * per_row);
        let rows = per_layer.div_ceil(per_row);
        Ok(Self {
            side,
            per_row,
            per_layer,
            size: (per_row * side, rows * side),
            layers: frames.div_ceil(per_layer),
        })
    }
}

/// One character's atlas on the GPU.
struct CharacterAtlas {
    group: wgpu::BindGroup,
}

/// The impostor tier's GPU side for a bake and a pass format.
pub(in crate::render) struct Impostors {
    /// Per character: its atlas, where it has one that fits the device.
    atlases: Vec<Option<CharacterAtlas>>,
    /// The solid pass, then the blended one (`shaders/impostor.wgsl`, `shade_impostor`).
    pipelines: Option<[wgpu::RenderPipeline; 2]>,
    /// Why some character's impostors are not drawn (they draw their last mesh level).
    unavailable: Option<String>,
}

impl Impostors {
    /// Uploads the atlases of `file`'s characters and builds the pipeline for `format`.
    pub fn new(gpu: &Gpu, file: &ThrongFile, layouts: &Layouts, format: &PassFormat) -> Self {
        let device = &gpu.device;
        let limits = device.limits();
        let mut unavailable = None;
        let mut atlases = Vec::with_capacity(file.characters().len());
        let layout = bind_layout(device);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("impostor atlas"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        for c in 0..file.characters().len() {
            let Some(record) = file.impostor(c) else {
                atlases.push(None);
                continue;
            };
            let chosen = ImpostorLayout::choose(
                record.frame_count,
                record.views * record.cell,
                limits.max_texture_dimension_2d,
                limits.max_texture_array_layers,
            );
            match chosen {
                Ok(l) => atlases.push(Some(upload(gpu, file, c, record, l, &layout, &sampler))),
                Err(why) => {
                    let name = file.str(file.characters()[c].name);
                    unavailable.get_or_insert(format!("character '{name}': {why}"));
                    atlases.push(None);
                }
            }
        }
        if atlases.iter().all(Option::is_none) && unavailable.is_none() {
            unavailable = Some("the bake has no impostors".into());
        }
        let pipelines = atlases.iter().any(Option::is_some).then(|| {
            [false, true].map(|blended| build_pipeline(device, layouts, &layout, format, blended))
        });
        Self {
            atlases,
            pipelines,
            unavailable,
        }
    }

    /// Why some or all of the bake's characters are drawn without impostors, if so.
    pub fn unavailable(&self) -> Option<&str> {
        self.unavailable.as_deref()
    }

    /// Whether the agents of `d` are drawn as impostors (else at its mesh level).
    pub fn draws(&self, d: &DrawRange) -> bool {
        d.impostor
            && self.pipelines.is_some()
            && matches!(self.atlases.get(d.character as usize), Some(Some(_)))
    }

    /// Records the impostor draws of `draws` into `pass` (camera and shadow groups bound;
    /// `texels` is bound at group 0): one instanced draw of a square per range in each of
    /// the two passes, solid then blended, so that every solid part is in the depth buffer
    /// before anything is blended. Returns the draws.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass,
        draws: &[DrawRange],
        (instances, previous): (&wgpu::Buffer, Option<&wgpu::Buffer>),
        texels: &wgpu::BindGroup,
    ) -> usize {
        let Some(pipelines) = &self.pipelines else {
            return 0;
        };
        let mut n = 0;
        for pipeline in pipelines {
            let mut first = true;
            for d in draws.iter().filter(|d| self.draws(d)) {
                let Some(Some(atlas)) = self.atlases.get(d.character as usize) else {
                    continue;
                };
                if first {
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, texels, &[]);
                    pass.set_vertex_buffer(0, instances.slice(..));
                    if let Some(previous) = previous {
                        pass.set_vertex_buffer(1, previous.slice(..));
                    }
                    first = false;
                }
                pass.set_bind_group(2, &atlas.group, &[]);
                pass.draw(0..CORNERS, d.slots.clone());
                n += 1;
            }
        }
        n
    }
}

/// Group 2 of the impostor shader: the atlas uniform, the frame table, the two arrays and
/// their sampler.
fn bind_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let both = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let array = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("impostor atlas"),
        entries: &[
            uniform_entry(0, both),
            wgpu::BindGroupLayoutEntry {
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Uint,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                ..texture_entry(1, wgpu::ShaderStages::VERTEX, false)
            },
            array(2),
            array(3),
            wgpu::BindGroupLayoutEntry {
                binding: 4,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    })
}

fn build_pipeline(
    device: &wgpu::Device,
    layouts: &Layouts,
    atlas: &wgpu::BindGroupLayout,
    format: &PassFormat,
    blended: bool,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("impostor.wgsl"),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(format!(
            "{LIGHTING_WGSL}\n{INSTANCE_WGSL}\n{IMPOSTOR_WGSL}"
        ))),
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("impostors"),
        // Group 0 is the texels' layout, which the shader does not read: a pass switching to
        // this pipeline from the skinned ones keeps the texels bound there, and a pipeline
        // with no layout at 0 lost its draws after them (seen on lavapipe).
        bind_group_layouts: &[
            Some(&layouts.texel),
            Some(&layouts.camera),
            Some(atlas),
            Some(&layouts.shadow),
        ],
        immediate_size: 0,
    });
    let (label, fragment, blend) = if blended {
        (
            "impostors, blended",
            entry(format, "fs_impostor_blended", "fs_impostor_blended_motion"),
            // Straight colour over what is there; alpha "over", so an opaque target stays
            // opaque (a saved picture has no see-through pixels).
            Some(wgpu::BlendState {
                color: wgpu::BlendState::ALPHA_BLENDING.color,
                alpha: wgpu::BlendComponent::OVER,
            }),
        )
    } else {
        (
            "impostors",
            entry(format, "fs_impostor", "fs_impostor_motion"),
            None,
        )
    };
    pipeline_with(
        format,
        device,
        label,
        &layout,
        &Stages {
            module: &module,
            vertex: entry(format, "vs_impostor", "vs_impostor_motion"),
            fragment,
            constants: &[],
        },
        &record_buffers(format),
        blend,
    )
}

/// The frame table of character `c`: per baked frame, from the lowest matrix base of its
/// animations, `[first impostor frame, impostor frames | loops << 31, position bits, step
/// bits]` (see shaders/impostor.wgsl), and that lowest base.
pub fn frame_table(file: &ThrongFile, c: usize) -> (Vec<[u32; 4]>, u32) {
    let Some(ch) = file.characters().get(c) else {
        return (Vec::new(), 0);
    };
    let joints = ch.joint_count.max(1);
    let anims = ch.first_anim as usize..(ch.first_anim + ch.anim_count) as usize;
    let base = |a: usize| (file.anims()[a].first_texel / u64::from(TEXELS_PER_MATRIX)) as u32;
    let first = anims.clone().map(base).min().unwrap_or(0);
    let mut table = Vec::new();
    for a in anims {
        let rec = &file.anims()[a];
        let imp = file.impostor_anim(a);
        let start = base(a) - first;
        if start % joints != 0 {
            // Not on the table's grid of whole frames: its agents show frame 0 of the atlas.
            continue;
        }
        let n = rec.frame_count;
        let k = imp.frame_count;
        let looping = rec.flags & anim_flags::LOOPING != 0;
        let step = if looping {
            k as f32 / n.max(1) as f32
        } else if n > 1 {
            k.saturating_sub(1) as f32 / (n - 1) as f32
        } else {
            0.0
        };
        let at = (start / joints) as usize;
        if table.len() < at + n as usize {
            table.resize(at + n as usize, [0; 4]);
        }
        for f in 0..n {
            table[at + f as usize] = [
                imp.first_frame,
                k | u32::from(looping) << 31,
                (f as f32 * step).to_bits(),
                step.to_bits(),
            ];
        }
    }
    (table, first)
}

/// Writes impostor frame `f` (`pixels`: its colour then normal-depth plane, `l.side` pixels
/// square, cells of `cell` pixels) into `textures` (colour, normal-depth) where layout `l`
/// puts it, with its mip levels ([`frame_mips`]).
fn write_frame(
    gpu: &Gpu,
    [colour, normal]: [&wgpu::Texture; 2],
    l: ImpostorLayout,
    cell: u32,
    f: u32,
    pixels: &[u8],
) {
    let plane = (l.side as usize) * (l.side as usize) * 4;
    let slot = f % l.per_layer;
    let (x, y, z) = (
        slot % l.per_row * l.side,
        slot / l.per_row * l.side,
        f / l.per_layer,
    );
    let (colour0, normal0) = pixels.split_at(plane);
    let mips = frame_mips(colour0, normal0, l.side, cell);
    let planes = std::iter::once((colour0, normal0))
        .chain(mips.iter().map(|(c, n)| (c.as_slice(), n.as_slice())));
    for (level, (c_plane, n_plane)) in (0u32..).zip(planes) {
        let side = l.side >> level;
        let origin = wgpu::Origin3d {
            x: x >> level,
            y: y >> level,
            z,
        };
        for (texture, bytes) in [(colour, c_plane), (normal, n_plane)] {
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: level,
                    origin,
                    aspect: wgpu::TextureAspect::All,
                },
                bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(side * 4),
                    rows_per_image: Some(side),
                },
                wgpu::Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
            );
        }
    }
}

/// Uploads character `c`'s atlas (`record`, laid out as `l`) and its frame table.
fn upload(
    gpu: &Gpu,
    file: &ThrongFile,
    c: usize,
    record: &ImpostorRecord,
    l: ImpostorLayout,
    layout: &wgpu::BindGroupLayout,
    sampler: &wgpu::Sampler,
) -> CharacterAtlas {
    let device = &gpu.device;
    let (width, height, layers) = l.allocated();
    let levels = mip_levels(record.cell);
    let array = |label, format| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1 + levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        })
    };
    let colour = array("impostor colour", wgpu::TextureFormat::Rgba8UnormSrgb);
    let normal = array("impostor normal-depth", wgpu::TextureFormat::Rgba8Unorm);
    for f in 0..record.frame_count {
        let Some(pixels) = file.impostor_frame_pixels(c, f) else {
            continue;
        };
        write_frame(gpu, [&colour, &normal], l, record.cell, f, pixels);
    }
    let (table, first) = frame_table(file, c);
    let max = device.limits().max_texture_dimension_2d;
    let table_width = (table.len() as u32).clamp(1, max);
    let rows = (table.len() as u32).div_ceil(table_width).max(1);
    let mut texels = table;
    texels.resize((table_width * rows) as usize, [0; 4]);
    let table_texture = wgpu::util::DeviceExt::create_texture_with_data(
        device,
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("impostor frame table"),
            size: wgpu::Extent3d {
                width: table_width,
                height: rows,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba32Uint,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    let uniform = AtlasUniform {
        sphere: [
            record.centre[0],
            record.centre[1],
            record.centre[2],
            record.radius,
        ],
        grid: [record.views, record.cell, l.per_row, l.per_layer],
        table: [
            first,
            file.characters()[c].joint_count.max(1),
            table_width,
            l.side,
        ],
        layer: [1.0 / width as f32, 1.0 / height as f32, levels as f32, 0.0],
    };
    let buffer = wgpu::util::DeviceExt::create_buffer_init(
        device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("impostor atlas"),
            contents: bytemuck::bytes_of(&uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        },
    );
    let view = |t: &wgpu::Texture| {
        t.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        })
    };
    let (colour_view, normal_view) = (view(&colour), view(&normal));
    let table_view = table_texture.create_view(&Default::default());
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("impostor atlas"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&table_view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(&colour_view),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(&normal_view),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ],
    });
    CharacterAtlas { group }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_take_a_layer_each_where_they_can_else_pack_in_rows() {
        // The default bake's 144 frames of 9 × 16 px: a layer each on GL (256 layers) too.
        let gl = ImpostorLayout::choose(144, 144, 2048, 256).unwrap();
        assert_eq!((gl.per_layer, gl.layers, gl.size), (1, 144, (144, 144)));
        // 144 square layers would be a cube array on GL: one more row.
        assert_eq!(gl.allocated(), (144, 145, 144));
        let one = ImpostorLayout::choose(1, 144, 2048, 256).unwrap();
        assert_eq!(one.allocated(), (144, 144, 2));
        // 600 frames on GL: 3 per layer, in rows of 2 (a 288 × 288 layer), 200 layers.
        let packed = ImpostorLayout::choose(600, 144, 2048, 256).unwrap();
        assert_eq!(
            (packed.per_row, packed.per_layer, packed.layers, packed.size),
            (2, 3, 200, (288, 288))
        );
        assert!(ImpostorLayout::choose(100_000, 144, 2048, 256).is_err());
        assert!(ImpostorLayout::choose(1, 4096, 2048, 256).is_err());
    }
}
