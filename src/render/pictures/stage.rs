//! The stage of throng's own pictures (the demo, `throng render`, `throng bench`, tests): the
//! pass they draw a crowd in (cleared to the sky, the ground first, timed where the device
//! has timestamps), submitting and waiting for a frame, and a test scene of placed agents.
//! It is built on the public [`CrowdRenderer`] API only ([`CrowdRenderer::prepare`], then
//! [`CrowdRenderer::draw`] inside the pass), the same calls an embedding program makes in its
//! own pass.

use super::ground::Ground;
use super::timer::Timer;
use crate::render::crowd::{CrowdFrame, CrowdRenderer, FrameStats};
use crate::render::device::Gpu;
use crate::render::error::RenderError;
use crate::render::pass::SKY;
use crate::render::path::SkinningPath;
use crate::render::target::{FrameViews, Target};
use std::sync::Arc;

use crate::crowd::Terrain;
use crate::crowd::scene::Placement;
use crate::crowd::{Crowd, CrowdError, CrowdSettings, LodPolicy, Play, Spawn, View, rgba8};
use crate::format::ThrongFile;

/// A test scene to draw with [`Stage::draw_scene`]: its agents, the camera and the LOD level
/// every agent is drawn at.
#[derive(Clone, Copy)]
pub struct SceneDraw<'a> {
    /// The agents, in any order (they are grouped by character when drawn).
    pub agents: &'a [Placement],
    /// The camera's view-projection (wgpu clip space).
    pub view_proj: glam::Mat4,
    /// LOD level, 0 = full detail (clamped to the bake's levels).
    pub lod: u32,
    /// Whether every agent is in the impostor tier instead (drawn as impostors where the
    /// renderer has its character's, else at its last mesh level).
    pub impostor: bool,
}

/// The pass of throng's own pictures around a [`CrowdRenderer`]: sky, ground, pass timing.
pub struct Stage {
    ground: Ground,
    timer: Option<Timer>,
}

impl Stage {
    /// A stage for `renderer`'s passes (its format, its camera, light and shadows) on the
    /// flat plaza.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the ground's pipeline cannot be built for that format.
    pub fn new(gpu: &Gpu, renderer: &CrowdRenderer) -> Result<Self, RenderError> {
        Self::with_terrain(gpu, renderer, Terrain::Flat)
    }

