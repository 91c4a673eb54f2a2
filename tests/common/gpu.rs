//! Helpers of the tests that draw: a device per backend (skipping, or failing where
//! `THRONG_REQUIRE_BACKENDS` names it), the default mannequin bake, and where a world point
//! lands in a picture.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use throng::bake::{BakeOptions, Recipe, bake};
use throng::render::{BackendChoice, Gpu};

/// The default mannequin bake, baked once per test process into a temp folder.
pub fn mannequin_bake() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut recipe = Recipe::load(&root.join("bake/mannequin.toml")).unwrap();
        let dir = super::temp_dir("render-bake");
        recipe.output = dir.join("mannequin.throng");
        bake(&recipe, &BakeOptions::default())
            .unwrap()
            .builder
            .write(&recipe.output)
            .unwrap();
        recipe.output
    })
}

/// A device on `choice`, or `None` with the reason printed (a failure when required).
pub fn device(choice: BackendChoice) -> Option<Gpu> {
    let required = std::env::var("THRONG_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|b| b.trim() == choice.name());
    match Gpu::new(choice) {
        Ok(gpu) => {
            println!("{}: {}", choice.name(), gpu.describe());
            Some(gpu)
        }
        Err(e) if required => panic!(
            "{}: {e} (THRONG_REQUIRE_BACKENDS requires it)",
            choice.name()
        ),
        Err(e) => {
            eprintln!("skipped on {}: {e}", choice.name());
            None
        }
    }
}

/// Where world point `p` lands in a `w` × `h` picture seen through `view_proj`.
pub fn pixel(view_proj: glam::Mat4, p: glam::Vec3, (w, h): (u32, u32)) -> Option<(u32, u32)> {
    let c = view_proj.project_point3(p);
    let x = ((c.x * 0.5 + 0.5) * w as f32) as i64;
    let y = ((0.5 - c.y * 0.5) * h as f32) as i64;
    ((0..i64::from(w)).contains(&x) && (0..i64::from(h)).contains(&y))
        .then_some((x as u32, y as u32))
}
