//! Fuzzing: every parser a user's file reaches gets a fixed number of mutated inputs, seeded
//! from the project's own inputs and the hostile corpus (`tests/fixtures/hostile`), and must
//! never panic:
//! - `.throng` files (bytes flipped, overwritten with hostile integers, cut, inserted, copied;
//!   checksums mostly recomputed so that the tables are judged) through the reader, and a
//!   number of the files it accepts drawn headless, on the GPU and the CPU skinning path;
//! - glTF models (JSON values replaced, removed or copied; the binary chunk's bytes mutated)
//!   through the importer;
//! - recipes, character files and LOD configs (TOML values replaced, removed or copied; lines
//!   cut and repeated) through their parsers: a character file resolves against its model, a
//!   LOD preset the parser accepts runs a crowd.
//!
//! The counts are fixed, so a run is the same on every machine and replays from its seed:
//! `THRONG_FUZZ_SCALE` multiplies them (`cargo test` runs scale 1 in seconds; `.ci/run` runs
//! a larger scale in about a minute) and `THRONG_FUZZ_SEED` changes the seed. An input that
//! panics is saved under `target/fuzz-crashes/` and named in the failure; once fixed, it moves
//! to `tests/fixtures/fuzz-regressions/KIND/` (or, for `.throng` files, to
//! `tests/fixtures/reader-regressions/`), whose files are replayed by the tests below.

