//! Animated impostors (format 1.4, docs/FORMAT.md "Impostors"): for each character, pictures
//! of it from the `views × views` directions of [`crate::format::impostor`]'s grid, for every
//! impostor frame of every animation, drawn on the CPU from the baked file itself (its stored
//! texels, the chosen LOD level's vertices with their skeleton-LOD influences, its materials
//! and images), so that they show exactly what the runtime draws.
//!
//! - this module: which frames ([`frame_count`]), the sphere and level each character is drawn
//!   at, and the drawing of each frame (skinned once, then every view);
//! - `raster`: the supersampled rasteriser;
//! - `resolve`: samples to the two RGBA8 planes, and the dilation of the silhouette.
//!
//! The bytes depend on nothing but the file and the settings: frames are drawn independently
//! (in parallel, each into its own slice) with only `+ − × ÷`, `sqrt`, `floor`, `abs`, `min`
//! and `max`, and no fused multiply-add.

mod raster;
mod resolve;
#[cfg(test)]
mod tests;

use rayon::prelude::*;

use self::raster::{Image, Material, Samples};
use self::resolve::{Srgb, dilate, resolve};
use super::recipe::ImpostorSettings;
use crate::format::impostor::{PLANES, frame_bytes, view_basis, view_direction};
use crate::format::records::{ImpostorAnimRecord, ImpostorRecord, NONE, anim_flags};
use crate::format::{TEXELS_PER_MATRIX, ThrongFile};

/// What the impostors of one character came to, for the bake report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorReport {
    /// Views along each side of the grid.
    pub views: u32,
    /// Side of one view's square, pixels.
    pub cell: u32,
    /// Impostor frames, all animations'.
    pub frames: u32,
    /// The LOD level drawn.
    pub level: u32,
    /// Bytes of its atlas in `IMPX`.
    pub bytes: u64,
    /// Centre of the sphere drawn, model units (baked frame).
    pub centre: [f32; 3],
    /// Radius of the sphere drawn, model units.
    pub radius: f32,
}

/// The impostors of a whole file, ready for the builder's `impostors`, `impostor_anims` and
/// `impostor_pixels`.
pub(crate) struct Drawn {
    /// Per character.
    pub records: Vec<ImpostorRecord>,
    /// Per animation.
    pub anims: Vec<ImpostorAnimRecord>,
    /// The `IMPX` bytes.
    pub pixels: Vec<u8>,
    /// Per character: `None` where it has none (impostors off, no meshes, no animations).
    pub reports: Vec<Option<ImpostorReport>>,
}

/// Impostor frames of an animation of `duration` seconds and `baked` baked frames: one per
/// `1/fps` seconds, within `min_frames..=max_frames`. A loop shows frame `k` at
/// `k/K` of its duration (its end is its start), a clamped one at `k/(K−1)` (both ends,
/// so at least 2). A still animation (duration 0, or a single baked frame) gets 1 frame
/// looping, 2 clamped (both its frame 0), as the format's frame rule shows it.
pub fn frame_count(duration: f32, baked: u32, looping: bool, s: &ImpostorSettings) -> u32 {
    let still = !(duration > 0.0 && duration.is_finite()) || baked < 2;
    if still {
        return if looping { 1 } else { 2 };
    }
    // f64: a long animation at a high rate stays exact; the clamp bounds it to u32 anyway.
    let per_rate = (f64::from(duration) * f64::from(s.fps)).ceil();
    let (lo, hi) = (s.min_frames.max(1), s.max_frames.max(s.min_frames).max(1));
    if looping {
        per_rate.clamp(f64::from(lo), f64::from(hi)) as u32
    } else {
        (per_rate + 1.0).clamp(f64::from(lo.max(2)), f64::from(hi.max(2))) as u32
    }
}

/// The coarsest level whose parts' simplification errors (`errors[level][part]`, model
/// units) are all within half a supersample of a `cell`-pixel view of a sphere of `radius`:
/// `radius / (2·cell)`. Level 0 (error 0) always qualifies.
pub fn level(errors: &[Vec<f32>], radius: f32, cell: u32) -> u32 {
    let within = radius / (2.0 * cell as f32);
    errors
        .iter()
        .enumerate()
        .filter(|(_, parts)| parts.iter().all(|e| *e <= within))
        .map(|(l, _)| l as u32)
        .max()
        .unwrap_or(0)
}

