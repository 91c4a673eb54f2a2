//! The crowd renderer: a bake on the GPU ([`CrowdRenderer`]) and its frame entry points:
//! upload what changed, encode the crowd pass (the ground, then one instanced draw per mesh
//! part and LOD level, or per agent and part on the CPU path) into the caller's encoder,
//! submit and time it; plus drawing a test scene in one call. The pieces live beside it:
//! `frame` (a frame's input and statistics), `pipelines` (shaders and pipelines), `upload`
//! (texels and instance records), `meshes`, `cpu_path`, `live`, `ground` and `timer`.

use glam::Mat4;

use super::attachment::Attachment;
use super::cpu_path::CpuPath;
use super::device::{Gpu, TexelLayout};
use super::error::RenderError;
use super::ground::Ground;
use super::live::LiveTexels;
use super::meshes::Meshes;
use super::path::SkinningPath;
use super::pipelines::{Camera, Layouts, PassTargets, Pipelines};
use super::target::{FrameViews, TARGET_FORMAT, Target};
use super::timer::Timer;
use super::upload::{BakeTexels, texel_group, write_records};
use crate::crowd::scene::{Placement, frame_pose, record};
use crate::crowd::{DrawRange, InstanceRecord};
use crate::format::ThrongFile;

pub use super::frame::{CrowdFrame, FrameStats};
pub use super::pipelines::{CROWD_WGSL, GROUND_WGSL, SKINNING_WGSL};

/// The sky: the colour frames are cleared to.
const SKY: wgpu::Color = wgpu::Color {
    r: 0.56,
    g: 0.68,
    b: 0.80,
    a: 1.0,
};

/// A bake on the GPU with the pipelines that draw it.
pub struct CrowdRenderer {
    texels: BakeTexels,
    /// Group 0 layout, for the live path's texels.
    texel_layout: wgpu::BindGroupLayout,
    camera: Camera,
    meshes: Meshes,
    pipelines: Pipelines,
    ground: Ground,
    instances: Option<wgpu::Buffer>,
    cpu: CpuPath,
    /// Per-frame scratch of [`CrowdRenderer::draw`], kept so that frames allocate nothing
    /// once warm.
    order_scratch: Vec<u32>,
    draw_scratch: Vec<DrawRange>,
    record_scratch: Vec<InstanceRecord>,
    targets: PassTargets,
    timer: Option<Timer>,
    /// The live path's matrices (made on first use, grown as needed).
    live: Option<LiveTexels>,
}

/// How a renderer is built.
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// Samples per pixel of the targets it draws into (1 or 4; see [`Target::best_samples`]).
    pub samples: u32,
    /// Colour format of those targets ([`TARGET_FORMAT`] offscreen; a window's surface
    /// format).
    pub format: wgpu::TextureFormat,
    /// Props on joints.
    pub attachments: Vec<Attachment>,
}

/// A test scene to draw with [`CrowdRenderer::draw`]: its agents, the camera and the LOD
/// level every agent is drawn at.
#[derive(Clone, Copy)]
pub struct SceneDraw<'a> {
    /// The agents, in any order (they are grouped by character when drawn).
    pub agents: &'a [Placement],
    /// The camera's view-projection (wgpu clip space).
    pub view_proj: Mat4,
    /// LOD level, 0 = full detail (clamped to the bake's levels).
    pub lod: u32,
}

impl CrowdRenderer {
    /// Uploads `file` (texels, meshes, images) to `gpu` and builds the pipelines for targets
    /// with `samples` samples per pixel.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the texels cannot be laid out within the device's
    /// limits even for the CPU path's needs (the texture is still uploaded for parity tests
    /// only when it fits), [`RenderError::Gpu`] for shader or pipeline errors.
    pub fn new(gpu: &Gpu, file: &ThrongFile, samples: u32) -> Result<Self, RenderError> {
        Self::with_options(
            gpu,
            file,
            RendererOptions {
                samples,
                format: TARGET_FORMAT,
                attachments: Vec::new(),
            },
        )
    }

