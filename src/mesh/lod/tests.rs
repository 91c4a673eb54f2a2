//! Unit tests of LOD simplification: levels of smooth, flat-shaded and multi-part meshes.

use super::super::weld::{Weld, WeldKey};
use super::*;
use glam::Vec2;
use std::f32::consts::{PI, TAU};

/// Joints the test meshes reference.
const TEST_JOINTS: usize = 3;

/// Influences that vary smoothly per vertex over three joints, largest first.
fn influences(p: Vec3) -> ([u16; 4], [f32; 4]) {
    let a = 0.5 + 0.5 * (p.y * 1.7).sin();
    let b = (1.0 - a) * (0.5 + 0.5 * (p.x * 2.3).cos());
    let c = 1.0 - a - b;
    let mut pairs = [(0u16, a), (1, b), (2, c), (0, 0.0)];
    pairs[..3].sort_by(|x, y| y.1.total_cmp(&x.1));
    (pairs.map(|p| p.0), pairs.map(|p| p.1))
}

fn finish(
    name: &str,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    indices: Vec<u32>,
) -> SkinnedMesh {
    let (joints, weights) = positions.iter().map(|p| influences(*p)).unzip();
    let mesh = SkinnedMesh {
        name: name.into(),
        positions,
        normals,
        uvs,
        joints,
        weights,
        indices,
        material: 2,
        rigid: false,
    };
    mesh.validate(TEST_JOINTS).unwrap();
    mesh
}

/// A UV sphere of radius 1 with a UV seam (the first and last column share positions but
/// not UVs) and one vertex per pole triangle corner; closed.
fn sphere(rows: u32, cols: u32) -> SkinnedMesh {
    let (mut p, mut n, mut uv, mut idx) = (vec![], vec![], vec![], vec![]);
    for r in 0..=rows {
        let v = r as f32 / rows as f32;
        let theta = v * PI;
        for c in 0..=cols {
            let u = c as f32 / cols as f32;
            // The seam column reuses column 0's angle exactly, so positions match bit for
            // bit and meshopt sees a seam rather than a crack.
            let phi = if c == cols { 0.0 } else { u * TAU };
            let d = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            // Poles: all columns at the same exact point.
            let d = if r == 0 {
                Vec3::Y
            } else if r == rows {
                -Vec3::Y
            } else {
                d
            };
            p.push(d);
            n.push(d);
            uv.push(Vec2::new(u, v));
        }
    }
    let at = |r: u32, c: u32| r * (cols + 1) + c;
    for r in 0..rows {
        for c in 0..cols {
            let (a, b, cc, d) = (at(r, c), at(r, c + 1), at(r + 1, c + 1), at(r + 1, c));
            if r != 0 {
                idx.extend([a, b, cc]);
            }
            if r != rows - 1 {
                idx.extend([a, cc, d]);
            }
        }
    }
    finish("sphere", p, n, uv, idx)
}

