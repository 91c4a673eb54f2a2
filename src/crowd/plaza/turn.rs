//! The arithmetic of an agent's heading in a step: wrapping an angle into [−π, π), the turn
//! towards a steering direction (clamped to the step's largest turn), and the sine and cosine
//! of a heading, plain or turned by a small angle. Short series and polynomials serve them,
//! where libm's `atan2f` and `sincosf` cost many instructions and branches that random
//! headings make a coin toss for the branch predictor.

use std::f32::consts::{FRAC_2_PI, FRAC_PI_2, FRAC_PI_4, PI, TAU};

use glam::Vec2;

/// `x` wrapped into [−π, π). Steps turn by less than a full circle, so one correction
/// usually does (f32 `rem_euclid` is a slow library call).
#[inline]
pub(crate) fn wrap_angle(x: f32) -> f32 {
    let y = if x >= PI {
        x - TAU
    } else if x < -PI {
        x + TAU
    } else {
        x
    };
    if (-PI..PI).contains(&y) {
        y
    } else {
        (x + PI).rem_euclid(TAU) - PI
    }
}

/// The largest turn [`steer_turn`] works out by its short series or its limit, radians: a
/// little below atan(0.1) = 0.09967, the largest turn its short series serves.
pub(crate) const SHORT_TURN: f32 = 0.0996;

/// tan(π/8): above it, [`turn_towards`] takes π/4 off its arctangent's argument first.
const TAN_PI_8: f32 = 0.414_213_57;

/// The turn from a heading whose sine and cosine are `s`, `c` towards the direction of
/// `steer` (world x, z), in [−π, π], clamped to ±`max` radians (`max` >= 0).
///
/// A step turns by at most `MAX_TURN × dt`, 0.042 rad at 60 steps a second, so the arctangent
/// is needed only for small turns: from the turn's sine and cosine (times |steer|), `y` and
/// `x`, it is the series z − z³/3 + z⁵/5 − z⁷/7 of z = y / x where |z| <= 0.1 (its next term,
/// z⁹/9, is below 1.2e-10 rad, far under an f32 rounding of the result), and ±`max` where the
/// turn is larger than atan(0.1) and `max` smaller. Only steps longer than 0.04 s (`max` from
/// [`SHORT_TURN`]: every agent updated at a rate below 1) that turn further need the whole
/// arctangent, [`turn_towards`]. The series and its branch cost less at 60 steps a second
/// than the whole arctangent for every step (measured: 0.163 against 0.174 ms a crowd
/// update at 2,000 agents, LOD `off`). Plain f32 arithmetic: the same bits on every
/// platform, which libm does not promise.
#[inline(always)]
pub(crate) fn steer_turn(s: f32, c: f32, steer: Vec2, max: f32) -> f32 {
    let y = steer.x * c - steer.y * s;
    let x = steer.y * c + steer.x * s;
    // Both ways worked out before one is chosen, so that the compiler may choose with a
    // select instead of a branch: which one a step takes is a coin toss for the branch
    // predictor. (Where x is 0 the quotient is not finite: not chosen.)
    let short = (x > 0.0) & (y.abs() <= 0.1 * x);
    let z = y / x;
    let z2 = z * z;
    let series = z * (1.0 + z2 * (-1.0 / 3.0 + z2 * (1.0 / 5.0 - z2 * (1.0 / 7.0))));
    // Further than atan(0.1) either way (behind: further than π/2), so as far as allowed to
    // the side `steer` lies on; straight behind (y = 0) counts as −π, as wrapping into
    // [−π, π) has it.
    let far = if y > 0.0 { max } else { -max };
    if short {
        series.clamp(-max, max)
    } else if max < SHORT_TURN {
        far
    } else {
        turn_towards(y, x, max)
    }
}

