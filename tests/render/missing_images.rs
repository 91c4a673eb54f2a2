//! An image that cannot be read (a missing file, corrupt bytes, a bad data URI) is a warning
//! naming it, and its material is drawn untextured: the import, `throng inspect`, `throng pose`
//! and `throng bake` all go on. The fixtures are written on the fly: a small .gltf with its .bin
//! beside it, whose material's base-colour texture names an image.

use crate::common;

use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{Value, json};
use throng::import::{ImportOptions, load};

/// A one-joint model with a textured material, written as `model.gltf` + `model.bin` in a fresh
/// folder; its image is `image` (a JSON image object). Returns the .gltf's path.
fn textured_model(tag: &str, image: Value) -> PathBuf {
    let mut j = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 0.5, 1.0],
        &[0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.0],
    );
    let uri = j["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(";base64,").unwrap().1)
        .unwrap();
    j["buffers"][0]["uri"] = json!("model.bin");
    j["images"] = json!([image]);
    j["textures"] = json!([{"source": 0}]);
    j["materials"] =
        json!([{"name": "skin", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    j["meshes"][0]["primitives"][0]["material"] = json!(0);
    let path = common::write_gltf(tag, "model.gltf", &j);
    std::fs::write(path.with_file_name("model.bin"), bytes).unwrap();
    path
}

/// Imports `path` (which must succeed) and returns its one warning about images, checking
/// that the material is untextured.
fn image_warning(path: &Path) -> String {
    let model = load(path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("an unreadable image must not stop the import: {e}"));
    assert!(
        model.materials[0].base_color_texture.is_none(),
        "the material is drawn untextured"
    );
    let mut about: Vec<&String> = model
        .warnings
        .iter()
        .filter(|w| w.contains("image 0"))
        .collect();
    assert_eq!(
        about.len(),
        1,
        "one warning per image: {:?}",
        model.warnings
    );
    about.pop().unwrap().clone()
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should mention {p:?}");
    }
}

#[test]
fn a_missing_image_file_is_a_warning_naming_it() {
    let path = textured_model(
        "img-missing",
        json!({"name": "albedo", "uri": "textures/missing.png"}),
    );
    let w = image_warning(&path);
    assert_mentions(
        &w,
        &[
            "image 0 ('albedo')",
            "missing.png",
            "material 0 ('skin')",
            "untextured",
        ],
    );
}

#[test]
fn corrupt_image_bytes_are_a_warning_naming_the_file() {
    let path = textured_model("img-corrupt", json!({"uri": "broken.png"}));
    std::fs::write(
        path.with_file_name("broken.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    let w = image_warning(&path);
    assert_mentions(
        &w,
        &["image 0", "'broken.png'", "cannot decode", "untextured"],
    );
}

#[test]
fn a_bad_data_uri_is_a_warning() {
    let path = textured_model(
        "img-datauri",
        json!({"uri": "data:image/png;base64,@@not base64@@"}),
    );
    let w = image_warning(&path);
    assert_mentions(&w, &["image 0", "invalid base64", "untextured"]);
}

#[test]
fn a_readable_image_is_still_decoded() {
    // The counterpart of the tests above: the same model with a real 2x1 PNG is textured, so
    // they test the failure, not a fixture that never loads images.
    let path = textured_model("img-ok", json!({"uri": "ok.png"}));
    image::RgbaImage::from_pixel(2, 1, image::Rgba([200, 10, 10, 255]))
        .save(path.with_file_name("ok.png"))
        .unwrap();
    let model = load(&path, &ImportOptions::default()).unwrap();
    let t = model.materials[0].base_color_texture.as_ref().unwrap();
    assert_eq!((t.width, t.height), (2, 1));
    assert!(model.warnings.iter().all(|w| !w.contains("image 0")));
}

/// How often `needle` occurs in `hay`.
fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn inspect_pose_and_bake_warn_and_go_on() {
    let path = textured_model(
        "img-cli",
        json!({"name": "albedo", "uri": "textures/missing.png"}),
    );
    let p = path.display().to_string();
    let (code, out, err) = common::throng(&["inspect", &p]);
    assert_eq!(code, 0, "inspect: {err}");
    assert_eq!(count(&out, "missing.png"), 1, "inspect:\n{out}");
    let (code, out, err) = common::throng(&["pose", &p, "--time", "0.25"]);
    assert_eq!(code, 0, "pose: {err}");
    assert!(out.starts_with('{'), "pose prints its JSON: {out}");
    assert_eq!(count(&err, "missing.png"), 1, "pose:\n{err}");
    let baked = path.with_file_name("model.throng").display().to_string();
    let (code, out, err) = common::throng(&["bake", &p, "-o", &baked]);
    assert_eq!(code, 0, "bake: {err}");
    assert_eq!(count(&out, "missing.png"), 1, "bake:\n{out}");
    assert!(Path::new(&baked).is_file());
}
