//! Skeleton LOD: which joints a far LOD level skins with. Small joints (fingers, toes, face)
//! collapse onto their nearest kept ancestor, deepest first, while every vertex of the level
//! stays within the level's own simplification error of where the full skeleton puts it at
//! every baked frame; then each vertex's influences are rewritten onto the kept joints,
//! merged and sorted so that the weights end in zeros the renderer skips. Pure CPU: the
//! texels stay complete (attachments, foot IK and the live tier read every joint), only the
//! vertices of levels 1 and beyond change.

use glam::{Mat4, Vec3};

/// One vertex of a LOD level as skinning sees it: bind-space position and its four
/// influences (joint indices within the character, weights summing to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Influenced {
    /// Bind-space position, the mesh's units (the skinning matrices carry it into metres).
    pub position: Vec3,
    /// Joint of each influence, an index into the skeleton.
    pub joints: [u16; 4],
    /// Weight of each influence; zeros are unused.
    pub weights: [f32; 4],
}

/// The joint each joint of a skeleton of `parents` (parents-first: `parents[j] < j`) is drawn
/// with at one LOD level: itself (kept) or its nearest kept ancestor. A root (no parent) is
/// always kept.
///
/// Joints are tried deepest first (reverse parents-first order), each with every joint
/// already collapsed onto it; a collapse onto the parent is taken only if every vertex of
/// `vertices` it moves stays within `budget` (the units of the skinning matrices' output,
/// metres in a bake) of its full-skeleton position at every frame of `frames`. `frames` holds
/// `parents.len()` skinning matrices (world × inverse bind) per frame, frame-major. A joint
/// that moves no vertex collapses for free once its children have been accounted.
pub(super) fn choose(
    parents: &[Option<usize>],
    vertices: &[Influenced],
    frames: &[Mat4],
    budget: f32,
) -> Vec<u32> {
    let n = parents.len();
    let mut map: Vec<usize> = (0..n).collect();
    let frame_count = frames.len().checked_div(n).unwrap_or(0);
    // Without a frame nothing can be measured: nothing collapses.
    if frame_count == 0 {
        return map.into_iter().map(|k| k as u32).collect();
    }
    // Which vertices each joint moves (a zero weight moves nothing).
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (vi, v) in vertices.iter().enumerate() {
        for (j, w) in v.joints.iter().zip(v.weights) {
            if let Some(u) = users.get_mut(usize::from(*j))
                && w != 0.0
                && u.last() != Some(&(vi as u32))
            {
                u.push(vi as u32);
            }
        }
    }
    let mut seen = vec![false; vertices.len()];
    let mut affected = Vec::new();
    for j in (0..n).rev() {
        // The parent comes earlier, so it has not been tried yet: it is kept.
        let Some(parent) = parents[j].filter(|p| *p < j) else {
            continue;
        };
        let group: Vec<usize> = (j..n).filter(|&k| map[k] == j).collect();
        affected.clear();
        for &k in &group {
            for &vi in &users[k] {
                if !std::mem::replace(&mut seen[vi as usize], true) {
                    affected.push(vi);
                }
            }
        }
        for &vi in &affected {
            seen[vi as usize] = false;
        }
        let moved = |k: usize| if map[k] == j { parent } else { map[k] };
        let within = affected.iter().all(|&vi| {
            // Against the full skeleton, not the map so far: errors do not add up. Influences
            // drawn with their own joint cancel out; only the others move the vertex.
            let v = &vertices[vi as usize];
            let (mut terms, mut used) = ([(0.0f32, 0usize, 0usize); 4], 0);
            for (j, w) in v.joints.iter().zip(v.weights) {
                let k = usize::from(*j);
                if w != 0.0 && k < n && moved(k) != k {
                    terms[used] = (w, k, moved(k));
                    used += 1;
                }
            }
            let terms = &terms[..used];
            terms.is_empty()
                || (0..frame_count).all(|f| {
                    let m = &frames[f * n..(f + 1) * n];
                    let d: Vec3 = terms
                        .iter()
                        .map(|&(w, from, to)| w * (m[to] - m[from]).transform_point3(v.position))
                        .sum();
                    d.length() <= budget
                })
        });
        if within {
            for k in group {
                map[k] = parent;
            }
        }
    }
    map.into_iter().map(|k| k as u32).collect()
}

