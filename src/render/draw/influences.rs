//! A mesh's triangles grouped by how many joint influences their vertices need, so that each
//! group is drawn by a skinned pipeline specialised for that many (the `INFLUENCES` constant
//! of shaders/skinning.wgsl).
//!
//! Why: a software rasteriser (lavapipe, llvmpipe) runs a vertex shader on eight vertices at
//! once and executes both sides of every branch under a mask, so a vertex paid for all four
//! influences, each fetching and blending up to four matrices, even where its weights were 0.
//! On the mannequin (77% of its vertices have one influence, 21% two, 2% three) this halved
//! the GPU-skinned vertex work on lavapipe (docs/PERFORMANCE.md, "Rendering: the cost of
//! animation"). A GPU gains less, but it is spared divergent branches.

use std::ops::Range;

use crate::format::records::VertexRecord;

/// Most influences a vertex has (the four of [`VertexRecord::weights`]).
pub const MAX_INFLUENCES: usize = 4;

/// The influences vertex `v` needs: one past its last non-zero weight, at least 1 (the
/// shader always counts the first).
pub fn influences(v: &VertexRecord) -> usize {
    v.weights
        .iter()
        .rposition(|w| *w != 0.0)
        .map_or(1, |i| i + 1)
}

/// `indices` (triangles of `vertices`) reordered so that the triangles needing at most one
/// influence come first, then two, three and four (each group in the order it had), and the
/// index range of each group: `runs[k]` needs `k + 1` influences (empty where none does).
/// An index past `vertices` counts as four influences (the draw is validated elsewhere); a
/// trailing partial triangle stays at the end, in the last group.
pub fn by_influences(
    vertices: &[VertexRecord],
    indices: &[u32],
) -> (Vec<u32>, [Range<u32>; MAX_INFLUENCES]) {
    // The group of a triangle: its neediest vertex's influences.
    let group = |t: &[u32]| {
        if t.len() < 3 {
            return MAX_INFLUENCES;
        }
        t.iter()
            .map(|i| vertices.get(*i as usize).map_or(MAX_INFLUENCES, influences))
            .max()
            .unwrap_or(1)
    };
    let triangles = indices.chunks(3);
    let mut counts = [0usize; MAX_INFLUENCES];
    for t in triangles.clone() {
        let k = group(t);
        counts[k - 1] += t.len();
    }
    let mut runs: [Range<u32>; MAX_INFLUENCES] = Default::default();
    let mut start = 0u32;
    for (run, n) in runs.iter_mut().zip(counts) {
        *run = start..start + n as u32;
        start = run.end;
    }
    let mut out = vec![0u32; indices.len()];
    let mut next: [usize; MAX_INFLUENCES] = std::array::from_fn(|k| runs[k].start as usize);
    for t in triangles {
        let k = group(t);
        out[next[k - 1]..next[k - 1] + t.len()].copy_from_slice(t);
        next[k - 1] += t.len();
    }
    (out, runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(weights: [f32; 4]) -> VertexRecord {
        VertexRecord {
            weights,
            ..VertexRecord::default()
        }
    }

    #[test]
    fn a_vertex_needs_up_to_its_last_non_zero_weight() {
        assert_eq!(influences(&vertex([1.0, 0.0, 0.0, 0.0])), 1);
        assert_eq!(influences(&vertex([0.0, 0.0, 0.0, 0.0])), 1);
        assert_eq!(influences(&vertex([0.6, 0.4, 0.0, 0.0])), 2);
        // Unsorted weights: the zero in the middle is still a slot the shader must reach.
        assert_eq!(influences(&vertex([0.5, 0.0, 0.5, 0.0])), 3);
        assert_eq!(influences(&vertex([0.4, 0.3, 0.2, 0.1])), 4);
    }

    #[test]
    fn triangles_are_grouped_by_their_neediest_vertex_keeping_their_order() {
        let v = [
            vertex([1.0, 0.0, 0.0, 0.0]),
            vertex([1.0, 0.0, 0.0, 0.0]),
            vertex([1.0, 0.0, 0.0, 0.0]),
            vertex([0.5, 0.5, 0.0, 0.0]),
            vertex([0.4, 0.3, 0.2, 0.1]),
        ];
        let indices = [0, 1, 3, 0, 1, 2, 2, 1, 0, 4, 0, 1, 1, 2, 3];
        let (out, runs) = by_influences(&v, &indices);
        assert_eq!(out, [0, 1, 2, 2, 1, 0, 0, 1, 3, 1, 2, 3, 4, 0, 1]);
        assert_eq!(runs, [0..6, 6..12, 12..12, 12..15]);
        // The same triangles, each once: only their order changed.
        let mut a: Vec<_> = indices.chunks(3).collect();
        let mut b: Vec<_> = out.chunks(3).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_indices_and_a_partial_triangle_go_to_the_last_group() {
        let v = [vertex([1.0, 0.0, 0.0, 0.0])];
        let (out, runs) = by_influences(&v, &[0, 0, 0, 0, 9, 0, 0]);
        assert_eq!(out, [0, 0, 0, 0, 9, 0, 0]);
        assert_eq!(runs, [0..3, 3..3, 3..3, 3..7]);
    }
}
