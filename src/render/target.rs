//! Where frames are drawn: offscreen targets (with readback to an image, and of motion) and
//! the extra buffers a window's surface needs (multisampled colour, depth, velocity).

use super::device::Gpu;
use super::error::RenderError;

/// The offscreen image a frame is drawn into, and its readback.
pub struct Target {
    /// Width and height, pixels.
    pub size: (u32, u32),
    samples: u32,
    // Read only by `read` (feature `image`); the views below keep the textures alive anyway.
    #[cfg_attr(not(feature = "image"), allow(dead_code))]
    color: wgpu::Texture,
    #[cfg_attr(not(feature = "image"), allow(dead_code))]
    resolve: Option<wgpu::Texture>,
    // Views made once, not per frame (a view keeps its texture alive).
    color_view: wgpu::TextureView,
    resolve_view: Option<wgpu::TextureView>,
    depth_view: wgpu::TextureView,
    velocity: Option<Velocity>,
}

/// A velocity attachment ([`VELOCITY_FORMAT`]) and, when multisampled, the texture it
/// resolves to.
pub struct Velocity {
    /// The attachment, with the pass's samples.
    pub attachment: wgpu::TextureView,
    /// The single-sampled texture holding the motion after the pass (the attachment itself
    /// when single-sampled); it can be copied and bound for sampling.
    pub texture: wgpu::Texture,
    /// A view of `texture` (the resolve target when multisampled).
    pub view: wgpu::TextureView,
    samples: u32,
}

impl Velocity {
    /// A velocity attachment of `width` × `height` pixels, `samples` samples per pixel.
    pub fn new(gpu: &Gpu, width: u32, height: u32, samples: u32) -> Self {
        let make = |label, samples, usage| {
            texture(gpu, label, (width, height), VELOCITY_FORMAT, samples, usage)
        };
        let out = wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::TEXTURE_BINDING;
        let texture = make("velocity", 1, out);
        let view = texture.create_view(&Default::default());
        let attachment = if samples > 1 {
            make(
                "msaa velocity",
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&Default::default())
        } else {
            view.clone()
        };
        Self {
            attachment,
            texture,
            view,
            samples,
        }
    }

    /// The views a pass writes motion into: the attachment and where it resolves to.
    pub fn views(&self) -> (&wgpu::TextureView, Option<&wgpu::TextureView>) {
        (&self.attachment, (self.samples > 1).then_some(&self.view))
    }

    /// Reads the motion back: per pixel, rows top first, the screen delta in units of the
    /// target's size (see [`VELOCITY_FORMAT`]).
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when mapping fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<[f32; 2]>, RenderError> {
        let bytes = read_pixels(gpu, &self.texture, 4)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|p| {
                let half = |i: usize| half::f16::from_le_bytes([p[i], p[i + 1]]).to_f32();
                [half(0), half(2)]
            })
            .collect())
    }
}

/// The format of the velocity attachment: per pixel, how far the surface drawn there moved
/// on screen since the previous frame, this frame's position minus the previous one, in
/// units of the target's width and height (x to the right, y down: the uv of a texture of
/// the picture), 0 where nothing moved. Motion from the camera (the previous frame's
/// view-projection against this one's) and from the agents (the record each was drawn with
/// in the previous frame against this one) both count. A surface appearing for the first
/// time moves only with the camera. A colour format, so that it resolves like colour.
pub const VELOCITY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;

/// The colour format of offscreen targets.
pub const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

impl Target {
    /// An offscreen target of `width` × `height` pixels with `samples` samples per pixel (4
    /// when the device supports it for the target format, see [`Target::best_samples`]).
    pub fn new(gpu: &Gpu, width: u32, height: u32, samples: u32) -> Self {
        let make = |label, format, samples, usage| {
            texture(gpu, label, (width, height), format, samples, usage)
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
            velocity: None,
        }
    }

    /// [`Target::new`] with a velocity attachment, for a renderer whose
    /// [`PassFormat::velocity`](super::PassFormat::velocity) is set.
    pub fn with_velocity(gpu: &Gpu, width: u32, height: u32, samples: u32) -> Self {
        Self {
            velocity: Some(Velocity::new(gpu, width, height, samples)),
            ..Self::new(gpu, width, height, samples)
        }
    }

    /// The single-sampled picture (what `Target::read` reads; the resolve target when
    /// multisampled), for passes drawing over the resolved frame.
    pub fn output(&self) -> &wgpu::TextureView {
        self.resolve_view.as_ref().unwrap_or(&self.color_view)
    }

    /// The velocity attachment, if it has one.
    pub fn velocity(&self) -> Option<&Velocity> {
        self.velocity.as_ref()
    }

    /// 4 if the device can multisample both the colour and the depth format 4 times, else 1.
    pub fn best_samples(gpu: &Gpu) -> u32 {
        best_samples_for(gpu, TARGET_FORMAT)
    }

    /// Samples per pixel.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Reads the image back: RGBA8 (sRGB), rows top first.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when mapping fails.
    #[cfg(feature = "image")]
    pub fn read(&self, gpu: &Gpu) -> Result<image::RgbaImage, RenderError> {
        read_texture(gpu, self.resolve.as_ref().unwrap_or(&self.color))
    }

