//! What each character of a bake can play, as the crowd sees it: its gaits (looping animations
//! with a known ground speed) grouped into families by name, the locomotion family agents walk
//! and run with (for a bare model whose clips have one speed each, all of them), an optional gesture family (waving, at the same speeds) and an optional idle;
//! and, per animation, conservative model-space bounds over all its frames.
//!
//! Ground speed of a looping animation: in a format 1.1 file, the `ground_speed` the baker
//! recorded (the one speed that applies, in metres per second: see docs/FORMAT.md), and
//! none when it recorded none. A format 1.0 file records none, so
//! it is derived as before: for an animation with root motion, the distance its root travels
//! over one cycle divided by its duration; otherwise its baked parameter value when the
//! parameter is named `speed` (read as metres per second, as format 1.0 did); otherwise
//! unknown. Clamped animations have no ground speed.
//!
//! Idle: the animation named [`PaletteNames::idle`]; else the locomotion gait at speed 0; else
//! (a bare model whose only gaits walk and run, like Fox's Survey, Walk and Run) a looping
//! animation without a ground speed, preferring one whose name contains `idle`, `stand`,
//! `survey` or `breath` (in any case), else the first in the file.

use glam::Vec3;

use super::error::CrowdError;
use super::frame::lod::size_factor;
use crate::format::ThrongFile;
use crate::format::records::{AnimRecord, BoundsRecord, anim_flags};

/// Speeds closer than this (m/s) are the same speed: a gesture gait pairs with the locomotion
/// gait of the same speed. Baked parameter values are written from the same decimal numbers,
/// so they match exactly; this only absorbs root-motion rounding.
const SAME_SPEED: f32 = 1e-3;

/// The family names the crowd looks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteNames {
    /// Locomotion family: agents stand, walk and run with its gaits. Default `move`. When a
    /// character has no family of that name, the family with the most distinct speeds is used
    /// (ties: the first in the file); when it has no gaits at all, every looping animation
    /// plays standing in place.
    pub locomotion: String,
    /// Gesture family: agents wave with it, standing or walking at the locomotion speeds it
    /// was baked at. Default `greet`; absent: agents do not wave.
    pub gesture: String,
    /// Idle animation for standing. Default `halt`; absent: the locomotion gait at speed 0, else
    /// a looping animation without ground speed (see the module docs).
    pub idle: String,
}

impl Default for PaletteNames {
    fn default() -> Self {
        Self {
            locomotion: "move".into(),
            gesture: "greet".into(),
            idle: "halt".into(),
        }
    }
}

/// What the crowd knows of one animation of the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimInfo {
    /// Character it belongs to.
    pub character: u32,
    /// Length, seconds (>= 0).
    pub duration: f32,
    /// Whether it loops.
    pub looping: bool,
    /// Ground speed, model units per second (metres per second for a glTF character baked at
    /// scale 1), when known (see the module docs).
    pub speed: Option<f32>,
    /// Whether it is a gait of its character's locomotion or gesture family: cross-fades
    /// between two such start the new one at the same phase of its step cycle.
    pub synced: bool,
    /// Its step cycle, seconds: its duration, except for a gesture gait that repeats the
    /// locomotion gait of its speed a whole number of times (the mannequin waves over two
    /// walking steps): that gait's duration.
    pub cycle: f32,
    /// Smallest model-space corner over all its frames (LOD 0, all parts), model units.
    pub min: Vec3,
    /// Largest model-space corner over all its frames.
    pub max: Vec3,
    /// Its frames' bounding sphere about the vertical axis through the origin, at any
    /// heading ([`upright_sphere`] of `min` and `max`): the centre's height and the radius,
    /// model units. Kept so that a step need not work it out again.
    pub sphere: (f32, f32),
}

/// The sphere about the vertical axis through the origin that holds the box `lo..hi` turned
/// by any heading: its centre's height (the box's mid-height) and its radius (from the
/// corners' largest horizontal reach and half the height), in the box's units. Needs no
/// sine or cosine.
#[inline]
pub fn upright_sphere(lo: Vec3, hi: Vec3) -> (f32, f32) {
    let reach2 = lo.x.abs().max(hi.x.abs()).powi(2) + lo.z.abs().max(hi.z.abs()).powi(2);
    let half_height = 0.5 * (hi.y - lo.y);
    (
        0.5 * (lo.y + hi.y),
        (reach2 + half_height * half_height).sqrt(),
    )
}

