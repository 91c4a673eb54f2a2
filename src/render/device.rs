//! The GPU: backend and adapter chosen explicitly, limits and features reported, and the
//! texel layout for a bake chosen from the device's limits.

use super::error::RenderError;
use crate::format::TEXELS_PER_MATRIX;

/// Which backend to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// Vulkan (lavapipe on machines without a GPU).
    Vulkan,
    /// OpenGL (ES) through EGL (llvmpipe on machines without a GPU).
    Gl,
    /// Vulkan if there is an adapter, else GL.
    Auto,
}

impl BackendChoice {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Vulkan => "vulkan",
            Self::Gl => "gl",
            Self::Auto => "auto",
        }
    }
}

/// A device ready to render.
pub struct Gpu {
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Adapter name, driver and backend.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with (the adapter's).
    pub limits: wgpu::Limits,
    /// Whether GPU timestamp queries are available.
    pub timestamps: bool,
    /// The instance (kept alive with the device).
    pub instance: wgpu::Instance,
}

fn backends_of(choice: BackendChoice) -> wgpu::Backends {
    match choice {
        BackendChoice::Vulkan => wgpu::Backends::VULKAN,
        BackendChoice::Gl => wgpu::Backends::GL,
        BackendChoice::Auto => wgpu::Backends::VULKAN | wgpu::Backends::GL,
    }
}

fn advice(choice: BackendChoice) -> &'static str {
    match choice {
        BackendChoice::Vulkan => {
            "no Vulkan adapter: install mesa-vulkan-drivers and libvulkan1 for software Vulkan (lavapipe), or use --backend gl"
        }
        BackendChoice::Gl => {
            "no OpenGL adapter: install libegl1 and libgl1-mesa-dri for software OpenGL (llvmpipe), or use --backend vulkan"
        }
        BackendChoice::Auto => {
            "no Vulkan or OpenGL adapter: install mesa-vulkan-drivers and libvulkan1 (software Vulkan) or libegl1 and libgl1-mesa-dri (software OpenGL)"
        }
    }
}