    /// The views a frame draws into.
    pub fn views(&self) -> FrameViews<'_> {
        FrameViews {
            color: &self.color_view,
            resolve: self.resolve_view.as_ref(),
            depth: &self.depth_view,
            velocity: self.velocity.as_ref().map(Velocity::views),
        }
    }
}

/// The views one frame draws into: colour (multisampled or not), where it resolves to, and
/// depth.
#[derive(Clone, Copy)]
pub struct FrameViews<'a> {
    /// The colour attachment.
    pub color: &'a wgpu::TextureView,
    /// Where a multisampled colour attachment resolves to.
    pub resolve: Option<&'a wgpu::TextureView>,
    /// The depth attachment (same samples as `color`).
    pub depth: &'a wgpu::TextureView,
    /// The velocity attachment and where it resolves to, for a pass with one.
    pub velocity: Option<(&'a wgpu::TextureView, Option<&'a wgpu::TextureView>)>,
}

/// The multisampled colour and the depth buffer that frames drawn into a window's surface
/// need besides the surface texture itself (remade when the window is resized).
pub struct SurfaceTarget {
    /// Width and height, pixels.
    pub size: (u32, u32),
    msaa: Option<wgpu::TextureView>,
    depth: wgpu::TextureView,
    /// The velocity attachment, for a pass with one.
    pub velocity: Option<Velocity>,
}

impl SurfaceTarget {
    /// Buffers for a `width` × `height` surface of `format`, with `samples` samples per pixel.
    pub fn new(
        gpu: &Gpu,
        width: u32,
        height: u32,
        samples: u32,
        format: wgpu::TextureFormat,
    ) -> Self {
        let make = |label, format, samples| {
            texture(
                gpu,
                label,
                (width, height),
                format,
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&Default::default())
        };
        Self {
            size: (width, height),
            msaa: (samples > 1).then(|| make("surface msaa colour", format, samples)),
            depth: make("surface depth", DEPTH_FORMAT, samples),
            velocity: None,
        }
    }

    /// [`SurfaceTarget::new`] with a velocity attachment when `velocity` says so.
    pub fn with_velocity(
        gpu: &Gpu,
        (width, height): (u32, u32),
        samples: u32,
        format: wgpu::TextureFormat,
        velocity: bool,
    ) -> Self {
        Self {
            velocity: velocity.then(|| Velocity::new(gpu, width, height, samples)),
            ..Self::new(gpu, width, height, samples, format)
        }
    }

    /// The views a frame draws into, resolving into (or drawing straight into) `surface`.
    pub fn views<'a>(&'a self, surface: &'a wgpu::TextureView) -> FrameViews<'a> {
        let (color, resolve) = match &self.msaa {
            Some(m) => (m, Some(surface)),
            None => (surface, None),
        };
        FrameViews {
            color,
            resolve,
            depth: &self.depth,
            velocity: self.velocity.as_ref().map(Velocity::views),
        }
    }
}

/// A 2D texture of `width` × `height` pixels (at least 1 each) for targets.
fn texture(
    gpu: &Gpu,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    samples: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// 4 if the device can multisample both `format` and the depth format 4 times, else 1.
pub fn best_samples_for(gpu: &Gpu, format: wgpu::TextureFormat) -> u32 {
    let ok = |f| {
        gpu.adapter
            .get_texture_format_features(f)
            .flags
            .sample_count_supported(4)
    };
    if ok(format) && ok(DEPTH_FORMAT) { 4 } else { 1 }
}

/// Reads a single-sampled RGBA8 or BGRA8 texture (with `COPY_SRC`) back as RGBA8, rows top
/// first.
///
/// # Errors
/// [`RenderError::Gpu`] when the format is not 8-bit RGBA/BGRA or mapping fails.
#[cfg(feature = "image")]
pub fn read_texture(gpu: &Gpu, texture: &wgpu::Texture) -> Result<image::RgbaImage, RenderError> {
    use wgpu::TextureFormat as F;
    let bgra = match texture.format() {
        F::Rgba8Unorm | F::Rgba8UnormSrgb => false,
        F::Bgra8Unorm | F::Bgra8UnormSrgb => true,
        other => {
            return Err(RenderError::Gpu(format!(
                "cannot read back a {other:?} texture"
            )));
        }
    };
    let (w, h) = (texture.width(), texture.height());
    let mut pixels = read_pixels(gpu, texture, 4)?;
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    image::RgbaImage::from_raw(w, h, pixels)
        .ok_or_else(|| RenderError::Gpu("readback size mismatch".into()))
}

/// Reads a single-sampled texture (with `COPY_SRC`) of `bytes` bytes per pixel back, rows
/// top first, without padding.
///
/// # Errors
/// [`RenderError::Gpu`] when mapping fails.
fn read_pixels(gpu: &Gpu, texture: &wgpu::Texture, bytes: u32) -> Result<Vec<u8>, RenderError> {
    let (w, h) = (texture.width(), texture.height());
    let row = (w * bytes).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(row) * u64::from(h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
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
    let mut pixels = Vec::with_capacity((w * h * bytes) as usize);
    for y in 0..h as usize {
        let start = y * row as usize;
        pixels.extend_from_slice(&data[start..start + (w * bytes) as usize]);
    }
    Ok(pixels)
}