/// A wavy open grid of `k`×`k` quads over [-1, 1]², for border behaviour.
fn grid(k: u32) -> SkinnedMesh {
    let (mut p, mut n, mut uv, mut idx) = (vec![], vec![], vec![], vec![]);
    for j in 0..=k {
        for i in 0..=k {
            let (u, v) = (i as f32 / k as f32, j as f32 / k as f32);
            let (x, z) = (u * 2.0 - 1.0, v * 2.0 - 1.0);
            let y = 0.1 * (x * 3.0).sin() * (z * 2.0).cos();
            let dx = 0.3 * (x * 3.0).cos() * (z * 2.0).cos();
            let dz = -0.2 * (x * 3.0).sin() * (z * 2.0).sin();
            p.push(Vec3::new(x, y, z));
            n.push(Vec3::new(-dx, 1.0, -dz).normalize());
            uv.push(Vec2::new(u, v));
        }
    }
    let at = |i: u32, j: u32| j * (k + 1) + i;
    for j in 0..k {
        for i in 0..k {
            idx.extend([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            idx.extend([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    finish("grid", p, n, uv, idx)
}

fn mannequin() -> (SkinnedMesh, usize) {
    let model = crate::import::load_bytes(
        &crate::import::mannequin::generate_glb(),
        "mannequin.glb",
        &Default::default(),
    )
    .unwrap();
    let mesh = model.meshes[0].mesh.clone();
    assert_eq!(mesh.vertex_count(), 2678);
    assert_eq!(mesh.triangle_count(), 5320);
    (mesh, model.skeleton.len())
}

/// Every property a LOD level must have, whatever the ratio.
fn check_level(
    src: &SkinnedMesh,
    ratio: f32,
    joint_count: usize,
    options: &LodOptions,
) -> LodLevel {
    let (level, kept) = simplify_with_remap(src, ratio, options, &mut Welds::default()).unwrap();
    let out = &level.mesh;
    out.validate(joint_count).unwrap();
    assert_eq!(level.ratio, ratio);
    assert!(
        level.error.is_finite() && level.error >= 0.0,
        "{}",
        level.error
    );
    assert!(out.triangle_count() >= 1);
    assert_eq!(out.material, src.material);
    assert_eq!(out.rigid, src.rigid);
    // Every output vertex is used (compacted), except at ratio 1 which returns the source
    // as it is (the test sphere has unused pole copies); the output never has more
    // triangles than the source.
    let mut used = vec![false; out.vertex_count()];
    for &i in &out.indices {
        assert!((i as usize) < out.vertex_count());
        used[i as usize] = true;
    }
    assert!(ratio == 1.0 || used.iter().all(|u| *u));
    assert!(out.triangle_count() <= src.triangle_count());
    // Kept vertices are in source order, and each carries its source attributes bit for
    // bit (compared as exact values: no tolerance, skinning must be identical).
    assert_eq!(kept.len(), out.vertex_count());
    assert!(kept.windows(2).all(|w| w[0] < w[1]));
    for (new, &old) in kept.iter().enumerate() {
        let old = old as usize;
        assert_eq!(out.positions[new], src.positions[old]);
        assert_eq!(out.normals[new], src.normals[old]);
        assert_eq!(out.uvs[new], src.uvs[old]);
        assert_eq!(out.joints[new], src.joints[old]);
        assert_eq!(out.weights[new], src.weights[old]);
    }
    // Independently of the remap: every output vertex exists in the source with the same
    // position, normal and UV, and then with the same skin.
    for v in 0..out.vertex_count() {
        let found = (0..src.vertex_count()).find(|&s| {
            src.positions[s] == out.positions[v]
                && src.normals[s] == out.normals[v]
                && src.uvs[s] == out.uvs[v]
        });
        let s = found.expect("output vertex not in source");
        assert_eq!(src.joints[s], out.joints[v]);
        assert_eq!(src.weights[s], out.weights[v]);
    }
    level
}

/// The target is `floor(ratio × triangles)`. meshopt stops once at or below it, and a
/// stop short of it only happens when the error limit or topology blocks collapses; with
/// the default limit on these smooth meshes the target is reached, so the only slack
/// allowed is 2%: a collapse removes one or two triangles, and meshopt's last pass may stop
/// a few collapses early (never seen here, but not something we control).
fn check_count(src: &SkinnedMesh, level: &LodLevel) {
    let target = (src.triangle_count() as f32 * level.ratio).floor();
    let got = level.mesh.triangle_count() as f32;
    assert!(
        got <= (target * 1.02).ceil(),
        "{got} triangles for target {target}"
    );
    // "At least some": a level that lost almost everything would be a broken silhouette.
    assert!(got >= target * 0.5, "{got} triangles for target {target}");
}

fn check_all(src: &SkinnedMesh, joint_count: usize) -> Vec<LodLevel> {
    let options = LodOptions::default();
    let levels: Vec<LodLevel> = [1.0, 0.5, 0.2]
        .into_iter()
        .map(|r| check_level(src, r, joint_count, &options))
        .collect();
    // Ratio 1 is the source itself.
    let full = &levels[0].mesh;
    assert_eq!(full.name, src.name);
    assert_eq!(full.positions, src.positions);
    assert_eq!(full.normals, src.normals);
    assert_eq!(full.uvs, src.uvs);
    assert_eq!(full.joints, src.joints);
    assert_eq!(full.weights, src.weights);
    assert_eq!(full.indices, src.indices);
    assert_eq!(levels[0].error, 0.0);
    for level in &levels[1..] {
        check_count(src, level);
    }
    // Fewer triangles never buys a smaller error.
    assert!(
        levels.windows(2).all(|w| w[0].error <= w[1].error),
        "{levels:?}"
    );
    levels
}

#[test]
fn sphere_levels() {
    let src = sphere(24, 48);
    let levels = check_all(&src, TEST_JOINTS);
    assert_eq!(levels[1].mesh.name, "sphere LOD0.5");
    // The seam survives: some kept vertex sits at u = 1 (column `cols`), so the texture
    // still wraps without a smeared strip.
    for level in &levels[1..] {
        assert!(level.mesh.uvs.iter().any(|uv| uv.x == 1.0));
        // A smooth mesh reaches its ratio with every seam exact, as before welding existed.
        assert_eq!(level.method, LodMethod::Seams);
    }
}

/// `mesh` flat-shaded the way exporters write it: every triangle has its own three vertices
/// (copied position, UV and skin) with the face normal, so no two triangles share an index.
fn unshared(mesh: &SkinnedMesh) -> SkinnedMesh {
    let mut out = SkinnedMesh {
        name: format!("flat {}", mesh.name),
        material: mesh.material,
        ..Default::default()
    };
    for t in mesh.indices.chunks_exact(3) {
        let p = t.iter().map(|&i| mesh.positions[i as usize]);
        let [a, b, c] = <[Vec3; 3]>::try_from(p.collect::<Vec<_>>()).unwrap();
        let normal = (b - a).cross(c - a).normalize_or_zero();
        for &i in t {
            let i = i as usize;
            out.indices.push(out.positions.len() as u32);
            out.positions.push(mesh.positions[i]);
            out.normals.push(normal);
            out.uvs.push(mesh.uvs[i]);
            out.joints.push(mesh.joints[i]);
            out.weights.push(mesh.weights[i]);
        }
    }
    out
}

/// The largest UV distance between two corners of one triangle of `mesh`.
fn widest_uv_span(mesh: &SkinnedMesh) -> f32 {
    mesh.indices
        .chunks_exact(3)
        .map(|t| {
            let uv = |k: usize| mesh.uvs[t[k] as usize];
            uv(0)
                .distance(uv(1))
                .max(uv(1).distance(uv(2)))
                .max(uv(2).distance(uv(0)))
        })
        .fold(0.0, f32::max)
}

#[test]
fn flat_shaded_sphere_reduces_and_keeps_its_uv_seam() {
    let src = unshared(&sphere(24, 48));
    // Before welding this mesh did not simplify at all: the source-vertex method still
    // cannot, which is what makes the test meaningful.
    let (seams, _) = simplify_with_remap(&src, 0.5, &LodOptions::default(), &mut Welds::default())
        .map(|(l, k)| (l.method, k))
        .unwrap();
    assert_ne!(seams, LodMethod::Seams);
    let levels = check_all(&src, TEST_JOINTS);
    for level in &levels[1..] {
        assert_eq!(level.method, LodMethod::WeldedNormals, "{}", level.ratio);
        // The u = 0 / u = 1 seam is kept exactly: a triangle taking copies from both sides
        // would span nearly the whole texture width, 1. Source triangles span 1/48 in u and
        // 1/24 in v; simplified ones are larger, most of all by the poles, where every column
        // converges (0.27 measured at ratio 0.2), so the bar sits halfway: 0.5.
        let span = widest_uv_span(&level.mesh);
        assert!(
            span < 0.5,
            "ratio {}: a triangle spans {span} in UV",
            level.ratio
        );
        assert!(level.mesh.uvs.iter().any(|uv| uv.x == 1.0));
        // Each corner took the copy facing its triangle's way: no corner normal points away
        // from its face (which would light the triangle from behind).
        for t in level.mesh.indices.chunks_exact(3) {
            let p = |k: usize| level.mesh.positions[t[k] as usize];
            let face = (p(1) - p(0)).cross(p(2) - p(0)).normalize_or_zero();
            for &i in t {
                let d = level.mesh.normals[i as usize].dot(face);
                assert!(
                    d > 0.0,
                    "ratio {}: corner normal against its face ({d})",
                    level.ratio
                );
            }
        }
    }
}

#[test]
fn flat_shaded_grid_reduces_across_uv_islands() {
    // Every triangle its own UV island too (UVs jittered per triangle), so welding must also
    // cross UV seams: only the position-and-skin weld can simplify it.
    let mut src = unshared(&grid(24));
    for (i, uv) in src.uvs.iter_mut().enumerate() {
        *uv += Vec2::splat((i / 3) as f32 * 1e-3);
    }
    let levels = check_all(&src, TEST_JOINTS);
    for level in &levels[1..] {
        assert_eq!(level.method, LodMethod::Welded, "{}", level.ratio);
    }
}

/// Two wavy grids side by side along x, meeting at x = 0 with coincident but separate
/// vertices; the left one bound only to joint 0, the right one only to joint 1 (two rigid
/// parts touching). Flat-shaded, so only welding lets it simplify.
fn two_parts(k: u32) -> SkinnedMesh {
    let mut left = grid(k);
    let mut right = grid(k);
    for p in &mut left.positions {
        p.x = p.x * 0.5 - 0.5;
    }
    for p in &mut right.positions {
        p.x = p.x * 0.5 + 0.5;
    }
    // The same wave over both, so the meeting columns coincide bit for bit.
    for p in left.positions.iter_mut().chain(&mut right.positions) {
        p.y = 0.1 * (p.x * 3.0).sin() * (p.z * 2.0).cos();
    }
    for (mesh, joint) in [(&mut left, 0u16), (&mut right, 1)] {
        mesh.joints.iter_mut().for_each(|j| *j = [joint, 0, 0, 0]);
        mesh.weights
            .iter_mut()
            .for_each(|w| *w = [1.0, 0.0, 0.0, 0.0]);
    }
    let offset = left.vertex_count() as u32;
    left.positions.extend(&right.positions);
    left.normals.extend(&right.normals);
    left.uvs.extend(&right.uvs);
    left.joints.extend(&right.joints);
    left.weights.extend(&right.weights);
    left.indices
        .extend(right.indices.iter().map(|i| i + offset));
    let mut out = unshared(&left);
    out.name = "two parts".into();
    out.validate(TEST_JOINTS).unwrap();
    out
}

#[test]
fn differently_skinned_coincident_vertices_are_not_glued() {
    let src = two_parts(16);
    // The meeting column really is coincident: both parts have vertices at x = 0 exactly.
    let at_seam = |m: &SkinnedMesh, joint: u16| {
        let mut z: Vec<u32> = (0..m.vertex_count())
            .filter(|&v| m.positions[v].x == 0.0 && m.joints[v][0] == joint)
            .map(|v| m.positions[v].z.to_bits())
            .collect();
        z.sort_unstable();
        z.dedup();
        z
    };
    assert_eq!(at_seam(&src, 0), at_seam(&src, 1));
    assert!(!at_seam(&src, 0).is_empty());
    for ratio in [0.5, 0.2] {
        let level = check_level(&src, ratio, TEST_JOINTS, &LodOptions::default());
        let out = &level.mesh;
        assert!(
            out.triangle_count() < src.triangle_count() * 3 / 4,
            "{ratio}"
        );
        // No triangle mixes the parts: under animation it would stretch between them.
        for t in out.indices.chunks_exact(3) {
            let joint = |k: usize| out.joints[t[k] as usize][0];
            assert!(
                joint(0) == joint(1) && joint(1) == joint(2),
                "{ratio}: glued triangle"
            );
        }
        // Both sides keep the same seam vertices, so the parts still meet without a crack.
        assert_eq!(
            at_seam(out, 0),
            at_seam(out, 1),
            "{ratio}: crack at the seam"
        );
    }
}

/// 400 separate tetrahedra 4 cm wide on a 20×20 grid 10 cm apart (extent 1.94 m).
fn pieces() -> SkinnedMesh {
    let mut src = SkinnedMesh {
        name: "pieces".into(),
        ..Default::default()
    };
    for (i, j) in (0..20).flat_map(|i| (0..20).map(move |j| (i, j))) {
        let o = Vec3::new(i as f32, 0.0, j as f32) * 0.1;
        let base = src.positions.len() as u32;
        for d in [Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::Y] {
            let p = o + d * 0.04;
            src.positions.push(p);
            src.normals.push((d - Vec3::splat(0.25)).normalize());
            src.uvs.push(Vec2::new(p.x, p.z));
            let (j, w) = influences(p);
            src.joints.push(j);
            src.weights.push(w);
        }
        for t in [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]] {
            src.indices.extend(t.map(|k| base + k));
        }
    }
    src
}

/// The sloppy fallback on its own (none of the test meshes needs it: the regular simplifier
/// reaches their ratios): it merges separate pieces, stays within the error limit, and does
/// not glue differently skinned parts.
#[test]
fn sloppy_fallback_merges_pieces_within_the_error_limit() {
    let options = LodOptions::default();
    let src = pieces();
    let target = src.indices.len() / 2;
    let sloppy = attempt(
        &src,
        LodMethod::Sloppy,
        target,
        &options,
        &mut Welds::default(),
    )
    .unwrap();
    assert_eq!(sloppy.method, LodMethod::Sloppy);
    assert!(!sloppy.indices.is_empty() && sloppy.indices.len() <= target);
    // max_error is relative to the extent.
    let extent = (src.bounds().max - src.bounds().min).max_element();
    assert!(
        sloppy.error <= options.max_error * extent,
        "{}",
        sloppy.error
    );
    let src = two_parts(16);
    let target = src.indices.len() / 5;
    let sloppy = attempt(
        &src,
        LodMethod::Sloppy,
        target,
        &options,
        &mut Welds::default(),
    )
    .unwrap();
    // The locked meeting column and the error limit stop it short of the target (it keeps
    // 660 of 1024 triangles), but it does reduce.
    assert!(!sloppy.indices.is_empty() && sloppy.indices.len() < src.indices.len() * 3 / 4);
    for t in sloppy.indices.chunks_exact(3) {
        let joint = |k: usize| src.joints[t[k] as usize][0];
        assert!(
            joint(0) == joint(1) && joint(1) == joint(2),
            "glued triangle"
        );
    }
}

/// A cone of `segments` sides with a closed base: apex and base centre are shared by every
/// side or cap triangle, so when flat-shaded they have `segments` copies each. UVs are the
/// planar projection (x, z), continuous over the whole surface.
fn cone(segments: u32) -> SkinnedMesh {
    let mut p = vec![Vec3::Y, Vec3::ZERO];
    for s in 0..segments {
        let a = s as f32 / segments as f32 * TAU;
        p.push(Vec3::new(a.cos(), 0.0, a.sin()));
    }
    let mut idx = vec![];
    for s in 0..segments {
        let (r0, r1) = (2 + s, 2 + (s + 1) % segments);
        idx.extend([0, r1, r0, 1, r0, r1]);
    }
    let n = p.iter().map(|v| v.normalize_or_zero()).collect();
    let uv = p.iter().map(|v| Vec2::new(v.x, v.z)).collect();
    finish("cone", p, n, uv, idx)
}

/// Without simplification, unwelding must give every triangle back its own copies (or, on a
/// plane, copies with the same normal): continuous UVs make the UV term equal for all copies,
/// so the face normal decides.
#[test]
fn unwelding_an_unsimplified_mesh_gives_back_each_triangles_own_copies() {
    // The grid's corners have at most 6 copies (216 triples: the exhaustive search); the
    // cone's apex and base centre have 64, so its triangles take the corner-by-corner path.
    for src in [unshared(&grid(8)), unshared(&cone(64))] {
        let weld = Weld::new(&src, WeldKey::PositionSkin);
        assert_eq!(weld.indices.len(), src.indices.len(), "{}", src.name);
        assert_ne!(weld.indices, src.indices, "{}: nothing welded", src.name);
        let mut back = weld.indices.clone();
        weld.unweld(&src, &mut back);
        for (k, (&got, &own)) in back.iter().zip(&src.indices).enumerate() {
            let (got, own) = (got as usize, own as usize);
            // The cone's base is one plane: its triangles' normals agree up to rounding, so
            // any of their copies is right there. 1e-6 is a few f32 steps of a unit dot
            // product; neighbouring side faces differ by 1 - cos(360°/64) = 5e-3.
            let dot = src.normals[got].dot(src.normals[own]);
            assert!(dot >= 1.0 - 1e-6, "{} corner {k}: {dot}", src.name);
            assert_eq!(src.uvs[got], src.uvs[own], "{} corner {k}", src.name);
            assert_eq!(
                src.positions[got], src.positions[own],
                "{} corner {k}",
                src.name
            );
        }
    }
}

#[test]
fn nearly_coincident_copies_weld_and_distinct_ones_do_not() {
    let src = unshared(&grid(4));
    let extent = 2.0;
    let mut moved = src.clone();
    // Nudge one copy of a shared position: by a tenth of the tolerance it still welds, by ten
    // times the tolerance it is a separate vertex (a crack the simplifier must respect).
    let v = 4;
    // The source is unshared, so corner k is vertex k; count the corners welded to v's group.
    let shared = |m: &SkinnedMesh| {
        let w = Weld::new(m, WeldKey::PositionSkin);
        w.indices.iter().filter(|&&i| i == w.indices[v]).count()
    };
    let welded = shared(&src);
    assert!(welded > 1, "vertex {v} has copies in the test grid");
    moved.positions[v].x += super::super::weld::POSITION_TOLERANCE * extent * 0.1;
    assert_eq!(shared(&moved), welded);
    moved.positions[v].x += super::super::weld::POSITION_TOLERANCE * extent * 10.0;
    assert_eq!(shared(&moved), 1);
}

#[test]
fn grid_levels() {
    check_all(&grid(32), TEST_JOINTS);
}

#[test]
fn lock_border_keeps_every_border_vertex() {
    let k = 32;
    let src = grid(k);
    let options = LodOptions {
        lock_border: true,
        ..Default::default()
    };
    let (level, kept) = simplify_with_remap(&src, 0.2, &options, &mut Welds::default()).unwrap();
    assert!(level.mesh.triangle_count() < src.triangle_count());
    let border = (0..=k)
        .flat_map(|j| (0..=k).map(move |i| (i, j)))
        .filter(|&(i, j)| i == 0 || j == 0 || i == k || j == k)
        .map(|(i, j)| j * (k + 1) + i);
    for v in border.clone() {
        assert!(kept.binary_search(&v).is_ok(), "border vertex {v} dropped");
    }
    // The option is what keeps them: without it the same simplification drops some, so
    // the check above can fail.
    let (_, free) =
        simplify_with_remap(&src, 0.2, &LodOptions::default(), &mut Welds::default()).unwrap();
    assert!(border.clone().any(|v| free.binary_search(&v).is_err()));
}

#[test]
fn mannequin_levels() {
    let (src, joint_count) = mannequin();
    let start = std::time::Instant::now();
    generate(&src, &[0.5, 0.2], &LodOptions::default()).unwrap();
    let took = start.elapsed();
    let levels = check_all(&src, joint_count);
    // The mannequin is smooth: its levels are made as before welding existed, seams exact.
    assert!(levels[1..].iter().all(|l| l.method == LodMethod::Seams));
    // Printed for the report (cargo test -- --nocapture); not asserted, see DESIGN.md.
    for l in &levels {
        println!(
            "mannequin LOD {}: {} triangles, {} vertices, error {:.5} m",
            l.ratio,
            l.mesh.triangle_count(),
            l.mesh.vertex_count(),
            l.error
        );
    }
    println!("generating levels 0.5 and 0.2 took {took:?}");
}

#[test]
fn generate_matches_simplify_and_is_deterministic() {
    let (src, _) = mannequin();
    let options = LodOptions::default();
    let a = generate(&src, &[1.0, 0.5, 0.2], &options).unwrap();
    let b = generate(&src, &[1.0, 0.5, 0.2], &options).unwrap();
    assert_eq!(a.len(), 3);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.ratio, y.ratio);
        assert_eq!(x.error.to_bits(), y.error.to_bits());
        assert_eq!(x.mesh.indices, y.mesh.indices);
        assert_eq!(x.mesh.positions, y.mesh.positions);
        assert_eq!(x.mesh.name, y.mesh.name);
    }
    let single = simplify(&src, 0.5, &options).unwrap();
    assert_eq!(single.mesh.indices, a[1].mesh.indices);
}

#[test]
fn bad_input_messages() {
    let src = grid(4);
    let o = LodOptions::default();
    let msg = |r: Result<Vec<LodLevel>, LodError>| r.unwrap_err().to_string();
    assert_eq!(
        msg(generate(&src, &[1.0, 1.5], &o)),
        "LOD ratio 1.5 is outside (0, 1]"
    );
    assert_eq!(
        msg(generate(&src, &[0.0], &o)),
        "LOD ratio 0 is outside (0, 1]"
    );
    assert_eq!(
        msg(generate(&src, &[-0.5], &o)),
        "LOD ratio -0.5 is outside (0, 1]"
    );
    assert_eq!(
        msg(generate(&src, &[f32::NAN], &o)),
        "LOD ratio NaN is outside (0, 1]"
    );
    assert_eq!(
        msg(generate(&src, &[1.0, 0.2, 0.5], &o)),
        "LOD ratios must decrease: 0.5 follows 0.2"
    );
    assert_eq!(
        msg(generate(&src, &[0.5, 0.5], &o)),
        "LOD ratios must decrease: 0.5 follows 0.5"
    );
    assert_eq!(msg(generate(&src, &[], &o)), "no LOD ratios given");
    let bad = LodOptions {
        max_error: 2.0,
        ..o
    };
    assert_eq!(
        simplify(&src, 0.5, &bad).unwrap_err().to_string(),
        "LOD max_error 2 is outside [0, 1]"
    );
    let empty = SkinnedMesh {
        name: "x".into(),
        ..Default::default()
    };
    assert_eq!(
        simplify(&empty, 0.5, &o).unwrap_err().to_string(),
        "mesh 'x' has no triangles"
    );
    // An out-of-range index is caught before it reaches C++.
    let mut broken = src.clone();
    broken.indices[4] = 10_000;
    let e = simplify(&broken, 0.5, &o).unwrap_err();
    assert!(
        matches!(e, LodError::Mesh(MeshError::BadIndices { .. })),
        "{e}"
    );
}

#[test]
fn tiny_ratio_keeps_at_least_one_triangle() {
    // Target rounds to 0 triangles and is raised to 1; with no error limit (1.0) meshopt
    // goes as far as topology allows, which for a closed sphere is a few triangles.
    let src = sphere(8, 16);
    let options = LodOptions {
        max_error: 1.0,
        lock_border: false,
    };
    let level = check_level(&src, 1e-6, TEST_JOINTS, &options);
    assert!(level.mesh.triangle_count() < src.triangle_count() / 4);
}

#[test]
fn a_level_may_err_by_the_budget_over_the_root_of_its_ratio() {
    assert_eq!(level_budget(0.05, 1.0), 0.05);
    assert!((level_budget(0.05, 0.25) - 0.1).abs() < 1e-7);
    assert!((level_budget(0.05, 0.03) - 0.2887).abs() < 1e-4);
    assert_eq!(level_budget(0.5, 0.01), 1.0, "at most the whole extent");
}
