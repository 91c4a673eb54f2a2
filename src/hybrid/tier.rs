//! [`LiveTier`]: each frame, the crowd's live agents posed on the CPU (their animations
//! evaluated live, or the bake's pose at their phase, then foot IK on the ground, cross-faded
//! by their handoff blend; in parallel with rayon), their matrices laid out for the GPU as the
//! bake's texels are, and their records pointed at them.

use std::time::Instant;

use rayon::prelude::*;

use super::animate::{Animate, Standing};
use super::error::HybridError;
use super::measure::Measures;
use super::pose::LivePlacement;
use super::rig::LiveRig;
use crate::crowd::Terrain;
use crate::crowd::{AgentData, Crowd, InstanceRecord};
use crate::format::{TEXELS_PER_MATRIX, ThrongFile};

/// What one frame of the live tier did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiveStats {
    /// Agents evaluated live.
    pub agents: usize,
    /// CPU time posing them and pointing their records at their matrices, seconds.
    pub seconds: f64,
    /// Whether their animations were evaluated live (else posed from the bake's matrices:
    /// [`LiveTier::why_baked`]).
    pub evaluated: bool,
}

/// One live agent to pose this frame.
#[derive(Clone, Copy, Debug)]
struct Job {
    slot: u32,
    character: u32,
    blend: f32,
}

/// The live tier of a bake's crowd (see the module docs).
pub struct LiveTier {
    rigs: Vec<LiveRig>,
    animate: Animate,
    /// Matrices per live agent in [`LiveTier::rows`]: the most joints of any character.
    stride: usize,
    rows: Vec<[f32; 4]>,
    jobs: Vec<Job>,
    measures: Option<Measures>,
    look: Option<glam::Vec3>,
}

impl LiveTier {
    /// The live tier of `file`'s characters, their animations evaluated live from the
    /// recipe and sources `file` was baked from where those are at hand and unchanged
    /// ([`Animate::of_file`]; else posed from the bake: [`LiveTier::why_baked`] says why).
    ///
    /// # Errors
    /// [`HybridError::Rig`] for a character that cannot be posed live.
    pub fn new(file: &ThrongFile) -> Result<Self, HybridError> {
        Self::with(file, Animate::of_file(file))
    }

    /// The live tier of `file`'s characters, posed by `animate`.
    ///
    /// # Errors
    /// [`HybridError::Rig`] for a character that cannot be posed live.
    pub fn with(file: &ThrongFile, animate: Animate) -> Result<Self, HybridError> {
        let rigs = (0..file.characters().len())
            .map(|c| LiveRig::new(file, c))
            .collect::<Result<Vec<_>, _>>()?;
        let stride = rigs.iter().map(|r| r.joints).max().unwrap_or(0);
        Ok(Self {
            rigs,
            animate,
            stride,
            rows: Vec::new(),
            jobs: Vec::new(),
            measures: None,
            look: None,
        })
    }

    /// The rig of each character.
    pub fn rigs(&self) -> &[LiveRig] {
        &self.rigs
    }

    /// Whether live agents' animations are evaluated live (else posed from the bake).
    pub fn is_evaluated(&self) -> bool {
        self.animate.is_live()
    }

    /// Why live agents are posed from the bake rather than evaluated (`None` when they are
    /// evaluated).
    pub fn why_baked(&self) -> Option<&str> {
        self.animate.why_baked()
    }

    /// Turns live agents' heads toward the world point `target` (the camera, say) from the
    /// next [`evaluate`](Self::evaluate), within limits ([`crate::hybrid::look`]); `None`
    /// (the default): heads as animated.
    pub fn set_look_at(&mut self, target: Option<glam::Vec3>) {
        self.look = target;
    }

    /// Starts (or stops, dropping them) measuring foot-ground errors and handoff jumps (see
    /// [`Measures`]); off by default, as it poses each agent again without IK.
    pub fn set_measuring(&mut self, on: bool) {
        self.measures = on.then(Measures::default);
    }

