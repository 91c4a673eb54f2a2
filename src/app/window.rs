//! The demo's window (winit 0.30): the surface and its resizes, minimising and losses, the
//! camera's input, the egui panel drawn over the crowd, vsync, backend restarts, and the
//! bounded runs (`--frames`, `--screenshot`) that tests use.
//!
//! Pointer input goes to the panel or to the camera, never to both ([`camera_takes`]). egui-winit's
//! own verdict (`EventResponse::consumed`) cannot decide it: it asks the egui context, which
//! knows the pointer only as of the last pass, while the event that moved the pointer onto the
//! panel is still queued in the raw input; a software-rendered frame takes long enough for a
//! wheel turned right after that move to zoom the camera, and for a click on the panel to start
//! turning it. So the window keeps the pointer's position itself, from every `CursorMoved`, and
//! tests it against where egui laid out its areas in the last frame.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use egui::{Order, Rect};
use glam::Vec2;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, OwnedDisplayHandle};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use super::AppError;
use super::camera::FlyKeys;
use super::panel;
use super::scene::{DemoOptions, Graphics, Scene};
use crate::render::target::{best_samples_for, read_texture};
use crate::render::{BackendChoice, Gpu, SurfaceTarget};

/// What a windowed run did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowOutcome {
    /// Frames drawn.
    pub frames: u64,
}

/// Opens the window and runs the demo until it is closed (or `options.frames` frames were
/// drawn).
///
/// # Errors
/// [`AppError::NoDisplay`] when there is no display to open a window on (the caller then
/// renders headless); other errors when the device or a frame fails.
pub fn run(options: &DemoOptions, scene: Scene) -> Result<WindowOutcome, AppError> {
    let event_loop = EventLoop::new().map_err(|e| AppError::NoDisplay(e.to_string()))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        display: event_loop.owned_display_handle(),
        options,
        scene,
        state: None,
        error: None,
        frames: 0,
        input: Input::default(),
        last: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::Window(e.to_string()))?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(WindowOutcome { frames: app.frames }),
    }
}

#[derive(Default)]
struct Input {
    keys: HashSet<KeyCode>,
    turning: bool,
    panning: bool,
    /// The pointer, window pixels, as of the latest `CursorMoved`.
    cursor: Option<Vec2>,
}

/// An input event the camera may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CameraInput {
    /// A wheel turn: zoom.
    Wheel,
    /// A mouse button pressed: a turn or pan starts.
    Press,
    /// A mouse button released: the camera's drag with it ends.
    Release,
    /// The pointer moved: the camera's drag, if any, goes on.
    Move,
    /// A key pressed: flying.
    Key,
}

/// What egui and the camera are doing when an event comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Situation {
    /// The pointer is over the panel (or one of its pop-ups) as egui laid it out last frame
    /// (see [`over_areas`]).
    over_panel: bool,
    /// egui is using the pointer: dragging a slider, the panel or its scroll bar.
    egui_using_pointer: bool,
    /// egui has the keyboard focus (a focused widget takes the keys).
    egui_wants_keys: bool,
    /// The camera is turning or panning: a drag that started over the scene.
    camera_dragging: bool,
}

/// Whether the camera takes `input` in situation `s`; egui gets every event either way, and
/// acts on those over the panel. The wheel and presses belong to the panel while the pointer
/// is over it or egui is using it; moves move the camera only in a drag that started over the
/// scene (and keep doing so over the panel); releases always end the camera's drag; keys fly
/// unless egui has the keyboard focus (releases are always taken, so no key stays held).
fn camera_takes(input: CameraInput, s: Situation) -> bool {
    match input {
        CameraInput::Wheel | CameraInput::Press => !s.over_panel && !s.egui_using_pointer,
        CameraInput::Move => s.camera_dragging,
        CameraInput::Release => true,
        CameraInput::Key => !s.egui_wants_keys,
    }
}

/// Whether the pointer at `pointer` (window pixels) is over one of `areas` (egui points, at
/// `pixels_per_point`). No pointer is over nothing.
fn over_areas(areas: &[Rect], pointer: Option<Vec2>, pixels_per_point: f32) -> bool {
    let Some(p) = pointer else { return false };
    let p = p / pixels_per_point.max(1e-3);
    areas.iter().any(|r| r.contains(egui::pos2(p.x, p.y)))
}

