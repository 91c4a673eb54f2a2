//! The baker: [`bake`] orchestrates the stages of a bake — the input key (`inputs`), loading
//! the characters (`load`), planning what to bake (`plan`), sampling every animation with its
//! root motion and events (`sample`, `root_motion`, `events`), measuring the ground speed of
//! in-place cycles from their feet (`gait`), choosing the texel precision
//! (`precision`) and writing it all into a [`Builder`] (`assemble`) with the metadata.
//!
//! Work is parallel over the groups of animations that pose alike and over frames (rayon).
//! Progress is reported through a callback so that the command line can draw a bar and tests
//! stay quiet.

use rayon::prelude::*;

use super::assemble::{Assembly, Done};
use super::error::BakeError;
use super::events::GroupEvents;
use super::facing;
use super::frames::FrameSchedule;
use super::gait::{self, Feet};
use super::inputs::{TOOL, inputs};
use super::load::{Loaded, load_all};
use super::plan::{Job, JobSource, jobs_for};
use super::precision;
use super::recipe::Rate;
use super::recipe::{CharacterSpec, Facing, Recipe, Size};
use super::report::BakeReport;
use super::root_motion::declared_speed;
use super::root_motion::root_motion;
use super::sample::{PoseCache, complete, pose_key, resample, sample_feet, sample_job};
use crate::format::Builder;
use crate::import::ExternalFiles;
use std::sync::Arc;

/// Progress of a bake.
#[derive(Clone, Copy, Debug)]
pub enum BakeProgress<'a> {
    /// A stage begins with `total` units of work.
    Stage(&'a str, u64),
    /// `n` more units are done.
    Advance(u64),
}

/// How to bake.
#[derive(Clone, Copy, Default)]
pub struct BakeOptions<'a> {
    /// Write f16 texels even when their error exceeds the budget.
    pub force: bool,
    /// Called as work progresses (from several threads).
    pub progress: Option<&'a (dyn Fn(BakeProgress) + Sync)>,
    /// Which files the bare models' buffer and image URIs may name (default: only files in
    /// the model's folder; see [`ExternalFiles`]). Models named by character files are
    /// always held to their folder.
    pub external_files: ExternalFiles,
}

/// A finished bake, ready to write.
pub struct Baked {
    /// The file's contents.
    pub builder: Builder,
    /// What was baked.
    pub report: BakeReport,
}

fn report(options: &BakeOptions, p: BakeProgress) {
    if let Some(f) = options.progress {
        f(p);
    }
}

/// Samples `job` of `l` (whose feet are `feet`) with the poses of `cache` and the events of
/// `events` (its group's, see [`sample_job`] and [`GroupEvents`]), with its root motion and
/// measured ground speed. Its poses are
/// kept only when [`lock_feet`] may sample it again.
fn bake_job(
    l: &Loaded,
    feet: &Feet,
    job: &Job,
    recipe: &Recipe,
    cache: &mut PoseCache,
    events: &mut GroupEvents,
) -> Result<Done, BakeError> {
    // First: a state of too many events is refused before its frames are sampled.
    let events = events.of(l, job).map_err(|what| {
        let spec = &recipe.characters[job.character];
        // Said at the recipe's line that chose the animation, else the character file's.
        let chose = match job.source {
            JobSource::State { .. } => "states",
            JobSource::Clip(_) => "clips",
        };
        let key = if spec.lines.has(chose) {
            chose
        } else {
            "character"
        };
        spec.error(key, what)
    })?;
    let (mut sampled, motion) = match job.rate {
        Rate::Fixed(fps) => {
            let schedule = FrameSchedule::new(&job.name, job.duration, fps, job.looping)?;
            let motion = root_motion(l, job, &schedule);
            // A cycle that may be locked is sampled again if it is: first its feet alone.
            let s = if !feet.joints.is_empty() && may_lock(recipe, l, job, motion.is_some()) {
                sample_feet(l, job, cache, &feet.joints, schedule)
            } else {
                sample_job(l, job, recipe, cache)?
            };
            (s, motion)
        }
        Rate::Auto => {
            let s = sample_job(l, job, recipe, cache)?;
            let motion = root_motion(l, job, &s.schedule);
            (s, motion)
        }
    };
    let measured = gait::measure(l, feet, &sampled, motion.is_some());
    // Kept for a cycle that walks: one with a gait, or a travel that turning it to face +z
    // may make one. Were one missed, `lock_feet` would pose it again.
    let walks = measured.speed.is_some() || measured.travel.is_some();
    if !(walks && may_lock(recipe, l, job, motion.is_some())) {
        complete(l, job, &mut sampled, recipe);
        sampled.poses = None;
    }
    Ok(Done {
        measured,
        gltf_animations: match job.source {
            JobSource::Clip(c) => l
                .model
                .clip_sources
                .get(c)
                .map_or_else(Vec::new, |a| a.iter().map(|&a| a as u32).collect()),
            JobSource::State { .. } => Vec::new(),
        },
        motion,
        events,
        sampled,
    })
}

