//! The demo's scene, shared by the window and the headless fallback: the bake, the crowd,
//! the settings the panel edits, the camera, and the frame statistics; plus the GPU side
//! ([`Graphics`]): device, renderer and the skinning path with the reason it was chosen.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::Mat4;

use super::AppError;
use super::camera::{OrbitCamera, size_scale};
use crate::crowd::Terrain;
use crate::crowd::{
    CrowdSettings, LodPolicy, LodPresets, Plaza, PlazaSettings, UpdateStats, View, lod_presets,
};
use crate::format::ThrongFile;
use crate::hybrid::{LiveStats, LiveTier};
use crate::render::{
    Attachment, BackendChoice, CrowdFrame, CrowdRenderer, FrameStats, FrameViews, Gpu, MotionView,
    PassFormat, PathLimits, PathReason, PathRequest, RendererOptions, Shadows, SkinningPath, Stage,
    Velocity, choose_path, shadows_choice,
};

/// Which skinning path the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinningChoice {
    /// GPU skinning where the device can, else the CPU path.
    Auto,
    /// GPU skinning (falls back to the CPU path, saying why, if the device cannot).
    Gpu,
    /// The CPU path (falls back to GPU skinning, saying why, if it cannot hold the crowd).
    Cpu,
    /// The GPU path plus the LOD preset's live tier (falls back to the GPU path, saying why,
    /// where the bake's characters cannot be posed live).
    Hybrid,
}

/// What the demo's picture shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Picture {
    /// The crowd, lit and shaded.
    #[default]
    Shaded,
    /// The crowd's motion vectors (what a host's TAA or motion blur would read): hue for the
    /// direction of each pixel's screen motion, brightness for its speed.
    Motion,
}

impl Picture {
    /// Its name in the panel and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Picture::Shaded => "shaded",
            Picture::Motion => "motion vectors",
        }
    }
}

/// How the demo starts.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// The bake to show.
    pub bake: PathBuf,
    /// Agents, 1 to [`MAX_AGENTS`] (the command line checks it).
    pub count: usize,
    /// Seed of the crowd.
    pub seed: u64,
    /// LOD preset name.
    pub lod: String,
    /// A TOML file of LOD presets instead of the built-in ones.
    pub lod_config: Option<PathBuf>,
    /// Backend.
    pub backend: BackendChoice,
    /// Skinning path.
    pub skinning: SkinningChoice,
    /// Shadows; `None`: the device's default ([`Shadows::default_for`]).
    pub shadows: Option<Shadows>,
    /// What the picture shows.
    pub picture: Picture,
    /// The ground the crowd stands on.
    pub terrain: Terrain,
    /// Stop after this many frames (windowed), or the frames simulated before the headless
    /// picture.
    pub frames: Option<u64>,
    /// Save the last frame here (PNG).
    pub screenshot: Option<PathBuf>,
    /// Window or image size, pixels.
    pub size: (u32, u32),
    /// Wait for the display's refresh.
    pub vsync: bool,
    /// Put a hat on every character's `head` joint (where it has one).
    pub hats: bool,
    /// Tint agents by LOD level from the start.
    pub lod_colours: bool,
    /// The hybrid path's live agents turn their heads toward the camera, from the start.
    pub head_look: bool,
    /// Start the camera looking at this point (metres) from the south, this far away
    /// (metres); `None`: over the plaza ([`OrbitCamera::overlooking`]).
    pub look_at: Option<(glam::Vec3, f32)>,
    /// Headless: metres the camera flies forward (towards where it looks, level; negative:
    /// back) over the run's frames, at an even speed.
    pub fly: f32,
    /// Headless: a folder to save every frame into (`frame-0001.png`, ...).
    pub record: Option<PathBuf>,
}

/// The most agents the panel offers, and the most `throng demo --count` and
/// `throng render --instances` take: a crowd an interactive frame (or one picture) can still
/// draw in seconds on a software renderer; more only makes a user wait minutes and gigabytes.
/// (`throng bench` measures up to `crowd::MAX_AGENTS`.)
pub const MAX_AGENTS: usize = 200_000;

