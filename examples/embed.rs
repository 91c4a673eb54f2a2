//! A program of its own that draws a throng crowd among its own things.
//!
//! This is a plain winit + wgpu program: it makes its own device, window surface, depth
//! buffer, clear colour, camera and meshes (four coloured boxes). throng adds a baked crowd
//! to the program's own render pass with two calls per frame:
//! [`CrowdRenderer::prepare`] (writes on the queue) and [`CrowdRenderer::draw`] (records into
//! the pass). Everything else here is the program's, not throng's.
//!
//! ```sh
//! cargo run --release --example embed                 # drag to orbit, wheel to zoom
//! cargo run --example embed -- --backend gl --frames 3 --screenshot embed.png
//! cargo run --example embed -- --bake my-scene.throng # any bake
//! ```
//! Without `--bake` it uses throng's default bake (the mannequin crowd), baking it first if
//! needed.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use glam::{Mat4, Vec3};
use throng::bake::{BakeOptions, default_bake};
use throng::crowd::{LodPresets, Plaza, PlazaSettings, View};
use throng::format::ThrongFile;
use throng::render::{
    CrowdFrame, CrowdRenderer, Gpu, PassFormat, PathLimits, PathRequest, SkinningPath, choose_path,
    target::read_texture,
};
use wgpu::util::DeviceExt as _;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// The program's own clear colour: a dusk sky, not throng's.
const CLEAR: wgpu::Color = wgpu::Color {
    r: 0.10,
    g: 0.08,
    b: 0.16,
    a: 1.0,
};
/// The program's own depth format: throng is built for whatever the program uses.
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth24Plus;
/// Agents in the crowd.
const AGENTS: usize = 400;

/// Command-line options.
struct Options {
    backends: wgpu::Backends,
    frames: Option<u64>,
    screenshot: Option<PathBuf>,
    bake: Option<PathBuf>,
}

fn options() -> Result<Options> {
    let mut o = Options {
        backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
        frames: None,
        screenshot: None,
        bake: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--backend" => {
                o.backends = match value()?.as_str() {
                    "vulkan" => wgpu::Backends::VULKAN,
                    "gl" => wgpu::Backends::GL,
                    "auto" => wgpu::Backends::VULKAN | wgpu::Backends::GL,
                    other => bail!("--backend {other}: use vulkan, gl or auto"),
                }
            }
            "--frames" => o.frames = Some(value()?.parse().context("--frames N")?),
            "--screenshot" => o.screenshot = Some(value()?.into()),
            "--bake" => o.bake = Some(value()?.into()),
            other => bail!(
                "unknown argument {other}; use --backend vulkan|gl|auto, --frames N, --screenshot PNG, --bake FILE"
            ),
        }
    }
    Ok(o)
}

