//! LOD for any mesh: the third-party characters baked bare (no recipe, no character file) get
//! real LOD reductions within the error limit, whether flat-shaded (Fox), built of rigid parts
//! (RobotExpressive) or smooth (CesiumMan), and the bake's notes say so.

use crate::common;

use std::path::Path;

use throng::anim::Wrap;
use throng::bake::measure::JointBoxes;
use throng::bake::{BakeOptions, CharacterReport, bake, standing_height};
use throng::character::Poser;
use throng::import::{ImportOptions, load};

/// Bakes `path` bare and returns its character report and the recipe's `lod_max_error` as a
/// length in metres: each part's error is within it times the part's own extent (its vertices'
/// units), which the rest pose's skinning matrices and the bake's factor carry into metres by
/// at most their largest stretch, so no part's error may exceed the largest such product.
fn bake_bare(path: &Path) -> (CharacterReport, Vec<f32>, f32) {
    let recipe = crate::common::bare_recipe(path, Path::new("unused.throng"));
    let baked = bake(
        &recipe,
        &BakeOptions {
            force: true,
            progress: None,
            ..Default::default()
        },
    )
    .unwrap();
    let model = load(path, &ImportOptions::default()).unwrap();
    // A bare bake's factor is uniform: the baked height over the standing height as authored.
    let factor = baked.report.characters[0].height / standing_height(&model);
    let rest = Poser::new(&model)
        .clip(&model, None, 0.0, Wrap::Clamp)
        .to_vec();
    let extent = model
        .meshes
        .iter()
        .map(|m| {
            let b = m.mesh.bounds();
            let stretch = JointBoxes::new(model.skeleton.len(), [&m.mesh])
                .stretch(&rest)
                .unwrap_or(1.0);
            (b.max - b.min).max_element() * stretch * factor
        })
        .fold(0.0, f32::max);
    // LOD building is part of the baker's time: printed for the record, not asserted (see
    // DESIGN.md: performance claims live in benchmarks).
    let start = std::time::Instant::now();
    for part in &model.meshes {
        throng::mesh::generate(&part.mesh, &recipe.lods, &Default::default()).unwrap();
    }
    println!(
        "{}: LOD levels of {} parts generated in {:?}",
        path.display(),
        model.meshes.len(),
        start.elapsed()
    );
    let character = baked.report.characters.into_iter().next().unwrap();
    println!(
        "{}: LOD triangles {:?}, errors {:?} m (limit {} m)",
        character.name,
        character.lod_triangles,
        character.lod_errors,
        recipe.lod_max_error * extent
    );
    (character, recipe.lods, recipe.lod_max_error * extent)
}

/// The error limit of LOD `l` of `ratios` when LOD 0's is `limit`: the simplifier's budget
/// grows as the level coarsens ([`throng::mesh::level_budget`]), relative to the same extent.
fn level_limit(limit: f32, max_error: f32, ratios: &[f32], l: usize) -> f32 {
    limit / max_error * throng::mesh::level_budget(max_error, ratios[l])
}

/// Checks what every bare bake must give: levels that shrink, errors within the limit, and a
/// note for each level that kept far more than asked.
fn check_levels(report: &CharacterReport, ratios: &[f32], limit: f32) {
    let t = &report.lod_triangles;
    assert_eq!(t.len(), ratios.len());
    assert_eq!(
        ratios.first(),
        Some(&1.0),
        "the default recipe's LOD 0 is the source"
    );
    assert!(t.windows(2).all(|w| w[1] < w[0]), "{t:?}");
    assert_eq!(report.lod_errors[0], 0.0);
    let max_error = throng::mesh::LodOptions::default().max_error;
    for (l, e) in report.lod_errors.iter().enumerate() {
        let limit = level_limit(limit, max_error, ratios, l);
        assert!(
            e.is_finite() && *e >= 0.0 && *e <= limit,
            "LOD {l}: error {e} over {limit}"
        );
    }
    let noted = |l: usize| {
        report
            .warnings
            .iter()
            .any(|w| w.starts_with(&format!("LOD {l} asked")))
    };
    for l in 1..t.len() {
        // The bake's own rule for a note: half as many triangles again as asked.
        let short = t[l] as f32 > ratios[l] * t[0] as f32 * 1.5 + 3.0;
        assert_eq!(noted(l), short, "LOD {l}: {:?}", report.warnings);
    }
}

/// The task's bar for meshes that did not simplify at all before welding: LOD 1 (asked for
/// half) keeps at most 60% of LOD 0's triangles. 60% rather than 50% leaves room for what the
/// error limit and locked part borders legitimately stop.
fn check_real_reduction(name: &str) {
    let Some(path) = common::shared_asset(name) else {
        return;
    };
    let (report, ratios, limit) = bake_bare(&path);
    check_levels(&report, &ratios, limit);
    let t = &report.lod_triangles;
    assert!(
        t[1] as f32 <= 0.6 * t[0] as f32,
        "{name}: LOD 1 kept {} of {} triangles",
        t[1],
        t[0]
    );
}

#[test]
fn fox_flat_shaded_simplifies() {
    check_real_reduction("Fox.glb");
}

#[test]
fn robot_expressive_rigid_parts_simplify() {
    check_real_reduction("RobotExpressive.glb");
}

#[test]
fn cesium_man_reaches_its_ratios() {
    let Some(path) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    let (report, ratios, limit) = bake_bare(&path);
    check_levels(&report, &ratios, limit);
    // A smooth mesh reaches each ratio; meshopt may stop a collapse or two past the target
    // (2% slack, the same allowance the simplifier gives itself).
    let t = &report.lod_triangles;
    for (l, r) in ratios.iter().enumerate().skip(1) {
        let target = (t[0] as f32 * r).floor();
        assert!(t[l] as f32 <= (target * 1.02).ceil(), "LOD {l}: {}", t[l]);
    }
}