/// The indices of `jobs` (of the characters `loaded`) in groups that pose alike (the same
/// [`pose_key`]), each in job order, the groups in the order of their first job.
fn pose_groups(loaded: &[Loaded], jobs: &[Job]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key = std::collections::HashMap::new();
    for (i, j) in jobs.iter().enumerate() {
        let g = *by_key
            .entry(pose_key(&loaded[j.character], j))
            .or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
        groups[g].push(i);
    }
    groups
}

/// Turns character `ci` (`l`, with feet `feet`) so that it walks along +z, the crowd's
/// forward, when it has no root motion and its looping animations' feet say it walks along
/// another axis ([`facing`]): its sampled frames and bounds are turned in `done` and their
/// ground speeds measured again. Returns the quarter turns made (0 to 3) and, when it was
/// turned, the report's note.
fn face_forward(
    ci: usize,
    l: &Loaded,
    feet: &Feet,
    recipe: &Recipe,
    jobs: &[Job],
    done: &mut [Done],
) -> (u8, Option<String>) {
    // The recipe keeps the authored facing: nothing to turn, nothing to say.
    if recipe.characters[ci].facing == Facing::Authored {
        return (0, None);
    }
    let mine = || {
        jobs.iter()
            .zip(done.iter())
            .filter(move |(j, _)| j.character == ci)
    };
    // Root motion is baked in model space along the axis it was authored on: a character
    // with any keeps its facing.
    if mine().any(|(_, d)| d.motion.is_some()) {
        return (0, None);
    }
    let travels: Vec<_> = mine().filter_map(|(_, d)| d.measured.travel).collect();
    let k = facing::quarter_turns(travels.iter().copied());
    if k == 0 {
        return (0, None);
    }
    let along: glam::Vec2 = travels.iter().map(|t| t.normalize_or_zero()).sum();
    for (j, d) in jobs.iter().zip(done.iter_mut()) {
        if j.character != ci {
            continue;
        }
        turn(&mut d.sampled, k);
        d.measured = gait::measure(l, feet, &d.sampled, false);
    }
    (k, Some(facing::note(along, k)))
}

/// Turns the frames of `sampled` (texels and bounds) by `k` quarter turns about +y, as its
/// character faces ([`facing`]).
fn turn(sampled: &mut super::sample::Sampled, k: u8) {
    facing::turn_texels(&mut sampled.texels, k);
    sampled
        .bounds
        .iter_mut()
        .for_each(|b| facing::turn_bounds(b, k));
}

/// Whether [`lock_feet`] may lock the feet of `job` of `l` once its ground speed is measured:
/// it loops, its character locks feet, and it has no root motion (`motion`) nor a declared
/// speed.
fn may_lock(recipe: &Recipe, l: &Loaded, job: &Job, motion: bool) -> bool {
    job.looping
        && recipe.characters[job.character].foot_lock
        && !motion
        && declared_speed(l, job, None, job.duration).is_none()
}

