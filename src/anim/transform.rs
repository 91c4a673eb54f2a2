//! Local joint transforms: translation, rotation and scale (TRS), as glTF stores them.
//!
//! A `Transform` maps child space to parent space as `T * R * S` (column vectors), exactly
//! glTF's node TRS. Blending and interpolation happen on these parts, never on matrices.

use glam::{Mat4, Quat, Vec3};

/// A joint's local transform: `translation * rotation * scale` (metres, unit quaternion, factors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation in the parent's space, metres.
    pub translation: Vec3,
    /// Rotation as a unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale factors (1 = unscaled; may be negative for mirrored joints).
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The affine matrix `T * R * S`.
    #[inline]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix into TRS. Exact for matrices built from a TRS; a matrix with
    /// shear has no exact TRS, and the result is the closest rotation-and-scale glam finds.
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation: rotation.normalize(),
            scale,
        }
    }

    /// Interpolates towards `other` by `t` in [0, 1]: translation and scale linearly, rotation by
    /// spherical interpolation along the shortest arc (glTF's LINEAR rule for rotations).
    #[inline]
    pub fn interpolate(&self, other: &Self, t: f32) -> Self {
        Self {
            translation: self.translation.lerp(other.translation, t),
            rotation: slerp_shortest(self.rotation, other.rotation, t),
            scale: self.scale.lerp(other.scale, t),
        }
    }

    /// True when every component is finite (no NaN or infinity).
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// Spherical linear interpolation from `a` to `b` along the shortest arc; `t` in [0, 1].
///
/// glTF requires the shortest path, so `b` is negated when the two lie in opposite hemispheres.
/// Sampling cost is dominated by slerp, so for rotations up to about 90 degrees apart (any two
/// neighbouring keys of a normally keyed clip) the weights `sin((1-t)θ)/sin θ` and
/// `sin(tθ)/sin θ` come from the first eight terms of their series in `cos θ - 1` (D. Eberly,
/// "A Fast and Accurate Algorithm for Computing SLERP", 2011), which there are within 1e-8 of
/// the exact values and need no `acos` or `sin`; wider arcs use the trigonometric form. Both
/// are tested against a double-precision reference. Like three.js's `slerpFlat`, the result is
/// not renormalised: unit inputs give a unit result (to f32 precision), and slightly non-unit
/// keys from quantised files play as other glTF players play them.
#[inline]
pub fn slerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let mut x = a.dot(b);
    let sign = if x < 0.0 {
        x = -x;
        -1.0
    } else {
        1.0
    };
    let x = x.min(1.0);
    let d = 1.0 - t;
    let (wa, wb) = if x >= 0.7 {
        let xm1 = x - 1.0;
        let (t2, d2) = (t * t, d * d);
        let (mut ct, mut cd) = (1.0, 1.0);
        for i in (0..SERIES_U.len()).rev() {
            ct = 1.0 + (SERIES_U[i] * t2 - SERIES_V[i]) * xm1 * ct;
            cd = 1.0 + (SERIES_U[i] * d2 - SERIES_V[i]) * xm1 * cd;
        }
        (d * cd, t * ct)
    } else {
        slerp_far_weights(x, t)
    };
    a * wa + b * (sign * wb)
}

/// The series coefficients of the slerp weights: `u[i] = 1 / ((i + 1)(2i + 3))`.
pub(crate) const SERIES_U: [f32; 8] = [
    1.0 / 3.0,
    1.0 / 10.0,
    1.0 / 21.0,
    1.0 / 36.0,
    1.0 / 55.0,
    1.0 / 78.0,
    1.0 / 105.0,
    1.0 / 136.0,
];

/// The series coefficients of the slerp weights: `v[i] = (i + 1) / (2i + 3)`.
pub(crate) const SERIES_V: [f32; 8] = [
    1.0 / 3.0,
    2.0 / 5.0,
    3.0 / 7.0,
    4.0 / 9.0,
    5.0 / 11.0,
    6.0 / 13.0,
    7.0 / 15.0,
    8.0 / 17.0,
];

