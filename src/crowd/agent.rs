//! One agent as the runtime holds it, and the words a program drives it with: an [`AgentId`]
//! (a handle that goes stale when the agent is despawned), a [`Spawn`] (character, place,
//! what it plays) and a [`Play`] (where an animation starts, how fast it runs, whether it
//! loops or holds its last frame). What an agent does is decided by the program (or by a
//! behaviour on top, as the plaza's [`super::plaza`]); the runtime advances its animations,
//! culls it, picks its LOD level and writes its instance record when it is due.

use glam::Vec3;

use super::frame::record::Playback;
pub use super::id::AgentId;
use super::palette::AnimInfo;

/// Where a newly played animation starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// At this many seconds into it (a looping clip wraps it as it plays; a clamped one
    /// holds it within the clip).
    Time(f32),
    /// At this fraction of its duration (0 its start, 1 its end; wrapped when it loops).
    Phase(f32),
    /// In step with what the agent plays now: where both are gaits of one family (the
    /// palette's `synced` animations, e.g. walk and run of `move`), at the same phase of the
    /// step cycle, so legs stay in step through a cross-fade; otherwise at 0.
    InStep,
}

/// What an animation does at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum End {
    /// What the bake says: a looping animation loops, a clamped one holds its last frame.
    #[default]
    Clip,
    /// Loop, whatever the bake says.
    Loop,
    /// Stop on the last frame, whatever the bake says.
    Hold,
}

/// How an animation is played: where it starts, how fast, what it does at its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Where it starts. Default: at 0 s.
    pub start: Start,
    /// Seconds of animation per second of crowd time (finite; negative plays backwards,
    /// 0 stands still). Default 1.
    pub rate: f32,
    /// What it does at its end. Default: as baked.
    pub end: End,
}

impl Default for Play {
    fn default() -> Self {
        Self {
            start: Start::Time(0.0),
            rate: 1.0,
            end: End::Clip,
        }
    }
}

impl Play {
    /// From `seconds` into the animation, at rate 1, as baked at its end.
    pub fn at_time(seconds: f32) -> Self {
        Self {
            start: Start::Time(seconds),
            ..Self::default()
        }
    }

    /// From `phase` (0..1) of the animation, at rate 1, as baked at its end.
    pub fn at_phase(phase: f32) -> Self {
        Self {
            start: Start::Phase(phase),
            ..Self::default()
        }
    }

    /// In step with what the agent plays now (see [`Start::InStep`]).
    pub fn in_step() -> Self {
        Self {
            start: Start::InStep,
            ..Self::default()
        }
    }

    /// The same, at `rate` seconds of animation per second.
    pub fn with_rate(self, rate: f32) -> Self {
        Self { rate, ..self }
    }

    /// The same, ending as `end` says.
    pub fn with_end(self, end: End) -> Self {
        Self { end, ..self }
    }
}

/// A new agent: which character, where, and what it plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawn {
    /// Character index in the bake.
    pub character: u32,
    /// Position of its root on the ground, metres.
    pub position: Vec3,
    /// Heading, radians about +y: it faces `(sin h, 0, cos h)`. Default 0 (+z).
    pub heading: f32,
    /// Uniform scale (> 0). Default 1.
    pub scale: f32,
    /// Tint, RGBA8 (linear). Its alpha says how it colours the agent: 255 multiplies the base
    /// colour (white leaves it as it is); 0 paints over it, the tint's colour at the base
    /// colour's lightness, so that its hue shows on any texture (as [`LOD_COLOURS`](crate::crowd::LOD_COLOURS)
    /// do); between, a mix of the two. Default white, 255.
    pub tint: [u8; 4],
    /// The animation it plays (an index into the file's animations, of its character).
    pub anim: u32,
    /// How it plays it. Default: from 0 s, rate 1, as baked.
    pub play: Play,
    /// Whether it starts hidden. Default no.
    pub hidden: bool,
}

impl Spawn {
    /// An agent of `character` at `position` playing `anim` from its start, facing +z, at
    /// scale 1, white.
    pub fn new(character: u32, anim: u32, position: Vec3) -> Self {
        Self {
            character,
            position,
            heading: 0.0,
            scale: 1.0,
            tint: [255; 4],
            anim,
            play: Play::default(),
            hidden: false,
        }
    }