impl AnimInfo {
    /// What the crowd knows of animation record `a` of `file`, its frames' bounds read from
    /// `bounds` (not yet marked synced: see [`CharacterPalette::of`]).
    fn of(file: &ThrongFile, index: usize, a: &AnimRecord, bounds: &[BoundsRecord]) -> Self {
        let looping = a.flags & anim_flags::LOOPING != 0;
        let speed = if !looping {
            None
        } else if file.anim_ext(index).is_some() {
            file.ground_speed(index)
        } else if a.flags & anim_flags::ROOT_MOTION != 0 {
            let [x, z, _] = a.cycle_motion;
            (a.duration > 0.0).then(|| (x * x + z * z).sqrt() / a.duration)
        } else if file.str(a.param) == "speed" {
            Some(a.param_value)
        } else {
            None
        }
        .filter(|s| s.is_finite() && *s >= 0.0);
        let first = a.first_bounds as usize;
        let frames = bounds
            .get(first..first.saturating_add(a.frame_count as usize))
            .unwrap_or(&[]);
        let (min, max) = frames.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), b| (lo.min(b.min.into()), hi.max(b.max.into())),
        );
        // The reader guarantees every animation has its frames' bounds; should one have
        // none, an empty box at the origin keeps the maths finite.
        let (min, max) = if min.cmple(max).all() {
            (min, max)
        } else {
            (Vec3::ZERO, Vec3::ZERO)
        };
        AnimInfo {
            character: a.character,
            duration: a.duration,
            looping,
            speed,
            synced: false,
            cycle: a.duration,
            min,
            max,
            sphere: upright_sphere(min, max),
        }
    }
}

/// A looping animation played at a known ground speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gait {
    /// Index into the file's animations.
    pub anim: u32,
    /// Ground speed, model units per second (>= 0; see [`AnimInfo::speed`]).
    pub speed: f32,
}

/// Gaits of one name, sorted by speed (distinct speeds only).
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// The animation name.
    pub name: String,
    /// Its gaits, slowest first.
    pub gaits: Vec<Gait>,
}

/// What one character can play.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterPalette {
    /// The character's name.
    pub name: String,
    /// Its height in the rest pose, metres ([`CharacterRecord::height`](crate::format::records::CharacterRecord::height)): with
    /// [`REFERENCE_HEIGHT`], what its LOD distances are multiplied by ([`size_factor`]).
    ///
    /// [`REFERENCE_HEIGHT`]: crate::crowd::frame::lod::REFERENCE_HEIGHT
    /// [`size_factor`]: crate::crowd::frame::lod::size_factor
    pub height: f32,
    /// LOD meshes in the bake (at least 1; a character without meshes counts as 1).
    pub levels: u32,
    /// Whether the bake has animated impostors of it (format 1.4).
    pub impostors: bool,
    /// All gait families, in file order.
    pub families: Vec<Family>,
    /// Name of the locomotion family chosen (empty for the standing-in-place fallback).
    pub locomotion_family: String,
    /// The locomotion gaits, slowest first: never empty.
    pub locomotion: Vec<Gait>,
    /// Per locomotion gait, the gesture animation baked at the same speed, if any.
    pub gesture: Vec<Option<u32>>,
    /// The idle animation, if any (see the module docs; standing otherwise plays the slowest
    /// locomotion gait).
    pub idle: Option<u32>,
}

