//! Mipmaps of impostor pictures, made when an atlas is uploaded. Without them a far agent's
//! 16-pixel pictures, drawn a few pixels tall, are read a texel here and a texel there: the
//! figure speckles from frame to frame and its limbs break up. Each level halves the pictures
//! with a 2×2 box:
//! - colour in linear light, weighted by coverage (a covered texel's colour is not darkened by
//!   its empty neighbours; empty texels keep the plain mean, as the baker's dilation does);
//! - normals decoded, weighted by coverage, summed and encoded again; depth weighted alike;
//! - coverage the plain mean: the share of the texel the figure covers. Minified pictures
//!   are drawn blended with it (`shaders/impostor.wgsl`, `shade_impostor`), so a figure
//!   smaller than a pixel lays that share of its colour over the pixel, as a rasterised
//!   mesh covers such pixels on average.
//!
//! Levels stop where a cell no longer halves into whole pixels, so no level mixes two views.
//! Pure CPU work on byte planes; `impostors.rs` uploads the levels.

use crate::format::impostor::{decode_normal, encode_normal};

/// Levels below the full pictures for cells of `cell` pixels: the halvings that keep every
/// cell whole (16 px: 4 levels, to 1 px; 48 px: 4, to 3 px; an odd cell: none).
pub fn mip_levels(cell: u32) -> u32 {
    if cell == 0 { 0 } else { cell.trailing_zeros() }
}

/// One frame's pictures at one level, in the working form: per texel, linear colour times
/// coverage, the plain linear colour, coverage (0..1, before scaling), normal times coverage,
/// depth times coverage and the normal plane's alpha.
struct Work {
    side: usize,
    premul: Vec<[f32; 3]>,
    plain: Vec<[f32; 3]>,
    cover: Vec<f32>,
    normal: Vec<[f32; 3]>,
    depth: Vec<f32>,
    normal_alpha: Vec<f32>,
}

/// sRGB 8-bit to linear light.
fn to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light (0..1) to sRGB 8-bit, rounded.
fn to_srgb(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    unit_byte(c)
}

/// 0..1 to 0..=255, rounded.
fn unit_byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
}

impl Work {
    /// The full pictures: `colour` (sRGB RGBA8) and `normal` (normal-depth RGBA8), `side`
    /// pixels square.
    fn from_planes(colour: &[u8], normal: &[u8], side: usize) -> Self {
        let lut: Vec<f32> = (0..=255u8).map(to_linear).collect();
        let n = side * side;
        let mut w = Self {
            side,
            premul: Vec::with_capacity(n),
            plain: Vec::with_capacity(n),
            cover: Vec::with_capacity(n),
            normal: Vec::with_capacity(n),
            depth: Vec::with_capacity(n),
            normal_alpha: Vec::with_capacity(n),
        };
        for (c, m) in colour.chunks_exact(4).zip(normal.chunks_exact(4)).take(n) {
            let a = f32::from(c[3]) / 255.0;
            let rgb = [lut[c[0] as usize], lut[c[1] as usize], lut[c[2] as usize]];
            let nm = decode_normal([m[0], m[1]]);
            w.premul.push(rgb.map(|v| v * a));
            w.plain.push(rgb);
            w.cover.push(a);
            w.normal.push(nm.map(|v| v * a));
            w.depth.push(f32::from(m[2]) / 255.0 * a);
            w.normal_alpha.push(f32::from(m[3]) / 255.0);
        }
        w
    }

    /// The next level: each texel the mean of a 2×2 block.
    fn halve(&self) -> Self {
        let side = self.side / 2;
        let n = side * side;
        let mut w = Self {
            side,
            premul: vec![[0.0; 3]; n],
            plain: vec![[0.0; 3]; n],
            cover: vec![0.0; n],
            normal: vec![[0.0; 3]; n],
            depth: vec![0.0; n],
            normal_alpha: vec![0.0; n],
        };
        for y in 0..side {
            for x in 0..side {
                let o = y * side + x;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let i = (2 * y + dy) * self.side + 2 * x + dx;
                    for k in 0..3 {
                        w.premul[o][k] += 0.25 * self.premul[i][k];
                        w.plain[o][k] += 0.25 * self.plain[i][k];
                        w.normal[o][k] += 0.25 * self.normal[i][k];
                    }
                    w.cover[o] += 0.25 * self.cover[i];
                    w.depth[o] += 0.25 * self.depth[i];
                    w.normal_alpha[o] += 0.25 * self.normal_alpha[i];
                }
            }
        }
        w
    }

    /// The level as the two RGBA8 planes.
    fn planes(&self) -> (Vec<u8>, Vec<u8>) {
        let n = self.side * self.side;
        let (mut colour, mut normal) = (Vec::with_capacity(4 * n), Vec::with_capacity(4 * n));
        for i in 0..n {
            let a = self.cover[i];
            let rgb = if a > 0.0 {
                self.premul[i].map(|v| v / a)
            } else {
                self.plain[i]
            };
            colour.extend_from_slice(&[
                to_srgb(rgb[0]),
                to_srgb(rgb[1]),
                to_srgb(rgb[2]),
                unit_byte(a),
            ]);
            let nm = self.normal[i];
            let code = if a > 0.0 && nm != [0.0; 3] {
                encode_normal(nm)
            } else {
                [128, 128]
            };
            let depth = if a > 0.0 { self.depth[i] / a } else { 0.5 };
            normal.extend_from_slice(&[
                code[0],
                code[1],
                unit_byte(depth),
                unit_byte(self.normal_alpha[i]),
            ]);
        }
        (colour, normal)
    }
}