/// Where egui drew its windows and pop-ups in the pass just run, egui points: the areas that
/// take the pointer (the background layer, tooltips and debug overlays do not).
fn egui_areas(ctx: &egui::Context) -> Vec<Rect> {
    ctx.memory(|m| {
        m.areas()
            .visible_layer_ids()
            .into_iter()
            .filter(|l| matches!(l.order, Order::Middle | Order::Foreground))
            .filter_map(|l| m.area_rect(l.id))
            .collect()
    })
}

impl Input {
    fn fly(&self) -> FlyKeys {
        let axis = |plus, minus| {
            f32::from(u8::from(self.keys.contains(&plus)))
                - f32::from(u8::from(self.keys.contains(&minus)))
        };
        FlyKeys {
            right: axis(KeyCode::KeyD, KeyCode::KeyA),
            up: axis(KeyCode::KeyE, KeyCode::KeyQ),
            forward: axis(KeyCode::KeyW, KeyCode::KeyS),
            fast: self.keys.contains(&KeyCode::ShiftLeft)
                || self.keys.contains(&KeyCode::ShiftRight),
        }
    }
}

/// The extra buffers of the window's surface as `config` sets it, with a velocity attachment
/// where `graphics` draws one (bound to its motion picture).
fn surface_target(
    graphics: &mut Graphics,
    config: &wgpu::SurfaceConfiguration,
    samples: u32,
) -> SurfaceTarget {
    let target = SurfaceTarget::with_velocity(
        &graphics.gpu,
        (config.width, config.height),
        samples,
        config.format,
        graphics.velocity(),
    );
    graphics.bind_velocity(target.velocity.as_ref());
    target
}

struct WindowState {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    graphics: Graphics,
    target: SurfaceTarget,
    samples: u32,
    egui: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    /// Where the panel and its pop-ups were in the last frame, egui points.
    panel_areas: Vec<Rect>,
    /// egui points per window pixel in the last frame.
    pixels_per_point: f32,
    /// The backend setting this device was opened with (`Auto` resolves to the device's).
    started_as: BackendChoice,
    /// The surface can be copied from (for `--screenshot`; otherwise that frame is drawn into
    /// a readable texture instead).
    readable: bool,
}

struct App<'a> {
    display: OwnedDisplayHandle,
    options: &'a DemoOptions,
    scene: Scene,
    state: Option<WindowState>,
    error: Option<AppError>,
    frames: u64,
    input: Input,
    last: Option<Instant>,
}