/// What the panel edits.
#[derive(Clone, Debug, PartialEq)]
pub struct PanelSettings {
    /// Agents.
    pub count: usize,
    /// Name of the preset `policy` started from ("custom" once edited).
    pub preset: String,
    /// LOD distances and update rates in use.
    pub policy: LodPolicy,
    /// Skinning path asked for.
    pub skinning: SkinningChoice,
    /// Shadows asked for; `None`: the device's default ([`Shadows::default_for`]: the map on
    /// a GPU, blobs on a software renderer). [`Graphics::encode`] gives the renderer the
    /// change on the next frame.
    pub shadows: Option<Shadows>,
    /// What the picture shows ([`Graphics::set_picture`] rebuilds the renderer for it).
    pub picture: Picture,
    /// Time stands still.
    pub paused: bool,
    /// Simulation speed, 0 to 4.
    pub time_scale: f32,
    /// Tint instances by LOD level.
    pub lod_colours: bool,
    /// Live agents turn their heads toward the camera (hybrid path).
    pub head_look: bool,
    /// Keep LOD levels and culling as they are (to fly out and look at them).
    pub freeze_lod: bool,
    /// Wait for the display's refresh.
    pub vsync: bool,
    /// The backend to (re)start on.
    pub backend: BackendChoice,
}

/// One frame's measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameReport {
    /// Wall time since the previous frame, seconds.
    pub frame_seconds: f64,
    /// The crowd's update (simulation, culling, LOD).
    pub update: UpdateStats,
    /// The renderer's part (uploads, CPU skinning, submit, GPU time).
    pub render: FrameStats,
    /// The hybrid path's live tier (zero on other paths).
    pub live: LiveStats,
}

/// Frame times kept for the graph.
pub const HISTORY: usize = 300;

/// The demo's state, without the GPU.
pub struct Scene {
    /// The bake.
    pub file: Arc<ThrongFile>,
    /// The agents.
    pub crowd: Plaza,
    /// LOD presets on offer.
    pub presets: LodPresets,
    /// What the panel edits.
    pub settings: PanelSettings,
    /// Settings the crowd was last given.
    applied: PanelSettings,
    /// The camera.
    pub camera: OrbitCamera,
    /// The last frame.
    pub last: FrameReport,
    /// Frame times, milliseconds, oldest first.
    pub history: VecDeque<f32>,
    /// Props on joints, for the renderer.
    pub attachments: Vec<Attachment>,
    /// The hybrid path's live tier, or why the bake's characters cannot be posed live.
    pub live: Result<LiveTier, String>,
    last_frame: Option<Instant>,
}

impl Scene {
    /// Opens the bake and builds the crowd.
    ///
    /// # Errors
    /// When the bake, the LOD presets or the preset name are wrong.
    pub fn new(options: &DemoOptions) -> Result<Self, AppError> {
        let file = Arc::new(ThrongFile::open(&options.bake)?);
        let presets = lod_presets(options.lod_config.as_deref())?;
        let policy = lod_policy(&presets, &options.lod)?;
        let mut attachments = Vec::new();
        if options.hats {
            for c in 0..file.characters().len() as u32 {
                // A character without a head joint simply goes without a hat.
                if let Ok(hat) = Attachment::hat(&file, c, "head", HAT_LEVELS, HAT_COLOUR) {
                    attachments.push(hat);
                }
            }
        }
        let size = character_size(&file);
        let spacing = size_scale(size);
        let defaults = PlazaSettings::default();
        let settings = PlazaSettings {
            count: options.count,
            seed: options.seed,
            // Agents keep the mannequin's spacing in proportion to their size.
            area_per_agent: defaults.area_per_agent * spacing * spacing,
            crowd: CrowdSettings {
                bounds_margin: attachments
                    .iter()
                    .map(Attachment::reach)
                    .fold(0.0, f32::max),
                ..CrowdSettings::default()
            },
            terrain: options.terrain,
            ..defaults
        };
        let live_policy = policy_for(&policy, options.skinning);
        let mut crowd = Plaza::new(file.clone(), &settings, live_policy)?;
        crowd.crowd_mut().set_lod_colours(options.lod_colours);
        let live = LiveTier::new(&file).map_err(|e| e.to_string());
        let mut camera = OrbitCamera::overlooking(crowd.half_size(), size);
        if let Some((target, distance)) = options.look_at {
            camera.target = target;
            camera.distance = distance.clamp(1.0, 5000.0);
        }
        let settings = PanelSettings {
            count: options.count,
            preset: options.lod.clone(),
            policy,
            skinning: options.skinning,
            shadows: options.shadows,
            picture: options.picture,
            paused: false,
            time_scale: 1.0,
            lod_colours: options.lod_colours,
            head_look: options.head_look,
            freeze_lod: false,
            vsync: options.vsync,
            backend: options.backend,
        };
        Ok(Self {
            file,
            crowd,
            presets,
            applied: settings.clone(),
            settings,
            camera,
            last: FrameReport::default(),
            history: VecDeque::with_capacity(HISTORY),
            attachments,
            live,
            last_frame: None,
        })
    }

