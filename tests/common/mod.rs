//! Helpers shared by the integration tests: locating the third-party test models, temporary
//! directories, and a tiny glTF writer for hand-made test files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod gpu;
pub mod mutate;

use base64::Engine;
use serde_json::{Value, json};

/// `../shared/assets/NAME` if present. When missing: `None` with a printed reason, or a panic
/// when `THRONG_REQUIRE_TEST_ASSETS=1` (as CI sets), so a missing input can never pass silently.
pub fn shared_asset(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(name);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("THRONG_REQUIRE_TEST_ASSETS").is_ok_and(|v| v == "1") {
        panic!(
            "{} is missing and THRONG_REQUIRE_TEST_ASSETS=1",
            path.display()
        );
    }
    eprintln!(
        "skipped: {} is missing (set THRONG_REQUIRE_TEST_ASSETS=1 to fail instead)",
        path.display()
    );
    None
}

/// The built-in mannequin, generated and imported.
pub fn mannequin() -> throng::import::Model {
    throng::import::load_bytes(
        &throng::import::mannequin::generate_glb(),
        "mannequin.glb",
        &throng::import::ImportOptions::default(),
    )
    .unwrap()
}

/// The index of `model`'s clip `name` (which must exist).
pub fn clip(model: &throng::import::Model, name: &str) -> usize {
    model.find_clip(name).unwrap()
}

/// Model-space joint matrices of a local pose.
pub fn world(model: &throng::import::Model, local: &[throng::anim::Transform]) -> Vec<glam::Mat4> {
    let mut w = vec![glam::Mat4::IDENTITY; model.skeleton.len()];
    throng::anim::local_to_model(&model.skeleton, local, &mut w);
    w
}

/// The recipe `throng bake MODEL` uses for a bare model (`Recipe::for_model`), writing
/// `out`, without impostors: tests of texels, bounds, meshes and animations do not read the
/// atlas, and drawing it on the CPU in a debug build costs seconds a model. The atlas is
/// tested where it is the subject (src/bake/impostor, tests/render/impostor.rs, the CLI's
/// bake report and inspect).
pub fn bare_recipe(model: &Path, out: &Path) -> throng::bake::Recipe {
    let mut recipe = throng::bake::Recipe::for_model(model, out);
    recipe.impostors.enabled = false;
    recipe
}

/// The committed mannequin.
pub fn mannequin_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.glb")
}

/// A fresh empty directory under the system temp dir, unique per call and process: the tests
/// of a whole area share one process, and two modules may pick the same tag (hostile_corpus's
/// "hostile-deep" is hostile_character's "deep"), so a count of calls keeps them apart.
pub fn temp_dir(tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let name = format!("throng-test-{}-{n}-{tag}", std::process::id());
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Builds small glTF files by hand: one binary buffer, accessors appended as needed.
#[derive(Default)]
pub struct TestGltf {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl TestGltf {
    /// Appends float data as an accessor of `ty` (`SCALAR`, `VEC3`, ...), with min/max (which
    /// POSITION and animation inputs require).
    pub fn floats(&mut self, data: &[f32], ty: &str) -> usize {
        let comps = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => panic!("type {ty}"),
        };
        let offset = self.bin.len();
        self.bin.extend(data.iter().flat_map(|x| x.to_le_bytes()));
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4}));
        let mut acc = json!({"bufferView": self.views.len() - 1, "componentType": 5126, "count": data.len() / comps, "type": ty});
        if !data.is_empty() {
            let column = |c: usize| data.iter().skip(c).step_by(comps).cloned();
            let min: Vec<f32> = (0..comps)
                .map(|c| column(c).fold(f32::INFINITY, f32::min))
                .collect();
            let max: Vec<f32> = (0..comps)
                .map(|c| column(c).fold(f32::NEG_INFINITY, f32::max))
                .collect();
            acc["min"] = json!(min);
            acc["max"] = json!(max);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// Appends raw little-endian `bytes` as an accessor of `count` elements of `ty` with the
    /// given component type (5120 BYTE ... 5126 FLOAT) and normalisation.
    pub fn raw(
        &mut self,
        bytes: &[u8],
        component: u32,
        count: usize,
        ty: &str,
        normalized: bool,
    ) -> usize {
        let view = self.view(bytes);
        let mut acc =
            json!({"bufferView": view, "componentType": component, "count": count, "type": ty});
        if normalized {
            acc["normalized"] = json!(true);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// Appends raw bytes as a buffer view only (for sparse indices and values).
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.views.len() - 1
    }

    /// Appends unsigned bytes as a VEC4 accessor (joint indices).
    pub fn joints_u8(&mut self, data: &[[u8; 4]]) -> usize {
        let offset = self.bin.len();
        self.bin.extend(data.iter().flatten());
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4}));
        self.accessors.push(json!({"bufferView": self.views.len() - 1, "componentType": 5121, "count": data.len(), "type": "VEC4"}));
        self.accessors.len() - 1
    }

    /// The JSON with buffers, views and accessors filled in; the buffer as a data URI.
    pub fn finish(&self, mut root: Value) -> Value {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        root["asset"] = json!({"version": "2.0"});
        root["buffers"] = json!([{"byteLength": self.bin.len(), "uri": uri}]);
        root["bufferViews"] = Value::Array(self.views.clone());
        root["accessors"] = Value::Array(self.accessors.clone());
        root
    }
}

