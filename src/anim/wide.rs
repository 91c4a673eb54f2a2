//! Four joints at a time: the pose's per-joint formulas on four lanes, with glam's `Vec4` as the
//! SIMD register (SSE2 on x86-64, NEON on aarch64, plain floats elsewhere); and, on x86-64,
//! `avx`, which says whether the pose's loops may run compiled for AVX.
//!
//! Each lane runs the scalar formula's operations in the scalar formula's order, and IEEE
//! arithmetic rounds a lane exactly as it rounds a scalar, so every result is the scalar
//! version's bits (`transform::slerp_shortest`, [`Transform::to_mat4`]): the tests below compare them
//! bit for bit. Nothing here may be contracted into fused multiply-adds; Rust never does that
//! on its own.

use glam::{Mat4, Quat, Vec4};

use super::transform::{SERIES_U, SERIES_V, Transform, slerp_far_weights};

/// Whether this CPU has AVX (detected once, then a cached load; x86-64 only). The samplers,
/// forward kinematics and skinning matrices have a second copy compiled for it: the same
/// operations in the same order, so the same bits (AVX adds no fused multiply-add, and Rust
/// never contracts), in three-operand instructions that need fewer register copies than SSE2's.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn avx() -> bool {
    std::is_x86_feature_detected!("avx")
}

/// Four quaternions, one per lane: `x` holds the four x components, and so on.
#[derive(Clone, Copy)]
struct Quats {
    x: Vec4,
    y: Vec4,
    z: Vec4,
    w: Vec4,
}

impl Quats {
    /// Lanes from four quaternions (a 4 × 4 transpose).
    #[inline]
    fn from_quats(q: &[Quat; 4]) -> Self {
        let t = Mat4::from_cols(q[0].into(), q[1].into(), q[2].into(), q[3].into()).transpose();
        Self {
            x: t.x_axis,
            y: t.y_axis,
            z: t.z_axis,
            w: t.w_axis,
        }
    }

    /// The four quaternions back (a 4 × 4 transpose).
    #[inline]
    fn to_quats(self) -> [Quat; 4] {
        let t = Mat4::from_cols(self.x, self.y, self.z, self.w).transpose();
        [
            Quat::from_vec4(t.x_axis),
            Quat::from_vec4(t.y_axis),
            Quat::from_vec4(t.z_axis),
            Quat::from_vec4(t.w_axis),
        ]
    }
}

/// `transform::slerp_shortest` of four pairs at once: lane `i` is `slerp_shortest(a[i], b[i], t[i])`,
/// bit for bit. The series runs on all four lanes; a lane whose keys are more than about
/// 90 degrees apart (rare in a keyed clip) takes the trigonometric weights on its own.
#[inline(always)]
pub(crate) fn slerp_shortest4(a: &[Quat; 4], b: &[Quat; 4], t: Vec4) -> [Quat; 4] {
    // `Quat::dot` itself per pair, as `slerp_shortest` takes it: glam's backends sum the four
    // products in different orders, and this keeps whichever one the build has.
    let dot = Vec4::new(
        a[0].dot(b[0]),
        a[1].dot(b[1]),
        a[2].dot(b[2]),
        a[3].dot(b[3]),
    );
    let (a, b) = (Quats::from_quats(a), Quats::from_quats(b));
    let opposite = dot.cmplt(Vec4::ZERO);
    let x = Vec4::select(opposite, -dot, dot).min(Vec4::ONE);
    let sign = Vec4::select(opposite, Vec4::NEG_ONE, Vec4::ONE);
    let d = Vec4::ONE - t;
    let xm1 = x - Vec4::ONE;
    let (t2, d2) = (t * t, d * d);
    let (mut ct, mut cd) = (Vec4::ONE, Vec4::ONE);
    for i in (0..SERIES_U.len()).rev() {
        let (u, v) = (Vec4::splat(SERIES_U[i]), Vec4::splat(SERIES_V[i]));
        ct = Vec4::ONE + (u * t2 - v) * xm1 * ct;
        cd = Vec4::ONE + (u * d2 - v) * xm1 * cd;
    }
    let (mut wa, mut wb) = (d * cd, t * ct);
    let far = x.cmpge(Vec4::splat(0.7));
    if !far.all() {
        let (xs, ts) = (x.to_array(), t.to_array());
        let (mut was, mut wbs) = (wa.to_array(), wb.to_array());
        for lane in 0..4 {
            if !far.test(lane) {
                (was[lane], wbs[lane]) = slerp_far_weights(xs[lane], ts[lane]);
            }
        }
        (wa, wb) = (Vec4::from(was), Vec4::from(wbs));
    }
    let wb = sign * wb;
    Quats {
        x: a.x * wa + b.x * wb,
        y: a.y * wa + b.y * wb,
        z: a.z * wa + b.z * wb,
        w: a.w * wa + b.w * wb,
    }
    .to_quats()
}