impl CharacterPalette {
    /// What character `c` of `file` can play, looked up by `names`; marks the gaits of its
    /// locomotion and gesture families synced in `anims` and sets their cycles.
    ///
    /// # Errors
    /// [`CrowdError::NoAnims`] when it has no animations.
    fn of(
        file: &ThrongFile,
        c: usize,
        names: &PaletteNames,
        anims: &mut [AnimInfo],
    ) -> Result<Self, CrowdError> {
        let ch = &file.characters()[c];
        let name = file.str(ch.name).to_string();
        if ch.anim_count == 0 {
            return Err(CrowdError::NoAnims {
                file: file.name().to_string(),
                character: name,
            });
        }
        let range = ch.first_anim..ch.first_anim + ch.anim_count;
        let anim_name = |a: u32| file.str(file.anims()[a as usize].name);
        let families = families_of(range.clone(), anims, anim_name);
        let (locomotion_family, locomotion) = locomotion_of(&families, names, range.clone(), anims);
        let gesture_family = families
            .iter()
            .find(|f| f.name == names.gesture && f.name != locomotion_family);
        let gesture: Vec<Option<u32>> = locomotion
            .iter()
            .map(|g| {
                gesture_family.and_then(|f| {
                    f.gaits
                        .iter()
                        .find(|h| (h.speed - g.speed).abs() <= SAME_SPEED)
                        .map(|h| h.anim)
                })
            })
            .collect();
        let idle = range
            .clone()
            .find(|&a| anim_name(a) == names.idle)
            .or_else(|| {
                locomotion
                    .iter()
                    .find(|g| g.speed <= SAME_SPEED)
                    .map(|g| g.anim)
            })
            .or_else(|| standing_idle(range.clone(), anims, anim_name));
        if !locomotion_family.is_empty() {
            sync_phases(anims, &locomotion, &gesture);
        }
        Ok(Self {
            name,
            height: ch.height,
            levels: ch.lod_count.max(1),
            impostors: file.impostor(c).is_some(),
            families,
            locomotion_family,
            locomotion,
            gesture,
            idle,
        })
    }

    /// Index of the slowest locomotion gait faster than standing (above 0.001 m/s).
    pub fn walk(&self) -> Option<usize> {
        self.locomotion.iter().position(|g| g.speed > SAME_SPEED)
    }

    /// Index of the fastest locomotion gait, if faster than standing.
    pub fn run(&self) -> Option<usize> {
        let last = self.locomotion.len().checked_sub(1)?;
        (self.locomotion[last].speed > SAME_SPEED).then_some(last)
    }

    /// Index of a locomotion gait standing in place (speed 0), if any.
    pub fn stand(&self) -> Option<usize> {
        self.locomotion.iter().position(|g| g.speed <= SAME_SPEED)
    }
}

/// What every character of a bake can play, and every animation's bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Palette {
    characters: Vec<CharacterPalette>,
    anims: Vec<AnimInfo>,
    /// Per character, its LOD size factor ([`size_factor`] of its height): looked up for
    /// every agent stepped, so kept apart from the rest.
    sizes: Vec<f32>,
}

impl Palette {
    /// Reads the gaits, families and bounds of every character of `file`.
    ///
    /// # Errors
    /// [`CrowdError::NoCharacters`] for a bake without characters; [`CrowdError::NoAnims`]
    /// naming the file and the character that has no animations.
    pub fn new(file: &ThrongFile, names: &PaletteNames) -> Result<Self, CrowdError> {
        if file.characters().is_empty() {
            return Err(CrowdError::NoCharacters {
                file: file.name().to_string(),
            });
        }
        let bounds = file.bounds();
        let mut anims: Vec<AnimInfo> = file
            .anims()
            .iter()
            .enumerate()
            .map(|(i, a)| AnimInfo::of(file, i, a, bounds))
            .collect();
        let mut characters = Vec::with_capacity(file.characters().len());
        for c in 0..file.characters().len() {
            characters.push(CharacterPalette::of(file, c, names, &mut anims)?);
        }
        let sizes = characters.iter().map(|c| size_factor(c.height)).collect();
        Ok(Self {
            characters,
            anims,
            sizes,
        })
    }

    /// The LOD size factor of character `character` ([`size_factor`] of its height: what
    /// the LOD policy's distances are multiplied by for it, beside its agent's scale); 1 for
    /// an index outside the file.
    #[inline]
    pub fn lod_size(&self, character: u32) -> f32 {
        self.sizes.get(character as usize).copied().unwrap_or(1.0)
    }

    /// Every character, in file order.
    pub fn characters(&self) -> &[CharacterPalette] {
        &self.characters
    }

    /// Every animation of the file, in file order.
    pub fn anims(&self) -> &[AnimInfo] {
        &self.anims
    }

    /// Model-space bounds `(min, max)` of animation `anim` over all its frames (model units),
    /// or `None` for an index outside the file.
    pub fn bounds(&self, anim: u32) -> Option<(Vec3, Vec3)> {
        self.anims.get(anim as usize).map(|a| (a.min, a.max))
    }
}

/// Names that say an animation is someone standing still, for [`standing_idle`].
const IDLE_WORDS: [&str; 4] = ["idle", "stand", "survey", "breath"];

