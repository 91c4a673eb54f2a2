//! The impostors of the default bake: frame counts, level, the pictures' sizes and
//! orientation, and their bytes on one thread and many.

use std::path::Path;
use std::sync::OnceLock;

use super::*;
use crate::bake::{BakeOptions, Recipe, bake};

/// The default bake's file bytes (impostors not written on this format), baked once.
fn mannequin() -> &'static (Vec<u8>, Drawn) {
    static BAKED: OnceLock<(Vec<u8>, Drawn)> = OnceLock::new();
    BAKED.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let recipe = Recipe::load(&root.join("bake/mannequin.toml")).unwrap();
        let baked = bake(&recipe, &BakeOptions::default()).unwrap();
        let bytes = baked.builder.to_bytes().unwrap();
        let drawn = Drawn {
            records: baked.builder.impostors.clone(),
            anims: baked.builder.impostor_anims.clone(),
            pixels: baked.builder.impostor_pixels.clone(),
            reports: baked
                .report
                .characters
                .iter()
                .map(|c| c.impostors)
                .collect(),
        };
        (bytes, drawn)
    })
}

fn file() -> ThrongFile {
    ThrongFile::from_bytes(&mannequin().0, "mannequin").unwrap()
}

#[test]
fn the_default_bakes_frames_sum_to_144() {
    let s = ImpostorSettings::default();
    let durations = [4.0, 1.0, 0.667, 2.0, 4.0, 2.0, 2.0, 4.0, 4.0, 1.0, 0.667];
    let counts: Vec<u32> = durations
        .iter()
        .map(|d| frame_count(*d, 30, true, &s))
        .collect();
    assert_eq!(counts, [16, 8, 8, 16, 16, 16, 16, 16, 16, 8, 8]);
    assert_eq!(counts.iter().sum::<u32>(), 144);
    // Still animations, and clamped ones (both ends shown: one more, at least 2).
    assert_eq!(frame_count(0.0, 1, true, &s), 1);
    assert_eq!(frame_count(3.0, 1, false, &s), 2);
    assert_eq!(frame_count(1.0, 31, false, &s), 9);
    assert_eq!(frame_count(10.0, 301, false, &s), 16);
    let one = ImpostorSettings {
        min_frames: 1,
        max_frames: 1,
        ..s
    };
    assert_eq!(frame_count(1.0, 31, false, &one), 2);
    // And the bake itself: its animations' records, in the file's order.
    let f = file();
    let (_, drawn) = mannequin();
    let mut next = 0;
    for (a, r) in f.anims().iter().zip(&drawn.anims) {
        assert_eq!(r.first_frame, next);
        let looping = a.flags & anim_flags::LOOPING != 0;
        assert_eq!(
            r.frame_count,
            frame_count(a.duration, a.frame_count, looping, &s)
        );
        next += r.frame_count;
    }
    assert_eq!((f.anims().len(), next), (11, 144));
    assert_eq!(drawn.records[0].frame_count, 144);
    assert_eq!(drawn.pixels.len() as u64, 144 * frame_bytes(9, 16));
}

#[test]
fn the_level_is_the_coarsest_within_half_a_supersample() {
    let errors = vec![
        vec![0.0, 0.0],
        vec![0.01, 0.02],
        vec![0.03, 0.025],
        vec![0.05, 0.01],
    ];
    // 1 m at 16 px: 1/32 = 3.1 cm.
    assert_eq!(level(&errors, 1.0, 16), 2);
    assert_eq!(level(&errors, 1.0, 64), 0);
    assert_eq!(level(&errors, 10.0, 16), 3);
    assert_eq!(level(&[], 1.0, 16), 0);
    // The mannequin: a sphere of about a metre, so LOD 2.
    let (_, drawn) = mannequin();
    let r = drawn.records[0];
    assert!((0.8..1.3).contains(&r.radius), "{r:?}");
    let f = file();
    let c = f.characters()[0];
    let worst: Vec<f32> = (0..c.lod_count)
        .map(|l| {
            let first = (c.first_mesh + l * c.part_count) as usize;
            f.meshes()[first..first + c.part_count as usize]
                .iter()
                .fold(0.0f32, |m, p| m.max(p.error))
        })
        .collect();
    let within = r.radius / 32.0;
    eprintln!(
        "radius {} within {within} worst per level {worst:?}",
        r.radius
    );
    assert!(worst[r.level as usize] <= within, "{r:?} {worst:?}");
    assert!(
        worst[r.level as usize + 1..].iter().all(|e| *e > within),
        "{r:?} {worst:?}"
    );
    assert_eq!((r.views, r.cell, r.first_pixel), (9, 16, 0));
}

/// The covered pixels (colour alpha > 0) of view `(i, j)` of frame `k`, as a `cell²` mask.
fn covered(drawn: &Drawn, k: usize, i: usize, j: usize) -> Vec<bool> {
    let r = drawn.records[0];
    let (views, cell) = (r.views as usize, r.cell as usize);
    let side = views * cell;
    let frame = &drawn.pixels[k * frame_bytes(r.views, r.cell) as usize..];
    let mut out = vec![false; cell * cell];
    for y in 0..cell {
        for x in 0..cell {
            out[y * cell + x] = frame[((j * cell + y) * side + i * cell + x) * 4 + 3] > 0;
        }
    }
    out
}

