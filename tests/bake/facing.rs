//! The facing turn recorded (format 1.2, `CEXT`): a bare bake of the mannequin variant that
//! faces and walks along −z is turned 180° about +y and says so in its file; a recipe's
//! `facing = "authored"` keeps the model as authored, records 0 and turns nothing.

use crate::bake_file::frame_matrices;
use crate::common;

use std::path::{Path, PathBuf};

use glam::Mat4;
use throng::anim::{Transform, local_to_model, sample, skinning_matrices};
use throng::bake::{
    BakeOptions, BakeReport, Facing, PrecisionChoice, Recipe, Size, bake, rows, standing_height,
};
use throng::format::ThrongFile;
use throng::format::records::turn_matrix;
use throng::import::mannequin::{Variant, generate_variant};
use throng::import::{ImportOptions, load};

/// The variant facing −z, written to a fresh folder.
fn back_model(tag: &str) -> PathBuf {
    let path = common::temp_dir(tag).join("back.glb");
    let bytes = generate_variant(&Variant::named("mixamo-back").unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Bakes `recipe` and reads the file back from its bytes, naming it `name` (shared with the
/// skeleton LOD tests).
pub(crate) fn bake_and_read(recipe: &Recipe, name: &str) -> (ThrongFile, BakeReport) {
    let options = BakeOptions {
        force: true,
        progress: None,
        ..Default::default()
    };
    let baked = bake(recipe, &options).unwrap();
    let bytes = baked.builder.to_bytes().unwrap();
    (ThrongFile::from_bytes(&bytes, name).unwrap(), baked.report)
}

/// `throng bake MODEL.glb`'s recipe, in f32 and without foot locking, so that the texels are
/// the source's poses exactly.
fn exact(path: &Path, facing: Facing) -> Recipe {
    let mut r = crate::common::bare_recipe(path, Path::new("unused.throng"));
    r.precision = PrecisionChoice::F32;
    r.characters[0].foot_lock = false;
    r.characters[0].facing = facing;
    r
}

fn bits(ms: &[Mat4]) -> Vec<u32> {
    ms.iter()
        .flat_map(|m| rows(m).into_iter().flatten().map(f32::to_bits))
        .collect()
}

#[test]
fn a_bare_bake_of_the_back_variant_records_a_half_turn() {
    let path = back_model("facing-bare");
    let (file, report) = bake_and_read(
        &crate::common::bare_recipe(&path, Path::new("unused.throng")),
        "back.throng",
    );
    let c = &report.characters[0];
    assert_eq!(c.quarter_turns, 2, "{:?}", c.warnings);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("turned 180° about +y")),
        "{:?}",
        c.warnings
    );
    assert_eq!(file.container().version(), (1, 4));
    assert_eq!(file.facing_turns(0), 2);
}

#[test]
fn authored_facing_records_no_turn_and_keeps_the_unturned_matrices() {
    let path = back_model("facing-authored");
    let (auto, auto_report) = bake_and_read(&exact(&path, Facing::Auto), "back.throng");
    let (kept, kept_report) = bake_and_read(&exact(&path, Facing::Authored), "back.throng");
    assert_eq!(auto_report.characters[0].quarter_turns, 2);
    assert_eq!((auto.facing_turns(0), kept.facing_turns(0)), (2, 0));
    let c = &kept_report.characters[0];
    assert_eq!(c.quarter_turns, 0);
    assert!(
        !c.warnings.iter().any(|w| w.contains("turned")),
        "no note on facing: {:?}",
        c.warnings
    );
    // The model's own pipeline, unturned: frame 0 of every animation (never a frame where a
    // seam is spread) is bit for bit the authored bake's.
    let m = load(&path, &ImportOptions::default()).unwrap();
    let scale = Mat4::from_scale(Size::Default.factor(standing_height(&m)).0);
    let n = m.skeleton.len();
    let (mut local, mut world, mut skin) = (
        vec![Transform::IDENTITY; n],
        vec![Mat4::IDENTITY; n],
        vec![Mat4::IDENTITY; n],
    );
    assert_eq!(kept.anims().len(), m.clips.len());
    for (a, clip) in m.clips.iter().enumerate() {
        sample(clip, &m.skeleton, 0.0, &mut local);
        local_to_model(&m.skeleton, &local, &mut world);
        skinning_matrices(&m.skeleton, &world, &mut skin);
        let pipeline: Vec<Mat4> = skin.iter().map(|k| scale * *k).collect();
        assert!(
            bits(&frame_matrices(&kept, a, 0)) == bits(&pipeline),
            "clip '{}' frame 0 is not the unturned pipeline's",
            clip.name()
        );
    }
    // Every frame of the automatic bake is the authored one turned half round, bit for bit
    // (a quarter turn moves rows and flips signs: exact).
    let mut frames = 0;
    for (a, r) in kept.anims().iter().enumerate() {
        assert_eq!(r.frame_count, auto.anims()[a].frame_count);
        for f in 0..r.frame_count {
            let turned: Vec<Mat4> = frame_matrices(&kept, a, f)
                .iter()
                .map(|m| Mat4::from_cols_array(&turn_matrix(m.to_cols_array(), 2)))
                .collect();
            assert!(
                bits(&frame_matrices(&auto, a, f)) == bits(&turned),
                "animation {a} frame {f}"
            );
            frames += 1;
        }
    }
    assert!(frames > 10, "{frames} frames compared");
}

#[test]
fn the_recipe_key_takes_auto_or_authored_and_names_them_otherwise() {
    let dir = common::temp_dir("facing-recipe");
    let text = |facing: &str| {
        format!(
            "output = \"x.throng\"\n[[characters]]\nname = \"m\"\nmodel = \"m.glb\"\nfacing = \"{facing}\"\n"
        )
    };
    for (word, want) in [("auto", Facing::Auto), ("authored", Facing::Authored)] {
        let r = Recipe::parse(&text(word), &dir.join("r.toml")).unwrap();
        assert_eq!(r.characters[0].facing, want);
        // Written back as the TOML it stands for, and read back the same.
        let again = r.clone().checked().unwrap();
        assert_eq!(again.characters[0].facing, want);
    }
    let e = Recipe::parse(&text("sideways"), &dir.join("r.toml"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("r.toml:5: character 'm': facing = 'sideways': give \"auto\" or \"authored\""),
        "{e}"
    );
    // A bare model's recipe keeps the automatic facing.
    let bare = Recipe::for_model(Path::new("m.glb"), Path::new("x.throng"));
    assert_eq!(bare.characters[0].facing, Facing::Auto);
}
