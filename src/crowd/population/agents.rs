//! The calls a program drives agents with: spawn and despawn them, place, turn, scale, tint,
//! hide and show them, play and cross-fade animations. Each checks its arguments first and
//! changes nothing when they are wrong.
//!
//! What shows when: a spawned agent's record is written at once (it is drawn from the next
//! frame the renderer prepares, at LOD 0 until the next update picks its level); despawning
//! and hiding take it out of the draw lists at once. Everything else (place, heading, scale,
//! tint, animation) is read when the agent is next due: at its next update where its LOD
//! level's rate is 1, else within that many frames. Until then its record shows what it
//! showed at its last update, and culling and LOD levels see it where it was then.

use std::sync::atomic::AtomicU64;

use glam::Vec3;

use super::{AgentData, Crowd, record_of};
use crate::crowd::agent::{Agent, AgentId, Play, Spawn, flag};
use crate::crowd::error::CrowdError;
use crate::crowd::frame::assign::Hot;
use crate::crowd::frame::record::InstanceRecord;
use crate::crowd::settings::MAX_AGENTS;

/// Spawns past this share of the agents already there place everyone anew at once, cheaper
/// than moving each new agent to its group slot by slot.
const REPLACE_SHARE: usize = 4;

impl<S: AgentData> Crowd<S> {
    /// Spawns an agent as `spawn` says, keeping `data` with it; its record is written at once.
    ///
    /// # Errors
    /// As [`Crowd::spawn_many`].
    pub fn spawn(&mut self, spawn: &Spawn, data: S) -> Result<AgentId, CrowdError> {
        let mut ids = self.spawn_many(std::slice::from_ref(&(*spawn, data)))?;
        Ok(ids.remove(0))
    }

    /// Spawns every agent of `spawns` (with its data), in order, and returns their ids.
    /// Freed indices are reused, the last freed first. When the spawns are many against the
    /// crowd already there, everyone is placed anew (every record dirty).
    ///
    /// # Errors
    /// Nothing is spawned when any spawn is wrong: [`CrowdError::UnknownCharacter`],
    /// [`CrowdError::UnknownAnim`], [`CrowdError::NotFiniteSpawn`] (position, heading, scale
    /// or the play's start and rate), or [`CrowdError::TooMany`] past [`MAX_AGENTS`].
    pub fn spawn_many(&mut self, spawns: &[(Spawn, S)]) -> Result<Vec<AgentId>, CrowdError> {
        let mut ids = Vec::with_capacity(spawns.len());
        let alive = self.alive();
        if alive + spawns.len() > MAX_AGENTS {
            return Err(CrowdError::TooMany {
                count: alive + spawns.len(),
                max: MAX_AGENTS,
            });
        }
        for (s, _) in spawns {
            self.check_spawn(s)?;
        }
        self.settle();
        let replace = spawns.len() > alive / REPLACE_SHARE;
        let (margin, now) = (self.margin(), self.time);
        for (s, data) in spawns {
            let index = match self.free.pop() {
                Some(i) => i,
                None => {
                    let i = self.schedule.push_agent();
                    self.generations.push(0);
                    self.agents.push(Agent::default());
                    self.data.push(*data);
                    self.records.push(InstanceRecord::default());
                    self.hot.push(Hot::default());
                    self.want.push(0);
                    self.placed.push(glam::Vec4::ZERO);
                    if self.placed_bits.len() * 64 < self.placed.len() {
                        self.placed_bits.push(AtomicU64::new(0));
                    }
                    i
                }
            };
            let slot = self.schedule.agent_slot()[index as usize] as usize;
            let agent = Agent::spawned(s, index, self.palette.anims(), now);
            self.agents[slot] = agent;
            self.data[slot] = *data;
            self.hot[slot] = Hot::of(&self.palette, &agent, margin, 0);
            self.records[slot] = record_of(&self.file, &agent, 0, self.lod_colours);
            ids.push(AgentId {
                index,
                generation: self.generations[index as usize],
            });
            if !replace {
                self.regroup(index);
            }
        }
        if replace {
            self.place_all();
        } else {
            self.schedule.refresh();
        }
        Ok(ids)
    }