    /// The same, facing `heading` radians about +y.
    pub fn with_heading(self, heading: f32) -> Self {
        Self { heading, ..self }
    }

    /// The same, scaled by `scale`.
    pub fn with_scale(self, scale: f32) -> Self {
        Self { scale, ..self }
    }

    /// The same, tinted `tint`.
    pub fn with_tint(self, tint: [u8; 4]) -> Self {
        Self { tint, ..self }
    }

    /// The same, playing as `play` says.
    pub fn with_play(self, play: Play) -> Self {
        Self { play, ..self }
    }

    /// The time its play starts at, seconds, where it names one.
    #[cfg(test)]
    pub(crate) fn play_time(&self) -> f32 {
        match self.play.start {
            Start::Time(t) => t,
            _ => f32::NAN,
        }
    }
}

/// Bits of [`Agent::flags`].
pub(crate) mod flag {
    /// Hidden: culled by every view, still updated at the offscreen rate.
    pub const HIDDEN: u8 = 1;
    /// Despawned: its index is free; culled, never stepped.
    pub const FREE: u8 = 2;
    /// Animation A loops (else it holds its ends).
    pub const LOOP_A: u8 = 4;
    /// Animation B loops.
    pub const LOOP_B: u8 = 8;
}

/// One agent as the runtime holds it (in slot order, beside its record): its place, look and
/// playback. Read it with [`super::Crowd::agent`]; change it through the crowd's calls.
/// Heading is in radians about +y; forward is `(sin h, 0, cos h)`, the direction the model's
/// +z faces once placed (crowd.wgsl's `place_point`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    pub(crate) index: u32,
    pub(crate) character: u32,
    pub(crate) position: Vec3,
    pub(crate) heading: f32,
    pub(crate) scale: f32,
    pub(crate) tint: [u8; 4],
    pub(crate) flags: u8,
    pub(crate) anim_a: u32,
    pub(crate) time_a: f32,
    pub(crate) rate_a: f32,
    pub(crate) anim_b: u32,
    pub(crate) time_b: f32,
    pub(crate) rate_b: f32,
    /// Weight of B, in [0, 1).
    pub(crate) fade: f32,
    /// Fade per second (0 when not fading).
    pub(crate) fade_rate: f32,
    /// Seconds of animation the shown side (A, or B past half a fade) moved in its last step:
    /// the window of [`super::Crowd::events`] and [`super::Crowd::root_motion`].
    pub(crate) stepped: f32,
    /// Crowd time of its last step, seconds.
    pub(crate) last_update: f64,
}

impl Default for Agent {
    /// A free agent at the origin playing animation 0 (a placeholder for scratch space).
    fn default() -> Self {
        Self {
            index: 0,
            character: 0,
            position: Vec3::ZERO,
            heading: 0.0,
            scale: 1.0,
            tint: [255; 4],
            flags: flag::FREE,
            anim_a: 0,
            time_a: 0.0,
            rate_a: 1.0,
            anim_b: 0,
            time_b: 0.0,
            rate_b: 1.0,
            fade: 0.0,
            fade_rate: 0.0,
            stepped: 0.0,
            last_update: 0.0,
        }
    }
}

impl Agent {
    /// Its index in the crowd (see [`AgentId::index`]).
    #[inline]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Character index in the bake.
    #[inline]
    pub fn character(&self) -> u32 {
        self.character
    }

    /// Position of its root, metres.
    #[inline]
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// Heading, radians about +y.
    #[inline]
    pub fn heading(&self) -> f32 {
        self.heading
    }

    /// Unit vector it faces: `(sin h, 0, cos h)`.
    pub fn forward(&self) -> Vec3 {
        let (s, c) = self.heading.sin_cos();
        Vec3::new(s, 0.0, c)
    }

    /// Uniform scale.
    #[inline]
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// Tint, RGBA8.
    #[inline]
    pub fn tint(&self) -> [u8; 4] {
        self.tint
    }

    /// Whether it is hidden.
    #[inline]
    pub fn hidden(&self) -> bool {
        self.flags & flag::HIDDEN != 0
    }

    /// Whether it was despawned (its slot waits for a later spawn).
    #[inline]
    pub fn despawned(&self) -> bool {
        self.flags & flag::FREE != 0
    }