/// A looping animation of `range` without a ground speed to stand with: the first whose name
/// contains one of [`IDLE_WORDS`] (in any case), else the first; `None` when every looping
/// animation moves.
fn standing_idle<'a>(
    range: std::ops::Range<u32>,
    anims: &[AnimInfo],
    anim_name: impl Fn(u32) -> &'a str,
) -> Option<u32> {
    let still: Vec<u32> = range
        .filter(|&a| anims[a as usize].looping && anims[a as usize].speed.is_none())
        .collect();
    still
        .iter()
        .copied()
        .find(|&a| {
            let n = anim_name(a).to_lowercase();
            IDLE_WORDS.iter().any(|w| n.contains(w))
        })
        .or(still.first().copied())
}

/// The gait families among animations `range`: in file order, each keeping the first
/// animation of every distinct speed, its gaits sorted slowest first. `anim_name` names an
/// animation.
fn families_of<'a>(
    range: std::ops::Range<u32>,
    anims: &[AnimInfo],
    anim_name: impl Fn(u32) -> &'a str,
) -> Vec<Family> {
    let mut families: Vec<Family> = Vec::new();
    for a in range {
        let Some(speed) = anims[a as usize].speed else {
            continue;
        };
        let n = anim_name(a);
        let family = match families.iter().position(|f| f.name == n) {
            Some(i) => &mut families[i],
            None => {
                families.push(Family {
                    name: n.to_string(),
                    gaits: Vec::new(),
                });
                families.last_mut().expect("just pushed")
            }
        };
        if !family
            .gaits
            .iter()
            .any(|g| (g.speed - speed).abs() <= SAME_SPEED)
        {
            family.gaits.push(Gait { anim: a, speed });
        }
    }
    for f in &mut families {
        f.gaits.sort_by(|a, b| a.speed.total_cmp(&b.speed));
    }
    families
}

/// The locomotion family's name and gaits: the one `names` asks for; else, when every family
/// has one speed (a bare model's clips), all of them under an empty name; else the one with
/// the most distinct speeds (ties: the first); without families, every looping animation of
/// `range` (or every one, when none loops) standing in place, under an empty name.
fn locomotion_of(
    families: &[Family],
    names: &PaletteNames,
    range: std::ops::Range<u32>,
    anims: &[AnimInfo],
) -> (String, Vec<Gait>) {
    let named = families.iter().position(|f| f.name == names.locomotion);
    let most = families
        .iter()
        .enumerate()
        // max_by_key keeps the last of equals: reverse the index so ties go to the first.
        .max_by_key(|(i, f)| (f.gaits.len(), usize::MAX - i))
        .map(|(i, _)| i);
    // A bare model's clips are one family per name, one speed each (Fox: Walk, Run): its
    // locomotion is all of them, so agents walk and run with it as with the mannequin's
    // `move`. They are separate clips, so they share no step cycle and are not phase-synced.
    if named.is_none() && families.len() > 1 && families.iter().all(|f| f.gaits.len() == 1) {
        let mut gaits: Vec<Gait> = Vec::new();
        for g in families.iter().map(|f| f.gaits[0]) {
            if !gaits
                .iter()
                .any(|h| (h.speed - g.speed).abs() <= SAME_SPEED)
            {
                gaits.push(g);
            }
        }
        gaits.sort_by(|a, b| a.speed.total_cmp(&b.speed));
        return (String::new(), gaits);
    }
    match named.or(most) {
        Some(i) => (families[i].name.clone(), families[i].gaits.clone()),
        None => {
            let looping: Vec<Gait> = range
                .clone()
                .filter(|&a| anims[a as usize].looping)
                .map(|anim| Gait { anim, speed: 0.0 })
                .collect();
            let standing = if looping.is_empty() {
                range.map(|anim| Gait { anim, speed: 0.0 }).collect()
            } else {
                looping
            };
            (String::new(), standing)
        }
    }
}