/// Bakes again, with their planted feet locked ([`gait::lock`]), the animations whose ground
/// speed the crowd takes from their feet: looping, measured, and declaring none (no root
/// motion, not baked at a `speed` parameter). Their frames are turned as their character
/// faces (`turns`) and their gait measured again on the locked poses
/// ([`gait::measure_locked`]). A cycle first sampled for its feet alone
/// ([`sample_feet`]) that is not locked after all is made whole and turned. Parallel over
/// them.
fn lock_feet(
    loaded: &[Loaded],
    feet: &[Feet],
    turns: &[(u8, Option<String>)],
    recipe: &Recipe,
    jobs: &mut [Job],
    done: &mut [Done],
) {
    jobs.par_iter_mut()
        .zip(done.par_iter_mut())
        .for_each(|(j, d)| {
            let (l, feet, k) = (
                &loaded[j.character],
                &feet[j.character],
                turns[j.character].0,
            );
            let lock = d.measured.speed.and_then(|speed| {
                may_lock(recipe, l, j, d.motion.is_some())
                    .then(|| gait::lock(l, feet, &d.sampled, speed, k))?
            });
            let Some(lock) = lock else {
                // Not locked after all: a first sampling of feet alone is made whole, and
                // turned as `face_forward` turned the others.
                if d.sampled.feet_only {
                    complete(l, j, &mut d.sampled, recipe);
                    turn(&mut d.sampled, k);
                }
                d.sampled.poses = None;
                return;
            };
            let poses = d.sampled.poses.take();
            j.lock = Some(Arc::new(lock));
            d.sampled = resample(l, j, d.sampled.schedule, poses.as_deref(), recipe);
            turn(&mut d.sampled, k);
            d.measured = gait::measure_locked(l, feet, &d.sampled, d.measured.clone());
        });
}

/// Whether every number of `xs` is finite. Branch-free (a number is not finite when its
/// exponent bits are all set), so that the compiler checks several at once: a bake's texels
/// are millions of numbers.
fn all_finite(xs: &[f32]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    xs.iter().fold(0u32, |bad, x| {
        bad | u32::from(x.to_bits() & EXPONENT == EXPONENT)
    }) == 0
}

/// Refuses animation `j` of `l` (baked as `d`) when a number it made is past f32's range
/// (or NaN): the file would be refused by every reader. The message names the cause
/// ([`super::overflow::cause`]): a joint value far out of the ordinary, or the recipe's size
/// when it gave one. This names the cause early, before meshes and LODs are made;
/// [`Builder::validate`] still checks everything before writing.
fn out_of_range(spec: &CharacterSpec, l: &Loaded, j: &Job, d: &Done) -> Result<(), BakeError> {
    let finite = all_finite;
    let what = if !finite(d.sampled.texels.as_flattened()) {
        "texel positions overflow f32"
    } else if !d
        .sampled
        .bounds
        .iter()
        .all(|b| finite(&b.min) && finite(&b.max))
    {
        "its bounds overflow f32"
    } else if !d.sampled.interpolation_error.is_finite() {
        // (Not the f16 error: infinite when f16 cannot hold the texels, which only rules
        // f16 out.)
        "its interpolation error overflows f32"
    } else if d
        .motion
        .as_ref()
        .is_some_and(|(m, c)| !finite(c) || !m.iter().all(|r| finite(&[r.x, r.z, r.yaw])))
    {
        "its root motion overflows f32"
    } else {
        return Ok(());
    };
    let what = format!(
        "animation '{}': {what}: {}",
        j.name,
        super::overflow::cause(l, j, &spec.size)
    );
    // Said at the recipe's size key when it gave one (the likely cause).
    Err(match spec.size {
        Size::Scale(_) => spec.error("scale", what),
        Size::Height(_) => spec.error("height", what),
        Size::Default => BakeError::character(&l.name, what),
    })
}