/// One character's plan: its record (without `first_pixel`) and its frames, as (animation,
/// time in seconds).
struct Plan {
    record: ImpostorRecord,
    frames: Vec<(usize, f32)>,
}

/// The sphere about every `BNDS` box of character `c`'s animations: the union box's middle
/// and half its diagonal; `None` when it has none or it is not finite and positive.
fn sphere(file: &ThrongFile, c: usize) -> Option<([f32; 3], f32)> {
    let ch = file.characters().get(c)?;
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    let anims = ch.first_anim as usize..(ch.first_anim + ch.anim_count) as usize;
    for a in file.anims().get(anims)? {
        let first = a.first_bounds as usize;
        for b in file.bounds().get(first..first + a.frame_count as usize)? {
            for k in 0..3 {
                lo[k] = lo[k].min(b.min[k]);
                hi[k] = hi[k].max(b.max[k]);
            }
        }
    }
    let centre = [0, 1, 2].map(|k| (lo[k] + hi[k]) * 0.5);
    let d = [0, 1, 2].map(|k| hi[k] - lo[k]);
    let radius = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() * 0.5;
    (radius > 0.0 && radius.is_finite() && centre.iter().all(|x| x.is_finite()))
        .then_some((centre, radius))
}

/// What character `c` gets: `None` without meshes, animations or a sphere.
fn plan(file: &ThrongFile, c: usize, s: &ImpostorSettings) -> Option<Plan> {
    let ch = file.characters().get(c)?;
    if !s.enabled || ch.part_count == 0 || ch.lod_count == 0 || ch.anim_count == 0 {
        return None;
    }
    let (centre, radius) = sphere(file, c)?;
    let errors: Vec<Vec<f32>> = (0..ch.lod_count)
        .map(|l| {
            let first = (ch.first_mesh + l * ch.part_count) as usize;
            file.meshes()
                .get(first..first + ch.part_count as usize)
                .map_or(vec![f32::INFINITY], |m| m.iter().map(|m| m.error).collect())
        })
        .collect();
    let level = level(&errors, radius, s.cell);
    let mut frames = Vec::new();
    for a in ch.first_anim as usize..(ch.first_anim + ch.anim_count) as usize {
        let r = file.anims().get(a)?;
        let looping = r.flags & anim_flags::LOOPING != 0;
        let k = frame_count(r.duration, r.frame_count, looping, s);
        let span = if looping { k } else { k - 1 };
        for i in 0..k {
            // A still animation's time is 0 whatever `span` says.
            let t = if span > 0 && r.duration > 0.0 {
                i as f32 * r.duration / span as f32
            } else {
                0.0
            };
            frames.push((a, t));
        }
    }
    Some(Plan {
        record: ImpostorRecord {
            views: s.views,
            cell: s.cell,
            frame_count: frames.len() as u32,
            level,
            centre,
            radius,
            first_pixel: 0,
            reserved: [0; 2],
        },
        frames,
    })
}

