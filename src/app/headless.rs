//! The demo without a display: the same scene simulated for a moment and rendered offscreen
//! into one picture, with the last frame's statistics.

use std::path::Path;
use std::time::Instant;

use super::AppError;
use super::scene::{DemoOptions, FrameReport, Graphics, Scene};
use super::window::save_png;
use crate::render::{Gpu, TARGET_FORMAT, Target};

/// Frames simulated (and drawn) before the picture when `--frames` is not given: one second
/// at 30 frames a second, so agents are under way and cross-fades have started.
pub const DEFAULT_FRAMES: u64 = 30;

/// What a headless run drew.
#[derive(Clone, Debug)]
pub struct HeadlessReport {
    /// The adapter, in words.
    pub adapter: String,
    /// The skinning path and why.
    pub path: String,
    /// The shadows and why.
    pub shadows: String,
    /// Frames drawn.
    pub frames: u64,
    /// The last frame's measurements.
    pub last: FrameReport,
}

/// Simulates `scene` for `options.frames` frames of 1/30 s (default [`DEFAULT_FRAMES`]),
/// drawing each, and writes the last to `out` (PNG). After each frame, `progress(frames done,
/// frames in all, seconds that frame took)`: simulated, drawn and waited for.
///
/// # Errors
/// When the device, a frame or the image fails.
pub fn render_headless(
    options: &DemoOptions,
    mut scene: Scene,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64, f64),
) -> Result<HeadlessReport, AppError> {
    let gpu = Gpu::new(options.backend)?;
    let samples = Target::best_samples(&gpu);
    let (w, h) = options.size;
    let mut graphics = Graphics::new(gpu, &scene, TARGET_FORMAT, samples)?;
    let (w, h) = (w.max(1), h.max(1));
    let target = if graphics.velocity() {
        Target::with_velocity(&graphics.gpu, w, h, samples)
    } else {
        Target::new(&graphics.gpu, w, h, samples)
    };
    graphics.bind_velocity(target.velocity());
    let aspect = w as f32 / h as f32;
    let frames = options.frames.unwrap_or(DEFAULT_FRAMES).max(1);
    // The fly's step a frame, level along where the camera looks.
    let (sy, cy) = scene.camera.yaw.sin_cos();
    let step = -glam::Vec3::new(sy, 0.0, cy) * (options.fly / (frames - 1).max(1) as f32);
    for done in 1..=frames {
        let started = Instant::now();
        if done > 1 {
            scene.camera.target += step;
        }
        graphics.choose_path(&scene);
        scene.update(1.0 / 30.0, aspect)?;
        let mut encoder =
            graphics
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("headless frame"),
                });
        let mut stats = graphics.encode(&mut scene, &target.views(), &mut encoder, aspect)?;
        graphics.show_picture(&mut encoder, target.output());
        graphics.stage.submit(&graphics.gpu, encoder, &mut stats)?;
        scene.finish_frame(stats);
        if let Some(dir) = &options.record {
            save_png(
                &target.read(&graphics.gpu)?,
                &dir.join(format!("frame-{done:04}.png")),
            )?;
        }
        progress(done, frames, started.elapsed().as_secs_f64());
    }
    save_png(&target.read(&graphics.gpu)?, out)?;
    Ok(HeadlessReport {
        adapter: graphics.gpu.describe(),
        path: format!("{} ({})", graphics.path.name(), graphics.path_reason),
        shadows: {
            let (shadows, why) = graphics.shadows(&scene.settings);
            format!("{shadows} ({why})")
        },
        frames,
        last: scene.last,
    })
}
