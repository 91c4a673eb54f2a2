//! One member of the crowd: where it is and where it faces, how big and what colour, what it is
//! doing (stand, walk, run, wave) and for how long, and the animations it shows (A cross-faded
//! into B). Agent `i` of a crowd seeded with `s` starts from its own generator, seeded by
//! `(s, i)` only, so adding agents never changes the ones already there.

use std::f32::consts::TAU;

use glam::Vec3;

use super::palette::{CharacterPalette, Palette};
use super::record::{Playback, rgba8};
use super::rng::Rng;

/// What an agent is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Behaviour {
    /// Standing: the idle animation (or the locomotion gait at speed 0).
    #[default]
    Stand,
    /// Walking: the slowest locomotion gait faster than standing.
    Walk,
    /// Running: the fastest locomotion gait.
    Run,
    /// Waving: the gesture gait, standing or at walking speed.
    Wave,
}

/// One agent. Heading is in radians about +y; forward is `(sin h, 0, cos h)`, the direction
/// the model's +z faces once placed (crowd.wgsl's `place_point`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    /// Its index in the crowd (its identity: agents are stored in slot order).
    pub index: u32,
    /// Character index in the bake.
    pub character: u32,
    /// Position, metres (y: the height of the ground under it, 0 on the flat plaza).
    pub position: Vec3,
    /// Heading, radians about +y, in [−π, π).
    pub heading: f32,
    /// Heading drift, radians per second (a slow random walk, within ±[`MAX_DRIFT`]).
    pub drift: f32,
    /// Ground speed of the last step, metres per second (scale included).
    pub speed: f32,
    /// Uniform scale, in [0.9, 1.1).
    pub scale: f32,
    /// Tint, RGBA8 (sRGB-ish pleasant colours; alpha 255).
    pub tint: [u8; 4],
    /// What it is doing.
    pub behaviour: Behaviour,
    /// Seconds left before it chooses again.
    pub timer: f32,
    /// Animation A (index into the file's animations).
    pub anim_a: u32,
    /// Seconds into A.
    pub time_a: f32,
    /// A's ground speed, metres per second of an unscaled character.
    pub speed_a: f32,
    /// Animation B, faded in by `fade` (equal to A when not fading).
    pub anim_b: u32,
    /// Seconds into B.
    pub time_b: f32,
    /// B's ground speed, metres per second of an unscaled character.
    pub speed_b: f32,
    /// Weight of B, in [0, 1).
    pub fade: f32,
    /// Fade per second (0 when not fading).
    pub fade_rate: f32,
    /// Crowd time of its last update, seconds.
    pub last_update: f64,
    pub(crate) rng: Rng,
}

/// Largest heading drift, radians per second.
pub const MAX_DRIFT: f32 = 0.5;

/// Behaviours and how likely each is chosen (they are redrawn until one the character can play
/// comes up; standing always can).
const CHOICES: [(Behaviour, f32); 4] = [
    (Behaviour::Stand, 0.2),
    (Behaviour::Walk, 0.45),
    (Behaviour::Run, 0.15),
    (Behaviour::Wave, 0.2),
];

/// A behaviour's duration range, seconds.
fn duration_range(b: Behaviour) -> (f32, f32) {
    match b {
        Behaviour::Stand => (2.0, 6.0),
        Behaviour::Walk => (3.0, 9.0),
        Behaviour::Run => (2.0, 5.0),
        Behaviour::Wave => (2.0, 5.0),
    }
}

/// The animation and ground speed (unscaled, m/s) of `b` for character `c`, or `None` when it
/// cannot play it. `walking` chooses between waving standing and waving while walking.
pub fn target(
    c: &CharacterPalette,
    palette: &Palette,
    b: Behaviour,
    walking: bool,
) -> Option<(u32, f32)> {
    let gait = |i: usize| c.locomotion.get(i).map(|g| (g.anim, g.speed));
    match b {
        Behaviour::Stand => match c.idle {
            Some(a) => Some((
                a,
                palette
                    .anims()
                    .get(a as usize)
                    .and_then(|i| i.speed)
                    .unwrap_or(0.0),
            )),
            None => gait(c.stand().unwrap_or(0)),
        },
        Behaviour::Walk => gait(c.walk()?),
        Behaviour::Run => gait(c.run()?),
        Behaviour::Wave => {
            let i = if walking { c.walk()? } else { c.stand()? };
            let anim = (*c.gesture.get(i)?)?;
            Some((anim, c.locomotion[i].speed))
        }
    }
}

/// Draws the next behaviour of an agent of `c`: what, its animation and speed, and how long.
pub fn choose(
    c: &CharacterPalette,
    palette: &Palette,
    rng: &mut Rng,
) -> (Behaviour, u32, f32, f32) {
    for _ in 0..8 {
        let mut u = rng.unit();
        let mut pick = Behaviour::Stand;
        for (b, p) in CHOICES {
            pick = b;
            if u < p {
                break;
            }
            u -= p;
        }
        let walking = rng.unit() < 0.5;
        if let Some((anim, speed)) = target(c, palette, pick, walking) {
            let (lo, hi) = duration_range(pick);
            return (pick, anim, speed, rng.range(lo, hi));
        }
    }
    let (anim, speed) = target(c, palette, Behaviour::Stand, false).unwrap_or((0, 0.0));
    let (lo, hi) = duration_range(Behaviour::Stand);
    (Behaviour::Stand, anim, speed, rng.range(lo, hi))
}

