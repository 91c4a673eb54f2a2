//! The crowd renderer: a bake on the GPU ([`CrowdRenderer`]) drawn into a render pass the
//! caller owns, in two steps per frame: [`CrowdRenderer::prepare`] writes what changed on the
//! queue (the camera and light, instance records, CPU-skinned vertices), then
//! [`CrowdRenderer::draw`] records one instanced draw per mesh part and LOD level (or per
//! agent and part on the CPU path) into the caller's pass. Device creation, targets, the
//! ground, timing and readback stay outside it (`device`, `target`, `stage`). The pieces live
//! beside it: `frame` (a frame's input and statistics), `pass` (the caller's pass format, view
//! and light), `pipelines` (shaders and pipelines), `upload` (texels and instance records),
//! `meshes`, `cpu_path` and `live`.

use super::device::{Gpu, TexelLayout};
use super::draw::attachment::Attachment;
use super::draw::cpu_path::CpuPath;
use super::draw::impostors::Impostors;
use super::draw::live::LiveTexels;
use super::draw::meshes::Meshes;
use super::draw::motion::Motion;
use super::draw::pipelines::{ByInfluences, Camera, Layouts, Pipelines, for_influences};
use super::draw::shadow::Shadows;
use super::draw::shadow::{BLOB_CORNERS, Blobs, MAP_LEVELS, MAP_REACH, ShadowMap, fit, unused};
use super::draw::upload::{BakeTexels, texel_group, write_records};
use super::error::RenderError;
use super::pass::{Light, PassFormat};
use super::path::SkinningPath;
use crate::crowd::DrawRange;
use crate::format::ThrongFile;

pub use super::draw::pipelines::{
    CROWD_WGSL, GROUND_WGSL, IMPOSTOR_WGSL, INSTANCE_WGSL, LIGHTING_WGSL, SKINNING_WGSL,
};
pub use super::frame::{CrowdFrame, FrameStats};

/// A bake on the GPU with the pipelines that draw it into passes of one [`PassFormat`].
///
/// Per frame: [`prepare`](Self::prepare) (before the caller's encoder is submitted), then
/// [`draw`](Self::draw) inside the caller's render pass. The caller keeps its device, targets,
/// passes and camera; see `examples/embed.rs`.
pub struct CrowdRenderer {
    texels: BakeTexels,
    /// Group 0 layout, for the live path's texels.
    texel_layout: wgpu::BindGroupLayout,
    camera: Camera,
    meshes: Meshes,
    pipelines: Pipelines,
    instances: Option<wgpu::Buffer>,
    cpu: CpuPath,
    format: PassFormat,
    light: Light,
    shadows: Shadows,
    shadow_map: ShadowMap,
    blobs: Blobs,
    /// The camera's layout (for helpers drawing with the renderer's camera, as the ground).
    camera_layout: wgpu::BindGroupLayout,
    /// The shadow map's layout (group 3 of lit shaders).
    shadow_layout: wgpu::BindGroupLayout,
    /// Tallest character of the bake, metres (how high casters reach above the ground).
    tallest: f32,
    /// This frame's draw ranges that cast into the shadow map, and those that get blobs
    /// (made by `prepare`, kept so that frames allocate nothing once warm).
    map_draws: Vec<DrawRange>,
    blob_draws: Vec<DrawRange>,
    /// This frame's draw ranges drawn with meshes, and those drawn as impostors (made by
    /// `prepare`).
    mesh_draws: Vec<DrawRange>,
    impostor_draws: Vec<DrawRange>,
    /// The impostor tier's atlases and pipeline.
    impostors: Impostors,
    /// The live path's matrices (made on first use, grown as needed).
    live: Option<LiveTexels>,
    /// The previous frame's camera and records, for motion vectors.
    motion: Motion,
}