/// The angle of (`x`, `y`) from the x axis, in [−π, π], clamped to ±`max` radians (`max` >= 0):
/// negative unless `y` is above 0 (so straight behind, y = 0 and x < 0, is −π, as wrapping
/// into [−π, π) has it); 0 for (0, 0), ±`max` where `x` or `y` is not finite.
///
/// Without a library call and without a branch: the smaller of |x| and |y| over the larger,
/// taken below tan(π/8) by atan(u) = π/4 + atan((u − 1)/(u + 1)) where it is above (chosen
/// with selects, one division either way), Cephes' minimax polynomial for `atanf` there,
/// then the octant put back with selects. libm's `atan2f`, which this replaces, took 129
/// instructions a call and branched on the octant and the ratio's size, a coin toss for
/// random steering: at 10,000 agents, LOD `balanced`, it was nearly a third of the crowd
/// update's mispredicted branches (callgrind's branch simulator). Within 4e-7 rad of f64
/// (the test below).
#[inline(always)]
fn turn_towards(y: f32, x: f32, max: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = (ax.min(ay), ax.max(ay));
    let upper = lo > TAN_PI_8 * hi;
    let (num, den) = if upper { (lo - hi, lo + hi) } else { (lo, hi) };
    // (0, 0) gives 0 / tiny = 0, not NaN.
    let u = num / den.max(f32::MIN_POSITIVE);
    let u2 = u * u;
    let p = u + u
        * u2
        * (-3.333_295e-1 + u2 * (1.997_771e-1 + u2 * (-1.387_768_6e-1 + u2 * 8.053_744_5e-2)));
    let a = if upper { FRAC_PI_4 + p } else { p };
    let a = if ay > ax { FRAC_PI_2 - a } else { a };
    let a = if x < 0.0 { PI - a } else { a };
    // `<` is false for NaN: a steer that is not finite turns as far as allowed.
    let m = if a < max { a } else { max };
    f32::from_bits(m.to_bits() | (u32::from((y <= 0.0) | y.is_nan()) << 31))
}

/// The sine and cosine of a heading `h` in [−π, π] (radians), without a library call and
/// without a branch: the angle less its nearest multiple of π/2 (taken off in three parts,
/// Cody and Waite's way, so that the remainder is exact to about 2⁻³⁰ rad), the remainder's
/// sine and cosine from minimax polynomials on [−π/4, π/4] (Cephes' `sinf` and `cosf`
/// coefficients), then swapped and signed for the quadrant. libm's `sincosf` is a call of
/// about sixty instructions that branches on the angle's range, a coin toss for random
/// headings; the step needs one a walking step. Plain f32 arithmetic: the same bits on
/// every platform. (Beyond [−π, π] the remainder stays exact while q times the parts is,
/// up to |h| of about 10⁴; headings are wrapped long before.)
#[inline(always)]
pub(crate) fn sin_cos(h: f32) -> (f32, f32) {
    // Rounding to the nearest integer by adding and taking away 1.5·2²³ (f32 `round` is a
    // library call without SSE4.1); exact for |q| < 2²², ties to even.
    const ROUND: f32 = 12_582_912.0;
    let q = (h * FRAC_2_PI + ROUND) - ROUND;
    // π/2 in three parts, the first two with few enough bits that q times them is exact.
    let r = ((h - q * 1.570_312_5) - q * 4.837_513e-4) - q * 7.549_79e-8;
    let r2 = r * r;
    let sin_r = r + r * r2 * (-1.666_665_5e-1 + r2 * (8.332_161e-3 + r2 * -1.951_529_6e-4));
    let cos_r =
        1.0 - 0.5 * r2 + r2 * r2 * (4.166_664_6e-2 + r2 * (-1.388_731_6e-3 + r2 * 2.443_315_7e-5));
    // Quadrant k = q mod 4: (sin, cos) is (sin r, cos r), (cos r, −sin r), (−sin r, −cos r)
    // or (−cos r, sin r). Selects and sign flips on the bits, no branch.
    let k = q as i32;
    let odd = k & 1 != 0;
    let (s, c) = if odd { (cos_r, sin_r) } else { (sin_r, cos_r) };
    let s_sign = ((k as u32) & 2) << 30;
    let c_sign = ((k.wrapping_add(1) as u32) & 2) << 30;
    (
        f32::from_bits(s.to_bits() ^ s_sign),
        f32::from_bits(c.to_bits() ^ c_sign),
    )
}

