//! The plaza's wandering: what each of its agents is doing (stand, walk, run, wave) and for
//! how long, its heading drift and the ground speeds of what it plays ([`Wander`], kept with
//! the agent as its [`crate::crowd::AgentData`]), and how a new agent and a new behaviour are drawn.
//! Agent `i` of a plaza seeded with `s` starts from its own generator, seeded by `(s, i)`
//! only, so adding agents never changes the ones already there.

use std::f32::consts::TAU;

use glam::Vec3;

use super::rng::Rng;
use crate::crowd::agent::{Play, Spawn};
use crate::crowd::frame::record::rgba8;
use crate::crowd::palette::{CharacterPalette, Palette};

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

/// What the plaza keeps with each of its agents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wander {
    /// Its index in the plaza (its identity: agent `i` of a seed is always the same).
    pub index: u32,
    /// What it is doing.
    pub behaviour: Behaviour,
    /// Seconds left before it chooses again.
    pub timer: f32,
    /// Heading drift, radians per second (a slow random walk, within ±[`MAX_DRIFT`]).
    pub drift: f32,
    /// Ground speed of the last step, metres per second (scale included).
    pub speed: f32,
    /// Ground speed of animation A, metres per second of an unscaled character.
    pub speed_a: f32,
    /// Ground speed of animation B while fading (A's otherwise).
    pub speed_b: f32,
    /// Its own generator.
    pub rng: Rng,
}

impl Wander {
    /// Agent `index` of a plaza seeded with `seed` of half-size `half` metres: where it
    /// starts (heading, scale, tint, a behaviour part-way through, its animation at a random
    /// phase) and its wander state. Depends on nothing else.
    pub fn spawn(palette: &Palette, seed: u64, index: u32, half: f32) -> (Spawn, Self) {
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
        let timer = rng.unit() * duration;
        let spawn = Spawn {
            heading,
            scale,
            tint,
            play: Play::at_time(time),
            ..Spawn::new(character, anim, position)
        };
        let wander = Self {
            index,
            behaviour,
            timer,
            drift: 0.0,
            speed: speed * scale,
            speed_a: speed,
            speed_b: speed,
            rng,
        };
        (spawn, wander)
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
        let a = Wander::spawn(&p, 9, 17, 20.0);
        assert_eq!(a, Wander::spawn(&p, 9, 17, 20.0));
        assert_ne!(a, Wander::spawn(&p, 10, 17, 20.0));
        assert_ne!(a, Wander::spawn(&p, 9, 18, 20.0));
        let mut seen = std::collections::HashSet::new();
        for i in 0..500 {
            let (s, w) = Wander::spawn(&p, 1, i, 20.0);
            assert!(
                s.position.x.abs() <= 20.0 && s.position.z.abs() <= 20.0 && s.position.y == 0.0
            );
            assert!((0.9..1.1).contains(&s.scale));
            assert!(s.heading.abs() <= std::f32::consts::PI);
            // The gait speed of what it plays is the speed the palette gives that animation.
            let info = p.anims()[s.anim as usize];
            assert_eq!(w.speed_a, info.speed.unwrap_or(0.0));
            seen.insert(w.behaviour);
        }
        assert_eq!(seen.len(), 4, "every behaviour comes up: {seen:?}");
    }
}