/// The mip levels 1..=[`mip_levels`]`(cell)` of one impostor frame: its `colour` and
/// `normal` planes (RGBA8, `side × side` pixels, `side` a multiple of `cell`), each level's
/// two planes half the side of the one before.
pub fn frame_mips(colour: &[u8], normal: &[u8], side: u32, cell: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
    let levels = mip_levels(cell);
    let side = side as usize;
    if levels == 0 || side == 0 || colour.len() < 4 * side * side || normal.len() < 4 * side * side
    {
        return Vec::new();
    }
    let mut level = Work::from_planes(colour, normal, side);
    let mut out = Vec::with_capacity(levels as usize);
    for _ in 0..levels {
        level = level.halve();
        out.push(level.planes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2×2 grid of 8 px views: view 0 holds a vertical bar 1 px wide (8 px tall) of
    /// `rgb`, the others a filled square of 4 px; normals +z.
    fn frame(rgb: [u8; 3]) -> (Vec<u8>, Vec<u8>) {
        let side = 16;
        let mut colour = vec![0u8; side * side * 4];
        let mut normal = vec![0u8; side * side * 4];
        let up = encode_normal([0.0, 0.0, 1.0]);
        for y in 0..side {
            for x in 0..side {
                let (vx, vy, lx, ly) = (x / 8, y / 8, x % 8, y % 8);
                let covered = if vx == 0 && vy == 0 {
                    lx == 3
                } else {
                    (2..6).contains(&lx) && (2..6).contains(&ly)
                };
                let i = 4 * (y * side + x);
                // Empty texels carry the dilated colour, as the baker writes them.
                colour[i..i + 4].copy_from_slice(&[
                    rgb[0],
                    rgb[1],
                    rgb[2],
                    255 * u8::from(covered),
                ]);
                normal[i..i + 4].copy_from_slice(&[up[0], up[1], 128, 255 * u8::from(covered)]);
            }
        }
        (colour, normal)
    }

    fn kept(plane: &[u8], side: usize, view: (usize, usize), cell: usize) -> usize {
        (0..cell * cell)
            .filter(|k| {
                let (x, y) = (view.0 * cell + k % cell, view.1 * cell + k / cell);
                plane[4 * (y * side + x) + 3] >= 128
            })
            .count()
    }

    #[test]
    fn levels_stop_where_a_cell_would_split() {
        assert_eq!(mip_levels(16), 4);
        assert_eq!(mip_levels(48), 4);
        assert_eq!(mip_levels(9), 0);
        assert_eq!(mip_levels(0), 0);
    }

    /// Coverage is the share of each texel covered: a bar one texel wide in 8 is 1/2 of its
    /// column at level 1, 1/4 at level 2 and 1/8 of the single texel at level 3.
    #[test]
    fn coverage_is_the_share_covered() {
        let (c, n) = frame([200, 100, 50]);
        let mips = frame_mips(&c, &n, 16, 8);
        assert_eq!(mips.len(), 3);
        let alpha = |plane: &[u8], side: usize, x: usize, y: usize| plane[4 * (y * side + x) + 3];
        assert_eq!(mips[0].0.len(), 8 * 8 * 4);
        // 255 × 1/2, 1/4 and 1/8, rounded.
        assert_eq!(alpha(&mips[0].0, 8, 1, 0), 128);
        assert_eq!(alpha(&mips[0].0, 8, 0, 0), 0);
        assert_eq!(alpha(&mips[1].0, 4, 0, 1), 64);
        assert_eq!(alpha(&mips[2].0, 2, 0, 0), 32);
        // The 4 px squares: whole texels at level 1, a quarter of each of 4 at level 2.
        assert_eq!(alpha(&mips[0].0, 8, 5, 5), 255);
        assert_eq!(alpha(&mips[1].0, 4, 2, 2), 64);
    }

    /// Colour is a coverage-weighted mean in linear light: a covered texel's colour comes
    /// through unchanged beside empty ones, and normals stay the normals drawn.
    #[test]
    fn colours_and_normals_are_the_covered_texels() {
        let (c, n) = frame([200, 100, 50]);
        let mips = frame_mips(&c, &n, 16, 8);
        let (colour, normal) = &mips[0];
        // Level 1, view 0, the bar's column (x = 1), row 0: 4 bytes a pixel.
        let i = 4;
        assert_eq!(&colour[i..i + 3], &[200, 100, 50]);
        assert_eq!(
            decode_normal([normal[i], normal[i + 1]]),
            decode_normal(encode_normal([0.0, 0.0, 1.0]))
        );
    }

    /// No level reads across a view's border: a view that is empty at full size is empty at
    /// every level, beside full ones.
    #[test]
    fn views_do_not_bleed_into_each_other() {
        let side = 16;
        let mut colour = vec![0u8; side * side * 4];
        let normal = vec![128u8; side * side * 4];
        for y in 0..side {
            for x in 8..side {
                colour[4 * (y * side + x) + 3] = 255;
            }
        }
        for (l, (plane, _)) in frame_mips(&colour, &normal, 16, 8).iter().enumerate() {
            let s = side >> (l + 1);
            let cell = 8 >> (l + 1);
            assert_eq!(kept(plane, s, (0, 0), cell), 0, "level {}", l + 1);
            assert_eq!(kept(plane, s, (1, 0), cell), cell * cell, "level {}", l + 1);
        }
    }
}