    /// Animation A, the one it plays (or fades from).
    #[inline]
    pub fn anim(&self) -> u32 {
        self.anim_a
    }

    /// Seconds into A.
    #[inline]
    pub fn time(&self) -> f32 {
        self.time_a
    }

    /// Animation B it fades into, with its time and B's weight (in (0, 1)), while fading.
    #[inline]
    pub fn fading_to(&self) -> Option<(u32, f32, f32)> {
        (self.fade_rate > 0.0).then_some((self.anim_b, self.time_b, self.fade))
    }

    /// Seconds left of the cross-fade it is in (0 when not fading).
    pub fn fade_left(&self) -> f32 {
        if self.fade_rate > 0.0 {
            (1.0 - self.fade) / self.fade_rate
        } else {
            0.0
        }
    }

    /// B's weight now and its change per second: the speed a behaviour moves an agent at
    /// through a fade is blended by it.
    #[inline]
    pub fn fade(&self) -> (f32, f32) {
        (self.fade, self.fade_rate)
    }

    /// Crowd time of its last update, seconds.
    #[inline]
    pub fn last_update(&self) -> f64 {
        self.last_update
    }

    /// What it plays: its animations, their times and the fade, for
    /// [`Playback::frame_pose`].
    #[inline]
    pub fn playback(&self) -> Playback {
        Playback {
            anim_a: self.anim_a,
            time_a: self.time_a,
            anim_b: self.anim_b,
            time_b: self.time_b,
            fade: self.fade,
        }
    }

    /// The agent `spawn` makes at index `index`, crowd time `now`; `anims` are the file's
    /// animations' facts (`spawn.anim` among them).
    pub(crate) fn spawned(spawn: &Spawn, index: u32, anims: &[AnimInfo], now: f64) -> Self {
        let mut a = Self {
            index,
            character: spawn.character,
            position: spawn.position,
            heading: spawn.heading,
            scale: spawn.scale,
            tint: spawn.tint,
            flags: if spawn.hidden { flag::HIDDEN } else { 0 },
            last_update: now,
            ..Self::default()
        };
        a.play(spawn.anim, &spawn.play, anims);
        a
    }

    /// Plays `anim` at once as `play` says, ending any fade (facts from `anims`, `anim`
    /// among them).
    pub(crate) fn play(&mut self, anim: u32, play: &Play, anims: &[AnimInfo]) {
        let Some((time, looping)) = self.started(anim, play, anims) else {
            return;
        };
        self.time_a = time;
        self.anim_a = anim;
        self.rate_a = play.rate;
        self.set_loop(flag::LOOP_A, looping);
        self.end_fade_on_a();
    }

    /// Cross-fades to `anim` over `seconds` (0: at once), B played as `play` says (facts
    /// from `anims`, `anim` among them). A fade running already keeps the side that
    /// dominates as A (or, asked back to A, turns round); asked for what it fades to, it goes
    /// on as it was.
    pub(crate) fn cross_fade(&mut self, anim: u32, seconds: f32, play: &Play, anims: &[AnimInfo]) {
        if anims.get(anim as usize).is_none() {
            return;
        }
        let fading = self.fade_rate > 0.0;
        if fading && anim == self.anim_b {
            return;
        }
        if fading && anim == self.anim_a {
            std::mem::swap(&mut self.anim_a, &mut self.anim_b);
            std::mem::swap(&mut self.time_a, &mut self.time_b);
            std::mem::swap(&mut self.rate_a, &mut self.rate_b);
            let (la, lb) = (self.loops(flag::LOOP_A), self.loops(flag::LOOP_B));
            self.set_loop(flag::LOOP_A, lb);
            self.set_loop(flag::LOOP_B, la);
            self.fade = 1.0 - self.fade;
            return;
        }
        if fading && self.fade >= 0.5 {
            self.anim_a = self.anim_b;
            self.time_a = self.time_b;
            self.rate_a = self.rate_b;
            self.set_loop(flag::LOOP_A, self.loops(flag::LOOP_B));
        }
        if anim == self.anim_a {
            self.end_fade_on_a();
            return;
        }
        let Some(start) = self.started(anim, play, anims) else {
            return;
        };
        self.set_b(anim, start, play.rate);
        self.fade = 0.0;
        if seconds > 0.0 {
            self.fade_rate = 1.0 / seconds;
        } else {
            self.finish_fade();
        }
    }