    /// [`Stage::new`] on the ground of `terrain`.
    ///
    /// # Errors
    /// As [`Stage::new`].
    pub fn with_terrain(
        gpu: &Gpu,
        renderer: &CrowdRenderer,
        terrain: Terrain,
    ) -> Result<Self, RenderError> {
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let ground = Ground::new(&gpu.device, renderer, terrain);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!(
                "building the ground pipeline: {e}"
            )));
        }
        Ok(Self {
            ground,
            timer: Timer::new(gpu),
        })
    }

    /// Makes the ground reach as far as a plaza (or scene) of half-size `plaza_half` metres
    /// needs ([`Ground::reach`]): call it when the crowd is made or its count changes.
    pub fn reach(&mut self, gpu: &Gpu, plaza_half: f32) {
        self.ground.reach(&gpu.device, plaza_half);
    }

    /// Encodes the stage's pass into `encoder`: cleared to the [`SKY`] (and no motion, with a
    /// velocity attachment: `views` must have one exactly when `renderer`'s pass format
    /// does), the ground (lit and shadowed by `renderer`), then whatever `draw` records (the
    /// crowd), with timestamps around it. Returns what `draw` returns.
    pub fn encode<R>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &FrameViews,
        renderer: &CrowdRenderer,
        draw: impl FnOnce(&mut wgpu::RenderPass) -> R,
    ) -> R {
        // The velocity attachment, where there is one, follows the colour (no hole).
        let attachments = [
            Some(wgpu::RenderPassColorAttachment {
                view: views.color,
                depth_slice: None,
                resolve_target: views.resolve,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(SKY),
                    store: wgpu::StoreOp::Store,
                },
            }),
            // The sky does not move.
            views
                .velocity
                .map(|(view, resolve_target)| wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                }),
        ];
        let drawn = {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd"),
                color_attachments: &attachments[..1 + usize::from(views.velocity.is_some())],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: views.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: self.timer.as_ref().map(Timer::pass_writes),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.ground.draw(&mut pass, renderer);
            draw(&mut pass)
        };
        if let Some(t) = &self.timer {
            t.resolve(encoder);
        }
        drawn
    }

    /// Submits `encoder`, waits for the device and fills in the wall and GPU times.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the frame fails validation or the device is lost.
    pub fn submit(
        &self,
        gpu: &Gpu,
        encoder: wgpu::CommandEncoder,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
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
        stats.gpu_seconds = self.timer.as_ref().and_then(|t| t.read(gpu));
        Ok(())
    }

    /// Draws a crowd frame with `renderer` into `views` seen through `view_proj`: prepares it, encodes
    /// the stage's pass with the crowd in it, submits and waits (so that the statistics are
    /// the frame's).
    ///
    /// # Errors
    /// As [`CrowdRenderer::prepare`] and [`Stage::submit`].
    #[allow(clippy::too_many_arguments)] // each is one part of a frame; a struct would only rename them
    pub fn render(
        &self,
        gpu: &Gpu,
        renderer: &mut CrowdRenderer,
        file: &ThrongFile,
        views: &FrameViews,
        frame: &CrowdFrame,
        view_proj: glam::Mat4,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = renderer.prepare(gpu, file, frame, view_proj, path)?;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd frame"),
            });
        stats.draws = renderer.encode_shadows(&mut encoder, frame, path);
        stats.draws += self.encode(&mut encoder, views, renderer, |pass| {
            renderer.draw(pass, frame, path)
        });
        self.submit(gpu, encoder, &mut stats)?;
        Ok(stats)
    }

    /// Draws `scene` with `path` into `target`, every record new (the renderer's CPU cache is
    /// forgotten first). Its agents are spawned into a crowd through the agent API, playing
    /// what they play at their times (a cross-fade held at its weight), every one at the
    /// scene's LOD level and none culled, so their records are made as every crowd's are.
    /// Submits, waits and returns what was drawn.
    ///
    /// # Errors
    /// As [`Stage::render`]; [`RenderError::Unsupported`] when the CPU path cannot hold that
    /// many agents, or a placement is not one a crowd of `file` takes.
    pub fn draw_scene(
        &mut self,
        gpu: &Gpu,
        renderer: &mut CrowdRenderer,
        file: &Arc<ThrongFile>,
        target: &Target,
        scene: &SceneDraw,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let crowd = scene_crowd(file, scene).map_err(|e| RenderError::Unsupported {
            file: file.name().to_string(),
            what: e.to_string(),
        })?;
        // Everything is new this frame, also to the CPU path's cache.
        renderer.invalidate();
        self.render(
            gpu,
            renderer,
            file,
            &target.views(),
            &CrowdFrame::of(&crowd),
            scene.view_proj,
            path,
        )
    }
}

/// A crowd of `scene`'s agents as they stand: every one at the scene's LOD level (a policy
/// whose distances are all 0 m), none culled, updated once by no time so that levels are
/// assigned and records written, their times as given.
fn scene_crowd(file: &Arc<ThrongFile>, scene: &SceneDraw) -> Result<Crowd, CrowdError> {
    let lod = scene.lod.min(crate::crowd::MAX_LEVELS as u32 - 1) as usize;
    let policy = LodPolicy {
        distances: vec![0.0; lod],
        rates: vec![1; lod + 1],
        offscreen_rate: 1,
        culling: false,
        // Squared, as the crowd compares it, this is 0: every agent is at or past it.
        impostor_distance: if scene.impostor {
            f32::MIN_POSITIVE
        } else {
            0.0
        },
        ..LodPolicy::default()
    };
    let mut crowd = Crowd::new(file.clone(), &CrowdSettings::default(), policy)?;
    let spawns: Vec<_> = scene
        .agents
        .iter()
        .map(|a| {
            let spawn = Spawn {
                heading: a.heading,
                scale: a.scale,
                tint: rgba8(a.tint),
                play: Play::at_time(a.time_a),
                ..Spawn::new(a.character, a.anim_a, a.position)
            };
            (spawn, ())
        })
        .collect();
    let ids = crowd.spawn_many(&spawns)?;
    for (a, &id) in scene.agents.iter().zip(&ids) {
        if a.fade > 0.0 {
            crowd.set_blend(id, a.anim_b, &Play::at_time(a.time_b), a.fade)?;
        }
    }
    crowd.update(
        0.0,
        &View {
            view_proj: scene.view_proj,
            eye: glam::Vec3::ZERO,
        },
    );
    Ok(crowd)
}
