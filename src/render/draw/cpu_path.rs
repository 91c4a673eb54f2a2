//! The CPU skinning path of the crowd pass: agents whose record changed are skinned on the
//! CPU (rayon over agents, [`super::cpu_skin`]'s arithmetic) into a cache of skinned
//! vertices (model space) kept between frames, one region per agent; changed regions are written to a
//! vertex buffer and drawn unskinned, one draw per agent and part.

use rayon::prelude::*;

use super::cpu_skin::{SkinnedVertex, with_palette};
use super::meshes::Meshes;
use super::upload::ensure_buffer;
use crate::crowd::FramePose;
use crate::format::ThrongFile;
use crate::render::device::Gpu;
use crate::render::error::RenderError;
use crate::render::frame::{CrowdFrame, FrameStats};

/// Most memory the CPU path may keep for skinned vertices (CPU and GPU copies each), bytes.
pub const CPU_CACHE_LIMIT: usize = 768 << 20;

/// An agent the CPU path skins this frame: character, LOD level, pose.
#[derive(Clone, Copy, Debug)]
struct CpuJob {
    character: u32,
    level: u32,
    pose: FramePose,
}

/// `CpuPath::job_of` for an agent not skinned this frame.
const NO_JOB: u32 = u32::MAX;

/// The CPU path's state between frames.
pub(in crate::render) struct CpuPath {
    /// Vertices per agent: [`Meshes::agent_vertices`].
    stride: u32,
    vertices: Option<wgpu::Buffer>,
    /// Skinned vertices, one region of `stride` vertices per agent, kept between frames so
    /// only agents whose record changed are skinned again.
    cache: Vec<SkinnedVertex>,
    /// Whether `cache` (and its GPU copy) matches the records uploaded last; false after a
    /// frame on another path.
    fresh: bool,
    /// Per agent: the index of its skinning job this frame (`NO_JOB` for none).
    job_of: Vec<u32>,
    jobs: Vec<CpuJob>,
}

impl CpuPath {
    /// An empty cache for agents of `stride` vertices.
    pub fn new(stride: u32) -> Self {
        Self {
            stride,
            vertices: None,
            cache: Vec::new(),
            fresh: false,
            job_of: Vec::new(),
            jobs: Vec::new(),
        }
    }

    /// Forgets the cache: the next frame skins every visible agent.
    pub fn invalidate(&mut self) {
        self.fresh = false;
    }

    /// Why the cache cannot hold `agents` agents within [`CPU_CACHE_LIMIT`], if it cannot.
    pub fn unavailable(&self, agents: usize) -> Option<String> {
        let bytes = agents * self.stride as usize * std::mem::size_of::<SkinnedVertex>();
        (bytes > CPU_CACHE_LIMIT).then(|| {
            format!(
                "CPU skinning keeps {} vertices per agent; {agents} agents would need {} MiB, more than its {} MiB limit",
                self.stride,
                bytes >> 20,
                CPU_CACHE_LIMIT >> 20
            )
        })
    }

    /// The most agents the cache can hold.
    pub fn capacity(&self) -> usize {
        CPU_CACHE_LIMIT / (self.stride.max(1) as usize * std::mem::size_of::<SkinnedVertex>())
    }