    /// Shows `anim` over what it plays at `weight` (0 to 1), held there (no fade runs), B
    /// played as `play` says (facts from `anims`, `anim` among them).
    pub(crate) fn blend(&mut self, anim: u32, play: &Play, weight: f32, anims: &[AnimInfo]) {
        let Some(start) = self.started(anim, play, anims) else {
            return;
        };
        self.set_b(anim, start, play.rate);
        self.fade = weight;
        self.fade_rate = 0.0;
    }

    /// Where `anim` (facts from `anims`) starts as `play` says, in step with A where asked,
    /// and whether it loops; `None` for an animation past `anims`.
    fn started(&self, anim: u32, play: &Play, anims: &[AnimInfo]) -> Option<(f32, bool)> {
        let info = anims.get(anim as usize)?;
        let looping = loops(play.end, info);
        let now = anims.get(self.anim_a as usize);
        Some((
            start_time(play.start, self.time_a, now, info, looping),
            looping,
        ))
    }

    /// Side B becomes `anim` from `time`, looping or not, at `rate`.
    fn set_b(&mut self, anim: u32, (time, looping): (f32, bool), rate: f32) {
        self.anim_b = anim;
        self.time_b = time;
        self.rate_b = rate;
        self.set_loop(flag::LOOP_B, looping);
    }

    /// Advances its animations by `dt` seconds of crowd time (durations from `anims`),
    /// moving the fade on and ending it when it is complete.
    #[inline(always)]
    pub(crate) fn advance(&mut self, anims: &[AnimInfo], dt: f32) {
        if dt == 0.0 {
            // No time: nothing moves (a time given as it was stays to the bit).
            self.stepped = 0.0;
            return;
        }
        let duration = |a: u32| anims.get(a as usize).map_or(0.0, |i| i.duration);
        let step_a = dt * self.rate_a;
        self.time_a = advance(
            self.time_a,
            step_a,
            duration(self.anim_a),
            self.loops(flag::LOOP_A),
        );
        self.stepped = step_a;
        // B runs while fading, and while held at a weight (`set_blend`).
        if self.fade_rate > 0.0 || self.fade > 0.0 {
            let step_b = dt * self.rate_b;
            self.time_b = advance(
                self.time_b,
                step_b,
                duration(self.anim_b),
                self.loops(flag::LOOP_B),
            );
            self.fade += self.fade_rate * dt;
            if self.fade >= 0.5 {
                self.stepped = step_b;
            }
            if self.fade >= 1.0 {
                self.finish_fade();
            }
        } else {
            self.time_b = self.time_a;
        }
    }

    /// The animation shown most (A, or B past half a fade), its time and whether it loops:
    /// what [`super::Crowd::events`] reads.
    pub(crate) fn shown(&self) -> (u32, f32, bool) {
        if self.fade >= 0.5 {
            (self.anim_b, self.time_b, self.loops(flag::LOOP_B))
        } else {
            (self.anim_a, self.time_a, self.loops(flag::LOOP_A))
        }
    }