/// Draws the impostors of every character of `file` with settings `s`, calling `progress(n)`
/// as `n` more frames are done (from several threads) after `start(total)`.
pub(crate) fn draw(
    file: &ThrongFile,
    s: &ImpostorSettings,
    start: &dyn Fn(u64),
    progress: &(dyn Fn(u64) + Sync),
) -> Drawn {
    let plans: Vec<Option<Plan>> = (0..file.characters().len())
        .map(|c| plan(file, c, s))
        .collect();
    start(plans.iter().flatten().map(|p| p.frames.len() as u64).sum());
    let srgb = Srgb::new();
    let mut out = Drawn {
        records: Vec::new(),
        anims: vec![ImpostorAnimRecord::default(); file.anims().len()],
        pixels: Vec::new(),
        reports: Vec::new(),
    };
    for (c, p) in plans.iter().enumerate() {
        let Some(p) = p else {
            out.records.push(ImpostorRecord::default());
            out.reports.push(None);
            continue;
        };
        let mut record = p.record;
        record.first_pixel = out.pixels.len() as u64;
        // The character's animations' frames are consecutive, in its animation order.
        for (k, &(a, _)) in p.frames.iter().enumerate() {
            if let Some(r) = out.anims.get_mut(a) {
                if r.frame_count == 0 {
                    r.first_frame = k as u32;
                }
                r.frame_count += 1;
            }
        }
        let bytes = frame_bytes(s.views, s.cell) as usize;
        let start = out.pixels.len();
        out.pixels.resize(start + bytes * p.frames.len(), 0);
        out.pixels[start..]
            .par_chunks_mut(bytes)
            .zip(p.frames.par_iter())
            .for_each(|(frame, &(a, t))| {
                draw_frame(file, c, &record, a, t, &srgb, frame);
                progress(1);
            });
        out.records.push(record);
        out.reports.push(Some(ImpostorReport {
            views: s.views,
            cell: s.cell,
            frames: record.frame_count,
            level: record.level,
            bytes: (bytes * p.frames.len()) as u64,
            centre: record.centre,
            radius: record.radius,
        }));
    }
    out
}

/// The three rows of each joint's matrix of animation `a` at `t` seconds: the two frames'
/// stored texels mixed as `skinning.wgsl` mixes them (`x·(1−w) + y·w`, the second only when
/// its weight is above 0).
fn joint_rows(file: &ThrongFile, a: usize, t: f32, joints: u32, out: &mut Vec<[[f32; 4]; 3]>) {
    let texels = file.texels();
    let (f0, f1, w) = file.frames_at(a, t);
    let get = |frame: u32, j: u32, r: u32| {
        let i = file.texel_index(a, frame, j, r) as usize;
        if i < texels.len() {
            texels.get(i)
        } else {
            [0.0; 4]
        }
    };
    out.clear();
    for j in 0..joints {
        let mut m = [[0.0f32; 4]; 3];
        for (r, row) in (0..TEXELS_PER_MATRIX).zip(&mut m) {
            *row = get(f0, j, r);
            if w > 0.0 {
                let b = get(f1, j, r);
                for k in 0..4 {
                    row[k] = row[k] * (1.0 - w) + b[k] * w;
                }
            }
        }
        out.push(m);
    }
}

