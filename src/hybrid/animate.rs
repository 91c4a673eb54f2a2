//! Where a live agent's pose comes from before its IK ([`Animate`]): its character's own
//! animation evaluated live, exactly as the baker evaluated it ([`Replay`]: the state's blend
//! tree at the parameter values the agent's behaviour plays, or the clip; the character's IK
//! chains; the recipe's scale, drift removal, foot locks and facing), when the bake's sources
//! are at hand and unchanged; otherwise (a file whose sources are gone) the bake's own
//! matrices at the agent's phase, and the reason.
//!
//! A live agent runs on the same clock as its baked self (the crowd keeps advancing its
//! animations, times and fade), so the baked animation and phase nearest to its live pose,
//! when it hands back, is the one it is playing: the measured handoff jump says how near.

use std::sync::{Mutex, PoisonError};

use glam::{Mat4, Vec3};

use super::look::look_at;
use super::pose::{FootContacts, LivePlacement, bake_pose, foot_ik};
use super::rig::LiveRig;
use crate::bake::{Replay, lerp};
use crate::character::Poser;
use crate::crowd::Agent;
use crate::crowd::Terrain;
use crate::format::ThrongFile;
use crate::import::ExternalFiles;

/// Where a live agent stands and how far into the tier it is.
#[derive(Clone, Copy, Debug)]
pub struct Standing {
    /// Its place, heading and scale.
    pub at: LivePlacement,
    /// The ground.
    pub terrain: Terrain,
    /// Its handoff blend: 0 (the bake's pose) to 1 (fully live).
    pub blend: f32,
    /// The world point its head turns toward ([`look_at`]), if any.
    pub look: Option<Vec3>,
}

/// One thread's buffers: a poser per character, and poses (grown on first use, so that a
/// warm tier allocates nothing; on the heap, as three 256-joint poses zeroed on the stack per
/// agent cost more than posing it).
struct Scratch {
    posers: Vec<Poser>,
    shown: Vec<Mat4>,
    baked: Vec<Mat4>,
    b: Vec<Mat4>,
}

/// A live agent's pose before IK (see the module docs).
pub struct Animate {
    replay: Option<Replay>,
    /// Per rayon thread, and one for any other thread.
    scratch: Vec<Mutex<Scratch>>,
    /// Why poses come from the bake, when they do.
    why: Option<String>,
}

impl Animate {
    fn new(replay: Option<Replay>, why: Option<String>) -> Self {
        let threads = rayon::current_num_threads() + 1;
        let scratch = (0..threads)
            .map(|_| {
                Mutex::new(Scratch {
                    posers: replay.as_ref().map_or_else(Vec::new, |r| {
                        (0..r.characters()).map(|c| r.poser(c)).collect()
                    }),
                    shown: Vec::new(),
                    baked: Vec::new(),
                    b: Vec::new(),
                })
            })
            .collect();
        Self {
            replay,
            scratch,
            why,
        }
    }

    /// Live evaluation with `replay` (of the file the tier draws: see [`Replay::matches`]).
    pub fn replayed(replay: Replay) -> Self {
        Self::new(Some(replay), None)
    }

    /// Poses from the bake's matrices, for the reason `why`.
    pub fn from_bake(why: String) -> Self {
        Self::new(None, Some(why))
    }

    /// Live evaluation of `file`'s animations from the recipe and sources it was baked from
    /// ([`Replay::of_file`], their models' files held to their folders), or from the bake
    /// when those cannot be had, saying why.
    pub fn of_file(file: &ThrongFile) -> Self {
        match Replay::of_file(file, ExternalFiles::default()) {
            Ok(r) => Self::replayed(r),
            Err(e) => Self::from_bake(e.to_string()),
        }
    }

    /// Whether poses are evaluated live (else they are the bake's).
    pub fn is_live(&self) -> bool {
        self.replay.is_some()
    }

    /// Why poses come from the bake (`None` when they are evaluated live).
    pub fn why_baked(&self) -> Option<&str> {
        self.why.as_deref()
    }

    /// The pose `agent` (of rig `rig` of `file`) shows, standing as `stand` says, handed to
    /// `then` with the feet's contact points before IK: its animation A, and B cross-faded in
    /// by its fade weight, evaluated live (or the bake's matrices at its phase, for a file
    /// without sources); foot IK ([`foot_ik`]); its head turned toward the look-at point if
    /// one is set and it has a head ([`look_at`]); all cross-faded from the bake's pose at its
    /// phase by its blend (eased), so that at blend 0 it is the bake's, bit for bit, and a
    /// handoff spreads the difference over the blend's rise or fall. Allocates nothing once
    /// warm.
    pub fn shown<R>(
        &self,
        file: &ThrongFile,
        rig: &LiveRig,
        agent: &Agent,
        stand: &Standing,
        then: impl FnOnce(&[Mat4], &FootContacts) -> R,
    ) -> R {
        let index = rayon::current_thread_index().unwrap_or(usize::MAX);
        let cell = &self.scratch[index.min(self.scratch.len() - 1)];
        let mut guard = cell.lock().unwrap_or_else(PoisonError::into_inner);
        let s = &mut *guard;
        let n = rig.joints;
        for v in [&mut s.shown, &mut s.baked, &mut s.b] {
            if v.len() < n {
                v.resize(n, Mat4::IDENTITY);
            }
        }
        let texels = &file.texels();
        // The bake's pose: to cross-fade from, or what a file without sources shows; not
        // needed by a fully blended agent posed live.
        let fading = stand.blend < 1.0;
        if fading || self.replay.is_none() {
            bake_pose(
                rig,
                texels,
                &agent.playback().frame_pose(file),
                &mut s.baked[..n],
            );
        }
        match (&self.replay, s.posers.get_mut(agent.character as usize)) {
            (Some(replay), Some(poser)) => {
                let shown = &mut s.shown[..n];
                replay.pose(agent.anim_a as usize, agent.time_a, poser, shown);
                if agent.fade > 0.0 {
                    let b = &mut s.b[..n];
                    replay.pose(agent.anim_b as usize, agent.time_b, poser, b);
                    for (a, b) in shown.iter_mut().zip(b.iter()) {
                        *a = lerp(a, b, agent.fade);
                    }
                }
            }
            _ => s.shown[..n].copy_from_slice(&s.baked[..n]),
        }
        let shown = &mut s.shown[..n];
        let contacts = foot_ik(rig, &stand.at, stand.terrain, 1.0, shown);
        if let (Some(target), Some(head)) = (stand.look, &rig.head) {
            look_at(head, &rig.bind, stand.at.model(target), 1.0, shown);
        }
        if fading {
            // Eased (smoothstep): the cross-fade starts and ends with no step in velocity,
            // so the first live frame moves off the bake's pose by a sliver (0.9% of the
            // difference after the first of 18 steps at 60 Hz, where a linear fade moves 5.6%).
            let b = stand.blend.clamp(0.0, 1.0);
            let w = b * b * (3.0 - 2.0 * b);
            for (s, b) in shown.iter_mut().zip(&s.baked[..n]) {
                *s = if w == 0.0 { *b } else { lerp(b, s, w) };
            }
        }
        then(shown, &contacts)
    }
}
