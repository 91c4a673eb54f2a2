//! Facing: a character baked without root motion whose feet say it walks along another model
//! axis than +z (the crowd's forward: an agent at heading 0 faces +z, and `crowd.wgsl` places
//! the model's +z along its heading) is turned about +y by a multiple of 90° so that it walks
//! along +z. The turn multiplies every sampled skinning matrix by the rotation on the left
//! (model space); a quarter turn maps (x, z) to (z, −x), a permutation with a sign change, so
//! texels, their f16 rounding, interpolation errors and bounds stay exact.

use glam::{Mat4, Vec2};

use crate::format::TEXELS_PER_MATRIX;
use crate::format::records::BoundsRecord;

/// [`TEXELS_PER_MATRIX`] as an index.
const ROWS: usize = TEXELS_PER_MATRIX as usize;

/// The number of quarter turns about +y (0 to 3, each +90°: (x, z) to (z, −x)) that bring the
/// consensus of `travels` (each animation's direction of travel, x and z of the model; each
/// counts alike, whatever its speed) nearest to +z; 0 when they cancel out or there are none.
pub(super) fn quarter_turns(travels: impl IntoIterator<Item = Vec2>) -> u8 {
    let sum: Vec2 = travels.into_iter().map(Vec2::normalize_or_zero).sum();
    if sum.length() <= f32::EPSILON {
        return 0;
    }
    (0..4u8)
        .max_by(|&a, &b| turn(sum, a).y.total_cmp(&turn(sum, b).y))
        .unwrap_or(0)
}

/// `v` (x, z) turned by `k` quarter turns about +y.
pub(super) fn turn(v: Vec2, k: u8) -> Vec2 {
    (0..k % 4).fold(v, |v, _| Vec2::new(v.y, -v.x))
}

/// The model axis `v` (x, z) runs along, by name ("+z", "-x"...).
pub(super) fn axis_name(v: Vec2) -> &'static str {
    if v.x.abs() > v.y.abs() {
        if v.x > 0.0 { "+x" } else { "-x" }
    } else if v.y >= 0.0 {
        "+z"
    } else {
        "-z"
    }
}

/// Turns the skinning matrices in `texels` (three rows per matrix, as baked) by `k` quarter
/// turns about +y: the rotation multiplies each on the left, which moves its rows — the x row
/// becomes the z row and the z row minus the x row, per quarter turn. Exact.
pub(super) fn turn_texels(texels: &mut [[f32; 4]], k: u8) {
    for _ in 0..k % 4 {
        for m in texels.chunks_exact_mut(ROWS) {
            let x = m[0];
            m[0] = m[2];
            m[2] = x.map(|e| -e);
        }
    }
}

/// `m` turned by `k` quarter turns about +y, as [`turn_texels`] turns its rows: exact. The
/// format's one turn ([`crate::format::records::turn_matrix`]), which the runtime's own
/// users (the bench's live baseline) apply too.
pub(super) fn turn_matrix(m: Mat4, k: u8) -> Mat4 {
    Mat4::from_cols_array(&crate::format::records::turn_matrix(m.to_cols_array(), k))
}

/// Turns an axis-aligned box by `k` quarter turns about +y: still axis-aligned, exactly.
pub(super) fn turn_bounds(b: &mut BoundsRecord, k: u8) {
    for _ in 0..k % 4 {
        let (min, max) = (b.min, b.max);
        b.min = [min[2], min[1], -max[0]];
        b.max = [max[2], max[1], -min[0]];
    }
}

/// What the report says of a character turned by `k` quarter turns, which walked along
/// `travel` (x, z) before.
pub(super) fn note(travel: Vec2, k: u8) -> String {
    let degrees = match k % 4 {
        1 => "90°",
        2 => "180°",
        _ => "-90°",
    };
    format!(
        "walks along {} in the model: turned {degrees} about +y so it walks along +z, the crowd's forward",
        axis_name(travel)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::texels::{from_rows, rows};
    use glam::{Quat, Vec3};

    #[test]
    fn a_quarter_turn_is_the_rotation_about_y_exactly() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7),
            Vec3::new(0.25, 1.5, -3.0),
        );
        for k in 1..4u8 {
            let r = rows(&m);
            let mut texels = r.to_vec();
            turn_texels(&mut texels, k);
            let turned = from_rows(&[texels[0], texels[1], texels[2]]);
            let want = Mat4::from_rotation_y(f32::from(k) * std::f32::consts::FRAC_PI_2) * m;
            // The rotation matrix from sin/cos carries rounding of about 1e-7 in its zeros;
            // the turn itself is a permutation with signs: the difference is that rounding.
            assert!(turned.abs_diff_eq(want, 1e-5), "k {k}: {turned} vs {want}");
            // A point's image is the rotated point: (x, z) to (z, -x) per quarter turn.
            let p = Vec3::new(0.3, -0.2, 0.9);
            let q = turned.transform_point3(p);
            let t = turn(
                Vec2::new(m.transform_point3(p).x, m.transform_point3(p).z),
                k,
            );
            assert_eq!((q.x, q.z), (t.x, t.y), "k {k}");
            // The matrix turned whole is the texels turned, bit for bit.
            assert_eq!(rows(&turn_matrix(m, k)).to_vec(), texels, "k {k}");
            // Four quarter turns give the matrix back bit for bit.
            turn_texels(&mut texels, 4 - k);
            assert_eq!(texels, r.to_vec());
        }
    }

    #[test]
    fn boxes_turn_with_their_contents() {
        let b = BoundsRecord {
            min: [-1.0, 0.0, 2.0],
            max: [3.0, 1.8, 5.0],
        };
        let mut t = b;
        turn_bounds(&mut t, 1);
        // x takes z's range, z takes minus x's.
        assert_eq!(t.min, [2.0, 0.0, -3.0]);
        assert_eq!(t.max, [5.0, 1.8, 1.0]);
        turn_bounds(&mut t, 3);
        assert_eq!(t, b);
    }

    #[test]
    fn the_consensus_is_snapped_to_the_nearest_axis() {
        // Walks along +x (and one along +x a little off): one quarter turn the other way.
        let k = quarter_turns([Vec2::new(1.0, 0.1), Vec2::new(2.0, -0.3)]);
        assert_eq!(k, 3);
        assert_eq!(turn(Vec2::X, k), Vec2::Y);
        assert_eq!(quarter_turns([Vec2::new(0.1, 1.2)]), 0);
        assert_eq!(quarter_turns([Vec2::new(-1.0, 0.0)]), 1);
        assert_eq!(quarter_turns([Vec2::new(0.0, -1.0)]), 2);
        assert_eq!(quarter_turns([]), 0);
        assert!(note(Vec2::X, 3).starts_with("walks along +x in the model: turned -90° about +y"));
    }
}