use crate::common;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use common::Rng;
use common::mutate::{mutate_bytes, mutate_gltf, mutate_toml};
use throng::bake::{BakeOptions, Recipe, bake};
use throng::character::Character;
use throng::crowd::scene::Placement;
use throng::crowd::{Crowd, CrowdSettings, LodPresets, Spawn, View};
use throng::format::ThrongFile;
use throng::import::ImportOptions;
use throng::render::{BackendChoice, CrowdRenderer, Gpu, PassFormat, SkinningPath, Target};
use throng::render::{SceneDraw, Stage};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The multiplier of every count (`THRONG_FUZZ_SCALE`, default 1).
fn scale() -> usize {
    std::env::var("THRONG_FUZZ_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// The seed of every generator (`THRONG_FUZZ_SEED`), so a failure replays.
fn seed() -> u64 {
    std::env::var("THRONG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7468_726f_6e67)
}

/// One fuzz run of a kind of input: its counts, its generator and where it saves a crash.
struct Run {
    kind: &'static str,
    ext: &'static str,
    seed: u64,
    rng: Rng,
    start: Instant,
    accepted: usize,
    refused: usize,
}

impl Run {
    fn new(kind: &'static str, ext: &'static str) -> Self {
        let seed = seed();
        Self {
            kind,
            ext,
            seed,
            // Each kind its own stream, so adding a kind changes no other kind's inputs.
            rng: Rng((seed ^ (kind.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1),
            start: Instant::now(),
            accepted: 0,
            refused: 0,
        }
    }

    /// Runs `check` on `input` (round `round`), counting what it returns (accepted or not).
    /// A panic saves the input (with `header` first, the context a replay needs) and fails.
    fn check(&mut self, round: usize, header: &str, input: &[u8], check: impl FnOnce() -> bool) {
        match std::panic::catch_unwind(AssertUnwindSafe(check)) {
            Ok(true) => self.accepted += 1,
            Ok(false) => self.refused += 1,
            Err(_) => {
                let dir = root().join("target/fuzz-crashes");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("{}-{}-{round}.{}", self.kind, self.seed, self.ext));
                let mut bytes = header.as_bytes().to_vec();
                bytes.extend_from_slice(input);
                let _ = std::fs::write(&path, &bytes);
                panic!(
                    "{} fuzz: round {round} (seed {}) panicked; input saved to {} (once fixed, move it to {})",
                    self.kind,
                    self.seed,
                    path.display(),
                    regressions(self.kind).display()
                );
            }
        }
    }

    /// Prints the counts and checks that most inputs were refused: a fuzz whose mutations
    /// are all accepted explores nothing.
    fn finish(&self, rounds: usize, min_refused: f64) {
        let done = self.accepted + self.refused;
        println!(
            "{} fuzz: {done} inputs in {:.1} s, {} refused, {} accepted (seed {})",
            self.kind,
            self.start.elapsed().as_secs_f64(),
            self.refused,
            self.accepted,
            self.seed
        );
        assert_eq!(done, rounds, "every round runs");
        assert!(
            self.refused as f64 >= min_refused * done as f64,
            "only {} of {done} refused: the mutations no longer reach the checks",
            self.refused
        );
    }
}

/// Where the fixed crashing inputs of `kind` are kept.
fn regressions(kind: &str) -> PathBuf {
    match kind {
        "throng" => root().join("tests/fixtures/reader-regressions"),
        _ => root().join("tests/fixtures/fuzz-regressions").join(kind),
    }
}

// --- seeds ----------------------------------------------------------------------------------

/// The files of `dir` ending in `ext`, sorted, as (path, bytes); `@REPO@` (the corpus's
/// placeholder for the repository) replaced in text files.
fn files(dir: &Path, ext: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| {
            let mut bytes = std::fs::read(&p).expect("a seed file");
            if ext == "toml" {
                let text = String::from_utf8_lossy(&bytes)
                    .replace("@REPO@", &root().display().to_string());
                bytes = text.into_bytes();
            }
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// The seeds of a TOML kind: the project's own files and the corpus's folder `corpus`.
fn toml_seeds(own: &[&str], corpus: &str) -> Vec<(PathBuf, String)> {
    let mut seeds: Vec<(PathBuf, String)> = own
        .iter()
        .map(|f| {
            let p = root().join(f);
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{f}: {e}"));
            (p, text)
        })
        .collect();
    let dir = root().join("tests/fixtures/hostile").join(corpus);
    seeds.extend(
        files(&dir, "toml")
            .into_iter()
            .map(|(p, b)| (p, String::from_utf8_lossy(&b).into_owned())),
    );
    seeds
}

// --- .throng files --------------------------------------------------------------------------

/// Draws `file` headless: every character's first animations side by side, at the first
/// and the last LOD level, on the GPU and the CPU skinning path. An error is an answer; only
/// a panic fails.
fn draw(gpu: &Gpu, file: ThrongFile) {
    let file = Arc::new(file);
    let Ok(mut renderer) = CrowdRenderer::new(gpu, &file, PassFormat::offscreen(1)) else {
        return;
    };
    let Ok(mut stage) = Stage::new(gpu, &renderer) else {
        return;
    };
    let target = Target::new(gpu, 32, 32, 1);
    let mut agents = Vec::new();
    for (c, ch) in file.characters().iter().enumerate() {
        for a in 0..ch.anim_count.min(4) {
            agents.push(Placement {
                character: c as u32,
                position: glam::Vec3::new(agents.len() as f32 - 2.0, 0.0, 0.0),
                heading: 0.3,
                scale: 1.0,
                tint: [1.0; 4],
                anim_a: ch.first_anim + a,
                time_a: 0.25,
                anim_b: ch.first_anim,
                time_b: 0.0,
                fade: if a % 2 == 1 { 0.5 } else { 0.0 },
            });
        }
    }
    let view_proj = glam::camera::rh::proj::directx::perspective(0.8, 1.0, 0.1, 100.0)
        * glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(0.0, 1.0, 6.0),
            glam::Vec3::Y,
            glam::Vec3::Y,
        );
    for lod in [0, renderer.levels().saturating_sub(1)] {
        for path in [SkinningPath::Gpu, SkinningPath::Cpu] {
            let scene = SceneDraw {
                agents: &agents,
                view_proj,
                lod,
                impostor: false,
            };
            let _ = stage.draw_scene(gpu, &mut renderer, &file, &target, &scene, path);
        }
    }
}

#[test]
fn fuzzed_throng_files_never_panic_the_reader_or_the_renderer() {
    // Seeds: a tiny bake (one triangle, states, events, root motion) in f32 and f16 texels,
    // the committed format 1.1 fixture, and the mannequin (meshes of several parts and two
    // LOD levels, as real bakes have them) at 2 frames per second; a number of the files the
    // reader accepts are drawn.
    let rounds = 2_000 * scale();
    let draws = 6 * scale();
    let dir = common::temp_dir("fuzz-mannequin");
    let mannequin = dir.join("m.toml");
    std::fs::write(
        &mannequin,
        format!(
            "output = \"m.throng\"\nfps = 2\nlods = [1.0, 0.25]\n[[characters]]\nmodel = {:?}\nclips = [\"idle\", \"walk\"]\n",
            common::mannequin_path().display().to_string()
        ),
    )
    .unwrap();
    let mannequin = bake(&Recipe::load(&mannequin).unwrap(), &BakeOptions::default())
        .unwrap()
        .builder
        .to_bytes()
        .unwrap();
    let mut recipe = common::tiny_recipe("fuzz-throng");
    let f32_file = bake(&recipe, &BakeOptions::default())
        .unwrap()
        .builder
        .to_bytes()
        .unwrap();
    recipe.precision = throng::bake::PrecisionChoice::F16;
    let options = BakeOptions {
        force: true,
        ..Default::default()
    };
    let f16_file = bake(&recipe, &options).unwrap().builder.to_bytes().unwrap();
    let fixture = std::fs::read(root().join("tests/fixtures/format-1.1.throng")).unwrap();
    println!(
        "throng fuzz: seeds of {}, {}, {} and {} bytes",
        f32_file.len(),
        f16_file.len(),
        fixture.len(),
        mannequin.len()
    );
    let seeds = [f32_file, f16_file, fixture, mannequin];
    let gpu = common::gpu::device(BackendChoice::Vulkan);
    let mut run = Run::new("throng", "throng");
    let mut drawn = 0;
    for round in 0..rounds {
        let mut b = seeds[round % seeds.len()].clone();
        for _ in 0..1 + run.rng.below(3) {
            mutate_bytes(&mut run.rng, &mut b);
        }
        if run.rng.below(8) != 0 {
            common::reseal(&mut b);
        }
        let gpu = gpu.as_ref().filter(|_| drawn < draws);
        let mut was_drawn = false;
        run.check(round, "", &b.clone(), || {
            match ThrongFile::from_bytes(&b, "fuzz") {
                Ok(file) => {
                    if let Some(gpu) = gpu {
                        draw(gpu, file);
                        was_drawn = true;
                    }
                    true
                }
                Err(_) => false,
            }
        });
        drawn += usize::from(was_drawn);
    }
    println!("throng fuzz: {drawn} accepted files drawn");
    run.finish(rounds, 0.5);
    if gpu.is_some() {
        assert!(drawn > 0, "no accepted file was drawn");
    }
}

#[test]
fn saved_hostile_throng_files_are_refused_without_panic() {
    // Hand-made hostile files (huge counts, overflowing ranges, parent cycles, broken UTF-8,
    // NaN texels, overlapping sections, truncations) and every fuzz crash once fixed: all of
    // them are invalid, so each must be refused, and reading must return, never panic.
    let found = files(&regressions("throng"), "throng");
    for (path, bytes) in &found {
        let r = std::panic::catch_unwind(|| {
            ThrongFile::from_bytes(bytes, &path.display().to_string()).err()
        });
        match r {
            Ok(Some(e)) => println!("{}: {e}", path.display()),
            Ok(None) => panic!("{}: accepted, but it is invalid", path.display()),
            Err(_) => panic!("{}: the reader panicked", path.display()),
        }
    }
    assert!(found.len() >= 17, "only {} saved inputs", found.len());
}

// --- glTF models ----------------------------------------------------------------------------

/// Imports `bytes` as a model: whether the importer accepted it.
fn import(bytes: &[u8], name: &str) -> bool {
    throng::import::load_bytes(bytes, name, &ImportOptions::default()).is_ok()
}

#[test]
fn fuzzed_models_never_panic_the_importer() {
    // Seeds: the mannequin (a GLB: skin, meshes, animations, a binary chunk), a tiny
    // animated model and the corpus's hostile models.
    let rounds = 300 * scale();
    let mut seeds = vec![
        std::fs::read(common::mannequin_path()).unwrap(),
        serde_json::to_vec(&common::one_channel_model(
            "rotation",
            "CUBICSPLINE",
            &[0.0, 1.0],
            &[0.0; 24],
        ))
        .unwrap(),
    ];
    let corpus = root().join("tests/fixtures/hostile/models");
    seeds.extend(files(&corpus, "gltf").into_iter().map(|(_, b)| b));
    seeds.extend(files(&corpus, "glb").into_iter().map(|(_, b)| b));
    let mut run = Run::new("gltf", "glb");
    for round in 0..rounds {
        // The mannequin half the time: it reaches the skin, mesh and animation checks.
        let seed = if round % 2 == 0 {
            &seeds[0]
        } else {
            &seeds[run.rng.below(seeds.len())]
        };
        let b = mutate_gltf(&mut run.rng, seed);
        run.check(round, "", &b, || import(&b, "fuzz.glb"));
    }
    run.finish(rounds, 0.2);
}

// --- recipes, character files, LOD configs --------------------------------------------------

/// The first line of a saved TOML input: the seed it was made from, so that a replay
/// resolves its relative paths where the seed's did.
fn seed_line(seed: &Path) -> String {
    let rel = seed.strip_prefix(root()).unwrap_or(seed);
    format!("# fuzz seed: {}\n", rel.display())
}

/// The seed a saved TOML input names on its first line (see [`seed_line`]), or `fallback`.
fn seed_of(text: &str, fallback: &str) -> PathBuf {
    let rel = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# fuzz seed: "))
        .unwrap_or(fallback);
    root().join(rel)
}

fn parse_recipe(text: &str, seed: &Path) -> bool {
    Recipe::parse(text, seed).is_ok()
}

fn parse_character(text: &str, seed: &Path) -> bool {
    let dir = seed.parent().unwrap_or(root());
    Character::parse(text, "fuzz.toml", dir, seed).is_ok()
}

/// Parses LOD presets; every preset accepted runs a small crowd of the committed fixture for
/// a few frames.
fn parse_lod(text: &str, file: &Arc<ThrongFile>) -> bool {
    let Ok(presets) = LodPresets::parse(text, "fuzz.toml") else {
        return false;
    };
    let eye = glam::Vec3::new(0.0, 2.0, 20.0);
    let view_proj = glam::camera::rh::proj::directx::perspective(1.0, 1.5, 0.1, 500.0)
        * glam::camera::rh::view::look_at_mat4(eye, glam::Vec3::ZERO, glam::Vec3::Y);
    let view = View { view_proj, eye };
    for (_, policy) in presets.iter() {
        let Ok(mut crowd) =
            Crowd::<()>::new(file.clone(), &CrowdSettings::default(), policy.clone())
        else {
            continue;
        };
        let anim = file.characters()[0].first_anim;
        let spawns: Vec<_> = (0..24)
            .map(|i| {
                let at = glam::Vec3::new((i % 6) as f32 * 3.0, 0.0, -((i / 6) as f32) * 15.0);
                (Spawn::new(0, anim, at), ())
            })
            .collect();
        let _ = crowd.spawn_many(&spawns);
        for _ in 0..4 {
            crowd.update(0.1, &view);
        }
    }
    true
}

/// Fuzzes a TOML kind: `rounds` mutations of `seeds`, each given to `parse` with its seed.
fn fuzz_toml(
    kind: &'static str,
    rounds: usize,
    seeds: &[(PathBuf, String)],
    parse: impl Fn(&str, &Path) -> bool,
) {
    let mut run = Run::new(kind, "toml");
    for round in 0..rounds {
        // The project's own files (listed first) half the time: they reach the deep checks.
        let i = if round % 2 == 0 {
            run.rng.below(seeds.len().min(3))
        } else {
            run.rng.below(seeds.len())
        };
        let (seed, text) = &seeds[i];
        let mutated = mutate_toml(&mut run.rng, text);
        run.check(round, &seed_line(seed), mutated.as_bytes(), || {
            parse(&mutated, seed)
        });
    }
    run.finish(rounds, 0.2);
}

#[test]
fn fuzzed_recipes_never_panic_the_parser() {
    let seeds = toml_seeds(
        &[
            "bake/mannequin.toml",
            "bake/large-scene.toml",
            "tests/fixtures/walker-bake.toml",
        ],
        "recipes",
    );
    fuzz_toml("recipe", 1_000 * scale(), &seeds, parse_recipe);
}

#[test]
fn fuzzed_character_files_never_panic_the_parser() {
    // Each parse resolves against the mannequin (imported each time), so fewer rounds.
    let seeds = toml_seeds(
        &["assets/mannequin.toml", "tests/fixtures/walker.toml"],
        "characters",
    );
    fuzz_toml("character", 150 * scale(), &seeds, parse_character);
}

#[test]
fn fuzzed_lod_configs_never_panic_the_parser_or_a_crowd() {
    let file =
        Arc::new(ThrongFile::open(&root().join("tests/fixtures/format-1.1.throng")).unwrap());
    let seeds = toml_seeds(&["assets/lod.toml"], "lod");
    fuzz_toml("lod", 600 * scale(), &seeds, |text, _| {
        parse_lod(text, &file)
    });
}

#[test]
fn saved_fuzz_inputs_never_panic() {
    // Every input a fuzz above once crashed, replayed as it was found (its seed's folder for
    // relative paths): each must be answered, accepted or refused, without a panic.
    let file =
        Arc::new(ThrongFile::open(&root().join("tests/fixtures/format-1.1.throng")).unwrap());
    let base = root().join("tests/fixtures/fuzz-regressions");
    assert!(
        base.join("README.md").is_file(),
        "{} has its README",
        base.display()
    );
    let mut n = 0;
    for (kind, ext) in [
        ("gltf", "glb"),
        ("recipe", "toml"),
        ("character", "toml"),
        ("lod", "toml"),
    ] {
        let dir = base.join(kind);
        if !dir.is_dir() {
            continue;
        }
        for (path, bytes) in files(&dir, ext) {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let replay = || match kind {
                "gltf" => import(&bytes, "fuzz.glb"),
                "recipe" => parse_recipe(&text, &seed_of(&text, "bake/mannequin.toml")),
                "character" => parse_character(&text, &seed_of(&text, "assets/mannequin.toml")),
                _ => parse_lod(&text, &file),
            };
            let r = std::panic::catch_unwind(AssertUnwindSafe(replay));
            assert!(r.is_ok(), "{}: panicked", path.display());
            n += 1;
        }
    }
    println!("{n} saved fuzz inputs replayed");
}
