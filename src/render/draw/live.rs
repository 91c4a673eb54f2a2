//! The live path's joint matrices on the GPU: matrices the CPU evaluated this frame, in an
//! rgba32f texture laid out like the bake's texels, so that the skinned pipeline draws them
//! unchanged (made on first use, grown as needed).

use super::upload::{texel_binding, texel_texture, write_texels};
use crate::format::TEXELS_PER_MATRIX;
use crate::render::device::{Gpu, TexelLayout};
use crate::render::error::RenderError;

/// Bytes per live texel: four f32.
const LIVE_TEXEL_BYTES: usize = 16;

/// Joint matrices evaluated on the CPU, on the GPU.
pub(in crate::render) struct LiveTexels {
    texture: wgpu::Texture,
    layout: TexelLayout,
    /// Group 0 of the skinned pipeline on the live path.
    pub group: wgpu::BindGroup,
}

impl LiveTexels {
    /// Writes `rows` (three texels per matrix, linearly) into the texture in `slot`, first
    /// making one (laid out for twice as many) when there is none or it is too small.
    /// Returns the seconds the write took.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when that many matrices do not fit the device's texture
    /// limits.
    pub fn upload(
        slot: &mut Option<Self>,
        gpu: &Gpu,
        bind_layout: &wgpu::BindGroupLayout,
        rows: &[[f32; 4]],
    ) -> Result<f64, RenderError> {
        let count = rows.len() as u64;
        let live = match slot {
            Some(live) if live.layout.capacity() >= count => live,
            _ => slot.insert(Self::new(gpu, bind_layout, count)?),
        };
        let start = std::time::Instant::now();
        write_texels(
            gpu,
            &live.texture,
            live.layout,
            bytemuck::cast_slice(rows),
            LIVE_TEXEL_BYTES,
        );
        Ok(start.elapsed().as_secs_f64())
    }

    /// A texture with room for twice `count` texels, so a growing crowd does not remake it
    /// every frame.
    fn new(
        gpu: &Gpu,
        bind_layout: &wgpu::BindGroupLayout,
        count: u64,
    ) -> Result<Self, RenderError> {
        let l = &gpu.limits;
        let layout = TexelLayout::choose(
            (count * 2).max(u64::from(TEXELS_PER_MATRIX)),
            l.max_texture_dimension_2d,
            l.max_texture_array_layers,
        )
        .ok_or_else(|| RenderError::Unsupported {
            file: "live matrices".into(),
            what: format!(
                "{count} texels do not fit a {}x{} texture of {} layers",
                l.max_texture_dimension_2d, l.max_texture_dimension_2d, l.max_texture_array_layers
            ),
        })?;
        let texture = texel_texture(
            &gpu.device,
            layout,
            wgpu::TextureFormat::Rgba32Float,
            "live matrices",
        );
        let (_, _, group) =
            texel_binding(&gpu.device, &texture, layout, bind_layout, "live matrices");
        Ok(Self {
            texture,
            layout,
            group,
        })
    }
}