    /// Despawns agent `id`: it is drawn nowhere from now on and its index is free for a later
    /// spawn; `id` goes stale.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`] when `id` was despawned already.
    pub fn despawn(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.settle();
        let agent = &mut self.agents[slot];
        agent.set_flag(flag::FREE, true);
        let i = id.index as usize;
        *self.placed_bits[i / 64].get_mut() &= !(1 << (i % 64));
        self.hot[slot].shown = 0;
        self.generations[id.index as usize] = self.generations[id.index as usize].wrapping_add(1);
        self.free.push(id.index);
        self.regroup(id.index);
        self.schedule.refresh();
        Ok(())
    }

    /// Whether `id` is an agent of this crowd that has not been despawned.
    pub fn is_alive(&self, id: AgentId) -> bool {
        self.slot_of(id).is_ok()
    }

    /// Agents alive (spawned and not despawned).
    pub fn alive(&self) -> usize {
        self.agents.len() - self.free.len()
    }

    /// Agent `id` as of now.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`] when `id` was despawned.
    pub fn agent(&self, id: AgentId) -> Result<&Agent, CrowdError> {
        Ok(&self.agents[self.slot_of(id)?])
    }

    /// What the program keeps with agent `id`, to change.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`] when `id` was despawned.
    pub fn data_mut(&mut self, id: AgentId) -> Result<&mut S, CrowdError> {
        let slot = self.slot_of(id)?;
        Ok(&mut self.data[slot])
    }

    /// Places agent `id` at `position` (metres) facing `heading` (radians about +y) from its
    /// next due update on (see the module docs): until then it is drawn, culled and read back
    /// ([`Crowd::agent`]) where it was.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`]; [`CrowdError::NotFinite`] for a position or heading that
    /// is not finite (nothing changes).
    pub fn set_transform(
        &mut self,
        id: AgentId,
        position: Vec3,
        heading: f32,
    ) -> Result<(), CrowdError> {
        self.check_alive(id)?;
        check_transform(id, position, heading)?;
        self.stage(id.index, position, heading);
        Ok(())
    }

    /// Places many agents at once: `(id, position, heading)` each, as
    /// [`Crowd::set_transform`]. Every entry is checked before any is written. The places are
    /// kept by agent index until each agent is due, so a program writing every agent every
    /// frame writes one array in order (fastest with `moves` in the order of the ids' indices).
    ///
    /// # Errors
    /// As [`Crowd::set_transform`], for the first wrong entry; nothing changes.
    pub fn set_transforms(&mut self, moves: &[(AgentId, Vec3, f32)]) -> Result<(), CrowdError> {
        // One pass without early exits (the usual case: every entry is good), so that it runs
        // as a stream; the first wrong entry is looked for only when there is one.
        let generations = &self.generations;
        let good = moves.iter().fold(true, |ok, &(id, p, h)| {
            let alive = generations.get(id.index as usize) == Some(&id.generation);
            let finite = p.x.is_finite() & p.y.is_finite() & p.z.is_finite() & h.is_finite();
            ok & alive & finite
        });
        if !good {
            for &(id, position, heading) in moves {
                self.check_alive(id)?;
                check_transform(id, position, heading)?;
            }
        }
        for &(id, position, heading) in moves {
            self.stage(id.index, position, heading);
        }
        Ok(())
    }

    /// Keeps agent `index`'s new place for its next due update.
    #[inline]
    fn stage(&mut self, index: u32, position: Vec3, heading: f32) {
        let i = index as usize;
        self.placed[i] = position.extend(heading);
        *self.placed_bits[i / 64].get_mut() |= 1 << (i % 64);
    }