    #[inline]
    fn loops(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    fn set_loop(&mut self, bit: u8, on: bool) {
        self.flags = (self.flags & !bit) | if on { bit } else { 0 };
    }

    pub(crate) fn set_flag(&mut self, bit: u8, on: bool) {
        self.set_loop(bit, on);
    }

    fn end_fade_on_a(&mut self) {
        self.anim_b = self.anim_a;
        self.time_b = self.time_a;
        self.rate_b = self.rate_a;
        self.set_loop(flag::LOOP_B, self.loops(flag::LOOP_A));
        self.fade = 0.0;
        self.fade_rate = 0.0;
    }

    fn finish_fade(&mut self) {
        self.anim_a = self.anim_b;
        self.time_a = self.time_b;
        self.rate_a = self.rate_b;
        self.set_loop(flag::LOOP_A, self.loops(flag::LOOP_B));
        self.fade = 0.0;
        self.fade_rate = 0.0;
    }
}

/// Whether an animation with facts `info` played to `end` loops.
fn loops(end: End, info: &AnimInfo) -> bool {
    match end {
        End::Clip => info.looping,
        End::Loop => true,
        End::Hold => false,
    }
}

/// Where an animation (facts `info`) starts as `start` says, in step with `now_time` seconds
/// into the animation of facts `now` where asked.
fn start_time(
    start: Start,
    now_time: f32,
    now: Option<&AnimInfo>,
    info: &AnimInfo,
    looping: bool,
) -> f32 {
    let d = info.duration;
    let t = match start {
        // As given: the frames shown are the same, and a time given is kept to the bit.
        Start::Time(t) if looping && t.is_finite() => return t,
        Start::Time(t) => t,
        Start::Phase(p) => p * d,
        Start::InStep => match now {
            Some(a) if a.synced && info.synced && a.cycle > 0.0 && info.cycle > 0.0 => {
                // Of B's repeats of its step cycle, the one A's time falls in.
                let phase = (now_time / a.cycle).rem_euclid(1.0);
                let repeat = (now_time.rem_euclid(d) / info.cycle).floor();
                (repeat + phase) * info.cycle
            }
            _ => 0.0,
        },
    };
    advance(0.0, t, d, looping)
}

/// Time `t` seconds moved on by `dt` in an animation of `duration` seconds: wrapped into
/// `[0, duration)` when it loops (kept small, for precision), held within `[0, duration]`
/// otherwise. A subtraction in the usual case of less than one more lap.
#[inline(always)]
pub(crate) fn advance(t: f32, dt: f32, duration: f32, looping: bool) -> f32 {
    let x = t + dt;
    if duration.is_nan() || duration <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    if !looping {
        return x.clamp(0.0, duration);
    }
    let r = if (0.0..duration).contains(&x) {
        x
    } else if x >= duration && x < 2.0 * duration {
        x - duration
    } else {
        x.rem_euclid(duration)
    };
    // Rounding can land exactly on the duration.
    if r < duration { r } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(duration: f32, looping: bool, synced: bool, cycle: f32) -> AnimInfo {
        AnimInfo {
            character: 0,
            duration,
            looping,
            speed: None,
            synced,
            cycle,
            min: Vec3::ZERO,
            max: Vec3::ONE,
            sphere: (0.5, 1.0),
        }
    }

    #[test]
    fn advance_wraps_loops_and_holds_clamped_ends() {
        assert_eq!(advance(0.25, 0.5, 1.0, true), 0.75);
        assert_eq!(advance(0.75, 0.5, 1.0, true), 0.25);
        assert_eq!(advance(0.25, -0.5, 1.0, true), 0.75);
        assert_eq!(advance(0.0, 10.25, 1.0, true), 0.25);
        assert_eq!(advance(0.75, 0.5, 1.0, false), 1.0);
        assert_eq!(advance(0.25, -0.5, 1.0, false), 0.0);
        assert_eq!(advance(0.5, f32::NAN, 1.0, true), 0.0);
        assert_eq!(advance(0.5, 0.1, 0.0, true), 0.0);
        // Exactly one duration on: back at 0, never at the duration itself.
        assert_eq!(advance(0.5, 0.5, 1.0, true), 0.0);
    }

    #[test]
    fn a_fade_runs_its_seconds_and_turns_round_when_asked_back() {
        let (walk, run) = (
            info(1.0, true, true, 1.0),
            info(2.0 / 3.0, true, true, 2.0 / 3.0),
        );
        let anims = [walk, run];
        let mut a = Agent::spawned(&Spawn::new(0, 0, Vec3::ZERO), 0, &anims, 0.0);
        a.time_a = 0.25;
        a.cross_fade(1, 0.4, &Play::in_step(), &anims);
        // In step: a quarter of walk's cycle is a quarter of run's.
        assert!((a.time_b - 0.25 * 2.0 / 3.0).abs() < 1e-6, "{}", a.time_b);
        a.advance(&anims, 0.1);
        assert!((a.fade - 0.25).abs() < 1e-6);
        // Asked back to walk: the fade turns round, walk dominant again.
        a.cross_fade(0, 0.4, &Play::in_step(), &anims);
        assert_eq!((a.anim_a, a.anim_b), (1, 0));
        assert!((a.fade - 0.75).abs() < 1e-6);
        a.advance(&anims, 0.1);
        assert_eq!((a.anim_a, a.fade_rate), (0, 0.0), "done after 0.4 s in all");
    }
}
