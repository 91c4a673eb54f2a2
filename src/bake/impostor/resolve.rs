//! From one view's supersamples to its square of the two RGBA8 planes: colour (the covered
//! samples' mean linear colour in sRGB, alpha the covered fraction) and normal-depth (the
//! octahedral code of the mean normal, the depth across the sphere, alpha 255 where covered);
//! then the uncovered texels next to covered ones filled from them ([`dilate`]) so that
//! bilinear filtering and mipmaps at run time do not bleed black into the silhouette.

use super::raster::Samples;
use crate::format::impostor::encode_normal;

/// Passes of [`dilate`]: texels within this many steps of a covered one are filled.
pub(super) const DILATE_PASSES: u8 = 2;

/// The sRGB transfer, as tables: 8-bit code to linear value, and back by the nearest code in
/// linear terms (a binary search over the midpoints between neighbouring codes' values), so
/// no per-pixel `powf`: the same bytes on every machine.
pub(super) struct Srgb {
    /// Linear value of each 8-bit code.
    pub decode: [f32; 256],
    /// `mid[c]`: half way between the linear values of codes `c` and `c + 1`.
    mid: [f32; 255],
}

impl Srgb {
    /// The tables. The transfer function is evaluated in f64 and rounded to f32: a libm's last
    /// bit of f64 does not reach an f32.
    pub fn new() -> Self {
        let mut decode = [0.0f32; 256];
        for (c, d) in decode.iter_mut().enumerate() {
            let s = c as f64 / 255.0;
            let l = if s <= 0.04045 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            };
            *d = l as f32;
        }
        let mut mid = [0.0f32; 255];
        for (c, m) in mid.iter_mut().enumerate() {
            *m = (decode[c] + decode[c + 1]) * 0.5;
        }
        Self { decode, mid }
    }

    /// The 8-bit sRGB code nearest linear value `v` (clamped to [0, 1]; NaN gives 0).
    #[inline]
    pub fn encode(&self, v: f32) -> u8 {
        self.mid.partition_point(|m| *m <= v) as u8
    }
}

/// Writes the square of `s` (a view of `cell` pixels) at pixel `(ox, oy)` of the frame's
/// `colour` and `normal_depth` planes (RGBA8, `side` pixels a row), for a character of
/// `radius` model units, and marks `mask` (one byte per pixel of the square) 1 where covered,
/// 0 where not.
#[allow(clippy::too_many_arguments)]
pub(super) fn resolve(
    s: &Samples,
    srgb: &Srgb,
    radius: f32,
    colour: &mut [u8],
    normal_depth: &mut [u8],
    side: usize,
    (ox, oy): (usize, usize),
    mask: &mut [u8],
) {
    let cell = s.side / 2;
    for y in 0..cell {
        for x in 0..cell {
            let mut n = 0u32;
            let (mut c, mut nm, mut z) = ([0.0f32; 3], [0.0f32; 3], 0.0f32);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let at = (2 * y + dy) * s.side + 2 * x + dx;
                if s.z[at] > f32::NEG_INFINITY {
                    n += 1;
                    z += s.z[at];
                    for k in 0..3 {
                        c[k] += s.colour[at][k];
                        nm[k] += s.normal[at][k];
                    }
                }
            }
            let px = ((oy + y) * side + ox + x) * 4;
            let (Some(out_c), Some(out_n)) =
                (colour.get_mut(px..px + 4), normal_depth.get_mut(px..px + 4))
            else {
                continue;
            };
            mask[y * cell + x] = u8::from(n > 0);
            if n == 0 {
                out_c.fill(0);
                out_n.fill(0);
                continue;
            }
            let inv = 1.0 / n as f32;
            for k in 0..3 {
                out_c[k] = srgb.encode(c[k] * inv);
            }
            out_c[3] = coverage(n);
            let [nx, ny] = encode_normal(nm);
            let depth = ((z * inv + radius) / (2.0 * radius) * 255.0 + 0.5).floor();
            out_n.copy_from_slice(&[nx, ny, depth.clamp(0.0, 255.0) as u8, 255]);
        }
    }
}

/// Alpha of a pixel with `n` of its 4 samples covered: `round(255 n / 4)`.
#[inline]
pub(super) fn coverage(n: u32) -> u8 {
    ((255 * n.min(4) + 2) / 4) as u8
}

