//! Bake throughput and load time of a large bake.
//!
//! - `bake/large`: the whole baker (`throng::bake::bake`) on a recipe of 16 mannequin
//!   characters (every clip and state, states at 3 speeds) at 120 frames per second, f32
//!   texels, one LOD level: sampling through blend trees and IK, skinning matrices, texels,
//!   mid-frame interpolation errors (a second evaluation per frame), f16 errors, bounds, events.
//!   Throughput is in joint-frames (one skinning matrix of one frame).
//! - `bake/large+lods`: the same with the default three LOD levels (meshoptimizer), to show
//!   what mesh simplification adds.
//! - `load/open` against `load/fs_read`: opening and validating the large file (map, both
//!   CRCs, every table, every texel finite) against reading its bytes with `std::fs::read`.
//!
//! Run: `cargo bench --bench bake`. Figures go to docs/PERFORMANCE.md.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng::bake::{BakeOptions, Recipe, bake};
use throng::format::ThrongFile;

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
    for (name, lods) in [("large", "[1.0]"), ("large+lods", "[1.0, 0.5, 0.2]")] {
        let r = recipe(&dir, lods);
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

criterion_group!(bake_benches, benches);
criterion_main!(bake_benches);
