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

mod common;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use common::Rng;
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

// --- mutations ----------------------------------------------------------------------------

/// One random byte mutation: flipped bits, a hostile integer written over an aligned field,
/// bytes cut or inserted, or bytes copied from elsewhere in the input.
fn mutate_bytes(rng: &mut Rng, b: &mut Vec<u8>) {
    const HOSTILE: [u64; 8] = [
        0,
        1,
        0x7f,
        0xffff,
        0x8000_0000,
        0xffff_ffff,
        u64::MAX,
        1 << 40,
    ];
    if b.is_empty() {
        b.push(rng.next() as u8);
        return;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            // Aligned 4- or 8-byte fields: where counts, offsets and indices live.
            let width = if rng.below(2) == 0 { 4 } else { 8 };
            let at = rng.below(b.len() / width) * width;
            let v = HOSTILE[rng.below(HOSTILE.len())].wrapping_add(rng.below(3) as u64);
            let bytes = v.to_le_bytes();
            let end = (at + width).min(b.len());
            b[at..end].copy_from_slice(&bytes[..end - at]);
        }
        2 => {
            let at = rng.below(b.len());
            let n = 1 + rng.below(64);
            b.drain(at..(at + n).min(b.len()));
        }
        3 => {
            let at = rng.below(b.len());
            let n = 1 + rng.below(64);
            let fill: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(at..at, fill);
        }
        _ => {
            let (from, to, n) = (rng.below(b.len()), rng.below(b.len()), 1 + rng.below(32));
            let chunk: Vec<u8> = b[from..(from + n).min(b.len())].to_vec();
            let end = (to + chunk.len()).min(b.len());
            b[to..end].copy_from_slice(&chunk[..end - to]);
        }
    }
}

/// One step of a path into a JSON or TOML document.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Values a hostile file puts where a number, a name or an index belongs.
fn hostile_json(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    let pool = [
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(-1),
        json!(255),
        json!(65535),
        json!(4_294_967_295u64),
        json!(9_007_199_254_740_993u64),
        json!(-9.2e18),
        json!(1e39),
        json!(0.5),
        json!(-0.0),
        json!(1e-40),
        json!(""),
        json!("x"),
        json!("../../etc/passwd"),
        json!("data:application/octet-stream;base64,AAAA"),
        json!(null),
        json!(true),
        json!([]),
        json!({}),
        json!([0, 0, 0]),
        json!([1e39, 0, 0, 1]),
        json!("CUBICSPLINE"),
        json!("STEP"),
        json!("MAT4"),
        json!(5126),
        json!(5121),
        json!(5125),
    ];
    pool[rng.below(pool.len())].clone()
}