impl App<'_> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: AppError) {
        self.error = Some(e);
        event_loop.exit();
    }

    /// Device, surface, renderer and panel renderer for `window` on the chosen backend.
    fn build(&self, window: Arc<Window>) -> Result<WindowState, AppError> {
        let (gpu, surface) = Gpu::with_surface(
            self.scene.settings.backend,
            Box::new(self.display.clone()),
            window.clone(),
        )?;
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                AppError::Window(format!("{} cannot present to this window", gpu.info.name))
            })?;
        let readable = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | if readable {
                    wgpu::TextureUsages::COPY_SRC
                } else {
                    wgpu::TextureUsages::empty()
                },
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: present_mode(self.scene.settings.vsync),
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&gpu.device, &config);
        let samples = best_samples_for(&gpu, format);
        let egui_renderer =
            egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        let mut graphics = Graphics::new(gpu, &self.scene, format, samples)?;
        let target = surface_target(&mut graphics, &config, samples);
        let ctx = egui::Context::default();
        let pixels_per_point = window.scale_factor() as f32;
        let egui = egui_winit::State::new(
            ctx,
            egui::ViewportId::ROOT,
            &window,
            Some(pixels_per_point),
            None,
            Some(graphics.gpu.limits.max_texture_dimension_2d as usize),
        );
        Ok(WindowState {
            window,
            surface,
            config,
            graphics,
            target,
            samples,
            egui,
            egui_renderer,
            panel_areas: Vec::new(),
            pixels_per_point,
            started_as: self.scene.settings.backend,
            readable,
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        let Some(s) = self.state.as_mut() else { return };
        if width == 0 || height == 0 {
            return; // minimised: nothing to draw until it comes back
        }
        s.config.width = width;
        s.config.height = height;
        s.surface.configure(&s.graphics.gpu.device, &s.config);
        s.target = surface_target(&mut s.graphics, &s.config, s.samples);
    }

    /// Draws one frame; returns whether the run should stop.
    fn frame(&mut self) -> Result<bool, AppError> {
        let now = Instant::now();
        let dt = self
            .last
            .map_or(1.0 / 60.0, |t| now.duration_since(t).as_secs_f32())
            .min(0.25);
        self.last = Some(now);
        let fly = self.input.fly();
        let Some(s) = self.state.as_mut() else {
            return Ok(false);
        };
        if s.config.width == 0 || s.window.is_minimized() == Some(true) {
            return Ok(false);
        }
        self.scene.camera.fly(fly, dt);
        let aspect = s.config.width as f32 / s.config.height.max(1) as f32;
        if s.config.present_mode != present_mode(self.scene.settings.vsync) {
            s.config.present_mode = present_mode(self.scene.settings.vsync);
            s.surface.configure(&s.graphics.gpu.device, &s.config);
        }
        s.graphics.choose_path(&self.scene);
        if s.graphics.set_picture(&self.scene)? {
            s.target = surface_target(&mut s.graphics, &s.config, s.samples);
        }
        self.scene.update(dt, aspect)?;
        let texture = match s.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                s.surface.configure(&s.graphics.gpu.device, &s.config);
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                // The surface is gone (not the device): make a new one for the window.
                s.surface = s
                    .graphics
                    .gpu
                    .instance
                    .create_surface(s.window.clone())
                    .map_err(|e| {
                        AppError::Window(format!(
                            "the window's surface was lost and cannot be remade: {e}"
                        ))
                    })?;
                s.surface.configure(&s.graphics.gpu.device, &s.config);
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(AppError::Window(
                    "the surface texture failed validation".into(),
                ));
            }
        };
        // The frame a screenshot is taken of goes to a readable copy when the surface itself
        // cannot be read (GL surfaces); the window then keeps the previous frame.
        let last = self.options.frames.is_some_and(|n| self.frames + 1 >= n);
        let capture = (last && self.options.screenshot.is_some() && !s.readable).then(|| {
            s.graphics
                .gpu
                .device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("screenshot"),
                    size: texture.texture.size(),
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: s.config.format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                    view_formats: &[],
                })
        });
        let shown = capture.as_ref().unwrap_or(&texture.texture);
        let view = shown.create_view(&Default::default());
        let gpu_device = s.graphics.gpu.device.clone();
        let mut encoder = gpu_device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("demo frame"),
        });
        let mut stats = s.graphics.encode(
            &mut self.scene,
            &s.target.views(&view),
            &mut encoder,
            aspect,
        )?;
        s.graphics.show_picture(&mut encoder, &view);
        // The panel, drawn over the resolved picture.
        let raw = s.egui.take_egui_input(&s.window);
        let mut actions = panel::PanelActions::default();
        let ctx = s.egui.egui_ctx().clone();
        let mut output = ctx.run_pass(raw, |ctx| {
            actions = panel::show(ctx, &mut self.scene, &s.graphics, s.started_as);
        });
        s.panel_areas = egui_areas(&ctx);
        s.pixels_per_point = output.pixels_per_point;
        s.egui
            .handle_platform_output(&s.window, output.platform_output);
        let jobs = ctx.tessellate(output.shapes, output.pixels_per_point);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [s.config.width, s.config.height],
            pixels_per_point: output.pixels_per_point,
        };
        let gpu = &s.graphics.gpu;
        // Deltas are taken out and applied (egui checks that none is dropped unapplied).
        let mut textures = std::mem::take(&mut output.textures_delta);
        for (id, deltas) in textures.set.drain() {
            for delta in deltas {
                s.egui_renderer
                    .update_texture(&gpu.device, &gpu.queue, id, &delta);
            }
        }
        let extra =
            s.egui_renderer
                .update_buffers(&gpu.device, &gpu.queue, &mut encoder, &jobs, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("panel"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            s.egui_renderer.render(&mut pass, &jobs, &screen);
        }
        for id in textures.free.drain() {
            s.egui_renderer.free_texture(&id);
        }
        if !extra.is_empty() {
            gpu.queue.submit(extra);
        }
        s.graphics.stage.submit(gpu, encoder, &mut stats)?;
        self.frames += 1;
        if last && let Some(path) = &self.options.screenshot {
            save_png(&read_texture(gpu, shown)?, path)?;
        }
        gpu.queue.present(texture);
        self.scene.finish_frame(stats);
        if actions.restart_backend {
            // The old device goes first; the window stays.
            let window = s.window.clone();
            self.state = None;
            self.state = Some(self.build(window)?);
        }
        Ok(last)
    }
}

fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync {
        wgpu::PresentMode::AutoVsync
    } else {
        wgpu::PresentMode::AutoNoVsync
    }
}

/// Writes `image` to `path` as PNG, atomically through [`crate::atomic`]: a failed write
/// leaves neither a half-written file nor a temporary one.
///
/// # Errors
/// [`AppError::Image`] naming the file.
pub fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), AppError> {
    let fail = |what: String| AppError::Image {
        path: path.display().to_string(),
        what,
    };
    // Encoded in memory (a frame is a few megabytes at most), so the encoder's error stays
    // apart from the file system's.
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| fail(e.to_string()))?;
    crate::atomic::write_bytes(path, &png).map_err(|e| fail(format!("{}: {}", e.what, e.error)))
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        let (w, h) = self.options.size;
        let attributes = Window::default_attributes()
            .with_title(format!("throng — {}", self.scene.file.name()))
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let window = match event_loop.create_window(attributes) {
            Ok(w) => Arc::new(w),
            Err(e) => return self.fail(event_loop, AppError::NoDisplay(e.to_string())),
        };
        match self.build(window) {
            Ok(s) => {
                s.window.request_redraw();
                self.state = Some(s);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(s) = self.state.as_mut() else { return };
        // egui sees every event; its `consumed` is not used (see the module's header).
        let _ = s.egui.on_window_event(&s.window, &event);
        // The pointer's position is kept first: an event is judged where the pointer is now.
        let moved = match event {
            WindowEvent::CursorMoved { position, .. } => {
                let p = Vec2::new(position.x as f32, position.y as f32);
                self.input.cursor.replace(p).map(|prev| p - prev)
            }
            _ => None,
        };
        let ctx = s.egui.egui_ctx();
        let situation = Situation {
            over_panel: over_areas(&s.panel_areas, self.input.cursor, s.pixels_per_point),
            egui_using_pointer: ctx.egui_is_using_pointer(),
            egui_wants_keys: ctx.egui_wants_keyboard_input(),
            camera_dragging: self.input.turning || self.input.panning,
        };
        let takes = |input| camera_takes(input, situation);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::RedrawRequested => match self.frame() {
                Ok(true) => event_loop.exit(),
                Ok(false) => {
                    if let Some(s) = &self.state {
                        s.window.request_redraw();
                    }
                }
                Err(e) => self.fail(event_loop, e),
            },
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    match event.state {
                        ElementState::Pressed if takes(CameraInput::Key) => {
                            if code == KeyCode::Escape {
                                event_loop.exit();
                            }
                            self.input.keys.insert(code);
                        }
                        ElementState::Pressed => {}
                        ElementState::Released => {
                            self.input.keys.remove(&code);
                        }
                    }
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let (input, down) = match state {
                    ElementState::Pressed => (CameraInput::Press, true),
                    ElementState::Released => (CameraInput::Release, false),
                };
                if takes(input) {
                    match button {
                        MouseButton::Left => self.input.turning = down,
                        MouseButton::Right | MouseButton::Middle => self.input.panning = down,
                        _ => {}
                    }
                }
            }
            WindowEvent::CursorMoved { .. } => {
                if let Some(delta) = moved
                    && takes(CameraInput::Move)
                {
                    if self.input.turning {
                        self.scene.camera.orbit(delta);
                    } else if self.input.panning {
                        let h = s.config.height as f32;
                        self.scene.camera.pan(delta, h);
                    }
                }
            }
            WindowEvent::MouseWheel { delta, .. } if takes(CameraInput::Wheel) => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.scene.camera.zoom(steps);
            }
            WindowEvent::Focused(false) => {
                self.input.keys.clear();
                self.input.turning = false;
                self.input.panning = false;
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(s) = &self.state {
            s.window.request_redraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The panel as egui lays it out by default: at (12, 12) points, 300 wide.
    fn panel() -> Vec<Rect> {
        vec![Rect::from_min_size(
            egui::pos2(12.0, 12.0),
            egui::vec2(300.0, 600.0),
        )]
    }

    fn at(x: f32, y: f32, camera_dragging: bool) -> Situation {
        Situation {
            over_panel: over_areas(&panel(), Some(Vec2::new(x, y)), 1.0),
            camera_dragging,
            ..Situation::default()
        }
    }

    #[test]
    fn the_wheel_over_the_panel_does_not_zoom() {
        assert!(!camera_takes(CameraInput::Wheel, at(100.0, 200.0, false)));
    }

    #[test]
    fn the_wheel_over_the_scene_zooms() {
        assert!(camera_takes(CameraInput::Wheel, at(700.0, 300.0, false)));
    }

    #[test]
    fn a_click_on_the_panel_starts_no_drag_and_its_moves_move_nothing() {
        let s = at(150.0, 400.0, false);
        assert!(!camera_takes(CameraInput::Press, s));
        // The pointer then leaves the panel with the button held: still no drag.
        assert!(!camera_takes(CameraInput::Move, at(600.0, 300.0, false)));
    }

    #[test]
    fn a_drag_from_the_scene_over_the_panel_keeps_orbiting() {
        assert!(camera_takes(CameraInput::Press, at(700.0, 300.0, false)));
        let over = at(100.0, 200.0, true);
        assert!(over.over_panel);
        assert!(camera_takes(CameraInput::Move, over));
        // And ends wherever the button comes up.
        assert!(camera_takes(CameraInput::Release, over));
    }

    #[test]
    fn nothing_starts_while_egui_uses_the_pointer() {
        // A slider dragged out of the panel over the scene.
        let s = Situation {
            egui_using_pointer: true,
            ..at(700.0, 300.0, false)
        };
        assert!(!camera_takes(CameraInput::Wheel, s));
        assert!(!camera_takes(CameraInput::Press, s));
        assert!(!camera_takes(CameraInput::Move, s));
    }

    #[test]
    fn keys_fly_unless_egui_has_the_keyboard() {
        assert!(camera_takes(CameraInput::Key, Situation::default()));
        let focused = Situation {
            egui_wants_keys: true,
            ..Situation::default()
        };
        assert!(!camera_takes(CameraInput::Key, focused));
        // The pointer over the panel does not stop flying.
        assert!(camera_takes(CameraInput::Key, at(100.0, 200.0, false)));
    }

    #[test]
    fn the_panel_is_found_in_window_pixels_at_any_scale() {
        // At 2 pixels per point the panel's (12..312, 12..612) points cover 24..624 pixels.
        assert!(over_areas(&panel(), Some(Vec2::new(600.0, 1000.0)), 2.0));
        assert!(!over_areas(&panel(), Some(Vec2::new(600.0, 1000.0)), 1.0));
        assert!(!over_areas(&panel(), Some(Vec2::new(630.0, 100.0)), 2.0));
        // A pointer not (yet) seen is over nothing; no panel covers nothing.
        assert!(!over_areas(&panel(), None, 1.0));
        assert!(!over_areas(&[], Some(Vec2::new(100.0, 200.0)), 1.0));
    }

    #[test]
    fn the_areas_egui_laid_out_are_the_panel_and_its_pop_ups() {
        // A pass of a context with no window: a window and a pop-up at known places, and a
        // tooltip, which takes no pointer, far from both.
        let ctx = egui::Context::default();
        let mut output = ctx.run_pass(egui::RawInput::default(), |ctx| {
            egui::Window::new("w")
                .fixed_pos([40.0, 50.0])
                .fixed_size([100.0, 80.0])
                .show(ctx, |ui| ui.label("x"));
            egui::Area::new(egui::Id::unique("pop-up"))
                .order(Order::Foreground)
                .fixed_pos([300.0, 60.0])
                .show(ctx, |ui| ui.label("pop-up"));
            egui::Area::new(egui::Id::unique("tip"))
                .order(Order::Tooltip)
                .fixed_pos([500.0, 500.0])
                .show(ctx, |ui| ui.label("tip"));
        });
        // No renderer here to take the font texture (egui insists it is handled).
        output.textures_delta.clear();
        let areas = egui_areas(&ctx);
        assert_eq!(areas.len(), 2, "{areas:?}");
        let over = |x, y| areas.iter().any(|r| r.contains(egui::pos2(x, y)));
        assert!(over(60.0, 80.0), "the window: {areas:?}");
        assert!(over(305.0, 65.0), "the pop-up: {areas:?}");
        assert!(!over(505.0, 505.0), "the tooltip: {areas:?}");
    }
}