/// A two-joint skinned character (root at origin, child 1 m up the Y axis) with one triangle
/// bound to the child, plus one animation with one channel on the child. The caller gives the
/// channel's path, interpolation, key times and flattened output values.
pub fn one_channel_model(path: &str, interpolation: &str, times: &[f32], values: &[f32]) -> Value {
    let mut g = TestGltf::default();
    let pos = g.floats(&[0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0], "VEC3");
    let joints = g.joints_u8(&[[1, 0, 0, 0]; 3]);
    let weights = g.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4");
    let ibm = g.floats(
        &[
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ],
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
            ],
        ]
        .concat(),
        "MAT4",
    );
    let input = g.floats(times, "SCALAR");
    let ty = if path == "rotation" { "VEC4" } else { "VEC3" };
    let output = g.floats(values, ty);
    g.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{"name": "test", "samplers": [{"input": input, "output": output, "interpolation": interpolation}],
                        "channels": [{"sampler": 0, "target": {"node": 2, "path": path}}]}]
    }))
}

/// Writes `json` as `name` in a fresh temp dir and returns its path.
pub fn write_gltf(tag: &str, name: &str, json: &Value) -> PathBuf {
    let dir = temp_dir(tag);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(json).expect("json")).expect("write gltf");
    path
}

/// A small deterministic xorshift generator, so randomised tests are the same on every run and
/// a failure can be replayed from its seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs the `throng` binary with `args`: exit code, stdout, stderr.
pub fn throng(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("run throng");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Rewrites a `.throng` file's size field and both checksums (content, then header; see
/// docs/FORMAT.md), so that a hand-edited file is judged on its content, not refused by a CRC.
pub fn reseal(b: &mut [u8]) {
    if b.len() < 64 {
        return;
    }
    let size = b.len() as u64;
    b[16..24].copy_from_slice(&size.to_le_bytes());
    let content = crc32fast::hash(&b[64..]);
    b[24..28].copy_from_slice(&content.to_le_bytes());
    let header = crc32fast::hash(&b[..60]);
    b[60..64].copy_from_slice(&header.to_le_bytes());
}

/// Whether `THRONG_REQUIRE_BACKENDS` (comma-separated, as CI sets `vulkan,gl`) names
/// `backend`: a test needing it then fails instead of skipping when it is missing.
pub fn backend_required(backend: &str) -> bool {
    std::env::var("THRONG_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|b| b.trim() == backend)
}

/// The default recipe (bake/mannequin.toml) baked by `throng bake` into `dir/m.throng`.
pub fn bake_default(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("m.throng");
    let (code, _, err) = throng(&[
        "bake",
        &root.join("bake/mannequin.toml").display().to_string(),
        "-o",
        &out.display().to_string(),
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

/// A tiny character: two joints, one triangle, a clip whose root travels 2 m along +x in 1 s
/// (extracted as root motion), events, and a state blending two speeds of it.
pub fn tiny_recipe(tag: &str) -> throng::bake::Recipe {
    let json = one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 2.0, 1.0, 0.0],
    );
    let model = write_gltf(tag, "slide.gltf", &json);
    let dir = model.parent().unwrap();
    std::fs::write(
        dir.join("slide.toml"),
        r#"model = "slide.gltf"
root_joint = "child"
initial = "go"
[clips.test]
root_motion = true
events = [{ name = "step", time = 0.5 }]
[parameters]
pace = { type = "float", default = 1.0 }
[states.go]
blend1d = "pace"
children = [{ at = 1.0, clip = "test" }, { at = 2.0, clip = "test", speed = 2.0 }]
"#,
    )
    .unwrap();
    let recipe = dir.join("tiny.toml");
    std::fs::write(
        &recipe,
        // No impostors: tests that want them give the builder their own (a few bytes), and
        // the hostile tests flip every bit of this file.
        "output = \"tiny.throng\"\nfps = 4\nprecision = \"f32\"\nlods = [1.0]\n[impostors]\nenabled = false\n[[characters]]\nname = \"tiny\"\ncharacter = \"slide.toml\"\n[characters.params]\npace = [1.0, 2.0]\n",
    )
    .unwrap();
    throng::bake::Recipe::load(&recipe).unwrap()
}