    /// Skins the visible agents of `frame` whose record changed (all visible ones when the
    /// cache is stale) and writes their regions to the GPU, into `stats`.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the cache cannot hold that many agents.
    pub fn skin(
        &mut self,
        gpu: &Gpu,
        file: &ThrongFile,
        meshes: &Meshes,
        frame: &CrowdFrame,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let agents = frame.slot_agent.len();
        if let Some(why) = self.unavailable(agents) {
            return Err(RenderError::Unsupported {
                file: file.name().to_string(),
                what: why,
            });
        }
        let stride = self.stride as usize;
        let grown = ensure_buffer(
            gpu,
            &mut self.vertices,
            ((agents * stride * std::mem::size_of::<SkinnedVertex>()) as u64).max(4),
            wgpu::BufferUsages::VERTEX,
            "cpu skinned vertices",
        );
        if grown || self.cache.len() < agents * stride {
            self.cache.resize(agents * stride, SkinnedVertex::default());
            self.fresh = false;
        }
        let start = std::time::Instant::now();
        self.plan_jobs(frame);
        let texels = file.texels();
        let (jobs, job_of) = (&self.jobs, &self.job_of);
        let skinned: usize = self.cache[..agents * stride]
            .par_chunks_mut(stride.max(1))
            .zip(job_of.par_iter())
            .map(|(region, &j)| {
                let Some(job) = jobs.get(j as usize) else {
                    return 0;
                };
                let joints = file
                    .characters()
                    .get(job.character as usize)
                    .map_or(0, |c| c.joint_count as usize);
                // The pose's joints are blended once for all of the agent's parts.
                with_palette(&texels, &job.pose, joints, |palette| {
                    let mut count = 0;
                    for &(mi, offset) in meshes.parts_of(job.character, job.level) {
                        let vertices = match meshes.meshes[mi].attachment {
                            Some(k) => &meshes.attachments[k].vertices[..],
                            None => file.mesh_data(mi).0,
                        };
                        let out = &mut region[offset as usize..][..vertices.len()];
                        palette.skin_into(vertices, out);
                        count += vertices.len();
                    }
                    count
                })
            })
            .sum();
        stats.cpu_skinned_vertices = skinned;
        stats.cpu_skin_seconds = start.elapsed().as_secs_f64();
        self.write_skinned(gpu, agents, stats)?;
        self.fresh = true;
        Ok(())
    }

    /// Jobs: the visible agents whose record changed (all visible ones when the cache is
    /// stale). Draw ranges and dirty runs are both in slot order.
    fn plan_jobs(&mut self, frame: &CrowdFrame) {
        self.jobs.clear();
        self.job_of.clear();
        self.job_of.resize(frame.slot_agent.len(), NO_JOB);
        let full = 0..frame.records.len() as u32;
        let runs = if self.fresh {
            frame.dirty
        } else {
            std::slice::from_ref(&full)
        };
        for d in frame.draws {
            for run in runs {
                let (s0, s1) = (run.start.max(d.slots.start), run.end.min(d.slots.end));
                for s in s0..s1 {
                    let (Some(&a), Some(r)) = (
                        frame.slot_agent.get(s as usize),
                        frame.records.get(s as usize),
                    ) else {
                        continue;
                    };
                    if let Some(j) = self.job_of.get_mut(a as usize) {
                        *j = self.jobs.len() as u32;
                        self.jobs.push(CpuJob {
                            character: d.character,
                            level: d.level,
                            pose: FramePose::from_record(r),
                        });
                    }
                }
            }
        }
    }

    /// Writes the regions of the agents skinned this frame to the GPU, merging neighbours.
    fn write_skinned(
        &self,
        gpu: &Gpu,
        agents: usize,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let start = std::time::Instant::now();
        let stride = self.stride as usize;
        let vertex_size = std::mem::size_of::<SkinnedVertex>();
        let Some(buffer) = self.vertices.as_ref() else {
            return Err(RenderError::Gpu("no CPU vertex buffer".into()));
        };
        let mut a = 0;
        while a < agents {
            if self.job_of[a] == NO_JOB {
                a += 1;
                continue;
            }
            let first = a;
            while a < agents && self.job_of[a] != NO_JOB {
                a += 1;
            }
            let data = bytemuck::cast_slice(&self.cache[first * stride..a * stride]);
            gpu.queue
                .write_buffer(buffer, (first * stride * vertex_size) as u64, data);
            stats.uploaded_bytes += data.len();
        }
        stats.upload_seconds += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// Draws every visible agent's skinned parts into `pass` (one draw per agent and part,
    /// its instance record placing and tinting it), with `pipeline`. Returns the draws.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass,
        pipeline: &wgpu::RenderPipeline,
        meshes: &Meshes,
        frame: &CrowdFrame,
    ) -> usize {
        let Some(vertices) = self.vertices.as_ref() else {
            return 0;
        };
        let mut draws = 0;
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, vertices.slice(..));
        for d in frame.draws {
            for &(mi, offset) in meshes.parts_of(d.character, d.level) {
                let m = &meshes.meshes[mi];
                pass.set_bind_group(2, &m.material, &[]);
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                for s in d.slots.clone() {
                    let Some(&a) = frame.slot_agent.get(s as usize) else {
                        continue;
                    };
                    let base = a * self.stride + offset;
                    pass.draw_indexed(0..m.index_count, base as i32, s..s + 1);
                    draws += 1;
                }
            }
        }
        draws
    }
}