impl Gpu {
    /// Opens a device on `choice`'s backend. Among its adapters, a real GPU is preferred over
    /// a software one; for `Auto`, Vulkan over GL.
    ///
    /// # Errors
    /// [`RenderError::NoAdapter`] saying what to install; [`RenderError::Device`].
    pub fn new(choice: BackendChoice) -> Result<Self, RenderError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: backends_of(choice),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        Self::open(instance, choice, None)
    }

    /// Opens a device on `choice`'s backend that can present to `window` (whose display
    /// connection is `display`), and the window's surface. Adapters are ranked as for
    /// [`Gpu::new`], among those that support the surface.
    ///
    /// # Errors
    /// As [`Gpu::new`]; [`RenderError::NoAdapter`] when the window's surface cannot be made.
    pub fn with_surface(
        choice: BackendChoice,
        display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>,
        window: impl Into<wgpu::SurfaceTarget<'static>>,
    ) -> Result<(Self, wgpu::Surface<'static>), RenderError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: backends_of(choice),
            ..wgpu::InstanceDescriptor::new_with_display_handle(display)
        });
        let surface = instance.create_surface(window).map_err(|e| {
            RenderError::NoAdapter(format!(
                "cannot draw into the window with {}: {e}",
                choice.name()
            ))
        })?;
        let gpu = Self::open(instance, choice, Some(&surface))?;
        Ok((gpu, surface))
    }

    fn open(
        instance: wgpu::Instance,
        choice: BackendChoice,
        surface: Option<&wgpu::Surface>,
    ) -> Result<Self, RenderError> {
        let adapters: Vec<_> = pollster::block_on(instance.enumerate_adapters(backends_of(choice)))
            .into_iter()
            .filter(|a| surface.is_none_or(|s| a.is_surface_supported(s)))
            .collect();
        let rank = |a: &wgpu::Adapter| {
            let info = a.get_info();
            let backend = match info.backend {
                wgpu::Backend::Vulkan => 0,
                _ => 1,
            };
            let kind = match info.device_type {
                wgpu::DeviceType::DiscreteGpu => 0,
                wgpu::DeviceType::IntegratedGpu => 1,
                wgpu::DeviceType::VirtualGpu => 2,
                wgpu::DeviceType::Cpu => 3,
                wgpu::DeviceType::Other => 4,
            };
            (backend, kind)
        };
        let adapter = adapters
            .into_iter()
            .min_by_key(rank)
            .ok_or_else(|| RenderError::NoAdapter(advice(choice).to_string()))?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("throng"),
            required_features: features,
            required_limits: limits.clone(),
            ..wgpu::DeviceDescriptor::default()
        }))
        .map_err(|e| RenderError::Device {
            backend: format!("{:?}", info.backend),
            adapter: info.name.clone(),
            what: e.to_string(),
        })?;
        Ok(Self {
            adapter,
            device,
            queue,
            info,
            limits,
            timestamps,
            instance,
        })
    }

    /// One line saying which adapter this is.
    pub fn describe(&self) -> String {
        format!(
            "{} on {:?} ({:?}, driver {} {}); max 2D texture {}, {} array layers",
            self.info.name,
            self.info.backend,
            self.info.device_type,
            self.info.driver,
            self.info.driver_info,
            self.limits.max_texture_dimension_2d,
            self.limits.max_texture_array_layers
        )
    }

    /// Waits for the queue's work, maps `buffer` (created with `MAP_READ`) and copies its bytes
    /// out.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] naming `what` when waiting or mapping fails.
    pub fn read_buffer(&self, buffer: &wgpu::Buffer, what: &str) -> Result<Vec<u8>, RenderError> {
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Gpu(format!("waiting for the {what}: {e}")))?;
        rx.recv()
            .map_err(|e| RenderError::Gpu(format!("{what}: {e}")))?
            .map_err(|e| RenderError::Gpu(format!("mapping the {what}: {e}")))?;
        let bytes = slice
            .get_mapped_range()
            .map_err(|e| RenderError::Gpu(format!("reading the {what}: {e}")))?
            .to_vec();
        buffer.unmap();
        Ok(bytes)
    }

    /// Wraps a device that an embedding program made itself, for throng's renderer to use.
    /// It borrows the program's handles and keeps clones (wgpu's handles are
    /// reference-counted: the program goes on using its own). The limits are those the device
    /// was created with (the texel layout is chosen within them), and pass timing is used
    /// where the device was created with [`wgpu::Features::TIMESTAMP_QUERY`].
    pub fn from_device(
        instance: &wgpu::Instance,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Self {
        Self {
            info: adapter.get_info(),
            limits: device.limits(),
            timestamps: device.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            adapter: adapter.clone(),
            device: device.clone(),
            queue: queue.clone(),
            instance: instance.clone(),
        }
    }

    /// Whether this device is a software renderer.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }
}

/// How a bake's linear texels are laid out in a 2D array texture: rows of `3 × 2^shift`
/// texels (whole matrices, so the shader finds a matrix with shifts and masks, never a
/// division), one layer of any height or layers of `2^hshift` rows. Texel `i` is at
/// `x = i % width`, `y = (i / width) % height`, `layer = i / (width × height)`, the linear
/// layout of docs/FORMAT.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelLayout {
    /// Texels per row (`3 × 2^shift`).
    pub width: u32,
    /// Rows per layer.
    pub height: u32,
    /// Layers.
    pub layers: u32,
    /// Matrices per row are `2^shift`.
    pub shift: u32,
    /// Rows per layer are `2^hshift` when there are several layers (31 for one layer).
    pub hshift: u32,
}