fn json_paths(v: &serde_json::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        serde_json::Value::Object(m) => {
            for (k, c) in m {
                at.push(Step::Key(k.clone()));
                json_paths(c, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(Step::Index(i));
                json_paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn json_at<'a>(v: &'a mut serde_json::Value, path: &[Step]) -> &'a mut serde_json::Value {
    path.iter().fold(v, |v, s| match (s, v) {
        (Step::Key(k), serde_json::Value::Object(m)) => m.get_mut(k).expect("path exists"),
        (Step::Index(i), serde_json::Value::Array(a)) => &mut a[*i],
        _ => unreachable!("paths come from the document"),
    })
}

/// One structural mutation of a JSON document: a value replaced by a hostile one or by a
/// copy of another value in the document, a member or element removed, an element repeated,
/// or a number nudged (indices one past the end, counts doubled).
fn mutate_json(rng: &mut Rng, doc: &mut serde_json::Value) {
    let mut paths = Vec::new();
    json_paths(doc, &mut Vec::new(), &mut paths);
    let path = paths[rng.below(paths.len())].clone();
    let donor = json_at(doc, &paths[rng.below(paths.len())].clone()).clone();
    match rng.below(10) {
        0..=3 => *json_at(doc, &path) = hostile_json(rng),
        4 | 5 => *json_at(doc, &path) = donor,
        6 | 7 if !path.is_empty() => {
            let (last, parent) = path.split_last().expect("not the root");
            match (last, json_at(doc, parent)) {
                (Step::Key(k), serde_json::Value::Object(m)) => {
                    m.remove(k);
                }
                (Step::Index(i), serde_json::Value::Array(a)) => {
                    if rng.below(2) == 0 {
                        a.remove(*i);
                    } else {
                        let copy = a[*i].clone();
                        a.push(copy);
                    }
                }
                _ => {}
            }
        }
        _ => {
            let v = json_at(doc, &path);
            if let Some(n) = v.as_i64() {
                let nudged = [n + 1, n - 1, n * 2, n + 1000, -n][rng.below(5)];
                *v = serde_json::json!(nudged);
            } else if let Some(x) = v.as_f64() {
                *v = serde_json::json!([x * 1e20, -x, x + 1e-3, x * 0.0][rng.below(4)]);
            } else {
                *v = hostile_json(rng);
            }
        }
    }
}

/// The JSON and binary chunks of a GLB, or `None` for a `.gltf` (the whole file is JSON).
fn glb_chunks(b: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    if b.len() < 20 || &b[..4] != b"glTF" {
        return None;
    }
    let json_len = u32::from_le_bytes(b[12..16].try_into().ok()?) as usize;
    let json = b.get(20..20 + json_len)?.to_vec();
    let bin = b.get(20 + json_len + 8..).unwrap_or(&[]).to_vec();
    Some((json, bin))
}

/// A GLB of `json` and `bin` (each padded to 4 bytes, as the container asks).
fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| n.div_ceil(4) * 4;
    let (jl, bl) = (pad(json.len()), pad(bin.len()));
    let total = 12 + 8 + jl + if bin.is_empty() { 0 } else { 8 + bl };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(jl as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(20 + jl, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bl as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    out
}

/// One mutation of a glTF model (GLB or `.gltf`): mostly of its JSON's structure, sometimes
/// of its binary chunk's bytes (accessor data: NaN, joints out of range), rarely of the
/// container's bytes.
fn mutate_gltf(rng: &mut Rng, file: &[u8]) -> Vec<u8> {
    let (json, mut bin, is_glb) = match glb_chunks(file) {
        Some((j, b)) => (j, b, true),
        None => (file.to_vec(), Vec::new(), false),
    };
    let Ok(mut doc) = serde_json::from_slice::<serde_json::Value>(&json) else {
        let mut b = file.to_vec();
        mutate_bytes(rng, &mut b);
        return b;
    };
    match rng.below(10) {
        0 => {
            let mut b = file.to_vec();
            mutate_bytes(rng, &mut b);
            return b;
        }
        1 | 2 if !bin.is_empty() => {
            let len = bin.len();
            mutate_bytes(rng, &mut bin);
            // Keep the length, so the buffer's byteLength still holds and the data is read.
            bin.resize(len, 0);
        }
        _ => {
            for _ in 0..1 + rng.below(3) {
                mutate_json(rng, &mut doc);
            }
        }
    }
    let json = serde_json::to_vec(&doc).expect("a JSON value serialises");
    if is_glb { glb(&json, &bin) } else { json }
}

/// Values a hostile file puts in a TOML key; `names` are the strings of the document, so that
/// references (clips, states, parameters) are often valid.
fn hostile_toml(rng: &mut Rng, names: &[String]) -> toml::Value {
    use toml::Value as V;
    match rng.below(22) {
        0 => V::Integer(0),
        1 => V::Integer(-1),
        2 => V::Integer(3),
        3 => V::Integer(1 << 31),
        4 => V::Integer(i64::MAX),
        5 => V::Float(0.0),
        6 => V::Float(-1.0),
        7 => V::Float(1e39),
        8 => V::Float(3.4e38),
        9 => V::Float(f64::NAN),
        10 => V::Float(f64::INFINITY),
        11 => V::Float(1e-39),
        12 => V::Float(0.5),
        13 => V::String(String::new()),
        14 => V::Boolean(true),
        15 => V::Array(Vec::new()),
        16 => V::Array(vec![V::Float(1.0), V::Float(1e39)]),
        17 => V::Table(toml::Table::new()),
        18 => V::Datetime("1979-05-27T07:32:00Z".parse().expect("a date-time")),
        _ if !names.is_empty() => V::String(names[rng.below(names.len())].clone()),
        _ => V::String("x".into()),
    }
}

fn toml_paths(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        toml::Value::Table(m) => {
            for (k, c) in m {
                at.push(Step::Key(k.clone()));
                toml_paths(c, at, out);
                at.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(Step::Index(i));
                toml_paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn toml_at<'a>(v: &'a mut toml::Value, path: &[Step]) -> &'a mut toml::Value {
    path.iter().fold(v, |v, s| match (s, v) {
        (Step::Key(k), toml::Value::Table(m)) => m.get_mut(k).expect("path exists"),
        (Step::Index(i), toml::Value::Array(a)) => &mut a[*i],
        _ => unreachable!("paths come from the document"),
    })
}

fn toml_strings(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) => out.push(s.clone()),
        toml::Value::Table(m) => {
            out.extend(m.keys().cloned());
            m.values().for_each(|c| toml_strings(c, out));
        }
        toml::Value::Array(a) => a.iter().for_each(|c| toml_strings(c, out)),
        _ => {}
    }
}

/// One mutation of a TOML file: mostly of its structure (a value replaced by a hostile one,
/// by a name from the file or by a copy of another value; a key removed; an element
/// repeated), sometimes of its text (a line cut or repeated, bytes changed).
fn mutate_toml(rng: &mut Rng, text: &str) -> String {
    let parsed = text.parse::<toml::Table>();
    let structural = rng.below(6) != 0;
    if let (true, Ok(table)) = (structural, parsed) {
        let mut doc = toml::Value::Table(table);
        let mut names = Vec::new();
        toml_strings(&doc, &mut names);
        for _ in 0..1 + rng.below(3) {
            let mut paths = Vec::new();
            toml_paths(&doc, &mut Vec::new(), &mut paths);
            let path = paths[rng.below(paths.len())].clone();
            let donor = toml_at(&mut doc, &paths[rng.below(paths.len())].clone()).clone();
            match rng.below(8) {
                0..=3 => *toml_at(&mut doc, &path) = hostile_toml(rng, &names),
                4 => *toml_at(&mut doc, &path) = donor,
                _ if !path.is_empty() => {
                    let (last, parent) = path.split_last().expect("not the root");
                    match (last, toml_at(&mut doc, parent)) {
                        (Step::Key(k), toml::Value::Table(m)) => {
                            m.remove(k);
                        }
                        (Step::Index(i), toml::Value::Array(a)) => {
                            let copy = a[*i].clone();
                            a.push(copy);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        if let Ok(text) = toml::to_string(&doc) {
            return text;
        }
    }
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > 1 && rng.below(2) == 0 {
        let i = rng.below(lines.len());
        if rng.below(2) == 0 {
            lines.remove(i);
        } else {
            lines.insert(i, lines[rng.below(lines.len())]);
        }
        return lines.join("\n");
    }
    let mut b = text.as_bytes().to_vec();
    mutate_bytes(rng, &mut b);
    String::from_utf8_lossy(&b).into_owned()
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