/// How many pieces the mask's covered pixels make (8-connected).
fn pieces(mask: &[bool], cell: usize) -> usize {
    let mut seen = vec![false; mask.len()];
    let mut n = 0;
    for start in 0..mask.len() {
        if !mask[start] || seen[start] {
            continue;
        }
        n += 1;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(p) = stack.pop() {
            let (x, y) = ((p % cell) as i64, (p / cell) as i64);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= cell as i64 || ny >= cell as i64 {
                        continue;
                    }
                    let q = ny as usize * cell + nx as usize;
                    if mask[q] && !seen[q] {
                        seen[q] = true;
                        stack.push(q);
                    }
                }
            }
        }
    }
    n
}

#[test]
fn the_front_view_is_the_height_of_the_bounds_and_the_top_view_smaller() {
    let f = file();
    let (_, drawn) = mannequin();
    let r = drawn.records[0];
    let cell = r.cell as usize;
    // The horizon view looking at the +z face: d = +z is u = 1, v = −1.
    let (fi, fj) = (r.views - 1, 0);
    assert_eq!(view_direction(fi, fj, r.views), [0.0, 0.0, 1.0]);
    let front = covered(drawn, 0, fi as usize, fj as usize);
    assert_eq!(
        pieces(&front, cell),
        1,
        "front view of frame 0 in one piece"
    );
    let rows: Vec<usize> = (0..cell)
        .filter(|y| front[y * cell..(y + 1) * cell].iter().any(|c| *c))
        .collect();
    let covered_rows = rows.len() as f32;
    // Frame 0 of the first animation, at time 0: its first BNDS box.
    let a = &f.anims()[0];
    let b = f.bounds()[a.first_bounds as usize];
    let height_px = (b.max[1] - b.min[1]) / (2.0 * r.radius) * cell as f32;
    // Within a pixel: a row counts when any of its samples is covered, and the bounds are of
    // the full-detail mesh, the picture of LOD 2's (within half a supersample of it).
    assert!(
        (covered_rows - height_px).abs() <= 1.0,
        "{covered_rows} rows covered, bounds {height_px:.2} px"
    );
    // Feet down: the lowest covered row is where the bounds' bottom projects.
    let bottom = (0.5 - (b.min[1] - r.centre[1]) / (2.0 * r.radius)) * cell as f32;
    let last = *rows.last().unwrap() as f32 + 1.0;
    assert!((last - bottom).abs() <= 1.0, "{last} vs {bottom}");
    // From above, a standing figure is a smaller footprint than from the front.
    let mid = (r.views / 2) as usize;
    let top = covered(drawn, 0, mid, mid);
    let count = |m: &[bool]| m.iter().filter(|c| **c).count();
    assert!(
        count(&top) > 0 && count(&top) < count(&front),
        "top {} vs front {}",
        count(&top),
        count(&front)
    );
    if let Ok(path) = std::env::var("THRONG_IMPOSTOR_PNG") {
        let side = r.views * r.cell;
        let plane = (side * side * 4) as usize;
        let img = image::RgbaImage::from_raw(side, side, drawn.pixels[..plane].to_vec()).unwrap();
        img.save(&path).unwrap();
        let nd = image::RgbaImage::from_raw(side, side, drawn.pixels[plane..2 * plane].to_vec())
            .unwrap();
        nd.save(format!("{path}.normal-depth.png")).unwrap();
        // For a person to look at: 4× larger, over dark blue where uncovered.
        let big = image::RgbaImage::from_fn(side * 4, side * 4, |x, y| {
            let p = img.get_pixel(x / 4, y / 4).0;
            let a = u32::from(p[3]);
            let over = |c: u8, bg: u32| ((u32::from(c) * a + bg * (255 - a)) / 255) as u8;
            image::Rgba([over(p[0], 20), over(p[1], 30), over(p[2], 60), 255])
        });
        big.save(format!("{path}.x4.png")).unwrap();
    }
}

#[test]
fn the_bytes_do_not_depend_on_the_threads() {
    let f = file();
    let s = ImpostorSettings {
        views: 5,
        cell: 8,
        min_frames: 2,
        max_frames: 2,
        ..ImpostorSettings::default()
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let four = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let a = one.install(|| draw(&f, &s, &|_| {}, &|_| {}));
    let b = four.install(|| draw(&f, &s, &|_| {}, &|_| {}));
    assert_eq!(a.records, b.records);
    assert_eq!(a.anims, b.anims);
    assert!(a.pixels == b.pixels, "pixels differ");
    assert_eq!(a.pixels.len() as u64, 22 * frame_bytes(5, 8));
    // Something was drawn, and every uncovered texel has alpha 0 in both planes.
    let plane = frame_bytes(5, 8) as usize / 2;
    let colour = &a.pixels[..plane];
    let nd = &a.pixels[plane..2 * plane];
    assert!(colour.chunks(4).any(|p| p[3] == 255));
    for (c, n) in colour.chunks(4).zip(nd.chunks(4)) {
        assert_eq!(c[3] == 0, n[3] == 0);
    }
}

#[test]
fn impostors_off_draws_nothing() {
    let f = file();
    let s = ImpostorSettings {
        enabled: false,
        ..ImpostorSettings::default()
    };
    let d = draw(&f, &s, &|_| {}, &|_| {});
    assert_eq!(d.records, [ImpostorRecord::default()]);
    assert!(d.anims.iter().all(|a| a.frame_count == 0) && d.pixels.is_empty());
    assert_eq!(d.reports, [None]);
}
