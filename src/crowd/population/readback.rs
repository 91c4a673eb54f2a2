//! What a program reads back of an agent after an update: its LOD level, whether it is drawn,
//! the event markers its animation crossed in its last step, the root motion of that step,
//! and its animation's ground speed.
//!
//! Events and root motion are of the animation shown most (A, or B past half a fade), over
//! the agent's last step: the window from its time before that step to its time after it.
//! An agent not due in the last update took no step in it, so it reports no events and no
//! motion for it; the next update it is due in reports everything since its step before
//! (steps are never longer than [`super::MAX_STEP`]). Markers follow docs/FORMAT.md's rule
//! ("Events"): half-open windows, once per lap of a looping animation, a marker at the end of
//! a clamped one once when it is reached.

use glam::{Vec2, Vec3};

use super::{AgentData, Crowd};
use crate::crowd::agent::AgentId;
use crate::crowd::error::CrowdError;
use crate::format::ThrongFile;
use crate::format::records::anim_flags;

/// Root motion of an agent's last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootMotion {
    /// How far its root moved, world metres (its heading and scale applied): add it to its
    /// position to follow the animation.
    pub translation: Vec3,
    /// How far its root turned, radians about +y: add it to its heading.
    pub turn: f32,
}

impl<S: AgentData> Crowd<S> {
    /// LOD level agent `id` is drawn at when visible, as of the last update that assigned
    /// levels (0 before the first, and in the live tier).
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn level(&self, id: AgentId) -> Result<u32, CrowdError> {
        let level = self.hot[self.slot_of(id)?].level;
        Ok(if level == crate::crowd::frame::assign::LIVE_LEVEL {
            0
        } else {
            u32::from(level)
        })
    }

    /// Whether agent `id` is drawn: not hidden, not culled by the last update's view.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn is_visible(&self, id: AgentId) -> Result<bool, CrowdError> {
        self.slot_of(id)?;
        Ok(self.schedule.group_of_agent(id.index) < self.schedule.culled_group())
    }

    /// Whether agent `id` took a step in the last update (its record was written).
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn was_due(&self, id: AgentId) -> Result<bool, CrowdError> {
        let a = &self.agents[self.slot_of(id)?];
        Ok(a.last_update == self.time && self.frame > 0)
    }

    /// The event markers agent `id`'s animation crossed in its step of the last update (none
    /// when it was not due): `report(name, count)` once per marker, `count` the times it was
    /// crossed (more than 1 only for a step longer than a lap). See the module docs.
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn events(&self, id: AgentId, mut report: impl FnMut(&str, u32)) -> Result<(), CrowdError> {
        if !self.was_due(id)? {
            return Ok(());
        }
        let a = &self.agents[self.slot_of(id)?];
        let (anim, time, looping) = a.shown();
        crossed(&self.file, anim, time, a.stepped, looping, |i, n| {
            report(self.file.str(self.file.events()[i].name), n);
        });
        Ok(())
    }

    /// The root motion of agent `id`'s animation over its step of the last update (zero when
    /// it was not due, or its animation has none: see [`crate::format`]'s ROOT_MOTION).
    ///
    /// # Errors
    /// [`CrowdError::StaleAgent`].
    pub fn root_motion(&self, id: AgentId) -> Result<RootMotion, CrowdError> {
        if !self.was_due(id)? {
            return Ok(RootMotion::default());
        }
        let a = &self.agents[self.slot_of(id)?];
        let (anim, time, looping) = a.shown();
        let (local, turn) = motion_over(&self.file, anim, time, a.stepped, looping);
        // The root's frame at the step's start is the agent's heading before the turn.
        let h = a.heading;
        let (s, c) = h.sin_cos();
        let world = Vec3::new(local.x * c + local.y * s, 0.0, -local.x * s + local.y * c);
        Ok(RootMotion {
            translation: world * a.scale,
            turn,
        })
    }

    /// Ground speed of animation `anim`, metres per second of an unscaled character, where
    /// the bake knows it (see [`crate::crowd::palette`]): move an agent playing it at this
    /// speed times its scale and its rate, and its feet do not slide.
    pub fn ground_speed(&self, anim: u32) -> Option<f32> {
        self.palette.anims().get(anim as usize)?.speed
    }
}