/// [`Transform::to_mat4`] of four transforms at once, bit for bit.
#[inline(always)]
pub(crate) fn to_mat4_4(local: &[Transform; 4]) -> [Mat4; 4] {
    let q = Quats::from_quats(&[
        local[0].rotation,
        local[1].rotation,
        local[2].rotation,
        local[3].rotation,
    ]);
    let lanes = |f: fn(&Transform) -> f32| {
        Vec4::new(f(&local[0]), f(&local[1]), f(&local[2]), f(&local[3]))
    };
    let (sx, sy, sz) = (
        lanes(|l| l.scale.x),
        lanes(|l| l.scale.y),
        lanes(|l| l.scale.z),
    );
    // `Transform::to_mat4`'s rotation terms, lane for lane.
    let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
    let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
    let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
    let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
    // Each axis's four rows (the fourth is 0 times the scale: −0 for a mirrored axis), then
    // a transpose turns rows of four joints into each joint's column.
    let axis = |r0: Vec4, r1: Vec4, r2: Vec4, s: Vec4| {
        Mat4::from_cols(r0 * s, r1 * s, r2 * s, Vec4::ZERO * s).transpose()
    };
    let one = Vec4::ONE;
    let x_axes = axis(one - (yy + zz), xy + wz, xz - wy, sx);
    let y_axes = axis(xy - wz, one - (xx + zz), yz + wx, sy);
    let z_axes = axis(xz + wy, yz - wx, one - (xx + yy), sz);
    std::array::from_fn(|i| {
        Mat4::from_cols(
            x_axes.col(i),
            y_axes.col(i),
            z_axes.col(i),
            local[i].translation.extend(1.0),
        )
    })
}