/// What a bake has made before its file is assembled: the inputs' key and files, the loaded
/// characters, the jobs (with their drift removal and foot locks) and what sampling them
/// made, and each character's quarter turns and the report's note on them.
pub(super) struct Prepared {
    pub input_key: String,
    pub input_files: Vec<crate::format::InputFile>,
    pub loaded: Vec<Loaded>,
    pub jobs: Vec<Job>,
    pub done: Vec<Done>,
    pub turns: Vec<(u8, Option<String>)>,
}

/// The stages of a bake up to its assembly (see [`bake`]), which [`super::Replay`] also runs
/// to pose live what the bake holds.
///
/// # Errors
/// As [`bake`], but for the precision budget and the meshes.
pub(super) fn prepare(recipe: &Recipe, options: &BakeOptions) -> Result<Prepared, BakeError> {
    let (input_key, input_files) = inputs(recipe, options.force, options.external_files)?;
    report(
        options,
        BakeProgress::Stage("loading", recipe.characters.len() as u64),
    );
    let loaded = load_all(&recipe.characters, options.external_files, || {
        report(options, BakeProgress::Advance(1));
    })?;
    let mut jobs = Vec::new();
    for (ci, (spec, l)) in recipe.characters.iter().zip(&loaded).enumerate() {
        jobs.extend(jobs_for(ci, spec, l)?);
    }
    let feet: Vec<Feet> = loaded.iter().map(gait::feet).collect();
    // Progress in frames: each animation advances the bar by its estimate.
    let estimates: Vec<u64> = jobs.iter().map(Job::estimated_frames).collect();
    report(
        options,
        BakeProgress::Stage("sampling frames", estimates.iter().sum()),
    );
    // The groups of jobs that pose alike run in parallel; each group's jobs one after the
    // other, sharing their poses (each job's frames are parallel).
    let mut sampled: Vec<(usize, Result<Done, BakeError>)> = pose_groups(&loaded, &jobs)
        .into_par_iter()
        .flat_map_iter(|group| {
            let mut cache = PoseCache::new(group.len());
            let mut events = GroupEvents::default();
            group
                .into_iter()
                .map(|i| {
                    let j = &jobs[i];
                    let l = &loaded[j.character];
                    // A schedule the rate cannot give is the recipe's: said at the key that
                    // chose it.
                    let spec = &recipe.characters[j.character];
                    let d = bake_job(l, &feet[j.character], j, recipe, &mut cache, &mut events)
                        .map_err(|e| {
                            if matches!(e, BakeError::BadSchedule { .. }) {
                                let key = spec.rate_key(&j.name).unwrap_or_else(|| "fps".into());
                                spec.error(&key, format!("{key}: {e}"))
                            } else {
                                e
                            }
                        });
                    report(options, BakeProgress::Advance(estimates[i]));
                    (i, d)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // In job order, so that the error said is the first job's whatever the threads did.
    sampled.sort_unstable_by_key(|(i, _)| *i);
    let mut done: Vec<Done> = sampled
        .into_iter()
        .map(|(_, d)| d)
        .collect::<Result<_, _>>()?;

    let turns: Vec<(u8, Option<String>)> = (0..loaded.len())
        .map(|ci| face_forward(ci, &loaded[ci], &feet[ci], recipe, &jobs, &mut done))
        .collect();
    lock_feet(&loaded, &feet, &turns, recipe, &mut jobs, &mut done);

    for (j, d) in jobs.iter_mut().zip(&done) {
        if let Some(n) = &d.measured.note {
            j.note = Some(match j.note.take() {
                Some(old) => format!("{old}; {n}"),
                None => n.clone(),
            });
        }
    }

    // In parallel (it reads every texel); the first job's error is said.
    let checks: Vec<Result<(), BakeError>> = jobs
        .par_iter()
        .zip(&done)
        .map(|(j, d)| out_of_range(&recipe.characters[j.character], &loaded[j.character], j, d))
        .collect();
    checks.into_iter().collect::<Result<(), _>>()?;

    Ok(Prepared {
        input_key,
        input_files,
        loaded,
        jobs,
        done,
        turns,
    })
}

/// Bakes `recipe`.
///
/// # Errors
/// [`BakeError`] naming the character, clip, state or file at fault (also when a number it
/// made is past f32's range), or [`BakeError::PrecisionBudget`] when f16 was asked for,
/// exceeds the budget and is not forced (inside [`BakeError::InRecipe`] at the recipe's
/// `precision` key when the recipe has a file). Among them: [`BakeError::Input`] for an input
/// file that cannot be read; [`BakeError::CharacterFile`] or [`BakeError::Model`] for a
/// character file or model that does not load; [`BakeError::Recipe`] at the key at fault (or
/// [`BakeError::Character`] for a recipe made in code) for what a character asks of its model
/// that it lacks, or a frame rate that cannot be baked; [`BakeError::Lod`] for a mesh part
/// that cannot be simplified.
pub fn bake(recipe: &Recipe, options: &BakeOptions) -> Result<Baked, BakeError> {
    let Prepared {
        input_key,
        input_files,
        loaded,
        jobs,
        mut done,
        turns,
    } = prepare(recipe, options)?;
    let f16_errors: Vec<f32> = done.iter().map(|d| d.sampled.f16_error).collect();
    let (format, reason) = precision::choose(recipe, options.force, &jobs, &f16_errors, &loaded)?;

    report(options, BakeProgress::Stage("meshes", loaded.len() as u64));
    let mut file = Assembly::new(recipe, format);
    file.prepare(&loaded, &done, || report(options, BakeProgress::Advance(1)))?;
    let mut characters = Vec::new();
    for (ci, l) in loaded.iter().enumerate() {
        let mut c = file.character(ci, l, &jobs, &mut done)?;
        c.quarter_turns = turns[ci].0;
        c.warnings.extend(turns[ci].1.clone());
        characters.push(c);
    }
    let mut b = file.builder;
    // Format 1.2 records the turn each character's matrices and bounds were given.
    b.facing_turns = turns.iter().map(|t| t.0).collect();
    b.metadata = crate::format::Metadata {
        tool: TOOL.to_string(),
        input_key,
        recipe_path: recipe
            .path
            .as_ref()
            .map_or("-".to_string(), |p| p.display().to_string()),
        recipe: recipe.text.clone(),
        inputs: input_files,
        precision: reason.clone(),
        precision_budget: recipe.precision_budget,
        interpolation_budget: recipe.interpolation_budget,
        // The report's animations are the file's, in its order (character by character).
        no_ground_speed: characters
            .iter()
            .flat_map(|c| &c.anims)
            .enumerate()
            .filter_map(|(anim, a)| {
                Some(crate::format::NoGroundSpeed {
                    anim: anim as u32,
                    why: a.no_ground_speed.clone()?,
                })
            })
            .collect(),
    };
    draw_impostors(recipe, options, &mut b, &mut characters)?;
    let texels = b.texel_count();
    Ok(Baked {
        builder: b,
        report: BakeReport {
            characters,
            format,
            format_reason: reason,
            texels,
        },
    })
}

/// Format 1.4's impostors of the assembled bake `b`, drawn from a read-only view of its bytes
/// (what the runtime draws: stored texels, the level's vertices, materials, images) into `b`,
/// with each character's figures in `characters`. Nothing when the recipe turns them off.
fn draw_impostors(
    recipe: &Recipe,
    options: &BakeOptions,
    b: &mut Builder,
    characters: &mut [super::report::CharacterReport],
) -> Result<(), BakeError> {
    if !recipe.impostors.enabled {
        return Ok(());
    }
    let bytes = b.to_bytes()?;
    let view = crate::format::ThrongFile::from_bytes(&bytes, "the bake being assembled")?;
    let drawn = super::impostor::draw(
        &view,
        &recipe.impostors,
        &|total| report(options, BakeProgress::Stage("impostors", total)),
        &|n| report(options, BakeProgress::Advance(n)),
    );
    for (c, r) in characters.iter_mut().zip(drawn.reports) {
        c.impostors = r;
    }
    b.impostors = drawn.records;
    b.impostor_anims = drawn.anims;
    b.impostor_pixels = drawn.pixels;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::bake::sample::Sampled;

    /// A walk first sampled for its feet alone and then not locked (here: its feet given no
    /// legs, so nothing can lock them), on a character turned a quarter, ends as the walk
    /// sampled whole and turned: every texel, bound and error to the bit. (The shared models
    /// never take this way: their walks are locked.)
    #[test]
    fn a_walk_sampled_for_its_feet_and_not_locked_is_made_whole_and_turned() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let text = "output = \"w.throng\"\nfps = 30\nprecision = \"f16\"\n\
                    [[characters]]\nname = \"m\"\nmodel = \"mannequin.glb\"\n\
                    clips = [\"walk\"]\n";
        let recipe = Recipe::parse(text, &dir.join("r.toml")).unwrap();
        let loaded = load_all(&recipe.characters, ExternalFiles::default(), || {}).unwrap();
        let l = &loaded[0];
        let mut jobs = jobs_for(0, &recipe.characters[0], l).unwrap();
        assert_eq!(jobs.len(), 1, "the walk alone");
        let mut feet = gait::feet(l);
        assert!(!feet.joints.is_empty() && feet.legs.iter().any(Option::is_some));
        feet.legs.iter_mut().for_each(|leg| *leg = None);
        let (job, k) = (&jobs[0], 1);
        let first = bake_job(
            l,
            &feet,
            job,
            &recipe,
            &mut PoseCache::new(1),
            &mut GroupEvents::default(),
        )
        .unwrap();
        assert!(first.sampled.feet_only, "sampled for its feet first");
        assert!(
            first.measured.speed.is_some(),
            "it walks: {:?}",
            first.measured
        );
        let mut want: Sampled = sample_job(l, job, &recipe, &mut PoseCache::new(1)).unwrap();
        turn(&mut want, k);
        let mut done = vec![first];
        lock_feet(
            &loaded,
            std::slice::from_ref(&feet),
            &[(k, None)],
            &recipe,
            &mut jobs,
            &mut done,
        );
        let got = &done[0].sampled;
        assert!(jobs[0].lock.is_none() && !got.feet_only && got.poses.is_none());
        let bits = |t: &[[f32; 4]]| t.iter().map(|x| x.map(f32::to_bits)).collect::<Vec<_>>();
        assert!(bits(&got.texels) == bits(&want.texels), "texels");
        let bounds = |s: &Sampled| {
            s.bounds
                .iter()
                .map(|b| (b.min.map(f32::to_bits), b.max.map(f32::to_bits)))
                .collect::<Vec<_>>()
        };
        assert!(bounds(got) == bounds(&want), "bounds");
        assert_eq!(
            (got.interpolation_error.to_bits(), got.f16_error.to_bits()),
            (want.interpolation_error.to_bits(), want.f16_error.to_bits())
        );
    }

    /// Finite numbers pass at every magnitude; an infinity or a NaN anywhere fails.
    #[test]
    fn all_finite_finds_any_number_that_is_not() {
        let ok = [
            0.0,
            -0.0,
            1e-45,
            -1e-40,
            f32::MAX,
            f32::MIN,
            1.0,
            f32::MIN_POSITIVE,
        ];
        assert!(all_finite(&ok));
        assert!(all_finite(&[]));
        for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN] {
            for at in 0..ok.len() {
                let mut xs = ok;
                xs[at] = bad;
                assert!(!all_finite(&xs), "{bad} at {at}");
            }
        }
    }
}