/// The markers of animation `anim` crossed by a step of `step` seconds that ended at `end`
/// seconds into it: `report(event index, times)`.
pub(crate) fn crossed(
    file: &ThrongFile,
    anim: u32,
    end: f32,
    step: f32,
    looping: bool,
    mut report: impl FnMut(usize, u32),
) {
    let Some(a) = file.anims().get(anim as usize) else {
        return;
    };
    let d = a.duration;
    if !(d > 0.0 && step.is_finite() && end.is_finite()) || step == 0.0 {
        return;
    }
    // Backwards, the window is walked from its other end.
    let (lo, hi) = if step > 0.0 {
        (end - step, end)
    } else {
        (end, end - step)
    };
    let first = a.first_event as usize;
    let events = file
        .events()
        .get(first..first + a.event_count as usize)
        .unwrap_or(&[]);
    for (k, e) in events.iter().enumerate() {
        let m = e.time;
        let n = if looping {
            // Laps k with lo <= m + k d < hi.
            (((hi - m) / d).ceil() - ((lo - m) / d).ceil()).max(0.0) as u32
        } else {
            u32::from((lo <= m && m < hi) || (m >= d && hi >= d && lo < d))
        };
        if n > 0 {
            report(first + k, n);
        }
    }
}

/// Root motion of animation `anim` at `t` seconds (within its duration): travel on the
/// ground (model x, z) and turn, from frame 0, interpolated as the frames are.
fn motion_at(file: &ThrongFile, anim: u32, t: f32) -> (Vec2, f32) {
    let Some(a) = file.anims().get(anim as usize) else {
        return (Vec2::ZERO, 0.0);
    };
    if a.flags & anim_flags::ROOT_MOTION == 0 {
        return (Vec2::ZERO, 0.0);
    }
    let (f0, f1, w) = file.frames_at(anim as usize, t);
    let n = a.frame_count;
    let record = |f: u32, after: bool| {
        if after && f == 0 && n > 0 {
            // After the last frame of a loop: the whole cycle.
            let [x, z, yaw] = a.cycle_motion;
            (Vec2::new(x, z), yaw)
        } else {
            file.motion()
                .get((a.first_motion + f) as usize)
                .map_or((Vec2::ZERO, 0.0), |m| (Vec2::new(m.x, m.z), m.yaw))
        }
    };
    let (p0, y0) = record(f0, false);
    let (p1, y1) = record(f1, f1 < f0);
    (p0.lerp(p1, w), y0 + (y1 - y0) * w)
}

/// `v` turned by `angle` about +y (docs/FORMAT.md's R(θ)).
fn turned(v: Vec2, angle: f32) -> Vec2 {
    let (s, c) = angle.sin_cos();
    Vec2::new(v.x * c + v.y * s, -v.x * s + v.y * c)
}

/// Root motion of animation `anim` over a step of `step` seconds ending at `end`: travel in
/// the root's frame at the step's start, and turn. A looping animation adds whole cycles
/// for each lap the step crosses.
fn motion_over(file: &ThrongFile, anim: u32, end: f32, step: f32, looping: bool) -> (Vec2, f32) {
    let Some(a) = file.anims().get(anim as usize) else {
        return (Vec2::ZERO, 0.0);
    };
    let d = a.duration;
    if !(d > 0.0 && step.is_finite() && step > 0.0) || a.flags & anim_flags::ROOT_MOTION == 0 {
        return (Vec2::ZERO, 0.0);
    }
    let start = end - step;
    // Pieces [from, to] within one lap each, walked forwards; travel gathered in the frame
    // at the step's start.
    let (mut travel, mut turn) = (Vec2::ZERO, 0.0f32);
    let mut add = |from: f32, to: f32| {
        let (p0, y0) = motion_at(file, anim, from);
        let (p1, y1) = if looping && to >= d {
            let [x, z, yaw] = a.cycle_motion;
            (Vec2::new(x, z), yaw)
        } else {
            motion_at(file, anim, to)
        };
        // The piece's travel in the frame at its own start (turned back by the root's yaw
        // there), then into the step's frame by the turn so far.
        travel += turned(turned(p1 - p0, -y0), turn);
        turn += y1 - y0;
    };
    if !looping {
        add(start.max(0.0), end);
        return (travel, turn);
    }
    let lap = (start / d).floor();
    let (mut from, mut last) = (start - lap * d, end - lap * d);
    // A step is at most MAX_STEP seconds, so a few laps at most; the bound only guards
    // against a clip of a few microseconds.
    for _ in 0..64 {
        if last <= d {
            break;
        }
        add(from, d);
        from = 0.0;
        last -= d;
    }
    add(from, last.min(d));
    (travel, turn)
}