/// `p` and `n` skinned with `rows` by `joints` and `weights` as `skinning.wgsl`'s `skin`: the
/// weighted sum of the influences' rows (the first always, the others where their weight is
/// not 0), the point through it, the normal through its cofactor (negated when it mirrors),
/// normalised.
fn skin(
    rows: &[[[f32; 4]; 3]],
    joints: [u16; 4],
    weights: [f32; 4],
    p: [f32; 3],
    n: [f32; 3],
) -> ([f32; 3], [f32; 3]) {
    let mut m = [[0.0f32; 4]; 3];
    for (k, (&j, &w)) in joints.iter().zip(&weights).enumerate() {
        if k > 0 && w == 0.0 {
            continue;
        }
        let Some(src) = rows.get(usize::from(j)) else {
            continue;
        };
        for r in 0..3 {
            for e in 0..4 {
                m[r][e] = if k == 0 {
                    src[r][e] * w
                } else {
                    m[r][e] + src[r][e] * w
                };
            }
        }
    }
    let h = [p[0], p[1], p[2], 1.0];
    let dot4 = |r: [f32; 4]| r[0] * h[0] + r[1] * h[1] + r[2] * h[2] + r[3] * h[3];
    let position = [dot4(m[0]), dot4(m[1]), dot4(m[2])];
    let col = |c: usize| [m[0][c], m[1][c], m[2][c]];
    let (c0, c1, c2) = (col(0), col(1), col(2));
    let (x, y, z) = (cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let mut out = [0.0; 3];
    for k in 0..3 {
        out[k] = x[k] * n[0] + y[k] * n[1] + z[k] * n[2];
    }
    if dot3(c0, x) < 0.0 {
        out = out.map(|v| -v);
    }
    let len = dot3(out, out).sqrt();
    let normal = if len > 0.0 {
        out.map(|v| v / len)
    } else {
        [0.0; 3]
    };
    (position, normal)
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// One part of the level drawn: its material and its skinned vertices' range.
struct Part<'a> {
    material: Material<'a>,
    indices: &'a [u32],
    first: usize,
    count: usize,
}

/// Draws impostor frame `(a, t)` of character `c` (its record `rec`) into `out` (one frame:
/// the colour plane, then the normal-depth plane): the level's parts skinned once, then each
/// view projected, rasterised, resolved and dilated in its own square.
fn draw_frame(
    file: &ThrongFile,
    c: usize,
    rec: &ImpostorRecord,
    a: usize,
    t: f32,
    srgb: &Srgb,
    out: &mut [u8],
) {
    let Some(ch) = file.characters().get(c) else {
        return;
    };
    let mut rows = Vec::with_capacity(ch.joint_count as usize);
    joint_rows(file, a, t, ch.joint_count, &mut rows);
    let (mut pos, mut nrm, mut uv) = (Vec::new(), Vec::new(), Vec::new());
    let mut parts = Vec::new();
    let first_mesh = (ch.first_mesh + rec.level * ch.part_count) as usize;
    for m in first_mesh..first_mesh + ch.part_count as usize {
        let Some(mesh) = file.meshes().get(m) else {
            continue;
        };
        let (verts, indices) = file.mesh_data(m);
        let image = (mesh.image != NONE)
            .then(|| file.images().get(mesh.image as usize))
            .flatten()
            .filter(|im| im.width > 0 && im.height > 0)
            .map(|im| Image {
                width: im.width,
                height: im.height,
                pixels: file.pixels(mesh.image as usize),
            });
        parts.push(Part {
            material: Material {
                factor: mesh.base_color,
                image,
            },
            indices,
            first: pos.len(),
            count: verts.len(),
        });
        for v in verts {
            let (p, n) = skin(&rows, v.joints, v.weights, v.position, v.normal);
            pos.push(p);
            nrm.push(n);
            uv.push(v.uv);
        }
    }
    let (views, cell) = (rec.views as usize, rec.cell as usize);
    let side = views * cell;
    let plane = out.len() / PLANES as usize;
    let (colour, normal_depth) = out.split_at_mut(plane);
    let mut samples = Samples::new(rec.cell);
    let mut projected = vec![[0.0f32; 3]; pos.len()];
    let mut mask = vec![0u8; cell * cell];
    let (centre, r) = (rec.centre, rec.radius);
    let scale = 2.0 * rec.cell as f32;
    for j in 0..rec.views {
        for i in 0..rec.views {
            let d = view_direction(i, j, rec.views);
            let (right, up) = view_basis(d);
            for (q, p) in projected.iter_mut().zip(&pos) {
                let rel = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
                *q = [
                    (dot3(rel, right) / (2.0 * r) + 0.5) * scale,
                    (0.5 - dot3(rel, up) / (2.0 * r)) * scale,
                    dot3(rel, d),
                ];
            }
            samples.clear();
            for part in &parts {
                let verts = part.first..part.first + part.count;
                let (pp, nn, tt) = (&projected[verts.clone()], &nrm[verts.clone()], &uv[verts]);
                for tri in part.indices.chunks_exact(3) {
                    let at = |k: usize| tri[k] as usize;
                    let (Some(p0), Some(p1), Some(p2)) =
                        (pp.get(at(0)), pp.get(at(1)), pp.get(at(2)))
                    else {
                        continue;
                    };
                    let (a0, a1, a2) = (at(0), at(1), at(2));
                    samples.triangle(
                        [*p0, *p1, *p2],
                        [nn[a0], nn[a1], nn[a2]],
                        [tt[a0], tt[a1], tt[a2]],
                        &part.material,
                        &srgb.decode,
                    );
                }
            }
            let origin = (i as usize * cell, j as usize * cell);
            resolve(
                &samples,
                srgb,
                r,
                colour,
                normal_depth,
                side,
                origin,
                &mut mask,
            );
            dilate(colour, normal_depth, side, origin, cell, &mut mask);
        }
    }
}