/// A pleasant colour: any hue, soft saturation, fairly bright.
fn pleasant(rng: &mut Rng) -> [u8; 4] {
    let (h, s, v) = (rng.unit() * 6.0, rng.range(0.3, 0.6), rng.range(0.75, 0.95));
    let f = h.fract();
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let rgb = match h as u32 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    };
    rgba8([rgb[0], rgb[1], rgb[2], 1.0])
}

impl Agent {
    /// Agent `index` of a crowd seeded with `seed` on a plaza of half-size `half` metres,
    /// created at crowd time `now` seconds: a place on the plaza, heading, scale, tint, a
    /// behaviour part-way through, and its animation at a random phase. Depends on nothing
    /// else.
    pub fn spawn(palette: &Palette, seed: u64, index: u32, half: f32, now: f64) -> Self {
        let mut rng = Rng::for_agent(seed, u64::from(index));
        let characters = palette.characters();
        let character = index % characters.len().max(1) as u32;
        let position = Vec3::new(rng.range(-half, half), 0.0, rng.range(-half, half));
        let heading = rng.range(-0.5, 0.5) * TAU;
        let scale = rng.range(0.9, 1.1);
        let tint = pleasant(&mut rng);
        let (behaviour, anim, speed, duration) = match characters.get(character as usize) {
            Some(c) => choose(c, palette, &mut rng),
            None => (Behaviour::Stand, 0, 0.0, 1.0),
        };
        let length = palette
            .anims()
            .get(anim as usize)
            .map_or(0.0, |a| a.duration);
        let time = rng.unit() * length;
        Self {
            index,
            character,
            position,
            heading,
            drift: 0.0,
            speed: speed * scale,
            scale,
            tint,
            behaviour,
            timer: rng.unit() * duration,
            anim_a: anim,
            time_a: time,
            speed_a: speed,
            anim_b: anim,
            time_b: time,
            speed_b: speed,
            fade: 0.0,
            fade_rate: 0.0,
            last_update: now,
            rng,
        }
    }

    /// Unit vector it faces: `(sin h, 0, cos h)`.
    pub fn forward(&self) -> Vec3 {
        let (s, c) = self.heading.sin_cos();
        Vec3::new(s, 0.0, c)
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
}

impl Default for Agent {
    /// An agent at the origin playing animation 0, standing (a placeholder for scratch space).
    fn default() -> Self {
        Self {
            index: 0,
            character: 0,
            position: Vec3::ZERO,
            heading: 0.0,
            drift: 0.0,
            speed: 0.0,
            scale: 1.0,
            tint: [255; 4],
            behaviour: Behaviour::Stand,
            timer: 0.0,
            anim_a: 0,
            time_a: 0.0,
            speed_a: 0.0,
            anim_b: 0,
            time_b: 0.0,
            speed_b: 0.0,
            fade: 0.0,
            fade_rate: 0.0,
            last_update: 0.0,
            rng: Rng::new(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::palette::PaletteNames;
    use crate::crowd::testing::{standard_anims, synthetic_file};

    #[test]
    fn spawning_depends_only_on_seed_and_index() {
        let file = synthetic_file(&[standard_anims()], 3);
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let a = Agent::spawn(&p, 9, 17, 20.0, 0.0);
        assert_eq!(a, Agent::spawn(&p, 9, 17, 20.0, 0.0));
        assert_ne!(a, Agent::spawn(&p, 10, 17, 20.0, 0.0));
        assert_ne!(a, Agent::spawn(&p, 9, 18, 20.0, 0.0));
        let mut seen = std::collections::HashSet::new();
        for i in 0..500 {
            let a = Agent::spawn(&p, 1, i, 20.0, 0.0);
            assert!(
                a.position.x.abs() <= 20.0 && a.position.z.abs() <= 20.0 && a.position.y == 0.0
            );
            assert!((0.9..1.1).contains(&a.scale));
            assert!(a.heading.abs() <= std::f32::consts::PI);
            // The gait speed of what it plays is the speed the palette gives that animation.
            let info = p.anims()[a.anim_a as usize];
            assert_eq!(a.speed_a, info.speed.unwrap_or(0.0));
            seen.insert(a.behaviour);
        }
        assert_eq!(seen.len(), 4, "every behaviour comes up: {seen:?}");
    }

    #[test]
    fn forward_matches_the_shader_placement() {
        // crowd.wgsl place_point: (c x + s z, y, −s x + c z) for model point (x, y, z); the
        // model's +z (0, 0, 1) lands on (s, 0, c).
        let mut a = Agent::default();
        for h in [-2.5f32, -0.3, 0.0, 0.7, 1.9, 3.0] {
            a.heading = h;
            let (s, c) = h.sin_cos();
            let (x, z) = (0.0, 1.0);
            let placed = Vec3::new(c * x + s * z, 0.0, -s * x + c * z);
            // Same sin and cos on both sides: exact.
            assert_eq!(a.forward(), placed);
        }
    }
}
