//! Units and size: a bake is in metres whatever the model's units. Bare bakes of the shared
//! models (Fox in centimetres, CesiumMan in metres, RobotExpressive 4.6 units tall), a recipe's
//! `height` and its errors, and every length and speed of a bake following the same factor.

use crate::common;

use std::path::{Path, PathBuf};

use throng::bake::{BakeOptions, Baked, Recipe, Size, bake};

/// Bakes `recipe` (f16 forced where asked, so that a budget never fails the test).
fn baked(recipe: &Recipe) -> Baked {
    bake(
        recipe,
        &BakeOptions {
            force: true,
            progress: None,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", recipe.characters[0].name))
}

/// A bare `throng bake MODEL` of `path`.
fn bare(path: &Path) -> Baked {
    baked(&crate::common::bare_recipe(
        path,
        Path::new("unused.throng"),
    ))
}

/// The recipe `text`, written as `name` in a fresh folder and loaded from there.
fn recipe(tag: &str, name: &str, text: &str) -> Result<Recipe, String> {
    let path = common::temp_dir(tag).join(name);
    std::fs::write(&path, text).unwrap();
    Recipe::load(&path).map_err(|e| e.to_string())
}

/// The size warnings of character 0 of a bake.
fn size_warnings(b: &Baked) -> Vec<&String> {
    b.report.characters[0]
        .warnings
        .iter()
        .filter(|w| w.contains("standing height"))
        .collect()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn a_bare_fox_reads_as_centimetres_and_says_so() {
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let b = bare(&fox);
    let c = &b.report.characters[0];
    // A fox stands well under a human: the range rules out both 79 m and 7.9 mm.
    assert!((0.3..=1.5).contains(&c.height), "height {}", c.height);
    assert_eq!(b.builder.characters[0].height, c.height);
    let w = size_warnings(&b);
    assert_eq!(w.len(), 1, "{:?}", c.warnings);
    for part in [
        "read as centimetres (30–400 units): scaled by 0.01 to",
        "`height = <metres>` or `scale = [1, 1, 1]`",
        &format!("`model = {:?}`", fox.display().to_string()),
    ] {
        assert!(w[0].contains(part), "'{}' lacks '{part}'", w[0]);
    }
    // Bounds are in metres too: no frame of any clip spans more than 3 m (79 units unscaled).
    for bounds in &b.builder.bounds {
        let size = glam::Vec3::from(bounds.max) - glam::Vec3::from(bounds.min);
        assert!(size.max_element() < 3.0, "bounds {size}");
    }
}

#[test]
fn a_bare_cesium_man_stays_as_authored_without_a_warning() {
    let Some(man) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    let b = bare(&man);
    let c = &b.report.characters[0];
    // About 1.5 m: the box of its rest pose is a little taller than the mesh (it is
    // conservative), so 1.3 to 1.9.
    assert!((1.3..=1.9).contains(&c.height), "height {}", c.height);
    assert!(size_warnings(&b).is_empty(), "{:?}", c.warnings);
}

#[test]
fn a_bare_robot_is_baked_as_authored_with_a_warning_that_names_height() {
    let Some(robot) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let b = bare(&robot);
    let c = &b.report.characters[0];
    // 4.6 units: above the metres range, far below the centimetres one, so unscaled.
    assert!((4.0..30.0).contains(&c.height), "height {}", c.height);
    let w = size_warnings(&b);
    assert_eq!(w.len(), 1, "{:?}", c.warnings);
    for part in [
        "outside both 0.3–4 (read as metres) and 30–400 (read as centimetres): baked as authored",
        "`height = <metres>` (e.g. `height = 1.8`)",
        "`output = \"unused.throng\"`",
        &format!("`model = {:?}`", robot.display().to_string()),
    ] {
        assert!(w[0].contains(part), "'{}' lacks '{part}'", w[0]);
    }
}

#[test]
fn the_command_line_prints_the_size_warning_of_a_bare_bake() {
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let out = common::temp_dir("units-cli").join("fox.throng");
    let (code, stdout, stderr) = common::throng(&[
        "bake",
        &fox.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("note: standing height") && stdout.contains("read as centimetres"),
        "{stdout}"
    );
}

#[test]
fn a_recipe_height_sizes_the_character() {
    let mut models = vec![common::mannequin_path()];
    models.extend(common::shared_asset("Fox.glb"));
    for model in models {
        for metres in [1.8f32, 0.45] {
            let r = recipe(
                "units-height",
                "h.toml",
                &format!(
                    "output = \"h.throng\"\nprecision = \"f32\"\n[[characters]]\nname = \"c\"\nmodel = {:?}\nclips = \"none\"\nheight = {metres}\n",
                    model.display().to_string()
                ),
            )
            .unwrap();
            assert_eq!(r.characters[0].size, Size::Height(metres));
            let b = baked(&r);
            let h = b.builder.characters[0].height;
            // The factor is height / measured, and the height is measured again after
            // scaling: two f32 roundings of a number below 2, well under 1e-5 m.
            assert!(
                (h - metres).abs() < 1e-5,
                "{}: height {h}, asked {metres}",
                model.display()
            );
            assert!(size_warnings(&b).is_empty(), "{:?}", b.report.characters);
        }
    }
}

#[test]
fn height_with_scale_or_an_impossible_height_is_an_error_naming_the_file() {
    let character = "output = \"x.throng\"\n[[characters]]\nname = \"fox\"\nmodel = \"Fox.glb\"\n";
    let e = recipe(
        "units-both",
        "both.toml",
        &format!("{character}height = 0.8\nscale = [0.01, 0.01, 0.01]\n"),
    )
    .unwrap_err();
    assert!(
        e.ends_with(
            "both.toml:5: character 'fox': give height (metres, uniform) or scale (per axis), not both"
        ),
        "{e}"
    );
    for bad in ["0", "-1", "nan", "inf", "1e4"] {
        let e = recipe(
            "units-bad",
            "bad.toml",
            &format!("{character}height = {bad}\n"),
        )
        .unwrap_err();
        // Numbers that are not finite are refused as they are read, at the key's line.
        let finite = !["nan", "inf"].contains(&bad);
        assert!(
            if finite {
                e.contains("bad.toml:5: character 'fox': height = ")
                    && e.ends_with("give its standing height in metres, above 0 and at most 1000")
            } else {
                e.ends_with(&format!(
                    "bad.toml:5: characters.height: {bad} must be a finite number"
                ))
            },
            "{bad}: {e}"
        );
    }
}

/// Every length of the walker's bake (root motion, speeds, bounds, errors, height) doubles
/// when its height is doubled. (Its walk is authored in place: its root motion is a sway that
/// returns, so its declared speed is 0; the next test has a root that travels.) The walker stands 1.8 m, so the default rule leaves it at 1; a
/// height of twice the measured one is a factor of exactly 2 (a power of two), so the
/// products are exact and the comparisons below allow only for rounding in sums.
#[test]
fn every_length_and_speed_follows_the_factor() {
    let one = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    assert_eq!(one.characters[0].size, Size::Default);
    let a = baked(&one);
    let mut two = one.clone();
    two.characters[0].size = Size::Height(2.0 * a.report.characters[0].height);
    let b = baked(&two);
    // Relative: f32 rounding of the state's accumulated root motion (frame by frame sums).
    let close = |x: f32, y: f32, what: &str| {
        assert!(
            (2.0 * x - y).abs() <= 1e-5 * y.abs().max(1e-3),
            "{what}: {y} is not twice {x}"
        );
    };
    let (ra, rb) = (&a.report.characters[0], &b.report.characters[0]);
    close(ra.height, rb.height, "height");
    for (x, y) in ra.lod_errors.iter().zip(&rb.lod_errors) {
        close(*x, *y, "LOD error");
    }
    let mut by_param = 0;
    for (x, y) in ra.anims.iter().zip(&rb.anims) {
        let what = format!("{} {:?}", x.name, x.param);
        close(x.interpolation_error, y.interpolation_error, &what);
        match (x.declared_speed, y.declared_speed) {
            (Some(s), Some(t)) => close(s, t, &what),
            (None, None) => {}
            other => panic!("{what}: declared speeds {other:?}"),
        }
        // Without root motion the speed is the parameter value times the factor.
        if let (false, Some((p, v))) = (x.root_motion, &x.param) {
            assert_eq!(p, "speed");
            assert_eq!(
                (x.declared_speed, y.declared_speed),
                (Some(*v), Some(2.0 * v))
            );
            by_param += 1;
        }
    }
    // move and greet at 0 and 3 m/s play idle and run, which have no root motion.
    assert_eq!(by_param, 4);
    for (x, y) in a.builder.motion.iter().zip(&b.builder.motion) {
        close(x.x, y.x, "motion x");
        close(x.z, y.z, "motion z");
        assert_eq!(x.yaw, y.yaw, "a scale turns nothing");
    }
    for (x, y) in a.builder.bounds.iter().zip(&b.builder.bounds) {
        for k in 0..3 {
            close(x.min[k], y.min[k], "bounds min");
            close(x.max[k], y.max[k], "bounds max");
        }
    }
    assert!(!a.builder.motion.is_empty() && !a.builder.bounds.is_empty());
}

/// The fox's character file gives its blend positions in its own units per second (140 and
/// 220, centimetres): sized by the default rule, the bake declares 1.4 and 2.2 m/s.
#[test]
fn the_fox_character_declares_metres_per_second() {
    if common::shared_asset("Fox.glb").is_none() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = recipe(
        "units-fox",
        "fox.toml",
        &format!(
            "output = \"fox.throng\"\nprecision = \"f32\"\n[[characters]]\nname = \"fox\"\ncharacter = {:?}\nclips = \"none\"\n",
            root.join("assets/fox.toml").display().to_string()
        ),
    )
    .unwrap();
    let b = baked(&r);
    let c = &b.report.characters[0];
    assert!((0.3..=1.5).contains(&c.height), "height {}", c.height);
    let speeds: Vec<(f32, Option<f32>)> = c
        .anims
        .iter()
        .map(|a| (a.param.as_ref().map_or(f32::NAN, |p| p.1), a.declared_speed))
        .collect();
    // 140 × 0.01 in f32: within 1e-6 m/s of the decimal.
    let expected = [(0.0, 0.0), (140.0, 1.4), (220.0, 2.2)];
    assert_eq!(speeds.len(), expected.len(), "{speeds:?}");
    for ((v, s), (ev, es)) in speeds.iter().zip(expected) {
        assert_eq!(*v, ev, "{speeds:?}");
        assert!(s.is_some_and(|s| (s - es).abs() < 1e-6), "{speeds:?}");
    }
}

/// A root that travels 2 m along +x in 1 s (the two-joint model of tests/common) declares
/// 2 m/s as authored (1 unit tall, read as metres) and 4 m/s at twice its height.
#[test]
fn root_motion_speed_follows_the_factor() {
    let json = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 2.0, 1.0, 0.0],
    );
    let model = common::write_gltf("units-slide", "slide.gltf", &json);
    let dir = model.parent().unwrap();
    std::fs::write(
        dir.join("slide.toml"),
        "model = \"slide.gltf\"\nroot_joint = \"child\"\n[clips.test]\nroot_motion = true\n[states.go]\nclip = \"test\"\n",
    )
    .unwrap();
    for (height, speed) in [("", 2.0f32), ("height = 2.0\n", 4.0)] {
        let path = dir.join("recipe.toml");
        std::fs::write(
            &path,
            format!("output = \"slide.throng\"\nfps = 10\nlods = [1.0]\n[[characters]]\ncharacter = \"slide.toml\"\n{height}"),
        )
        .unwrap();
        let b = baked(&Recipe::load(&path).unwrap());
        let c = &b.report.characters[0];
        assert_eq!(c.anims.len(), 2, "the clip and the state");
        for a in &c.anims {
            assert!(a.root_motion, "{}", a.name);
            // Tolerance: the track is resampled at 60 keys/s and summed in f32 (as in
            // tests/bake/bake_file.rs), then scaled.
            assert!(
                a.declared_speed.is_some_and(|s| (s - speed).abs() < 2e-4),
                "{height:?} '{}': {:?} m/s, expected {speed}",
                a.name,
                a.declared_speed
            );
        }
    }
}

/// Whether a clip loops is decided on its poses as authored, so the size does not change it:
/// RobotExpressive (which has clips that play once) baked 100 times shorter and 100 times
/// taller than it is loops the same clips.
#[test]
fn looping_does_not_depend_on_the_size() {
    let Some(robot) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let looping = |height: f32| {
        let r = recipe(
            "units-loop",
            "loop.toml",
            &format!(
                "output = \"r.throng\"\nprecision = \"f32\"\nlods = [1.0]\n[[characters]]\nmodel = {:?}\nheight = {height}\n",
                robot.display().to_string()
            ),
        )
        .unwrap();
        baked(&r).report.characters[0]
            .anims
            .iter()
            .map(|a| (a.name.clone(), a.looping))
            .collect::<Vec<_>>()
    };
    let short = looping(0.046);
    assert!(
        short.iter().any(|a| !a.1) && short.iter().any(|a| a.1),
        "{short:?}"
    );
    assert_eq!(short, looping(460.0));
}

/// The mannequin as a Mixamo-style export writes a character: its vertices, joint offsets,
/// inverse binds' translations and translation keys in centimetres, every node under a root
/// node that scales by 0.01. It poses and renders as the metre model does; only the units of
/// its numbers differ. Written as `mannequin-cm.gltf` with its buffer beside it in `dir`.
fn mannequin_in_centimetres(dir: &Path) -> PathBuf {
    let glb = std::fs::read(common::mannequin_path()).unwrap();
    let u32_at = |o: usize| u32::from_le_bytes(glb[o..o + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let mut json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len + 8;
    let mut bin = glb[bin_at..bin_at + u32_at(20 + json_len)].to_vec();
    // (accessor, which of its components are lengths)
    let mut lengths: Vec<(usize, Vec<usize>)> = Vec::new();
    for mesh in json["meshes"].as_array().unwrap() {
        for p in mesh["primitives"].as_array().unwrap() {
            lengths.push((
                p["attributes"]["POSITION"].as_u64().unwrap() as usize,
                vec![0, 1, 2],
            ));
        }
    }
    for skin in json["skins"].as_array().unwrap() {
        let ibm = skin["inverseBindMatrices"].as_u64().unwrap() as usize;
        lengths.push((ibm, vec![12, 13, 14]));
    }
    for anim in json["animations"].as_array().unwrap() {
        for c in anim["channels"].as_array().unwrap() {
            if c["target"]["path"] == "translation" {
                let sampler = &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
                lengths.push((sampler["output"].as_u64().unwrap() as usize, vec![0, 1, 2]));
            }
        }
    }
    lengths.sort();
    lengths.dedup();
    for (a, components) in &lengths {
        let views = json["bufferViews"].clone();
        let accessor = &mut json["accessors"][*a];
        assert_eq!(accessor["componentType"], 5126, "accessor {a} is not float");
        let width = match accessor["type"].as_str().unwrap() {
            "VEC3" => 3,
            "MAT4" => 16,
            other => panic!("accessor {a} is {other}"),
        };
        for key in ["min", "max"] {
            if let Some(v) = accessor[key].as_array_mut() {
                for x in v.iter_mut() {
                    *x = serde_json::json!(x.as_f64().unwrap() as f32 * 100.0);
                }
            }
        }
        let view = &views[accessor["bufferView"].as_u64().unwrap() as usize];
        assert!(
            view.get("byteStride").is_none(),
            "accessor {a} is interleaved"
        );
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
        for e in 0..accessor["count"].as_u64().unwrap() as usize {
            for k in components {
                let at = start + (e * width + k) * 4;
                let x = f32::from_le_bytes(bin[at..at + 4].try_into().unwrap()) * 100.0;
                bin[at..at + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
    }
    let roots = json["scenes"][0]["nodes"].clone();
    let nodes = json["nodes"].as_array_mut().unwrap();
    for node in nodes.iter_mut() {
        if let Some(t) = node["translation"].as_array_mut() {
            for x in t.iter_mut() {
                *x = serde_json::json!(x.as_f64().unwrap() as f32 * 100.0);
            }
        }
    }
    let armature = nodes.len();
    nodes.push(
        serde_json::json!({"name": "Armature", "scale": [0.01, 0.01, 0.01], "children": roots}),
    );
    json["scenes"][0]["nodes"] = serde_json::json!([armature]);
    json["buffers"][0]["uri"] = "mannequin-cm.bin".into();
    std::fs::write(dir.join("mannequin-cm.bin"), &bin).unwrap();
    let path = dir.join("mannequin-cm.gltf");
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

/// A character authored in centimetres under a 0.01 node scale bakes the lengths of the same
/// character authored in metres: height, LOD errors (measured on its centimetre vertices),
/// bounds, errors and ground speeds, all in metres.
#[test]
fn centimetres_under_a_node_scale_bake_the_metres_of_the_metre_model() {
    let dir = common::temp_dir("units-centimetres");
    let (m, cm) = (
        bare(&common::mannequin_path()),
        bare(&mannequin_in_centimetres(&dir)),
    );
    let (rm, rc) = (&m.report.characters[0], &cm.report.characters[0]);
    // f32 rounding: the centimetre numbers are the metre ones times 100, rounded, and the
    // 0.01 scale rounds again on the way back, over a chain of joints: `rel` of the value,
    // plus a micrometre for values near 0 (a bound's 0.06 mm differs by 0.13 µm).
    let close = |x: f32, y: f32, rel: f32, what: &str| {
        assert!(
            (x - y).abs() <= rel * x.abs().max(y.abs()) + 1e-6,
            "{what}: {y} (centimetres) against {x} (metres)"
        );
    };
    close(rm.height, rc.height, 1e-5, "height");
    assert_eq!(rm.lod_errors.len(), 5);
    // The simplifier sees the same shape at 100 times the size and keeps as many triangles,
    // but the order of its collapses follows f32 costs, which the rounding of the vertices
    // times 100 perturbs: the errors differ by 0.6% (LOD 1) and 3.1% (LOD 2). 5% holds them
    // and still tells metres from a factor of 100 (or of 0.01) left out.
    assert_eq!(rm.lod_triangles, rc.lod_triangles);
    for (l, (x, y)) in rm.lod_errors.iter().zip(&rc.lod_errors).enumerate() {
        close(*x, *y, 0.05, &format!("LOD {l} error"));
    }
    for (x, y) in m.builder.meshes.iter().zip(&cm.builder.meshes) {
        close(
            x.error,
            y.error,
            0.05,
            &format!("mesh {} LOD {} error", x.part, x.lod),
        );
    }
    assert_eq!(rm.anims.len(), rc.anims.len());
    for (x, y) in rm.anims.iter().zip(&rc.anims) {
        let what = &x.name;
        close(x.interpolation_error, y.interpolation_error, 1e-3, what);
        match (x.measured_speed, y.measured_speed) {
            (Some(s), Some(t)) => close(s, t, 1e-3, what),
            (None, None) => {}
            other => panic!("{what}: ground speeds {other:?}"),
        }
    }
    // Bounds, per animation. Foot locking moves planted feet by up to `foot_lock`, and which
    // samples near the stance rules' thresholds it locks can flip with rounding (the run's
    // largest lock is 0.77 mm in metres, 1.46 mm in centimetres): the larger lock is allowed
    // on top of the rounding.
    for (ai, (x, y)) in m.builder.anims.iter().zip(&cm.builder.anims).enumerate() {
        let (lm, lc) = (rm.anims[ai].foot_lock, rc.anims[ai].foot_lock);
        let locked = lm.unwrap_or(0.0).max(lc.unwrap_or(0.0));
        for f in 0..x.frame_count as usize {
            let (bx, by) = (
                &m.builder.bounds[x.first_bounds as usize + f],
                &cm.builder.bounds[y.first_bounds as usize + f],
            );
            for k in 0..3 {
                for (u, v) in [(bx.min[k], by.min[k]), (bx.max[k], by.max[k])] {
                    let what = format!("{} frame {f} bounds", rm.anims[ai].name);
                    assert!(
                        (u - v).abs() <= 1e-4 * u.abs().max(v.abs()) + 1e-6 + locked,
                        "{what}: {v} (centimetres) against {u} (metres)"
                    );
                }
            }
        }
    }
}