/// The largest turn [`turned`] serves, radians: its series' next terms, t⁷/5040 and
/// t⁸/40320, are below 2e-11 there, far under an f32 rounding.
const SHORT_ROTATION: f32 = 0.1;

/// The sine and cosine of h + `t` from those of h (`s`, `c`), for a turn of at most
/// [`SHORT_ROTATION`] radians: the turn's own from their series to t⁵ and t⁶, then a
/// rotation. A step's turn is at most 3·dt (steering and drift), 0.05 rad at 60 steps a
/// second, and this is a third of the instructions of libm's `sincosf` and has no branch,
/// where the library's branch on the angle's range is a coin toss for random headings.
#[inline(always)]
fn turned(s: f32, c: f32, t: f32) -> (f32, f32) {
    let t2 = t * t;
    let st = t * (1.0 - t2 * (1.0 / 6.0 - t2 * (1.0 / 120.0)));
    let ct = 1.0 - t2 * (0.5 - t2 * (1.0 / 24.0 - t2 * (1.0 / 720.0)));
    (s * ct + c * st, c * ct - s * st)
}

/// The sine and cosine of a heading `after` turned by `t` radians from one whose sine and
/// cosine are `s`, `c`: [`turned`] for turns of up to [`SHORT_ROTATION`] (a step's, at 60
/// steps a second), [`sin_cos`] of `after` beyond.
#[inline(always)]
pub(crate) fn sin_cos_after_turn(s: f32, c: f32, t: f32, after: f32) -> (f32, f32) {
    if t.abs() <= SHORT_ROTATION {
        turned(s, c, t)
    } else {
        sin_cos(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steering turn against an f64 reference (`atan2` of the turn's sine and cosine,
    /// clamped) over random headings, pushes of every size (turns in every octant, on both
    /// sides of tan(π/8) in each) and limits on both sides of [`SHORT_TURN`] and up to past
    /// π: all three ways of working it out are taken. The turn's sine and cosine are f32
    /// dot products, each within about an ulp of |steer| (1.2e-7 relative, so as much in
    /// angle). The series is within 3e-7 rad (the cosine is at least 0.99 |steer| there);
    /// the turns past atan(0.1) are exactly ±max; [`turn_towards`] within 4e-7 rad (its
    /// polynomial within 1.2e-7 relative of atan on its range, and π/4, π/2 and π less a
    /// value a rounding each, up to half an ulp of π, 1.2e-7; measured at most 3.0e-7).
    #[test]
    fn steering_turns_match_the_arctangent() {
        let mut rng = crate::crowd::plaza::rng::Rng::new(31);
        let (mut taken, mut octants, mut upper) = ([0usize; 3], [0usize; 8], 0);
        for k in 0..400_000 {
            let h = rng.range(-PI, PI);
            let (s, c) = h.sin_cos();
            let scale = [0.01, 0.3, 1.0, 3.0, 30.0][k % 5];
            let push = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * scale;
            let steer = Vec2::new(s, c) + push;
            let max = [0.0417, 0.0995, 0.0997, 0.3, 2.5, 4.0][k % 6];
            let (sx, sy, s64, c64) = (
                f64::from(steer.x),
                f64::from(steer.y),
                f64::from(s),
                f64::from(c),
            );
            let (y, x) = (sx * c64 - sy * s64, sy * c64 + sx * s64);
            let angle = y.atan2(x);
            let reference = angle.clamp(-f64::from(max), f64::from(max));
            let turn = steer_turn(s, c, steer, max);
            let short = x > 0.0 && y.abs() <= 0.1 * x;
            let (way, tolerance) = if short {
                (0, 3e-7)
            } else if max < SHORT_TURN {
                (1, 0.0)
            } else {
                let octant = (angle + std::f64::consts::PI) / std::f64::consts::FRAC_PI_4;
                octants[octant as usize % 8] += 1;
                let (lo, hi) = (x.abs().min(y.abs()), x.abs().max(y.abs()));
                upper += usize::from(lo > f64::from(TAN_PI_8) * hi);
                (2, 4e-7)
            };
            assert!(
                (f64::from(turn) - reference).abs() <= tolerance,
                "h {h}, steer {steer}, max {max}: {turn} against {reference}"
            );
            taken[way] += 1;
        }
        assert!(taken.iter().all(|&n| n > 10_000), "{taken:?}");
        assert!(octants.iter().all(|&n| n > 5_000), "{octants:?}");
        assert!(
            upper > 30_000 && upper < taken[2] - 30_000,
            "{upper} of {}",
            taken[2]
        );
        // Straight behind: the most allowed, clockwise, as the wrap into [−π, π) gives.
        assert_eq!(steer_turn(0.0, 1.0, Vec2::new(0.0, -2.0), 0.04), -0.04);
        assert_eq!(steer_turn(0.0, 1.0, Vec2::new(0.0, -2.0), 4.0), -PI);
        // Nothing to steer by: no turn. Not finite: as far as allowed, not NaN.
        assert_eq!(turn_towards(0.0, 0.0, 0.3), 0.0);
        assert_eq!(turn_towards(f32::NAN, 1.0, 0.3).abs(), 0.3);
        assert_eq!(turn_towards(f32::INFINITY, 1.0, 0.3), 0.3);
    }

    /// [`sin_cos`] against f64's sine and cosine over [−π, π] in 2,000,001 even steps (both
    /// ends included) and 200,000 random headings: within 1.2e-7 absolute, an ulp of values
    /// in [0.5, 1] (f64 is given the same f32 angle and the remainder is exact to about
    /// 2⁻³⁰ rad, so what is left is the polynomials' error and the f32 roundings, which
    /// measured at most 1e-7 together), and the signs right in every quadrant.
    #[test]
    fn sines_and_cosines_match_f64() {
        let mut rng = crate::crowd::plaza::rng::Rng::new(45);
        let n = 2_000_000;
        let even = (0..=n).map(|i| -PI + TAU * (i as f32 / n as f32));
        let random = (0..200_000).map(|_| rng.range(-PI, PI));
        for h in even
            .chain(random)
            .chain([-PI, PI, 0.0, -0.0, FRAC_PI_2, -FRAC_PI_2])
        {
            let (s, c) = sin_cos(h);
            let (es, ec) = f64::from(h).sin_cos();
            let e = (f64::from(s) - es).abs().max((f64::from(c) - ec).abs());
            assert!(e <= 1.2e-7, "h {h}: ({s}, {c}) against ({es}, {ec})");
            for (v, ev) in [(s, es), (c, ec)] {
                assert!(ev.abs() < 1e-6 || v.signum() == ev.signum() as f32, "h {h}");
            }
        }
    }

    /// A turned sine and cosine against f64's of the turned angle, over random headings and
    /// turns up to [`SHORT_ROTATION`] either way: within 3e-7 (the inputs are f32 sines and
    /// cosines, each within half an ulp, 6e-8; the rotation adds two products and a sum per
    /// value, a few roundings of values up to 1; the series' error is below 2e-11).
    #[test]
    fn turned_sines_and_cosines_match_the_turned_angle() {
        let mut rng = crate::crowd::plaza::rng::Rng::new(44);
        for _ in 0..200_000 {
            let h = rng.range(-PI, PI);
            let t = rng.range(-SHORT_ROTATION, SHORT_ROTATION);
            let (s, c) = h.sin_cos();
            let (ts, tc) = turned(s, c, t);
            let exact = (f64::from(h) + f64::from(t)).sin_cos();
            assert!(
                (f64::from(ts) - exact.0).abs() < 3e-7 && (f64::from(tc) - exact.1).abs() < 3e-7,
                "h {h}, t {t}: ({ts}, {tc}) against {exact:?}"
            );
        }
    }
}
