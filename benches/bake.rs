//! Bake throughput and load time of a large bake.
//!
//! - `bake/large`: the whole baker (`throng::bake::bake`) on a recipe of 16 mannequin
//!   characters (every clip and state, states at 3 speeds) at 120 frames per second, f32
//!   texels, one LOD level: sampling through blend trees and IK, skinning matrices, texels,
//!   mid-frame interpolation errors (the mid-frames posed too), f16 errors, bounds, events. Its
//!   characters are one character file at 16 scales, so each pose is evaluated once for all of
//!   them (docs/BAKING.md, "Variants are posed once"); the scale, errors and bounds are per
//!   character.
//!   Throughput is in joint-frames (one skinning matrix of one frame).
//! - `bake/large+lods`: the same with the default three LOD levels (meshoptimizer), to show
//!   what mesh simplification adds.
//! - `bake/large-unlocked`: `bake/large` with `foot_lock = false`: the ratio is what foot
//!   locking (the walk and run clips sampled a second time, their legs solved) costs.
//! - `load/open` against `load/fs_read`: opening and validating the large file (map, both
//!   CRCs, every table, every texel finite) against reading its bytes with `std::fs::read`.
//!
//! - `bare/bake/MODEL` against `bare/measure/MODEL`: the whole bake of a bare model (what
//!   `throng bake MODEL.glb` does, without writing) against its ground-speed measuring step
//!   alone on the same frames (each looping animation's foot points read from the baked
//!   matrices, then `anim::gait::measure`), for the mannequin, and Fox, RobotExpressive and
//!   CesiumMan from `../shared/assets` (skipped with a printed reason when missing). The ratio
//!   is the share of the bake the measure costs (the budget: 10%); CesiumMan's bake
//!   measures its walk twice, before and after turning it (`bake::facing`), and every one
//!   measures its locked cycles again.
//! - `bare/unlocked/MODEL`: `bare/bake/MODEL` with `foot_lock = false`: the ratio is the share
//!   of a bare bake that foot locking costs.
//!
//! Run: `cargo bench --bench bake` (`-- bare` for the last group alone). Figures go to
//! docs/PERFORMANCE.md.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Vec3, Vec4};
use throng::anim::gait;
use throng::bake::measure::JointBoxes;
use throng::bake::{BakeOptions, Recipe, Size, bake, feet_of, standing_height};
use throng::format::records::anim_flags;
use throng::format::{TEXELS_PER_MATRIX, ThrongFile};

const CHARACTERS: usize = 16;

fn recipe(dir: &Path, lods: &str) -> Recipe {
    let character = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml");
    let mut text =
        format!("output = \"large.throng\"\nfps = 120\nprecision = \"f32\"\nlods = {lods}\n");
    for i in 0..CHARACTERS {
        let s = 0.8 + 0.025 * i as f32;
        text += &format!(
            "[[characters]]\nname = \"m{i}\"\ncharacter = {:?}\nscale = [{s}, {s}, {s}]\n[characters.params]\nspeed = [0.0, 1.2, 3.0]\n",
            character.display().to_string()
        );
    }
    let path = dir.join(format!("large-{}.toml", lods.len()));
    std::fs::write(&path, text).expect("write the bench recipe");
    Recipe::load(&path).expect("bench recipe")
}

fn joint_frames(recipe: &Recipe) -> u64 {
    let baked = bake(recipe, &BakeOptions::default()).expect("bake");
    baked
        .report
        .characters
        .iter()
        .map(|c| c.anims.iter().map(|a| u64::from(a.frames)).sum::<u64>() * c.joints as u64)
        .sum()
}