/// Phase sync applies between gaits of the locomotion and gesture families: they share their
/// cycle (the character files bake them from one synced blend tree). Marks them synced, and
/// gives a gesture gait that repeats its locomotion gait a whole number of times that gait's
/// cycle.
fn sync_phases(anims: &mut [AnimInfo], locomotion: &[Gait], gesture: &[Option<u32>]) {
    for (g, h) in locomotion.iter().zip(gesture) {
        anims[g.anim as usize].synced = true;
        let Some(h) = *h else { continue };
        let step = anims[g.anim as usize].duration;
        let info = &mut anims[h as usize];
        info.synced = true;
        let repeats = info.duration / step;
        // Whole repeats only (1e-3: durations are stored rounded to f32).
        if step > 0.0 && repeats >= 0.999 && (repeats - repeats.round()).abs() < 1e-3 {
            info.cycle = step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::testing::{SynthAnim, synthetic_file};

    #[test]
    fn families_gaits_and_fallbacks() {
        let file = synthetic_file(&[crate::crowd::testing::standard_anims()], 3);
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let c = &p.characters()[0];
        assert_eq!(c.locomotion_family, "move");
        let speeds: Vec<f32> = c.locomotion.iter().map(|g| g.speed).collect();
        assert_eq!(speeds, [0.0, 1.2, 3.0]);
        assert_eq!((c.walk(), c.run(), c.stand()), (Some(1), Some(2), Some(0)));
        assert!(c.gesture.iter().all(Option::is_some));
        assert_eq!(
            c.idle.map(|a| file.str(file.anims()[a as usize].name)),
            Some("halt")
        );
        let families: Vec<&str> = c.families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(families, ["move", "greet", "halt"]);
        assert!(p.anims()[c.locomotion[1].anim as usize].synced);
        assert!(!p.anims()[c.idle.unwrap() as usize].synced);

        // Another locomotion name that does not exist: the family with most speeds wins, and
        // ties go to the first.
        let names = PaletteNames {
            locomotion: "stroll".into(),
            gesture: "none".into(),
            idle: "none".into(),
        };
        let p = Palette::new(&file, &names).unwrap();
        let c = &p.characters()[0];
        assert_eq!(c.locomotion_family, "move");
        assert!(c.gesture.iter().all(Option::is_none));
        assert_eq!(
            c.idle,
            Some(c.locomotion[0].anim),
            "idle falls back to speed 0"
        );

        // No gaits at all: every looping animation stands in place.
        let anims = vec![
            SynthAnim::clip("idle", true),
            SynthAnim::clip("wave", false),
            SynthAnim::clip("look", true),
        ];
        let file = synthetic_file(&[anims], 1);
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let c = &p.characters()[0];
        assert_eq!(c.locomotion_family, "");
        assert_eq!(
            c.locomotion,
            [
                Gait {
                    anim: 0,
                    speed: 0.0
                },
                Gait {
                    anim: 2,
                    speed: 0.0
                }
            ]
        );
        assert_eq!((c.walk(), c.run()), (None, None));
    }

    #[test]
    fn root_motion_speed_and_bounds_union() {
        let mut walk = SynthAnim::clip("walk", true);
        walk.root_motion = Some([0.0, 2.4]);
        walk.duration = 2.0;
        let file = synthetic_file(&[vec![walk]], 1);
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let c = &p.characters()[0];
        assert_eq!(c.locomotion_family, "walk");
        // 2.4 m over a 2 s cycle; f32 division of exact inputs: within one rounding.
        assert!((c.locomotion[0].speed - 1.2).abs() < 1e-6);
        // synthetic bounds grow by 0.01 m a frame; the union covers every frame.
        let (min, max) = p.bounds(0).unwrap();
        let frames = &file.bounds()[..file.anims()[0].frame_count as usize];
        for b in frames {
            assert!(min.cmple(b.min.into()).all() && max.cmpge(b.max.into()).all());
        }
        assert!(frames.iter().any(|b| Vec3::from(b.max) == max));
    }

    #[test]
    fn a_recorded_ground_speed_makes_a_bare_walk_a_gait_and_survey_the_idle() {
        // Fox's clips, bare: no root motion, no parameter; the bake measured the walk's and
        // the run's speeds from the feet and recorded them (format 1.1).
        let mut walk = SynthAnim::clip("Walk", true);
        walk.ground_speed = Some(0.9);
        let mut run = SynthAnim::clip("Run", true);
        run.ground_speed = Some(2.6);
        let anims = vec![SynthAnim::clip("Survey", true), walk, run];
        let file = synthetic_file(&[anims], 1);
        assert_eq!(file.container().version(), (1, 4));
        assert_eq!(file.ground_speed(1), Some(0.9));
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let speeds: Vec<Option<f32>> = p.anims().iter().map(|a| a.speed).collect();
        assert_eq!(speeds, [None, Some(0.9), Some(2.6)]);
        let c = &p.characters()[0];
        // Walk and Run are one gait each: together they are the locomotion, slowest first,
        // under no family name (no phase sync between separate clips).
        assert_eq!(c.locomotion_family, "");
        assert_eq!(
            c.locomotion,
            [
                Gait {
                    anim: 1,
                    speed: 0.9
                },
                Gait {
                    anim: 2,
                    speed: 2.6
                }
            ]
        );
        assert_eq!((c.walk(), c.run()), (Some(0), Some(1)));
        assert_eq!(c.idle, Some(0), "Survey stands still");
        // Without an idle-like name, the first looping animation without speed; a clamped
        // one never idles.
        let mut walk = SynthAnim::clip("Walk", true);
        walk.ground_speed = Some(0.9);
        let anims = vec![
            SynthAnim::clip("Jump", false),
            SynthAnim::clip("Look", true),
            SynthAnim::clip("Sniff", true),
            walk,
        ];
        let file = synthetic_file(&[anims], 1);
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        assert_eq!(p.characters()[0].idle, Some(1));
    }

    #[test]
    fn a_1_0_file_derives_speeds_from_root_motion() {
        // The committed format 1.0 fixture records no ground speed: its clip's root travels
        // 2 m in its 1 s cycle, and the state `go` plays it at paces 1 and 2.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/format-1.0.throng");
        let file = ThrongFile::open(&path).unwrap();
        assert!(file.anim_ext(0).is_none());
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let speeds: Vec<f32> = p.anims().iter().map(|a| a.speed.unwrap()).collect();
        // Root motion sampled at 4 frames/s in f32: within 1e-4 m/s of the authored speeds.
        for (got, want) in speeds.iter().zip([2.0, 2.0, 4.0]) {
            assert!((got - want).abs() < 1e-4, "{speeds:?}");
        }
    }

    #[test]
    fn a_character_without_animations_is_named() {
        let file = synthetic_file(&[crate::crowd::testing::standard_anims(), vec![]], 1);
        let e = Palette::new(&file, &PaletteNames::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "synthetic.throng: character 'c1' has no animations (a crowd agent must play one)"
        );
    }
}

#[cfg(all(test, feature = "bake"))]
mod mannequin {
    use super::*;
    use crate::crowd::testing::mannequin_bake;

    #[test]
    fn the_mannequin_walks_runs_waves_and_halts() {
        let file = mannequin_bake();
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let c = &p.characters()[0];
        let name = |a: u32| file.str(file.anims()[a as usize].name);
        assert_eq!((c.name.as_str(), c.levels), ("mannequin", 5));
        assert_eq!(c.locomotion_family, "move");
        let speeds: Vec<f32> = c.locomotion.iter().map(|g| g.speed).collect();
        assert_eq!(speeds, [0.0, 1.2, 3.0]);
        assert!(c.locomotion.iter().all(|g| name(g.anim) == "move"));
        assert!(
            c.gesture
                .iter()
                .all(|g| g.is_some_and(|a| name(a) == "greet"))
        );
        assert_eq!(c.idle.map(name), Some("halt"));
        // Waving walks two steps and runs three in its 2 s: the legs' cycle is the gait's.
        for (g, h) in c.locomotion.iter().zip(&c.gesture) {
            let gesture = p.anims()[h.unwrap() as usize];
            assert_eq!(
                gesture.cycle,
                p.anims()[g.anim as usize].duration,
                "speed {}",
                g.speed
            );
        }
        // Bounds hold a standing person: the mannequin is 1.79 m tall, feet on the ground;
        // the ranges allow for its arms and the f16 texels, not for another character.
        let (min, max) = p.bounds(c.idle.unwrap()).unwrap();
        assert!(
            min.y.abs() < 0.1 && (1.6..2.1).contains(&max.y),
            "{min} {max}"
        );
    }

    /// The LOD distances of the presets are written for the built-in mannequin: its LOD size
    /// is exactly 1, so the built-in crowd's levels are the distances as written (and the
    /// figures measured on it in docs/ hold).
    #[test]
    fn the_mannequin_is_the_lod_reference() {
        let file = mannequin_bake();
        let p = Palette::new(&file, &PaletteNames::default()).unwrap();
        let height = p.characters()[0].height;
        assert_eq!(height, file.characters()[0].height);
        assert_eq!(p.lod_size(0), 1.0, "height {height} m");
        assert_eq!(p.lod_size(7), 1.0, "a character outside the file");
    }
}