/// The slerp weights `(sin((1 - t)θ) / sin θ, sin(tθ) / sin θ)` by their trigonometric
/// definition, for `x = cos θ` in [0, 0.7): arcs too wide for the series.
#[inline(never)]
pub(crate) fn slerp_far_weights(x: f32, t: f32) -> (f32, f32) {
    let d = 1.0 - t;
    let theta = x.acos();
    let s = theta.sin();
    ((d * theta).sin() / s, (t * theta).sin() / s)
}

/// Slerp by its trigonometric definition: the reference [`slerp_shortest`] is tested against.
#[cfg(test)]
fn slerp_trig(a: Quat, b: Quat, t: f32) -> Quat {
    let (a, b) = (a.as_dquat(), b.as_dquat());
    let mut dot = a.dot(b);
    let b = if dot < 0.0 {
        dot = -dot;
        -b
    } else {
        b
    };
    if dot > 1.0 - 1e-12 {
        return a.lerp(b, f64::from(t)).normalize().as_quat();
    }
    let theta = dot.min(1.0).acos();
    let t = f64::from(t);
    let wa = ((1.0 - t) * theta).sin() / theta.sin();
    let wb = (t * theta).sin() / theta.sin();
    (a * wa + b * wb).normalize().as_quat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_round_trip() {
        let t = Transform {
            translation: Vec3::new(1.0, -2.0, 3.0),
            rotation: Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.3),
            scale: Vec3::new(1.5, 0.5, 2.0),
        };
        let back = Transform::from_mat4(&t.to_mat4());
        // f32 decomposition of a well-conditioned matrix: errors of a few ulps.
        assert!(back.translation.abs_diff_eq(t.translation, 1e-6));
        assert!(back.scale.abs_diff_eq(t.scale, 1e-5));
        assert!(back.rotation.dot(t.rotation).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn polynomial_slerp_matches_the_trigonometric_definition() {
        // A deterministic spread of rotation pairs, from nearly equal to nearly opposite.
        let mut worst = 0.0f32;
        for i in 0..400 {
            let f = i as f32;
            let a = Quat::from_euler(glam::EulerRot::YXZ, f * 0.37, f * 0.11 - 1.0, f * 0.05);
            let angle = (i % 40) as f32 / 39.0 * std::f32::consts::PI * 0.999 + 1e-4;
            let axis = glam::Vec3::new((f * 0.7).sin(), (f * 1.3).cos(), 0.5).normalize();
            let b = a * Quat::from_axis_angle(axis, angle);
            for k in 0..=16 {
                let t = k as f32 / 16.0;
                let fast = slerp_shortest(a, b, t);
                let exact = slerp_trig(a, b, t);
                worst = worst.max((fast - exact).length().min((fast + exact).length()));
            }
        }
        // 5e-7: a few f32 ulps of a unit quaternion (about 5e-7 rad), from f32 arithmetic; the
        // series itself is within 1e-8 where it is used.
        assert!(worst < 5e-7, "worst component error {worst}");
    }

    #[test]
    fn slerp_takes_the_shortest_arc() {
        let a = Quat::from_rotation_z(0.0);
        // The same 90 degree rotation written with negated components: the short way is 45 degrees.
        let b = -Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let mid = slerp_shortest(a, b, 0.5);
        let expected = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        assert!(mid.dot(expected).abs() > 1.0 - 1e-6, "{mid:?}");
    }

    #[test]
    fn slerp_hits_both_ends_and_keeps_unit_length() {
        let a = Quat::from_rotation_x(0.2);
        let b = Quat::from_rotation_y(2.5);
        assert!(slerp_shortest(a, b, 0.0).abs_diff_eq(a, 1e-6));
        assert!(slerp_shortest(a, b, 1.0).abs_diff_eq(b, 1e-6));
        for i in 0..=10 {
            let q = slerp_shortest(a, b, i as f32 / 10.0);
            assert!((q.length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn interpolate_blends_each_part() {
        let a = Transform::IDENTITY;
        let b = Transform {
            translation: Vec3::new(2.0, 0.0, 0.0),
            rotation: Quat::from_rotation_y(1.0),
            scale: Vec3::splat(3.0),
        };
        let m = a.interpolate(&b, 0.25);
        assert!(m.translation.abs_diff_eq(Vec3::new(0.5, 0.0, 0.0), 1e-6));
        assert!(m.scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
        assert!(m.rotation.abs_diff_eq(Quat::from_rotation_y(0.25), 1e-6));
    }
}