fn benches(c: &mut Criterion) {
    let dir: PathBuf = std::env::temp_dir().join(format!("throng-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut g = c.benchmark_group("bake");
    g.sample_size(10);
    for (name, lods, lock) in [
        ("large", "[1.0]", true),
        ("large+lods", "[1.0, 0.5, 0.2]", true),
        ("large-unlocked", "[1.0]", false),
    ] {
        let mut r = recipe(&dir, lods);
        r.characters.iter_mut().for_each(|c| c.foot_lock = lock);
        let n = joint_frames(&r);
        eprintln!("{name}: {n} joint-frames per bake");
        g.throughput(Throughput::Elements(n));
        g.bench_function(name, |b| {
            b.iter(|| black_box(bake(&r, &BakeOptions::default()).expect("bake")))
        });
    }
    g.finish();

    let r = recipe(&dir, "[1.0, 0.5, 0.2]");
    let file = dir.join("large.throng");
    bake(&r, &BakeOptions::default())
        .expect("bake")
        .builder
        .write(&file)
        .expect("write");
    let bytes = std::fs::metadata(&file).expect("file").len();
    eprintln!("load: {:.1} MB file", bytes as f64 / 1e6);
    let mut g = c.benchmark_group("load");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("open", |b| {
        b.iter(|| black_box(ThrongFile::open(&file).expect("open")))
    });
    g.bench_function("fs_read", |b| {
        b.iter(|| black_box(std::fs::read(&file).expect("read")))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The models of the `bare` group: the mannequin, and the shared ones that are present.
fn bare_models() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![("mannequin".to_string(), root.join("assets/mannequin.glb"))];
    // CesiumMan is turned to walk along +z (bake::facing): its bake measures its walk twice.
    for name in ["Fox", "RobotExpressive", "CesiumMan"] {
        let p = root.join(format!("../shared/assets/{name}.glb"));
        if p.is_file() {
            out.push((name.to_string(), p));
        } else {
            eprintln!("bare/{name}: skipped, {} is missing", p.display());
        }
    }
    out
}

/// What the baker's measuring step reads for `model` baked into `file`: per foot, the joint
/// and the 8 corners of its box (as `bake::gait` finds them).
fn feet(model: &Path, height: f32) -> Vec<(usize, [Vec4; 8])> {
    let m = throng::import::load(model, &throng::import::ImportOptions::default()).expect("load");
    let boxes = JointBoxes::new(m.skeleton.len(), m.meshes.iter().map(|p| &p.mesh));
    let scale = Mat4::from_scale(Size::Default.factor(standing_height(&m)).0);
    let feet = feet_of(&m, &boxes, scale, height);
    feet.joints.into_iter().zip(feet.points).collect()
}

/// The measuring step on every looping animation of `file`: foot points from the baked
/// matrices into one buffer, then the measure. Returns how many were measured.
fn measure_all(file: &ThrongFile, feet: &[(usize, [Vec4; 8])], buf: &mut Vec<Vec3>) -> usize {
    let texels = file.texels();
    let c = &file.characters()[0];
    let rows = TEXELS_PER_MATRIX as usize;
    let mut measured = 0;
    for a in file.anims() {
        if a.flags & anim_flags::LOOPING == 0 || a.frame_count < 3 {
            continue;
        }
        buf.clear();
        for f in 0..a.frame_count as usize {
            for (j, points) in feet {
                let k = a.first_texel as usize + (f * c.joint_count as usize + j) * rows;
                let r = [texels.get(k), texels.get(k + 1), texels.get(k + 2)].map(Vec4::from_array);
                buf.extend(
                    points
                        .iter()
                        .map(|p| Vec3::new(r[0].dot(*p), r[1].dot(*p), r[2].dot(*p))),
                );
            }
        }
        let step = a.duration / a.frame_count as f32;
        if gait::measure(buf, feet.len(), 8, step, c.height, Vec3::Z).is_ok() {
            measured += 1;
        }
    }
    measured
}

fn bare(c: &mut Criterion) {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("throng-bench-bare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut g = c.benchmark_group("bare");
    g.sample_size(10);
    for (name, model) in bare_models() {
        let out = dir.join(format!("{name}.throng"));
        let recipe = Recipe::for_model(&model, &out);
        g.bench_function(format!("bake/{name}"), |b| {
            b.iter(|| black_box(bake(&recipe, &BakeOptions::default()).expect("bake")))
        });
        bake(&recipe, &BakeOptions::default())
            .expect("bake")
            .builder
            .write(&out)
            .expect("write");
        let file = ThrongFile::open(&out).expect("open");
        let feet = feet(&model, file.characters()[0].height);
        let mut buf = Vec::new();
        eprintln!(
            "bare/{name}: {} feet, {} animations with a ground speed",
            feet.len(),
            measure_all(&file, &feet, &mut buf)
        );
        g.bench_function(format!("measure/{name}"), |b| {
            b.iter(|| black_box(measure_all(&file, &feet, &mut buf)))
        });
        let mut unlocked = recipe.clone();
        unlocked.characters[0].foot_lock = false;
        g.bench_function(format!("unlocked/{name}"), |b| {
            b.iter(|| black_box(bake(&unlocked, &BakeOptions::default()).expect("bake")))
        });
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(bake_benches, benches, bare);
criterion_main!(bake_benches);