/// `joints` and `weights` drawn with `map` (from [`choose`]): each joint replaced by the one it
/// is drawn with, equal joints' weights added, sorted by weight, largest first (ties by joint),
/// and the unused slots zero, so the weights end in zeros. A joint past `map` is kept.
pub(super) fn remap(map: &[u32], joints: [u16; 4], weights: [f32; 4]) -> ([u16; 4], [f32; 4]) {
    let mut out = [(0u16, 0.0f32); 4];
    let mut used = 0;
    for (j, w) in joints.into_iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        let j = map
            .get(usize::from(j))
            .and_then(|m| u16::try_from(*m).ok())
            .unwrap_or(j);
        match out[..used].iter_mut().find(|e| e.0 == j) {
            Some(e) => e.1 += w,
            None => {
                out[used] = (j, w);
                used += 1;
            }
        }
    }
    out[..used].sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    (out.map(|e| e.0), out.map(|e| e.1))
}

/// How many joints `map` keeps (those drawn with themselves).
pub(super) fn kept(map: &[u32]) -> usize {
    map.iter()
        .enumerate()
        .filter(|(j, m)| **m as usize == *j)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain root -> arm -> finger along +x, 1 m apart, and two frames: the bind pose and
    /// one where the finger alone turns 90° about +z at its base (x = 2).
    fn chain() -> (Vec<Option<usize>>, Vec<Mat4>) {
        let parents = vec![None, Some(0), Some(1)];
        let base = Vec3::new(2.0, 0.0, 0.0);
        let bend = Mat4::from_translation(base)
            * Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2)
            * Mat4::from_translation(-base);
        let frames = vec![
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            bend,
        ];
        (parents, frames)
    }

    fn vertex(x: f32, joints: [u16; 4], weights: [f32; 4]) -> Influenced {
        Influenced {
            position: Vec3::new(x, 0.0, 0.0),
            joints,
            weights,
        }
    }

    #[test]
    fn a_collapse_within_the_budget_is_taken() {
        // 1 cm past the finger's base, the bend moves it by 1.41 cm: within 2 cm, so the
        // finger collapses onto the arm, and the arm (which moves nothing relative to the
        // root in any frame) onto the root.
        let (parents, frames) = chain();
        let v = [vertex(2.01, [2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])];
        let map = choose(&parents, &v, &frames, 0.02);
        assert_eq!(map, [0, 0, 0]);
        assert_eq!(kept(&map), 1);
    }

    #[test]
    fn a_collapse_beyond_the_budget_is_refused() {
        // 10 cm past the base the bend moves it by 14 cm: the finger stays; the arm moves
        // nothing and collapses for free.
        let (parents, frames) = chain();
        let v = [vertex(2.1, [2, 1, 0, 0], [0.5, 0.5, 0.0, 0.0])];
        let map = choose(&parents, &v, &frames, 0.02);
        assert_eq!(map, [0, 0, 2]);
        assert_eq!(kept(&map), 2);
    }

    #[test]
    fn an_unused_joint_collapses_only_with_its_children_accounted() {
        // The arm moves no vertex itself, but the finger's vertex rides on it once the
        // finger collapsed: the arm's collapse is tested on that vertex. Here the root moves
        // far in frame 1 while the arm stays, so the arm must stay.
        let parents = vec![None, Some(0), Some(1)];
        let frames = vec![
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0)),
            Mat4::IDENTITY,
            Mat4::IDENTITY,
        ];
        let v = [vertex(2.5, [2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])];
        let map = choose(&parents, &v, &frames, 0.01);
        assert_eq!(map, [0, 1, 1]);
    }

    #[test]
    fn weights_are_merged_and_sorted() {
        // Joints 3 and 4 both collapse onto 1: their weights add up and lead.
        let map = [0, 1, 2, 1, 1];
        let (j, w) = remap(&map, [2, 3, 0, 4], [0.3, 0.25, 0.2, 0.25]);
        assert_eq!(j, [1, 2, 0, 0]);
        assert_eq!(w, [0.5, 0.3, 0.2, 0.0]);
        // Zero weights are dropped wherever they stood.
        let (j, w) = remap(&[0, 1, 2], [0, 2, 1, 0], [0.0, 0.4, 0.0, 0.6]);
        assert_eq!((j, w), ([0, 2, 0, 0], [0.6, 0.4, 0.0, 0.0]));
    }

    #[test]
    fn without_frames_nothing_collapses() {
        let (parents, _) = chain();
        let v = [vertex(2.01, [2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])];
        assert_eq!(choose(&parents, &v, &[], 1.0), [0, 1, 2]);
        assert!(choose(&[], &v, &[], 1.0).is_empty());
    }

    #[test]
    fn no_budget_keeps_every_moving_joint() {
        // A budget of zero (a level the simplifier left exact, like LOD 0) collapses only
        // what moves nothing.
        let (parents, frames) = chain();
        let v = [vertex(2.5, [2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])];
        assert_eq!(choose(&parents, &v, &frames, 0.0), [0, 0, 2]);
    }
}