/// `a * b` as glam computes it (each column `((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w`
/// with `b`'s components broadcast), two columns per 256-bit AVX operation: the same bits in
/// half the multiplies and adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(crate) fn mul_mat4_avx(a: &Mat4, b: &Mat4) -> Mat4 {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_mul_ps,
        _mm256_permute_ps, _mm256_set_m128,
    };
    // Each of `a`'s columns in both halves; `b`'s columns two by two.
    let both = |v: Vec4| _mm256_set_m128(v.into(), v.into());
    let (ax, ay, az, aw) = (
        both(a.x_axis),
        both(a.y_axis),
        both(a.z_axis),
        both(a.w_axis),
    );
    let columns = |lo: Vec4, hi: Vec4| -> __m256 {
        let b = _mm256_set_m128(hi.into(), lo.into());
        let mut r = _mm256_mul_ps(ax, _mm256_permute_ps::<0b00_00_00_00>(b));
        r = _mm256_add_ps(r, _mm256_mul_ps(ay, _mm256_permute_ps::<0b01_01_01_01>(b)));
        r = _mm256_add_ps(r, _mm256_mul_ps(az, _mm256_permute_ps::<0b10_10_10_10>(b)));
        _mm256_add_ps(r, _mm256_mul_ps(aw, _mm256_permute_ps::<0b11_11_11_11>(b)))
    };
    let (xy, zw) = (columns(b.x_axis, b.y_axis), columns(b.z_axis, b.w_axis));
    Mat4::from_cols(
        _mm256_castps256_ps128(xy).into(),
        _mm256_extractf128_ps::<1>(xy).into(),
        _mm256_castps256_ps128(zw).into(),
        _mm256_extractf128_ps::<1>(zw).into(),
    )
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::anim::transform::slerp_shortest;

    /// A small deterministic generator (xorshift), so that failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn f(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
        fn signed(&mut self) -> f32 {
            2.0 * self.f() - 1.0
        }
        fn quat(&mut self) -> Quat {
            Quat::from_xyzw(self.signed(), self.signed(), self.signed(), self.signed()).normalize()
        }
    }

    fn bits(q: Quat) -> [u32; 4] {
        q.to_array().map(f32::to_bits)
    }

    /// Lane for lane the scalar slerp's bits: near pairs (the series), pairs in opposite
    /// hemispheres, wide arcs (the trigonometric weights) mixed with near ones in one call,
    /// the ends t = 0 and 1, equal keys, and keys off unit length as quantised files have.
    #[test]
    fn four_slerps_are_the_scalar_slerps_bits() {
        let mut rng = Rng(0x5eed);
        for round in 0..20_000 {
            let mut a = [Quat::IDENTITY; 4];
            let mut b = [Quat::IDENTITY; 4];
            let mut t = [0.0; 4];
            for lane in 0..4 {
                a[lane] = rng.quat();
                b[lane] = match (round + lane) % 5 {
                    // Neighbouring keys: a small turn away.
                    0 | 1 => a[lane] * Quat::from_axis_angle(Vec3::Y, 0.3 * rng.signed()),
                    // The same key written with the other sign: the short way is back.
                    2 => -(a[lane] * Quat::from_axis_angle(Vec3::X, 0.2 * rng.signed())),
                    3 => rng.quat(),
                    _ => a[lane] * 0.9999,
                };
                t[lane] = match round % 7 {
                    0 => 0.0,
                    1 => 1.0,
                    _ => rng.f(),
                };
            }
            let wide = slerp_shortest4(&a, &b, Vec4::from(t));
            for lane in 0..4 {
                let scalar = slerp_shortest(a[lane], b[lane], t[lane]);
                assert_eq!(
                    bits(wide[lane]),
                    bits(scalar),
                    "round {round}, lane {lane}: {:?} {:?} at {}",
                    a[lane],
                    b[lane],
                    t[lane]
                );
            }
        }
    }

    /// The AVX product is glam's, bit for bit, on matrices with mixed magnitudes, signs, zeros
    /// of both signs and an affine fourth row.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx_product_is_glams_product() {
        if !avx() {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = Rng(0xa5a5);
        for round in 0..20_000 {
            let mut m = || {
                Mat4::from_cols_array(&std::array::from_fn(|i| match (round + i) % 9 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => 1.0,
                    _ => rng.signed() * 100f32.powf(rng.signed()),
                }))
            };
            let (a, b) = (m(), m());
            // SAFETY: the CPU has AVX, checked above.
            let avx = unsafe { mul_mat4_avx(&a, &b) };
            assert_eq!(
                avx.to_cols_array().map(f32::to_bits),
                (a * b).to_cols_array().map(f32::to_bits),
                "round {round}: {a} * {b}"
            );
        }
    }

    /// Lane for lane `Transform::to_mat4`'s bits, with negative scales (whose matrices hold −0
    /// in their fourth row) and −0 translations.
    #[test]
    fn four_matrices_are_the_scalar_matrices_bits() {
        let mut rng = Rng(0xface);
        let v = |rng: &mut Rng| Vec3::new(rng.signed(), rng.signed(), rng.signed());
        for round in 0..5_000 {
            let local: [Transform; 4] = std::array::from_fn(|lane| Transform {
                translation: if (round + lane) % 6 == 0 {
                    Vec3::new(-0.0, 0.0, -0.0)
                } else {
                    v(&mut rng)
                },
                rotation: rng.quat(),
                scale: if (round + lane) % 3 == 0 {
                    Vec3::ONE
                } else {
                    v(&mut rng) * 2.0
                },
            });
            let wide = to_mat4_4(&local);
            for lane in 0..4 {
                let scalar = local[lane].to_mat4();
                assert_eq!(
                    wide[lane].to_cols_array().map(f32::to_bits),
                    scalar.to_cols_array().map(f32::to_bits),
                    "round {round}, lane {lane}: {:?}",
                    local[lane]
                );
            }
        }
    }
}