impl TexelLayout {
    /// The layout of `count` texels within a device's largest 2D size `max_side` and
    /// `max_layers`: rows as wide as the device allows (at most 3072 texels, which keeps the
    /// rows of small bakes few), as few layers as possible. `None` if they do not fit, or if
    /// matrix indices would pass 2^32 (the shader's 32-bit index).
    pub fn choose(count: u64, max_side: u32, max_layers: u32) -> Option<Self> {
        let per = u64::from(TEXELS_PER_MATRIX);
        if count >= per << 32 || max_side < TEXELS_PER_MATRIX || max_layers == 0 {
            return None;
        }
        let matrices = count.div_ceil(per).max(1);
        // The widest 3 × 2^k within the limit, but no wider than needed.
        let mut shift = (max_side.min(3072) / TEXELS_PER_MATRIX).ilog2();
        while shift > 0 && (1u64 << (shift - 1)) >= matrices {
            shift -= 1;
        }
        let rows = matrices.div_ceil(1u64 << shift);
        let (height, hshift, layers) = if rows <= u64::from(max_side) {
            (rows as u32, 31, 1u64)
        } else {
            let hshift = max_side.ilog2();
            (1u32 << hshift, hshift, rows.div_ceil(1u64 << hshift))
        };
        (layers <= u64::from(max_layers)).then_some(Self {
            width: TEXELS_PER_MATRIX << shift,
            height,
            layers: layers as u32,
            shift,
            hshift,
        })
    }

    /// Texels the layout holds.
    pub fn capacity(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.layers)
    }

    /// The shader's uniform: `mask`, `shift`, `hmask`, `hshift`.
    pub fn uniform(&self) -> [u32; 4] {
        let hmask = if self.hshift >= 31 {
            u32::MAX
        } else {
            (1 << self.hshift) - 1
        };
        [(1 << self.shift) - 1, self.shift, hmask, self.hshift]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_fit_the_limits_and_the_texels() {
        // The mannequin bake on a GL device with a 2048 limit and on Vulkan's 16384.
        let gl = TexelLayout::choose(43_320, 2048, 256).unwrap();
        assert_eq!((gl.width, gl.height, gl.layers), (1536, 29, 1));
        let vk = TexelLayout::choose(43_320, 16_384, 2048).unwrap();
        assert_eq!((vk.width, vk.height, vk.layers), (3072, 15, 1));
        assert_eq!(vk.uniform(), [1023, 10, u32::MAX, 31]);
        // A large bake spills into layers of a power-of-two height.
        let big = TexelLayout::choose(20_000_000, 2048, 256).unwrap();
        assert_eq!((big.width, big.height, big.layers), (1536, 2048, 7));
        assert_eq!(big.uniform(), [511, 9, 2047, 11]);
        assert!(big.capacity() >= 20_000_000);
        // One that cannot fit is refused.
        assert!(TexelLayout::choose(1536 * 2048 * 4 + 3, 2048, 4).is_none());
        assert!(TexelLayout::choose(3 << 32, 16_384, 2048).is_none());
        // A tiny bake gets a narrow row.
        let tiny = TexelLayout::choose(6, 2048, 1).unwrap();
        assert_eq!((tiny.width, tiny.height, tiny.layers), (6, 1, 1));
        // Every texel index maps where the shader looks for it.
        for layout in [gl, big, tiny] {
            let [mask, shift, hmask, hshift] = layout.uniform();
            for m in [0u64, 1, 511, 512, 1023, 7_000, 6_000_000] {
                let per = u64::from(TEXELS_PER_MATRIX);
                if m * per >= layout.capacity() {
                    continue;
                }
                let i = m * per;
                let w = u64::from(layout.width);
                let h = u64::from(layout.height);
                let (x, y, l) = (i % w, (i / w) % h, i / (w * h));
                let m = m as u32;
                let row = m >> shift;
                assert_eq!(
                    (
                        u64::from((m & mask) * TEXELS_PER_MATRIX),
                        u64::from(row & hmask),
                        u64::from(row >> hshift)
                    ),
                    (x, y, l),
                    "matrix {m} in {layout:?}"
                );
            }
        }
    }
}