/// How a renderer is built.
#[derive(Clone, Debug)]
pub struct RendererOptions {
    /// The render pass it draws into: colour and depth formats, samples, depth test.
    pub format: PassFormat,
    /// Props on joints.
    pub attachments: Vec<Attachment>,
}

impl CrowdRenderer {
    /// Uploads `file` (texels, meshes, images) to `gpu` and builds the pipelines for passes
    /// of `format`.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the texels cannot be laid out within the device's
    /// limits even for the CPU path's needs (the texture is still uploaded for parity tests
    /// only when it fits), [`RenderError::Gpu`] for shader or pipeline errors (e.g. a colour
    /// format that cannot be rendered to, or a sample count the device lacks).
    pub fn new(gpu: &Gpu, file: &ThrongFile, format: PassFormat) -> Result<Self, RenderError> {
        Self::with_options(
            gpu,
            file,
            RendererOptions {
                format,
                attachments: Vec::new(),
            },
        )
    }

    /// Like [`CrowdRenderer::new`], with props on joints.
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
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipelines = Pipelines::new(device, &layouts, &options.format, meshes.influences_used());
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!(
                "building the pipelines for {:?}: {e}",
                options.format
            )));
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let impostors = Impostors::new(gpu, file, &layouts, &options.format);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(format!(
                "uploading the impostors for {:?}: {e}",
                options.format
            )));
        }
        let tallest = file
            .characters()
            .iter()
            .map(|c| c.height)
            .fold(0.0f32, f32::max);
        Ok(Self {
            texels,
            camera: Camera::new(device, &layouts),
            shadow_map: ShadowMap::new(device, &layouts),
            blobs: Blobs::new(device, file),
            tallest,
            map_draws: Vec::new(),
            blob_draws: Vec::new(),
            mesh_draws: Vec::new(),
            impostor_draws: Vec::new(),
            impostors,
            texel_layout: layouts.texel,
            camera_layout: layouts.camera,
            shadow_layout: layouts.shadow,
            cpu: CpuPath::new(meshes.agent_vertices),
            meshes,
            pipelines,
            instances: None,
            format: options.format,
            light: Light::default(),
            shadows: Shadows::default(),
            live: None,
            motion: Motion::default(),
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

    /// The render pass this renderer draws into.
    pub fn pass_format(&self) -> PassFormat {
        self.format
    }

    /// The light characters are shaded with (from the next [`prepare`](Self::prepare) on).
    pub fn set_light(&mut self, light: Light) {
        self.light = light;
    }

    /// The light characters are shaded with ([`Light::default`] until set).
    pub fn light(&self) -> Light {
        self.light
    }

    /// Which shadows the crowd gets from the next frame on ([`Shadows::Blob`] until set).
    /// With [`Shadows::Map`], call [`encode_shadows`](Self::encode_shadows) after
    /// [`prepare`](Self::prepare) and before the pass [`draw`](Self::draw) records into.
    pub fn set_shadows(&mut self, shadows: Shadows) {
        self.shadows = shadows;
    }

    /// Which shadows the crowd gets.
    pub fn shadows(&self) -> Shadows {
        self.shadows
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

    /// LOD levels of the bake (mesh levels: the impostor tier is not counted).
    pub fn levels(&self) -> u32 {
        self.meshes.levels
    }

    /// Why agents in the impostor tier ([`DrawRange::impostor`]) are drawn with their
    /// character's last mesh level instead, if they are: the bake has no impostors (format
    /// 1.4), or a character's atlas does not fit the device's texture limits (named).
    pub fn impostors_unavailable(&self) -> Option<&str> {
        self.impostors.unavailable()
    }

    /// Forgets earlier frames: what they uploaded to the CPU path's cache, so that the next
    /// [`prepare`](Self::prepare) on that path skins every visible agent, and what they drew,
    /// so that the next frame shows no motion (with a velocity attachment). Needed when a
    /// frame's slots or agents stop meaning what they meant (a new crowd, or records made for
    /// one picture) or the camera jumps; frames of one [`Crowd`](crate::crowd::Crowd) never
    /// need it.
    pub fn invalidate(&mut self) {
        self.cpu.invalidate();
        self.motion.forget();
    }

    /// Prepares a frame on the queue, before the encoder holding its pass is submitted:
    /// writes the camera (`view_proj`: world, metres, to wgpu clip space) and the light, the
    /// frame's changed instance records (and, with a velocity attachment, the previous
    /// frame's records of the slots that need them) and, on the CPU path, skins the agents
    /// whose record changed (all visible ones after a frame on another path) and writes their
    /// vertices. Returns the statistics so far (instances, CPU skinning, uploads; draws and
    /// times are the caller's to fill in).
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the CPU path cannot hold that many agents;
    /// [`RenderError::Gpu`] when a buffer cannot be made that large.
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        frame: &CrowdFrame,
        view_proj: glam::Mat4,
        path: SkinningPath,
    ) -> Result<FrameStats, RenderError> {
        let mut stats = FrameStats {
            instances: frame.draws.iter().map(|d| d.slots.len()).sum(),
            ..Default::default()
        };
        self.split_shadow_draws(frame);
        self.mesh_draws.clear();
        self.impostor_draws.clear();
        for d in frame.draws {
            match self.impostors.draws(d) {
                true => self.impostor_draws.push(d.clone()),
                false => self.mesh_draws.push(d.clone()),
            }
        }
        let shadow = match self.casters_box(frame) {
            // Casters up to half again the tallest character (scaled agents, raised arms)
            // above the highest ground one stands on.
            Some((casters, (low, high))) if self.shadows == Shadows::Map => {
                let top = high + 1.5 * self.tallest.max(0.1);
                fit(
                    view_proj,
                    self.light.direction,
                    MAP_REACH,
                    (low, top),
                    casters,
                )
                .map_or_else(unused, |f| f.uniform())
            }
            _ => unused(),
        };
        let cameras = self.motion.cameras(view_proj);
        self.camera
            .write(&gpu.queue, cameras, &self.format, &self.light, &shadow);
        let start = std::time::Instant::now();
        let written = write_records(gpu, &mut self.instances, frame.records, frame.dirty)?;
        if let Some(prepared) = frame.prepared {
            // The crowd forgets these changes before it makes its next ones.
            prepared.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        stats.records_written = written.records;
        stats.uploaded_bytes += written.bytes;
        if self.format.velocity {
            stats.uploaded_bytes += self.motion.write(gpu, frame)?;
        }
        stats.upload_seconds += start.elapsed().as_secs_f64();
        if path.skins_on_cpu() {
            // Impostors need no skinning.
            let meshes = CrowdFrame {
                draws: &self.mesh_draws,
                ..*frame
            };
            self.cpu
                .skin(gpu, file, &self.meshes, &meshes, &mut stats)?;
        } else {
            self.cpu.invalidate();
        }
        Ok(stats)
    }

    /// Sorts `frame`'s draw ranges into those that cast into the shadow map and those that get
    /// blobs, as [`Shadows`] says.
    fn split_shadow_draws(&mut self, frame: &CrowdFrame) {
        self.map_draws.clear();
        self.blob_draws.clear();
        for d in frame.draws {
            match self.shadows {
                Shadows::Off => {}
                Shadows::Blob => self.blob_draws.push(d.clone()),
                Shadows::Map if d.level < MAP_LEVELS && !d.impostor => {
                    self.map_draws.push(d.clone())
                }
                Shadows::Map => self.blob_draws.push(d.clone()),
            }
        }
    }

    /// The box of the agents casting into the shadow map this frame (by their records'
    /// places): world x and z, min and max, and the lowest and highest ground they stand on
    /// (world y); `None` for none.
    fn casters_box(&self, frame: &CrowdFrame) -> Option<((glam::Vec2, glam::Vec2), (f32, f32))> {
        let places = self
            .map_draws
            .iter()
            .flat_map(|d| d.slots.clone())
            .filter_map(|s| frame.records.get(s as usize))
            .map(|r| glam::Vec3::new(r.place[0], r.place[1], r.place[2]));
        places
            .fold(None, |b, p| match b {
                None => Some((p, p)),
                Some((lo, hi)) => Some((lo.min(p), hi.max(p))),
            })
            .map(|(lo, hi)| {
                let xz = |v: glam::Vec3| glam::Vec2::new(v.x, v.z);
                ((xz(lo), xz(hi)), (lo.y, hi.y))
            })
    }

    /// The layouts of the camera (group 1) and of the shadow map (group 3), for helpers that
    /// draw with the renderer's camera and shadows ([`Ground`](super::Ground)).
    pub(super) fn lit_layouts(&self) -> (&wgpu::BindGroupLayout, &wgpu::BindGroupLayout) {
        (&self.camera_layout, &self.shadow_layout)
    }

    /// Binds the renderer's camera (group 1) and shadow map (group 3) in `pass`, for a helper
    /// drawing lit like the crowd.
    pub(super) fn bind_lighting(&self, pass: &mut wgpu::RenderPass) {
        pass.set_bind_group(1, &self.camera.group, &[]);
        pass.set_bind_group(3, &self.shadow_map.group, &[]);
    }

    /// Writes joint matrices evaluated on the CPU for the live path: `rows` holds three texels
    /// (the rows of a 3x4 matrix) per matrix, linearly, as the bake's texels; an instance
    /// drawn on [`SkinningPath::Live`] (or in a live range on [`SkinningPath::Hybrid`]) names
    /// its first matrix in its record's frame bases.
    /// Returns the seconds the write took.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when that many matrices do not fit the device's texture
    /// limits.
    pub fn upload_live(&mut self, gpu: &Gpu, rows: &[[f32; 4]]) -> Result<f64, RenderError> {
        LiveTexels::upload(&mut self.live, gpu, &self.texel_layout, rows)
    }

    /// Renders the shadow map of the frame (with [`Shadows::Map`]; nothing otherwise) in a
    /// depth-only pass of its own on `encoder`: the agents at LOD levels below
    /// [`MAP_LEVELS`], seen from the sun. Call it after
    /// [`prepare`](Self::prepare) and before the pass [`draw`](Self::draw) records into (same
    /// encoder or an earlier one). Returns the number of draws.
    pub fn encode_shadows(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &CrowdFrame,
        path: SkinningPath,
    ) -> usize {
        if self.shadows != Shadows::Map {
            return 0;
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow map"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.shadow_map.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let casters = CrowdFrame {
            draws: &self.map_draws,
            ..*frame
        };
        let p = &self.pipelines;
        self.draw_with(
            &mut pass,
            &casters,
            path,
            (&p.shadow_skinned, &p.shadow_bind, &p.shadow_world),
        )
    }

    /// Records the frame's character draws into `pass`, a pass of this renderer's
    /// [`PassFormat`] that the caller began (its attachments, load operations and viewport
    /// are the caller's): one instanced draw per character part and LOD level on the static
    /// path, one per part, level and run of triangles needing the same number of joint
    /// influences (up to 4) on the GPU, live and hybrid paths, one per instance and part on
    /// the CPU path. `frame` must
    /// be the one given to [`prepare`](Self::prepare) this frame (its records are what the
    /// GPU holds). Sets its own pipelines, bind groups 0 to 3 and vertex buffers 0 and 1: a
    /// caller drawing more afterwards sets its own again. Returns the number of draws.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &CrowdFrame,
        path: SkinningPath,
    ) -> usize {
        let Some(instances) = self.instances.as_ref() else {
            return 0;
        };
        self.bind_lighting(pass);
        if let (true, Some(previous)) = (self.format.velocity, &self.motion.buffer) {
            pass.set_vertex_buffer(2, previous.slice(..));
        }
        let mut draws = 0;
        if !self.blob_draws.is_empty() {
            // Blobs first: the characters standing on them are drawn over them.
            pass.set_pipeline(&self.pipelines.blob);
            pass.set_vertex_buffer(1, instances.slice(..));
            for d in &self.blob_draws {
                if let Some(quad) = self.blobs.quads.get(d.character as usize) {
                    pass.set_vertex_buffer(0, quad.slice(..));
                    pass.draw(0..BLOB_CORNERS, d.slots.clone());
                    draws += 1;
                }
            }
        }
        let p = &self.pipelines;
        let meshes = CrowdFrame {
            draws: &self.mesh_draws,
            ..*frame
        };
        draws += self.draw_with(
            pass,
            &meshes,
            path,
            (&p.skinned, &p.unskinned_bind, &p.unskinned_world),
        );
        let previous = self.motion.buffer.as_ref().filter(|_| self.format.velocity);
        draws
            + self.impostors.draw(
                pass,
                &self.impostor_draws,
                (instances, previous),
                &self.texels.group,
            )
    }

    /// Draws `frame`'s characters with `pipelines` (skinned, bind pose, CPU-skinned): the
    /// main pass's or the shadow map's. Returns the draws.
    fn draw_with(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &CrowdFrame,
        path: SkinningPath,
        (skinned, bind, world): (&ByInfluences, &wgpu::RenderPipeline, &wgpu::RenderPipeline),
    ) -> usize {
        let Some(instances) = self.instances.as_ref() else {
            return 0;
        };
        pass.set_bind_group(1, &self.camera.group, &[]);
        pass.set_vertex_buffer(1, instances.slice(..));
        let texels = match (path, &self.live) {
            (SkinningPath::Cpu, _) => {
                return self.cpu.draw(pass, world, &self.meshes, frame);
            }
            (SkinningPath::Static, _) => None,
            (SkinningPath::Live, Some(live)) => Some(&live.group),
            (SkinningPath::Gpu | SkinningPath::Live | SkinningPath::Hybrid, _) => {
                Some(&self.texels.group)
            }
        };
        match texels {
            // The skinned pipeline is set per run of triangles below.
            Some(texels) => pass.set_bind_group(0, texels, &[]),
            None => pass.set_pipeline(bind),
        }
        // On the hybrid path, live ranges read the live matrices (bound for them, and the
        // bake's again after).
        let hybrid_live = match (path, &self.live) {
            (SkinningPath::Hybrid, Some(live)) => Some(&live.group),
            _ => None,
        };
        let mut draws = 0;
        for d in frame.draws {
            if let (Some(live), true) = (hybrid_live, d.live) {
                pass.set_bind_group(0, live, &[]);
            }
            for &(mi, _) in self.meshes.parts_of(d.character, d.level) {
                let m = &self.meshes.meshes[mi];
                pass.set_bind_group(2, &m.material, &[]);
                // The static path draws the bind pose, turned as the baked frames are.
                let vertices = match texels {
                    Some(_) => &m.vertices,
                    None => m.bind_pose(),
                };
                pass.set_vertex_buffer(0, vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                if texels.is_none() {
                    pass.draw_indexed(0..m.index_count, 0, d.slots.clone());
                    draws += 1;
                    continue;
                }
                // Skinned: each run of triangles by the pipeline for its influences.
                for (k, run) in m.runs() {
                    if let Some(pipeline) = for_influences(skinned, k) {
                        pass.set_pipeline(pipeline);
                        pass.draw_indexed(run, 0, d.slots.clone());
                        draws += 1;
                    }
                }
            }
            if let (Some(_), true, Some(texels)) = (hybrid_live, d.live, texels) {
                pass.set_bind_group(0, texels, &[]);
            }
        }
        draws
    }
}