    /// Like [`CrowdRenderer::new`], for targets of `options.format` and with attachments.
    ///
    /// # Errors
    /// As [`CrowdRenderer::new`]; [`RenderError::Unsupported`] for an attachment on a
    /// character the bake does not have.
    pub fn with_options(
        gpu: &Gpu,
        file: &ThrongFile,
        options: RendererOptions,
    ) -> Result<Self, RenderError> {
        let device = &gpu.device;
        let layouts = Layouts::new(device);
        let texels = BakeTexels::new(gpu, file, &layouts.texel);
        let meshes = Meshes::new(gpu, file, options.attachments, &layouts.material)?;
        let targets = PassTargets {
            samples: options.samples,
            format: options.format,
        };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipelines = Pipelines::new(device, &layouts, targets);
        let ground = Ground::new(device, &layouts, targets);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!("building the pipelines: {e}")));
        }
        Ok(Self {
            texels,
            camera: Camera::new(device, &layouts),
            texel_layout: layouts.texel,
            cpu: CpuPath::new(meshes.agent_vertices),
            meshes,
            pipelines,
            ground,
            instances: None,
            order_scratch: Vec::new(),
            draw_scratch: Vec::new(),
            record_scratch: Vec::new(),
            targets,
            timer: Timer::new(gpu),
            live: None,
        })
    }

    /// The texel layout chosen for the device.
    pub fn layout(&self) -> TexelLayout {
        self.texels.layout
    }

    /// A bind group of the texels and their layout (group 0 of skinning shaders) for
    /// `layout`, e.g. one a compute pipeline derived.
    pub fn texel_group_for(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
    ) -> wgpu::BindGroup {
        texel_group(
            device,
            layout,
            &self.texels.view,
            &self.texels.layout_uniform,
            "texels",
        )
    }

    /// Samples per pixel of the targets this renderer draws into.
    pub fn samples(&self) -> u32 {
        self.targets.samples
    }

    /// Why the CPU path cannot keep skinned vertices for `agents` agents, if it cannot:
    /// it keeps every agent's vertices between frames so that only agents whose record
    /// changed are skinned again, within [`CPU_CACHE_LIMIT`](super::CPU_CACHE_LIMIT).
    pub fn cpu_path_unavailable(&self, agents: usize) -> Option<String> {
        self.cpu.unavailable(agents)
    }

    /// The most agents the CPU path can keep (see [`CrowdRenderer::cpu_path_unavailable`]).
    pub fn cpu_path_capacity(&self) -> usize {
        self.cpu.capacity()
    }

    /// LOD levels of the bake.
    pub fn levels(&self) -> u32 {
        self.meshes.levels
    }

    /// The colour format of the targets it draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.targets.format
    }

    /// Draws `scene` with `path` and the ground into `target`. Every record is written.
    /// Submits, waits and returns what was drawn.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a GPU operation fails validation;
    /// [`RenderError::Unsupported`] when the CPU path cannot hold that many agents.
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        target: &Target,
        scene: &SceneDraw,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let agents = scene.agents;
        // Slots grouped by character (a stable order, so each group is one range).
        let mut order = std::mem::take(&mut self.order_scratch);
        let mut records = std::mem::take(&mut self.record_scratch);
        let mut draws = std::mem::take(&mut self.draw_scratch);
        order.clear();
        order.extend(0..agents.len() as u32);
        order.sort_by_key(|&i| agents[i as usize].character);
        records.clear();
        draws.clear();
        for (k, &i) in order.iter().enumerate() {
            let agent = &agents[i as usize];
            records.push(record(agent, &frame_pose(file, agent)));
            let k = k as u32;
            match draws.last_mut() {
                Some(d) if d.character == agent.character => d.slots.end = k + 1,
                _ => draws.push(DrawRange {
                    character: agent.character,
                    level: scene.lod,
                    slots: k..k + 1,
                }),
            }
        }
        // Everything is new this frame, also to the CPU path's cache.
        self.cpu.invalidate();
        let all = 0..records.len() as u32;
        let frame = CrowdFrame {
            records: &records,
            dirty: std::slice::from_ref(&all),
            draws: &draws,
            slot_agent: &order,
        };
        let result = self.render(gpu, file, &target.views(), &frame, scene.view_proj, path);
        self.order_scratch = order;
        self.record_scratch = records;
        self.draw_scratch = draws;
        result
    }

    /// Draws a crowd frame into `views` seen through `view_proj`: uploads what changed,
    /// encodes the pass, submits and waits (so that the statistics are the frame's).
    ///
    /// # Errors
    /// As [`CrowdRenderer::upload`] and [`RenderError::Gpu`] when drawing fails.
    pub fn render(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        views: &FrameViews,
        frame: &CrowdFrame,
        view_proj: Mat4,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = self.upload(gpu, file, frame, view_proj, path)?;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd frame"),
            });
        stats.draws = self.encode(&mut encoder, views, frame, path);
        self.submit(gpu, encoder, &mut stats)?;
        Ok(stats)
    }

    /// Writes the camera, the frame's changed instance records and, on the CPU path, skins
    /// the agents whose record changed (all visible ones after a frame on another path) and
    /// writes their vertices. Returns the statistics so far (instances, CPU skinning,
    /// uploads).
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the CPU path cannot hold that many agents.
    pub fn upload(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        frame: &CrowdFrame,
        view_proj: Mat4,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = FrameStats {
            instances: frame.draws.iter().map(|d| d.slots.len()).sum(),
            ..Default::default()
        };
        self.camera.write(&gpu.queue, view_proj);
        let start = std::time::Instant::now();
        let written = write_records(gpu, &mut self.instances, frame.records, frame.dirty)?;
        stats.records_written = written.records;
        stats.uploaded_bytes += written.bytes;
        stats.upload_seconds += start.elapsed().as_secs_f64();
        if path.skins_on_cpu() {
            self.cpu.skin(gpu, file, &self.meshes, frame, &mut stats)?;
        } else {
            self.cpu.invalidate();
        }
        Ok(stats)
    }

    /// Writes joint matrices evaluated on the CPU for the live path: `rows` holds three texels
    /// (the rows of a 3x4 matrix) per matrix, linearly, as the bake's texels; an instance
    /// drawn on [`SkinningPath::Live`] names its first matrix in its record's frame bases.
    /// Returns the seconds the write took.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when that many matrices do not fit the device's texture
    /// limits.
    pub fn upload_live(&mut self, gpu: &Gpu, rows: &[[f32; 4]]) -> Result<f64, RenderError> {
        LiveTexels::upload(&mut self.live, gpu, &self.texel_layout, rows)
    }

    /// Encodes the crowd pass (ground, then one instanced draw per character part and LOD
    /// level on the GPU, live and static paths, one draw per instance and part on the CPU
    /// path) into `encoder`, with its timestamps. Returns the number of character draws.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &FrameViews,
        frame: &CrowdFrame,
        path: SkinningPath,
    ) -> usize {
        let draws = {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: views.color,
                    depth_slice: None,
                    resolve_target: views.resolve,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(SKY),
                        store: wgpu::StoreOp::Store,
                    },
                })],
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
            pass.set_bind_group(1, &self.camera.group, &[]);
            self.ground.draw(&mut pass);
            self.draw_characters(&mut pass, frame, path)
        };
        if let Some(t) = &self.timer {
            t.resolve(encoder);
        }
        draws
    }

    /// The character draws of the crowd pass. Returns their number.
    fn draw_characters(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &CrowdFrame,
        path: SkinningPath,
    ) -> usize {
        let Some(instances) = self.instances.as_ref() else {
            return 0;
        };
        pass.set_vertex_buffer(1, instances.slice(..));
        let texels = match (path, &self.live) {
            (SkinningPath::Cpu, _) => {
                let pipeline = &self.pipelines.unskinned_world;
                return self.cpu.draw(pass, pipeline, &self.meshes, frame);
            }
            (SkinningPath::Static, _) => None,
            (SkinningPath::Live, Some(live)) => Some(&live.group),
            (SkinningPath::Gpu | SkinningPath::Live, _) => Some(&self.texels.group),
        };
        match texels {
            Some(texels) => {
                pass.set_pipeline(&self.pipelines.skinned);
                pass.set_bind_group(0, texels, &[]);
            }
            None => pass.set_pipeline(&self.pipelines.unskinned_bind),
        }
        let mut draws = 0;
        for d in frame.draws {
            for &(mi, _) in self.meshes.parts_of(d.character, d.level) {
                let m = &self.meshes.meshes[mi];
                pass.set_bind_group(2, &m.material, &[]);
                pass.set_vertex_buffer(0, m.vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..m.index_count, 0, d.slots.clone());
                draws += 1;
            }
        }
        draws
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
}
