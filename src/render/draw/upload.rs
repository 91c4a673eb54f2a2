//! Writing data to the GPU: the bake's texels (laid out for the device, straight from the
//! mapped file), any texels the CPU wrote (the live path), and the frame's changed instance
//! records; plus the growable buffers they go into.

use std::ops::Range;

use wgpu::util::DeviceExt as _;

use crate::crowd::InstanceRecord;
use crate::format::{TEXELS_PER_MATRIX, TexelFormat, ThrongFile};
use crate::render::device::{Gpu, TexelLayout};
use crate::render::error::RenderError;

/// The texel layout of a bake too large for the device's texture: one matrix, so that the
/// texture and its bind group exist while only the CPU path (which reads the file) draws.
const ONE_MATRIX: TexelLayout = TexelLayout {
    width: TEXELS_PER_MATRIX,
    height: 1,
    layers: 1,
    shift: 0,
    hshift: 31,
};

/// The bake's texels on the GPU: the texture, its layout uniform and their bind group.
pub(in crate::render) struct BakeTexels {
    /// The layout chosen for the device.
    pub layout: TexelLayout,
    /// Group 0 of the skinned pipeline.
    pub group: wgpu::BindGroup,
    /// The texture as a 2D array.
    pub view: wgpu::TextureView,
    /// The layout as the shader reads it.
    pub layout_uniform: wgpu::Buffer,
}

impl BakeTexels {
    /// Lays out the texels of `file` for `gpu` and uploads them where they fit (a bake too
    /// large for the texture keeps a one-matrix texture, for the CPU path). Every animation
    /// starts at a whole matrix: the reader refuses files where one does not.
    pub fn new(gpu: &Gpu, file: &ThrongFile, bind_layout: &wgpu::BindGroupLayout) -> Self {
        let count = file.info().texel_count;
        let l = &gpu.limits;
        let layout = TexelLayout::choose(
            count,
            l.max_texture_dimension_2d,
            l.max_texture_array_layers,
        )
        .unwrap_or(ONE_MATRIX);
        let format = match file.format() {
            TexelFormat::Rgba32F => wgpu::TextureFormat::Rgba32Float,
            TexelFormat::Rgba16F => wgpu::TextureFormat::Rgba16Float,
        };
        let texture = texel_texture(&gpu.device, layout, format, "bone texels");
        if layout.capacity() >= count {
            write_texels(
                gpu,
                &texture,
                layout,
                file.texels().bytes(),
                file.format().texel_size(),
            );
        }
        let (view, layout_uniform, group) =
            texel_binding(&gpu.device, &texture, layout, bind_layout, "bone texels");
        Self {
            layout,
            group,
            view,
            layout_uniform,
        }
    }
}

/// The 2D array view of `texture`, its layout uniform and their bind group for
/// `bind_layout` (group 0 of skinning shaders).
pub(in crate::render) fn texel_binding(
    device: &wgpu::Device,
    texture: &wgpu::Texture,
    layout: TexelLayout,
    bind_layout: &wgpu::BindGroupLayout,
    label: &str,
) -> (wgpu::TextureView, wgpu::Buffer, wgpu::BindGroup) {
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("texel layout"),
        contents: bytemuck::cast_slice(&layout.uniform()),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let group = texel_group(device, bind_layout, &view, &uniform, label);
    (view, uniform, group)
}

/// A bind group of texels and their layout uniform.
pub(in crate::render) fn texel_group(
    device: &wgpu::Device,
    bind_layout: &wgpu::BindGroupLayout,
    view: &wgpu::TextureView,
    uniform: &wgpu::Buffer,
    label: &str,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: bind_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: uniform.as_entire_binding(),
            },
        ],
    })
}

/// A 2D array texture for texels laid out as `layout`.
pub(in crate::render) fn texel_texture(
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

/// Writes linear texels (`texel` bytes each) into `texture` laid out as `layout`: whole rows
/// straight from `bytes`, layer by layer, and a last partial row padded with zeros. Rows past
/// the data are left as they are.
pub(in crate::render) fn write_texels(
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

/// Makes `slot` a buffer of at least `bytes`; true when it made a new one (empty).
pub(in crate::render) fn ensure_buffer(
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

/// What [`write_records`] wrote.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::render) struct RecordsWritten {
    /// Records written.
    pub records: usize,
    /// Bytes written.
    pub bytes: usize,
}

/// Writes the `dirty` runs of `records` (all of them into a new buffer) to the instance
/// buffer in `slot`, growing it as needed.
///
/// # Errors
/// [`RenderError::Gpu`] when there is no buffer after growing it.
pub(in crate::render) fn write_records(
    gpu: &Gpu,
    slot: &mut Option<wgpu::Buffer>,
    records: &[InstanceRecord],
    dirty: &[Range<u32>],
) -> Result<RecordsWritten, RenderError> {
    let record_size = std::mem::size_of::<InstanceRecord>();
    let bytes = std::mem::size_of_val(records) as u64;
    let grown = ensure_buffer(
        gpu,
        slot,
        bytes.max(4),
        wgpu::BufferUsages::VERTEX,
        "instances",
    );
    let Some(instances) = slot.as_ref() else {
        return Err(RenderError::Gpu("no instance buffer".into()));
    };
    let n = records.len() as u32;
    let full = 0..n;
    // A new buffer holds nothing yet: everything is written.
    let runs = if grown {
        std::slice::from_ref(&full)
    } else {
        dirty
    };
    let mut written = RecordsWritten::default();
    for run in runs {
        let run = run.start.min(n)..run.end.min(n);
        if run.is_empty() {
            continue;
        }
        gpu.queue.write_buffer(
            instances,
            u64::from(run.start) * record_size as u64,
            bytemuck::cast_slice(&records[run.start as usize..run.end as usize]),
        );
        written.records += run.len();
    }
    written.bytes = written.records * record_size;
    Ok(written)
}