    /// Scales agent `id` uniformly by `scale` (> 0).
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`]; [`CrowdError::BadScale`] (nothing changes).
    pub fn set_scale(&mut self, id: AgentId, scale: f32) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        check_scale(id, scale)?;
        self.agents[slot].scale = scale;
        self.rehot(slot);
        Ok(())
    }

    /// Tints agent `id` (RGBA8: alpha 255 multiplies its colour, 0 paints over it; see
    /// [`Spawn::tint`](crate::crowd::Spawn::tint)).
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn set_tint(&mut self, id: AgentId, tint: [u8; 4]) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.agents[slot].tint = tint;
        Ok(())
    }

    /// Hides agent `id` (drawn nowhere, still updated at the offscreen rate) or shows it
    /// again; takes effect at once.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn set_hidden(&mut self, id: AgentId, hidden: bool) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.settle();
        self.agents[slot].set_flag(flag::HIDDEN, hidden);
        self.rehot(slot);
        self.regroup(id.index);
        self.schedule.refresh();
        Ok(())
    }

    /// Agent `id` plays animation `anim` (an index into the file's animations, of its
    /// character: see [`Crowd::anim_named`]) at once, as `play` says, ending any fade.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`]; [`CrowdError::UnknownAnim`] for an animation that is not
    /// its character's; [`CrowdError::NotFinite`] for a start or rate that is not finite.
    pub fn play(&mut self, id: AgentId, anim: u32, play: &Play) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.check_anim(self.agents[slot].character, anim, play)?;
        self.agents[slot].play(anim, play, self.palette.anims());
        Ok(())
    }

    /// Agent `id` cross-fades from what it plays to `anim` over `seconds` (>= 0; 0 switches
    /// at once), `anim` played as `play` says ([`Play::in_step`] keeps a gait's legs in step).
    /// Asked for the animation it already fades to, it goes on as it was; asked back to the
    /// one it fades from, the fade turns round.
    ///
    /// # Errors
    /// As [`Crowd::play`]; [`CrowdError::NotFinite`] for `seconds` that are negative or not
    /// finite.
    pub fn cross_fade(
        &mut self,
        id: AgentId,
        anim: u32,
        seconds: f32,
        play: &Play,
    ) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.check_anim(self.agents[slot].character, anim, play)?;
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(CrowdError::NotFinite {
                agent: id,
                what: "cross-fade seconds (finite and >= 0)",
                value: seconds.to_string(),
            });
        }
        self.agents[slot].cross_fade(anim, seconds, play, self.palette.anims());
        Ok(())
    }

    /// Agent `id` plays what it plays (both sides of a fade) at `rate` seconds of animation
    /// per second from its next update on: a gait played at `speed / ground speed` covers
    /// the ground at `speed` without its feet sliding.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`]; [`CrowdError::NotFinite`] for a rate that is not finite.
    pub fn set_rate(&mut self, id: AgentId, rate: f32) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        if !rate.is_finite() {
            return Err(CrowdError::NotFinite {
                agent: id,
                what: "rate",
                value: rate.to_string(),
            });
        }
        let agent = &mut self.agents[slot];
        agent.rate_a = rate;
        agent.rate_b = rate;
        Ok(())
    }

    /// Agent `id` shows `anim` blended over what it plays at `weight` (0 to 1), held there
    /// (no fade runs) until a `play` or `cross_fade`; `anim` played as `play` says. A pose
    /// between two animations, as a test scene shows a cross-fade caught half-way.
    ///
    /// # Errors
    /// As [`Crowd::play`]; [`CrowdError::NotFinite`] for a weight outside 0 to 1.
    pub fn set_blend(
        &mut self,
        id: AgentId,
        anim: u32,
        play: &Play,
        weight: f32,
    ) -> Result<(), CrowdError> {
        let slot = self.slot_of(id)?;
        self.check_anim(self.agents[slot].character, anim, play)?;
        if !(0.0..=1.0).contains(&weight) {
            return Err(CrowdError::NotFinite {
                agent: id,
                what: "blend weight (0 to 1)",
                value: weight.to_string(),
            });
        }
        self.agents[slot].blend(anim, play, weight, self.palette.anims());
        Ok(())
    }

    /// The animation named `name` of `character`.
    ///
    /// # Errors
    /// [`CrowdError::UnknownCharacter`]; [`CrowdError::UnknownAnim`], listing the
    /// character's animations.
    pub fn anim_named(&self, character: u32, name: &str) -> Result<u32, CrowdError> {
        self.character_name(character)?;
        self.file
            .find_anim(character as usize, name)
            .map(|a| a as u32)
            .ok_or_else(|| self.unknown_anim(character, name.to_string()))
    }

    /// Whether agent `id` is alive (its generation is its index's).
    #[inline]
    fn check_alive(&self, id: AgentId) -> Result<(), CrowdError> {
        match self.generations.get(id.index as usize) {
            Some(&g) if g == id.generation => Ok(()),
            _ => Err(CrowdError::StaleAgent { agent: id }),
        }
    }

    /// The slot of agent `id`, if it is alive.
    pub(super) fn slot_of(&self, id: AgentId) -> Result<usize, CrowdError> {
        match self.generations.get(id.index as usize) {
            Some(&g) if g == id.generation => {
                Ok(self.schedule.agent_slot()[id.index as usize] as usize)
            }
            _ => Err(CrowdError::StaleAgent { agent: id }),
        }
    }

    /// Moves agent `index` to the group its flags and level say (without a refresh).
    fn regroup(&mut self, index: u32) {
        let slot = self.schedule.agent_slot()[index as usize] as usize;
        let hot = self.hot[slot];
        let impostor = (hot.level == crate::crowd::frame::assign::IMPOSTOR_LEVEL)
            .then(|| self.schedule.impostor_group(hot.character))
            .flatten();
        let g = if hot.shown == 0 {
            self.schedule.culled_group()
        } else if let Some(g) = impostor {
            g
        } else {
            let level = if hot.level == crate::crowd::frame::assign::LIVE_LEVEL {
                0
            } else {
                hot.level
            };
            self.schedule.group_of(hot.character, u32::from(level))
        };
        let Self {
            schedule,
            records,
            agents,
            hot,
            data,
            frame,
            ..
        } = self;
        schedule.move_to_group(index, g, *frame, &mut |s, t| {
            records.swap(s as usize, t as usize);
            agents.swap(s as usize, t as usize);
            hot.swap(s as usize, t as usize);
            data.swap(s as usize, t as usize);
        });
    }

    /// Culling's view of the agent in `slot` worked out again (its level and blend kept).
    fn rehot(&mut self, slot: usize) {
        let old = self.hot[slot];
        self.hot[slot] = Hot {
            level: old.level,
            blend: old.blend,
            ..Hot::of(&self.palette, &self.agents[slot], self.margin(), old.level)
        };
    }

    fn character_name(&self, character: u32) -> Result<String, CrowdError> {
        match self.file.characters().get(character as usize) {
            Some(c) => Ok(self.file.str(c.name).to_string()),
            None => Err(CrowdError::UnknownCharacter {
                file: self.file.name().to_string(),
                character,
                count: self.file.characters().len(),
            }),
        }
    }

    fn unknown_anim(&self, character: u32, anim: String) -> CrowdError {
        let known = self
            .file
            .characters()
            .get(character as usize)
            .map(|c| {
                (c.first_anim..c.first_anim + c.anim_count)
                    .filter_map(|a| self.file.anims().get(a as usize))
                    .map(|a| self.file.str(a.name).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        CrowdError::UnknownAnim {
            file: self.file.name().to_string(),
            character: self.character_name(character).unwrap_or_default(),
            anim,
            known,
        }
    }

    fn check_anim(&self, character: u32, anim: u32, play: &Play) -> Result<(), CrowdError> {
        self.character_name(character)?;
        let ours = self
            .file
            .anims()
            .get(anim as usize)
            .is_some_and(|a| a.character == character);
        if !ours {
            return Err(self.unknown_anim(character, format!("index {anim}")));
        }
        let start = match play.start {
            crate::crowd::agent::Start::Time(t) | crate::crowd::agent::Start::Phase(t) => t,
            crate::crowd::agent::Start::InStep => 0.0,
        };
        for (what, v) in [("play start", start), ("play rate", play.rate)] {
            if !v.is_finite() {
                return Err(CrowdError::NotFiniteSpawn {
                    what,
                    value: v.to_string(),
                });
            }
        }
        Ok(())
    }

    fn check_spawn(&self, s: &Spawn) -> Result<(), CrowdError> {
        self.check_anim(s.character, s.anim, &s.play)?;
        let bad = transform_fault(s.position, s.heading).or_else(|| {
            (!(s.scale.is_finite() && s.scale > 0.0))
                .then(|| ("scale (finite and > 0)", s.scale.to_string()))
        });
        match bad {
            Some((what, value)) => Err(CrowdError::NotFiniteSpawn { what, value }),
            None => Ok(()),
        }
    }
}

/// What is wrong with a place and heading, and its value: neither may be infinite or NaN.
fn transform_fault(position: Vec3, heading: f32) -> Option<(&'static str, String)> {
    if !position.is_finite() {
        Some(("position", format!("{position}")))
    } else if !heading.is_finite() {
        Some(("heading", heading.to_string()))
    } else {
        None
    }
}

fn check_transform(agent: AgentId, position: Vec3, heading: f32) -> Result<(), CrowdError> {
    match transform_fault(position, heading) {
        Some((what, value)) => Err(CrowdError::NotFinite { agent, what, value }),
        None => Ok(()),
    }
}

fn check_scale(agent: AgentId, scale: f32) -> Result<(), CrowdError> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(CrowdError::BadScale {
            agent,
            scale: scale.to_string(),
        })
    }
}