    /// Passes changed settings on to the crowd.
    ///
    /// # Errors
    /// When the crowd refuses a count.
    pub fn apply_settings(&mut self) -> Result<(), AppError> {
        let (s, a) = (&self.settings, &mut self.applied);
        if s.count != a.count {
            self.crowd.set_count(s.count)?;
        }
        if s.policy != a.policy || s.skinning != a.skinning {
            self.crowd
                .crowd_mut()
                .set_policy(policy_for(&s.policy, s.skinning));
        }
        if s.lod_colours != a.lod_colours {
            self.crowd.crowd_mut().set_lod_colours(s.lod_colours);
        }
        if s.freeze_lod != a.freeze_lod {
            self.crowd.crowd_mut().set_frozen(s.freeze_lod);
        }
        *a = s.clone();
        Ok(())
    }

    /// The camera's view for an image of `aspect` = width / height.
    pub fn view(&self, aspect: f32) -> View {
        View {
            view_proj: self.view_proj(aspect),
            eye: self.camera.eye(),
        }
    }

    /// The camera's view-projection matrix for an image of `aspect`.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.camera.view_proj(aspect, self.crowd.half_size())
    }

    /// Advances the crowd by `dt` seconds of wall time (scaled, or 0 when paused) as seen
    /// for an image of `aspect`, and starts this frame's report.
    ///
    /// # Errors
    /// When the crowd refuses the settings.
    pub fn update(&mut self, dt: f32, aspect: f32) -> Result<(), AppError> {
        self.apply_settings()?;
        let now = Instant::now();
        self.last.frame_seconds = self
            .last_frame
            .map_or(f64::from(dt), |t| now.duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        let dt = if self.settings.paused {
            0.0
        } else {
            dt * self.settings.time_scale
        };
        let view = self.view(aspect);
        self.last.update = self.crowd.update(dt, &view);
        Ok(())
    }

    /// Records the renderer's part of the frame and the frame time for the graph.
    pub fn finish_frame(&mut self, render: FrameStats) {
        self.last.render = render;
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history
            .push_back((self.last.frame_seconds * 1e3) as f32);
    }

    /// The frame as the renderer reads it.
    pub fn frame(&self) -> CrowdFrame<'_> {
        CrowdFrame::of(self.crowd.crowd())
    }
}

