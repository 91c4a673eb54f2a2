//! Interpolation on small glTF files built by the tests themselves: STEP, LINEAR and
//! CUBICSPLINE imported through the full importer and sampled, against values computed by hand.

use crate::common;

use glam::{Mat4, Quat, Vec3};
use throng::anim::{Transform, Wrap, local_to_model, sample};
use throng::import::{ImportOptions, Model, load};

fn import(tag: &str, json: &serde_json::Value) -> Model {
    let path = common::write_gltf(tag, "model.gltf", json);
    load(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Local transform of joint "child" at time `t` of the only clip.
fn child_at(model: &Model, t: f32) -> Transform {
    let clip = &model.clips[0];
    let mut pose = vec![Transform::IDENTITY; model.skeleton.len()];
    sample(
        clip,
        &model.skeleton,
        clip.local_time(t, Wrap::Clamp),
        &mut pose,
    );
    pose[model.skeleton.find("child").expect("child joint")]
}

// Exact binary fractions are used throughout, so most expectations hold to the last bit; the
// 1e-6 tolerances cover rounding in the interpolation formulas only.

#[test]
fn step_translation() {
    let m = import(
        "step",
        &common::one_channel_model(
            "translation",
            "STEP",
            &[0.0, 0.5, 1.0],
            &[0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 4.0, 1.0, 0.0],
        ),
    );
    assert_eq!(child_at(&m, 0.0).translation, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(child_at(&m, 0.25).translation, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(child_at(&m, 0.5).translation, Vec3::new(2.0, 1.0, 0.0));
    assert_eq!(child_at(&m, 0.99).translation, Vec3::new(2.0, 1.0, 0.0));
    assert_eq!(child_at(&m, 1.0).translation, Vec3::new(4.0, 1.0, 0.0));
}

#[test]
fn linear_scale_and_hold_outside_keys() {
    // Keys start at 0.5 s: before that the first value holds (the clip still starts at 0).
    let m = import(
        "linear",
        &common::one_channel_model(
            "scale",
            "LINEAR",
            &[0.5, 1.5],
            &[1.0, 1.0, 1.0, 3.0, 1.0, 5.0],
        ),
    );
    assert_eq!(m.clips[0].duration(), 1.5);
    assert_eq!(child_at(&m, 0.0).scale, Vec3::ONE);
    // t = 1.0: u = 0.5 -> (2, 1, 3).
    assert!(
        child_at(&m, 1.0)
            .scale
            .abs_diff_eq(Vec3::new(2.0, 1.0, 3.0), 1e-6)
    );
    // t = 0.75: u = 0.25 -> (1.5, 1, 2).
    assert!(
        child_at(&m, 0.75)
            .scale
            .abs_diff_eq(Vec3::new(1.5, 1.0, 2.0), 1e-6)
    );
    assert_eq!(child_at(&m, 9.0).scale, Vec3::new(3.0, 1.0, 5.0));
}

#[test]
fn linear_rotation_is_shortest_arc_slerp() {
    // 0 to 90 degrees about Z, the second key written with negated components.
    let q1 = -Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let m = import(
        "slerp",
        &common::one_channel_model(
            "rotation",
            "LINEAR",
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, q1.x, q1.y, q1.z, q1.w],
        ),
    );
    let r = child_at(&m, 0.5).rotation;
    // Slerp (not nlerp) at u = 0.5 of 90 degrees is exactly 45 degrees; at u = 0.25, 22.5.
    assert!(
        r.dot(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4))
            .abs()
            > 1.0 - 1e-6
    );
    let r = child_at(&m, 0.25).rotation;
    assert!(
        r.dot(Quat::from_rotation_z(std::f32::consts::FRAC_PI_8))
            .abs()
            > 1.0 - 1e-6,
        "{r}"
    );
}

#[test]
fn cubic_spline_translation() {
    // Keys at 0 and 2 (dt = 2); per key: in-tangent, value, out-tangent (x only varies).
    // p0 = 1, b0 = 0.5 (out); p1 = 3, a1 = -0.25 (in). At t = 1, u = 0.5:
    //   0.5*1 + 0.125*(2*0.5) + 0.5*3 + (-0.125)*(2*-0.25) = 0.5 + 0.125 + 1.5 + 0.0625 = 2.1875
    // At t = 0.5, u = 0.25: 0.84375*1 + 0.140625*1 + 0.15625*3 + (-0.046875)*(-0.5) = 1.4765625
    let values = [
        9.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.0, 0.0, // key 0: in, value, out
        -0.25, 0.0, 0.0, 3.0, 1.0, 0.0, 9.0, 0.0, 0.0, // key 1
    ];
    let m = import(
        "cubic",
        &common::one_channel_model("translation", "CUBICSPLINE", &[0.0, 2.0], &values),
    );
    assert!((child_at(&m, 1.0).translation.x - 2.1875).abs() < 1e-6);
    assert!((child_at(&m, 0.5).translation.x - 1.4765625).abs() < 1e-6);
    // y has zero tangents and values 1, 1: stays 1.
    assert!((child_at(&m, 0.5).translation.y - 1.0).abs() < 1e-6);
    // Ends hold the value, not a tangent.
    assert_eq!(child_at(&m, 0.0).translation.x, 1.0);
    assert_eq!(child_at(&m, 2.0).translation.x, 3.0);
}

#[test]
fn cubic_spline_rotation_is_normalised() {
    // Zero tangents: the Hermite midpoint is (q0 + q1) / 2, normalised -> half the angle.
    let q1 = Quat::from_rotation_x(1.2);
    let zero = [0.0f32; 4];
    let values: Vec<f32> = [zero, [0.0, 0.0, 0.0, 1.0], zero, zero, q1.to_array(), zero].concat();
    let m = import(
        "cubicrot",
        &common::one_channel_model("rotation", "CUBICSPLINE", &[0.0, 1.0], &values),
    );
    let r = child_at(&m, 0.5).rotation;
    assert!((r.length() - 1.0).abs() < 1e-6);
    assert!(r.abs_diff_eq(Quat::from_rotation_x(0.6), 1e-6), "{r}");
}

#[test]
fn world_matrices_and_skinning_follow_the_channel() {
    let m = import(
        "world",
        &common::one_channel_model(
            "translation",
            "LINEAR",
            &[0.0, 1.0],
            &[0.0, 1.0, 0.0, 0.0, 3.0, 0.0],
        ),
    );
    let clip = &m.clips[0];
    let mut local = vec![Transform::IDENTITY; m.skeleton.len()];
    let mut world = vec![Mat4::IDENTITY; m.skeleton.len()];
    sample(clip, &m.skeleton, 0.5, &mut local);
    local_to_model(&m.skeleton, &local, &mut world);
    let child = m.skeleton.find("child").unwrap();
    assert!(
        world[child]
            .transform_point3(Vec3::ZERO)
            .abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6)
    );
    // The triangle is bound to the child with IBM = translate(0, -1, 0): it moves up by 1.
    let mut skin = vec![Mat4::IDENTITY; m.skeleton.len()];
    throng::anim::skinning_matrices(&m.skeleton, &world, &mut skin);
    let (mut p, mut n) = (Vec::new(), Vec::new());
    m.meshes[0].mesh.skin(&skin, &mut p, &mut n);
    assert!(p[2].abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-6), "{:?}", p);
}