fn main() -> Result<()> {
    // Mesa's Vulkan device-select layer probes Wayland and prints "error: XDG_RUNTIME_DIR is
    // invalid..." where there is none; switch it off then, first thing, while this program
    // has one thread (throng's own binary does the same).
    // SAFETY: first in main: no other thread exists yet.
    unsafe { throng::render::driver_env::quiet_drivers() };
    let options = options()?;
    // 1. A bake: the user's, or throng's default one.
    let bake = match &options.bake {
        Some(path) => path.clone(),
        None => default_bake(&BakeOptions::default(), |recipe| {
            eprintln!("baking {} first", recipe.output.display())
        })?,
    };
    let file = Arc::new(ThrongFile::open(&bake)?);
    // 2. A crowd of it: pure CPU, no GPU needed. throng's own plaza crowd wanders about
    // (examples/march.rs drives every agent from the program instead).
    let settings = PlazaSettings {
        count: AGENTS,
        ..PlazaSettings::default()
    };
    // Its live tier is for the hybrid path (throng::hybrid); this program draws every agent
    // from the bake.
    let policy = LodPresets::builtin()
        .get("balanced")
        .map(|p| p.without_live())
        .unwrap_or_default();
    let crowd = Plaza::new(file.clone(), &settings, policy)?;
    // 3. The program's window and event loop.
    let event_loop = EventLoop::new().context("no display to open a window on")?;
    let mut app = App {
        display: event_loop.owned_display_handle(),
        options,
        file,
        crowd,
        camera: Orbit {
            yaw: 0.6,
            pitch: 0.45,
            distance: 38.0,
        },
        drag: None,
        state: None,
        frames: 0,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The program's own orbit camera around the plaza's centre.
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

impl Orbit {
    fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// Projection × view in wgpu's clip space (depth 0..1), as throng expects.
    fn view_proj(&self, aspect: f32) -> Mat4 {
        // glam's "directx" projection maps depth to 0..1, as wgpu does.
        let proj = glam::camera::rh::proj::directx::perspective(0.9, aspect, 0.1, 500.0);
        proj * glam::camera::rh::view::look_at_mat4(self.eye(), Vec3::new(0.0, 1.0, 0.0), Vec3::Y)
    }
}

/// What exists once the window does.
struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    device: wgpu::Device,
    queue: wgpu::Queue,
    depth: wgpu::TextureView,
    boxes: Boxes,
    /// throng's part: the device wrapped for it, the renderer and the skinning path.
    gpu: Gpu,
    renderer: CrowdRenderer,
    path: SkinningPath,
}

struct App {
    display: winit::event_loop::OwnedDisplayHandle,
    options: Options,
    file: Arc<ThrongFile>,
    crowd: Plaza,
    camera: Orbit,
    drag: Option<(f64, f64)>,
    state: Option<State>,
    frames: u64,
    error: Option<anyhow::Error>,
}

impl App {
    /// The program's own device and surface, then throng's renderer on that device.
    fn build(&self, window: Arc<Window>) -> Result<State> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: self.options.backends,
            ..wgpu::InstanceDescriptor::new_with_display_handle(Box::new(self.display.clone()))
        });
        let surface = instance.create_surface(window.clone())?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))?;
        // throng needs nothing beyond the adapter's limits (its texels fill big textures).
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                required_limits: adapter.limits(),
                ..Default::default()
            }))?;
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .context("the adapter cannot present to this window")?;
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: wgpu::CompositeAlphaMode::Auto,
            view_formats: vec![],
        };
        surface.configure(&device, &config);

        // throng: wrap the program's device (it keeps clones of the handles), and build the
        // renderer for the program's pass: its colour format, its depth format, one sample.
        let gpu = Gpu::from_device(&instance, &adapter, &device, &queue);
        let pass = PassFormat::new(format, DEPTH, 1);
        let renderer = CrowdRenderer::new(&gpu, &self.file, pass)?;
        // The GPU path where the device can fetch the bake's texels, else the CPU path.
        let path = choose_path(&PathLimits::of(&gpu, &self.file), PathRequest::Auto)?.path;
        println!(
            "{} on {:?}: {} skinning",
            gpu.info.name,
            gpu.info.backend,
            path.name()
        );

        Ok(State {
            depth: depth_view(&device, config.width, config.height),
            boxes: Boxes::new(&device, format),
            window,
            surface,
            config,
            device,
            queue,
            gpu,
            renderer,
            path,
        })
    }

    /// One frame: the crowd moves, then one pass draws the program's boxes and the crowd.
    fn frame(&mut self) -> Result<()> {
        let Some(s) = self.state.as_mut() else {
            return Ok(());
        };
        let aspect = s.config.width as f32 / s.config.height as f32;
        let view_proj = self.camera.view_proj(aspect);
        // The crowd advances (fixed steps keep screenshots repeatable) and picks what to draw.
        let view = View {
            view_proj,
            eye: self.camera.eye(),
        };
        self.crowd.update(1.0 / 30.0, &view);
        let frame = CrowdFrame::of(self.crowd.crowd());
        // throng, step 1: write the frame's changes on the queue.
        s.renderer
            .prepare(&s.gpu, &self.file, &frame, view_proj, s.path)?;
        s.boxes.prepare(&s.queue, view_proj);

        let last = self.options.frames.is_some_and(|n| self.frames + 1 >= n);
        let surface_texture = match s.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            _ => {
                s.surface.configure(&s.device, &s.config);
                return Ok(());
            }
        };
        // A screenshot frame is drawn into a texture that can be read back.
        let shot = (last && self.options.screenshot.is_some()).then(|| {
            s.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("screenshot"),
                size: surface_texture.texture.size(),
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: s.config.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        });
        let color = shot
            .as_ref()
            .unwrap_or(&surface_texture.texture)
            .create_view(&Default::default());

        let mut encoder = s.device.create_command_encoder(&Default::default());
        {
            // The program's own pass: its clear colour, its depth buffer.
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(CLEAR),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &s.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            s.boxes.draw(&mut pass);
            // throng, step 2: the crowd, into the same pass and depth buffer.
            s.renderer.draw(&mut pass, &frame, s.path);
        }
        s.queue.submit([encoder.finish()]);
        self.frames += 1;
        if let (Some(texture), Some(path)) = (&shot, &self.options.screenshot) {
            read_texture(&s.gpu, texture)?
                .save(path)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
        s.window.pre_present_notify();
        s.queue.present(surface_texture);
        s.window.request_redraw();
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_title("throng embedded: your scene, throng's crowd")
            .with_inner_size(winit::dpi::PhysicalSize::new(960, 540));
        let built = event_loop
            .create_window(attributes)
            .map_err(anyhow::Error::from)
            .and_then(|w| self.build(Arc::new(w)));
        match built {
            Ok(state) => {
                state.window.request_redraw();
                self.state = Some(state);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                if let Some(s) = self.state.as_mut() {
                    s.config.width = size.width;
                    s.config.height = size.height;
                    s.surface.configure(&s.device, &s.config);
                    s.depth = depth_view(&s.device, size.width, size.height);
                }
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.drag = (state == ElementState::Pressed).then_some((f64::NAN, f64::NAN)),
            WindowEvent::CursorMoved { position, .. } => {
                if let Some((x, y)) = self.drag {
                    if x.is_finite() {
                        self.camera.yaw -= (position.x - x) as f32 * 0.005;
                        self.camera.pitch =
                            (self.camera.pitch + (position.y - y) as f32 * 0.005).clamp(0.05, 1.5);
                    }
                    self.drag = Some((position.x, position.y));
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.camera.distance =
                    (self.camera.distance * 0.9f32.powf(lines)).clamp(3.0, 300.0);
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame() {
                    self.error = Some(e);
                    event_loop.exit();
                } else if self.options.frames.is_some_and(|n| self.frames >= n) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// The program's own mesh: coloured boxes standing in the crowd, with their own shader.
struct Boxes {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    count: u32,
    camera: wgpu::Buffer,
    group: wgpu::BindGroup,
}

const BOX_WGSL: &str = r"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) colour: vec3<f32> };
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) c: vec3<f32>) -> Out {
    let light = 0.4 + 0.6 * max(dot(n, normalize(vec3<f32>(0.3, 0.9, 0.5))), 0.0);
    return Out(view_proj * vec4<f32>(p, 1.0), c * light);
}
@fragment fn fs(o: Out) -> @location(0) vec4<f32> { return vec4<f32>(o.colour, 1.0); }
";

impl Boxes {
    fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        // Four boxes, 2 m wide and 3 m tall, around the plaza's centre: red, green, blue and
        // gold, saturated so that tests/cli/embed_example.rs tells them from the pastel crowd.
        let colours = [
            [0.8, 0.02, 0.02],
            [0.02, 0.6, 0.03],
            [0.02, 0.1, 0.9],
            [0.9, 0.6, 0.01],
        ];
        let mut v: Vec<[f32; 9]> = Vec::new();
        for (k, c) in colours.iter().enumerate() {
            let angle = k as f32 * std::f32::consts::FRAC_PI_2 + 0.4;
            let centre = Vec3::new(angle.cos(), 0.0, angle.sin()) * 7.0;
            push_box(&mut v, centre, Vec3::new(1.0, 1.5, 1.0), *c);
        }
        // And a floor: a thin slab whose top is the ground (y = 0) the crowd walks on.
        push_box(
            &mut v,
            Vec3::new(0.0, -0.1, 0.0),
            Vec3::new(40.0, 0.05, 40.0),
            [0.25, 0.24, 0.22],
        );
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("boxes"),
            contents: bytemuck::cast_slice(&v),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let camera = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("box camera"),
            size: 64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("boxes"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(BOX_WGSL)),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("boxes"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 36,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x3],
                })],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("box camera"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: camera.as_entire_binding(),
            }],
        });
        Self {
            pipeline,
            vertices,
            count: v.len() as u32,
            camera,
            group,
        }
    }

    fn prepare(&self, queue: &wgpu::Queue, view_proj: Mat4) {
        queue.write_buffer(
            &self.camera,
            0,
            bytemuck::cast_slice(&view_proj.to_cols_array()),
        );
    }

    fn draw(&self, pass: &mut wgpu::RenderPass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}

/// Appends a box standing at `centre` (the middle of its base) with half-extents `half`:
/// six faces, two triangles each, position, normal and colour per vertex.
fn push_box(v: &mut Vec<[f32; 9]>, centre: Vec3, half: Vec3, colour: [f32; 3]) {
    let mid = centre + Vec3::new(0.0, half.y, 0.0);
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        for sign in [1.0f32, -1.0] {
            let n = axis * sign;
            // Two axes spanning the face (the boxes' pipeline culls no faces).
            let (a, b) = (
                n.any_orthonormal_vector(),
                n.cross(n.any_orthonormal_vector()),
            );
            let corner = |s: f32, t: f32| mid + (n + a * s + b * t) * half;
            let quad = [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ];
            for i in [0, 1, 2, 0, 2, 3] {
                let p = quad[i];
                v.push([
                    p.x, p.y, p.z, n.x, n.y, n.z, colour[0], colour[1], colour[2],
                ]);
            }
        }
    }
}