/// The LOD preset `name` of `presets`.
///
/// # Errors
/// [`AppError::Settings`] naming the presets there are, when none has that name.
pub fn lod_policy(presets: &LodPresets, name: &str) -> Result<LodPolicy, AppError> {
    presets.get(name).cloned().ok_or_else(|| {
        AppError::Settings(format!(
            "no LOD preset '{name}' (there are: {})",
            presets.names().collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The policy the crowd runs for `skinning`: with its live tier on the hybrid path, without
/// it on the others (which draw every agent from the bake).
fn policy_for(policy: &LodPolicy, skinning: SkinningChoice) -> LodPolicy {
    if skinning == SkinningChoice::Hybrid {
        policy.clone()
    } else {
        policy.without_live()
    }
}

/// The size of the bake's largest character, metres: the largest extent, over its baked
/// frames, of one frame's bounds (the height of a person, the length of a quadruped), or the
/// largest rest height where the file has no bounds. Zero for a file without characters.
pub fn character_size(file: &ThrongFile) -> f32 {
    let from_bounds = file
        .bounds()
        .iter()
        .map(|b| {
            (0..3)
                .map(|i| b.max[i] - b.min[i])
                .filter(|e| e.is_finite())
                .fold(0.0, f32::max)
        })
        .fold(0.0, f32::max);
    if from_bounds > 0.0 {
        return from_bounds;
    }
    file.characters()
        .iter()
        .map(|c| c.height)
        .filter(|h| h.is_finite())
        .fold(0.0, f32::max)
}

/// The coarsest LOD level hats are drawn at: all of them (a hat is ~100 vertices, and one
/// vanishing at a LOD boundary is more noticeable than its cost).
const HAT_LEVELS: u32 = u32::MAX;

/// Colour of the hats.
const HAT_COLOUR: [f32; 4] = [0.55, 0.12, 0.10, 1.0];

/// The GPU side of the demo.
pub struct Graphics {
    /// The device.
    pub gpu: Gpu,
    /// The crowd renderer.
    pub renderer: CrowdRenderer,
    /// The sky, the ground and the pass's timing around it.
    pub stage: Stage,
    /// The motion picture's drawing of the velocity attachment (with one).
    motion_view: Option<MotionView>,
    /// The skinning path in use.
    pub path: SkinningPath,
    /// Why that path.
    pub path_reason: String,
}

impl Graphics {
    /// Uploads the scene's bake to `gpu` for targets of `format` with `samples` samples (and
    /// a velocity attachment for the motion picture).
    ///
    /// # Errors
    /// When the renderer cannot be built on this device.
    pub fn new(
        gpu: Gpu,
        scene: &Scene,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Result<Self, AppError> {
        let mut format = PassFormat::surface(format, samples);
        format.velocity = scene.settings.picture == Picture::Motion;
        let (renderer, stage, motion_view) = Self::build(&gpu, scene, format)?;
        let mut g = Self {
            gpu,
            renderer,
            stage,
            motion_view,
            path: SkinningPath::Gpu,
            path_reason: String::new(),
        };
        g.choose_path(scene);
        g.renderer.set_shadows(g.shadows(&scene.settings).0);
        Ok(g)
    }

    /// The renderer, its stage and (with a velocity attachment) the motion view for passes of
    /// `format`.
    fn build(
        gpu: &Gpu,
        scene: &Scene,
        format: PassFormat,
    ) -> Result<(CrowdRenderer, Stage, Option<MotionView>), AppError> {
        let renderer = CrowdRenderer::with_options(
            gpu,
            &scene.file,
            RendererOptions {
                format,
                attachments: scene.attachments.clone(),
            },
        )?;
        let stage = Stage::with_terrain(gpu, &renderer, scene.crowd.settings().terrain)?;
        let view = format
            .velocity
            .then(|| MotionView::new(&gpu.device, format.color));
        Ok((renderer, stage, view))
    }

    /// Whether the renderer draws into passes with a velocity attachment (the targets must
    /// have one exactly then).
    pub fn velocity(&self) -> bool {
        self.renderer.pass_format().velocity
    }

    /// Rebuilds the renderer when the picture the settings ask for needs another pass (a
    /// velocity attachment or none). Returns whether it did: the caller then remakes its
    /// targets ([`Graphics::velocity`]) and binds their velocity ([`Graphics::bind_velocity`]).
    ///
    /// # Errors
    /// When the renderer cannot be built on this device.
    pub fn set_picture(&mut self, scene: &Scene) -> Result<bool, AppError> {
        let velocity = scene.settings.picture == Picture::Motion;
        if velocity == self.velocity() {
            return Ok(false);
        }
        let format = PassFormat {
            velocity,
            ..self.renderer.pass_format()
        };
        (self.renderer, self.stage, self.motion_view) = Self::build(&self.gpu, scene, format)?;
        self.choose_path(scene);
        self.renderer.set_shadows(self.shadows(&scene.settings).0);
        Ok(true)
    }

    /// The motion picture reads `velocity` from now on (the targets' attachment).
    pub fn bind_velocity(&mut self, velocity: Option<&Velocity>) {
        if let (Some(view), Some(velocity)) = (self.motion_view.as_mut(), velocity) {
            view.bind(&self.gpu.device, velocity);
        }
    }

    /// For the motion picture, draws the frame's velocity over `out` (the single-sampled
    /// picture, after [`Graphics::encode`]); nothing for the shaded one.
    pub fn show_picture(&self, encoder: &mut wgpu::CommandEncoder, out: &wgpu::TextureView) {
        if let Some(view) = &self.motion_view {
            view.encode(encoder, out);
        }
    }

    /// The shadows `settings` ask for on this device, with why ([`shadows_choice`]).
    pub fn shadows(&self, settings: &PanelSettings) -> (Shadows, &'static str) {
        shadows_choice(settings.shadows, &self.gpu)
    }

    /// Picks the skinning path from the settings and what the device and the CPU path can
    /// do, with the reason.
    pub fn choose_path(&mut self, scene: &Scene) {
        let limits = PathLimits {
            cpu: self.renderer.cpu_path_unavailable(scene.settings.count),
            hybrid: scene.live.as_ref().err().cloned(),
            ..PathLimits::of(&self.gpu, &scene.file)
        };
        // Asking for the GPU path is asking for the default: both fall back to the CPU path.
        let request = match scene.settings.skinning {
            SkinningChoice::Auto | SkinningChoice::Gpu => PathRequest::Auto,
            SkinningChoice::Cpu => PathRequest::Prefer(SkinningPath::Cpu),
            SkinningChoice::Hybrid => PathRequest::Prefer(SkinningPath::Hybrid),
        };
        // A preference never fails: the CPU path is the last resort.
        let Ok(choice) = choose_path(&limits, request) else {
            return;
        };
        self.path = choice.path;
        self.path_reason = match choice.reason {
            PathReason::Asked => "chosen".into(),
            PathReason::Default => "the vertex shader fetches bone texels".into(),
            PathReason::Fallback {
                instead: SkinningPath::Cpu,
                why,
            } => format!("CPU path: {why}"),
            PathReason::Fallback { why, .. } => format!("GPU path unavailable: {why}"),
        };
    }

    /// Prepares the scene's frame, with the shadows its settings ask for, and encodes the
    /// stage's pass with the crowd in it into `views`; the crowd's dirty records are cleared
    /// once written. Returns the renderer's statistics so far.
    ///
    /// # Errors
    /// When the upload fails.
    pub fn encode(
        &mut self,
        scene: &mut Scene,
        views: &FrameViews,
        encoder: &mut wgpu::CommandEncoder,
        aspect: f32,
    ) -> Result<FrameStats, AppError> {
        let (shadows, _) = self.shadows(&scene.settings);
        if self.renderer.shadows() != shadows {
            self.renderer.set_shadows(shadows);
        }
        let view_proj = scene.view_proj(aspect);
        // The panel may have changed the count, and with it the plaza's size.
        self.stage.reach(&self.gpu, scene.crowd.half_size());
        // The live tier poses its agents (after the crowd's update) where the hybrid path
        // draws them; on another path its agents are drawn from the bake as the rest.
        let mut live_upload = 0.0;
        scene.last.live = LiveStats::default();
        if let (SkinningPath::Hybrid, Ok(tier)) = (self.path, scene.live.as_mut()) {
            let terrain = scene.crowd.settings().terrain;
            tier.set_look_at(scene.settings.head_look.then(|| scene.camera.eye()));
            scene.last.live = tier.evaluate(&scene.file, scene.crowd.crowd_mut(), terrain);
            live_upload = self.renderer.upload_live(&self.gpu, tier.rows())?;
        }
        let frame = scene.frame();
        let mut stats =
            self.renderer
                .prepare(&self.gpu, &scene.file, &frame, view_proj, self.path)?;
        stats.upload_seconds += live_upload;
        let (renderer, path) = (&self.renderer, self.path);
        stats.draws = renderer.encode_shadows(encoder, &frame, path);
        stats.draws += self.stage.encode(encoder, views, renderer, |pass| {
            renderer.draw(pass, &frame, path)
        });
        Ok(stats)
    }
}
