//! The default bake is byte for byte what it was: `throng bake bake/mannequin.toml`, run from
//! the project's root as users and CI run it, writes a file whose SHA-256 is committed below.
//! Bakes are deterministic (parallel work is reduced with `max`, which is order-free; nothing
//! of the machine, the time or an absolute path is stored: the metadata holds the paths as the
//! recipe names them, relative to the root), so any change to the hash means the format, the
//! baker's output, the mannequin or the tool version changed.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

/// SHA-256 of `bake/mannequin.toml` baked by this version. If a change is meant to alter the
/// bake (a format or baker change, a new mannequin, a version bump), regenerate it from the
/// project's root with
/// `cargo run -q -- bake bake/mannequin.toml -o /tmp/m.throng --rebuild -q && sha256sum /tmp/m.throng`,
/// say why in the commit message, and refresh docs/FORMAT.md's worked example (CI checks it
/// against a fresh bake). If it was not meant to, the change broke byte-identical bakes.
///
/// Last changed by issue 12: format 1.1 (the version in the header, and the four sections it
/// adds: each joint's glTF node; each animation's ground speed, foot slide and source, with the
/// states' parameter values and their names in `STRS`), with the clips' glTF animations
/// recorded and the walk's and run's ground speeds and foot slides measured from the feet; then
/// by foot locking (the walk and run clips, whose speeds come from their feet, baked again with
/// their feet pinned to those speeds: up to 1 mm on the mannequin, flagged FEET_LOCKED); then
/// by issue 50: `META` says why each looping animation without a ground speed has none
/// (`no_ground_speed`: the clips idle and wave and the state halt), in the words of the
/// gait measure's 1% lift rule; then by format 1.2 (the version in the header and the `CEXT`
/// section: each character's facing turn, 0 for the mannequin, which walks along +z; 16 bytes
/// and a table entry, inside the padding before the page-aligned texels, so the file is still
/// 739,776 bytes); then by skeleton LOD, format 1.3 (the version, and the `JLOD` section: a
/// table entry and each level's joint map, inside that padding; far levels' vertices'
/// influences rewritten onto the kept joints, merged and sorted largest first); then by
/// issue 48's longer LOD chain: `lods = [1.0, 0.5, 0.2, 0.08, 0.03]` adds LOD 3 and 4 (424
/// and 158 triangles: their meshes, vertices, indices and joint maps; LOD 0 to 2 unchanged),
/// 764,352 bytes. Its LOD errors, now
/// carried into metres by the skinning matrices' scale, did not change: the mannequin's rest
/// pose is its bind pose, so that scale is exactly 1. Then by format 1.4 (impostor sections,
/// empty): the version, and `IMPO` (one record, views 0), `IMPA` (11 zero records) and an
/// empty `IMPX` with their three table entries, inside the padding before the page-aligned
/// texels and after them, so the file is still 764,352 bytes. Then by the impostors themselves
/// (and the recipe's commented `[impostors]` lines, which `META` holds): the mannequin's 144
/// impostor frames of 9 × 9 views of 16 px drawn from LOD 3 on the CPU, 23,887,872 bytes of
/// `IMPX`, 24,652,224 bytes in all. Then by the input key's seed, which now holds the format
/// version and baker revision (`META`'s `input_key`; the same length, so the same size).
const DEFAULT_BAKE_SHA256: &str =
    "1627e90b58ebad504ca980b06a83db4d0533cbd2cdc3f65c57c5584204b44ef0";

#[test]
fn the_default_bake_is_byte_identical() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let recipe = "bake/mannequin.toml";
    assert!(root.join(recipe).is_file(), "{recipe} is missing");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bake-identical.throng");
    // A stale file from an earlier run must not pass for this run's bake.
    let _ = std::fs::remove_file(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_throng"))
        .current_dir(root)
        .args(["bake", recipe, "-o"])
        .arg(&out)
        .args(["--rebuild", "-q"])
        .output()
        .expect("run throng");
    assert!(
        run.status.success(),
        "throng bake {recipe} failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&out).expect("the bake wrote no file");
    let hash: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hash,
        DEFAULT_BAKE_SHA256,
        "the default bake ({} bytes) changed",
        bytes.len()
    );
}