    /// Forgets what was measured so far (e.g. warm-up frames), measuring on.
    pub fn restart_measures(&mut self) {
        match self.measures.as_mut() {
            Some(m) => m.clear(),
            None => self.set_measuring(true),
        }
    }

    /// What was measured since measuring started.
    pub fn measures(&self) -> Option<&Measures> {
        self.measures.as_ref()
    }

    /// The matrices of the last [`evaluate`](Self::evaluate): three texels (the rows of a 3x4
    /// matrix) per matrix, [`stride`](Self::stride) matrices per live agent, for
    /// [`CrowdRenderer::upload_live`](crate::render::CrowdRenderer::upload_live).
    pub fn rows(&self) -> &[[f32; 4]] {
        &self.rows
    }

    /// Matrices per live agent in [`rows`](Self::rows).
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Poses the live agents of `crowd` (its live draw ranges, after its update this frame)
    /// standing on `terrain`, and points their records at their matrices (marking them dirty).
    /// Allocates nothing once warm (unless measuring).
    pub fn evaluate<S: AgentData>(
        &mut self,
        file: &ThrongFile,
        crowd: &mut Crowd<S>,
        terrain: Terrain,
    ) -> LiveStats {
        let start = Instant::now();
        self.jobs.clear();
        for d in crowd.draws().iter().filter(|d| d.live) {
            for slot in d.slots.clone() {
                self.jobs.push(Job {
                    slot,
                    character: d.character,
                    blend: crowd.live_blend(slot),
                });
            }
        }
        let texels_per = TEXELS_PER_MATRIX as usize;
        let chunk = (self.stride * texels_per).max(1);
        self.rows.resize(self.jobs.len() * chunk, [0.0; 4]);
        let (agents, records) = (crowd.agents(), crowd.records());
        let (rigs, animate, look) = (&self.rigs, &self.animate, self.look);
        self.rows
            .par_chunks_mut(chunk)
            .zip(self.jobs.par_iter())
            .for_each(|(dst, job)| {
                let (Some(agent), Some(record), Some(rig)) = (
                    agents.get(job.slot as usize),
                    records.get(job.slot as usize),
                    rigs.get(job.character as usize),
                ) else {
                    return;
                };
                let stand = Standing {
                    at: LivePlacement::of(record),
                    terrain,
                    blend: job.blend,
                    look,
                };
                // From the agent's playback, not its record, which may already point at
                // last frame's live matrices.
                animate.shown(file, rig, agent, &stand, |skin, _| {
                    for (m, out) in skin.iter().zip(dst.chunks_exact_mut(texels_per)) {
                        let t = m.transpose();
                        out[0] = t.x_axis.to_array();
                        out[1] = t.y_axis.to_array();
                        out[2] = t.z_axis.to_array();
                    }
                });
            });
        // Point the records at their matrices (jobs are in slot order, one live range after
        // another), one run of slots at a time.
        let stride = self.stride as u32;
        let mut k = 0;
        while k < self.jobs.len() {
            let first = self.jobs[k].slot;
            let mut end = k + 1;
            while end < self.jobs.len() && self.jobs[end].slot == first + (end - k) as u32 {
                end += 1;
            }
            let (_, records) = crowd.records_mut(first..first + (end - k) as u32);
            for (i, r) in records.iter_mut().enumerate() {
                point_at(r, (k + i) as u32 * stride);
            }
            k = end;
        }
        let stats = LiveStats {
            agents: self.jobs.len(),
            seconds: start.elapsed().as_secs_f64(),
            evaluated: self.animate.is_live(),
        };
        // Outside the time: measuring poses every agent again.
        if let Some(m) = self.measures.as_mut() {
            m.frame(
                (file, &self.animate, &self.rigs, self.look),
                crowd,
                terrain,
                self.jobs.iter().map(|j| j.slot),
            );
        }
        stats
    }
}

/// Points `r` at the matrices starting at `base`: no frame interpolation, no fade (the
/// matrices are final).
fn point_at(r: &mut InstanceRecord, base: u32) {
    r.frames = [base; 4];
    r.weights[1] = 0.0;
    r.weights[2] = 0.0;
    r.weights[3] = 0.0;
}