/// Fills the uncovered pixels (`mask` 0) of the `cell`-pixel square at `(ox, oy)` of both
/// planes with the mean RGB of their filled 4-neighbours within the square, [`DILATE_PASSES`]
/// times (a pass reads only pixels filled before it), keeping their alpha 0. `mask` is
/// updated: the pass that filled a pixel, plus 1.
pub(super) fn dilate(
    colour: &mut [u8],
    normal_depth: &mut [u8],
    side: usize,
    (ox, oy): (usize, usize),
    cell: usize,
    mask: &mut [u8],
) {
    for pass in 1..=DILATE_PASSES {
        for y in 0..cell {
            for x in 0..cell {
                if mask[y * cell + x] != 0 {
                    continue;
                }
                let mut n = 0u32;
                let (mut c, mut nd) = ([0u32; 3], [0u32; 3]);
                let neighbours = [
                    (x > 0).then(|| (x - 1, y)),
                    (x + 1 < cell).then_some((x + 1, y)),
                    (y > 0).then(|| (x, y - 1)),
                    (y + 1 < cell).then_some((x, y + 1)),
                ];
                for (nx, ny) in neighbours.into_iter().flatten() {
                    let m = mask[ny * cell + nx];
                    if m == 0 || m > pass {
                        continue;
                    }
                    let px = ((oy + ny) * side + ox + nx) * 4;
                    if let (Some(a), Some(b)) =
                        (colour.get(px..px + 3), normal_depth.get(px..px + 3))
                    {
                        n += 1;
                        for k in 0..3 {
                            c[k] += u32::from(a[k]);
                            nd[k] += u32::from(b[k]);
                        }
                    }
                }
                if n == 0 {
                    continue;
                }
                let px = ((oy + y) * side + ox + x) * 4;
                if let (Some(a), Some(b)) =
                    (colour.get_mut(px..px + 3), normal_depth.get_mut(px..px + 3))
                {
                    for k in 0..3 {
                        a[k] = ((c[k] + n / 2) / n) as u8;
                        b[k] = ((nd[k] + n / 2) / n) as u8;
                    }
                }
                mask[y * cell + x] = pass + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_srgb_tables_round_trip_every_code() {
        let t = Srgb::new();
        for c in 0..=255u8 {
            assert_eq!(t.encode(t.decode[usize::from(c)]), c);
        }
        assert_eq!(t.decode[0], 0.0);
        assert_eq!(t.decode[255], 1.0);
        // 18% grey is code 118 (0.1812 linear); out of range clamps.
        assert_eq!(t.encode(0.18), 118);
        assert_eq!(
            (t.encode(-1.0), t.encode(7.0), t.encode(f32::NAN)),
            (0, 255, 0)
        );
        assert!(t.decode.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn coverage_alpha_steps_by_quarters() {
        let want = [0, 64, 128, 191, 255];
        for (n, a) in want.iter().enumerate() {
            assert_eq!(coverage(n as u32), *a);
        }
        // Through `resolve`: a cell of 1 pixel with n of its samples covered.
        let srgb = Srgb::new();
        for (n, &alpha) in want.iter().enumerate() {
            let mut s = Samples::new(1);
            for k in 0..n {
                s.z[k] = 0.0;
                s.colour[k] = [1.0; 3];
                s.normal[k] = [0.0, 0.0, 1.0];
            }
            let (mut c, mut nd, mut mask) = ([9u8; 4], [9u8; 4], [9u8; 1]);
            resolve(&s, &srgb, 1.0, &mut c, &mut nd, 1, (0, 0), &mut mask);
            assert_eq!(c[3], alpha);
            assert_eq!(nd[3], if n > 0 { 255 } else { 0 });
            assert_eq!(mask[0], u8::from(n > 0));
            if n > 0 {
                // White, the +z normal, depth 0 half way across the sphere.
                assert_eq!(&c[..3], &[255; 3]);
                assert_eq!(nd[..3], [128, 128, 128]);
            }
        }
    }

    #[test]
    fn dilation_fills_two_steps_out_and_keeps_alpha_zero() {
        // A 6-pixel square in a frame of 8, at (1, 1): one covered pixel at its (2, 2).
        let (side, cell) = (8usize, 6usize);
        let mut colour = vec![0u8; side * side * 4];
        let mut nd = vec![0u8; side * side * 4];
        let mut mask = vec![0u8; cell * cell];
        let at = |x: usize, y: usize| ((1 + y) * side + 1 + x) * 4;
        colour[at(2, 2)..at(2, 2) + 4].copy_from_slice(&[200, 100, 50, 255]);
        nd[at(2, 2)..at(2, 2) + 4].copy_from_slice(&[10, 20, 30, 255]);
        mask[2 * cell + 2] = 1;
        dilate(&mut colour, &mut nd, side, (1, 1), cell, &mut mask);
        for y in 0..cell {
            for x in 0..cell {
                let steps = x.abs_diff(2) + y.abs_diff(2);
                let p = at(x, y);
                let filled = steps <= 2;
                assert_eq!(mask[y * cell + x], if filled { steps as u8 + 1 } else { 0 });
                let want_c: [u8; 3] = if filled { [200, 100, 50] } else { [0; 3] };
                assert_eq!(colour[p..p + 3], want_c, "({x}, {y})");
                assert_eq!(colour[p + 3], if steps == 0 { 255 } else { 0 });
                assert_eq!(nd[p + 3], if steps == 0 { 255 } else { 0 });
                if filled {
                    assert_eq!(nd[p..p + 3], [10, 20, 30]);
                }
            }
        }
        // Nothing outside the square was touched.
        for y in 0..side {
            for x in 0..side {
                if !(1..7).contains(&x) || !(1..7).contains(&y) {
                    assert_eq!(colour[(y * side + x) * 4..][..4], [0; 4]);
                }
            }
        }
    }
}
