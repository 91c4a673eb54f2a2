// The one skinning function of throng: bone matrices fetched from the baked texels, linearly
// interpolated between two neighbouring frames, cross-faded between two animations, and a
// point and normal skinned with four influences (linear blend skinning).
//
// Prepended to every shader that skins (crowd.wgsl, parity.wgsl), which therefore keep
// bind group 0 for these two bindings.
//
// Texels are stored linearly (docs/FORMAT.md), three per matrix (one per row), and the
// renderer lays them out in a 2D array texture whose rows hold 2^shift whole matrices
// (3 × 2^shift texels) and whose layers hold 2^hshift rows (or one layer of any height). So
// matrix m (texel 3m) sits at x = 3 (m & mask), y = (m >> shift) & hmask,
// layer = (m >> shift) >> hshift: no division in the shader, and a matrix's three rows are
// always neighbours in one texture row.

struct TexelLayout {
    mask: u32,
    shift: u32,
    hmask: u32,
    hshift: u32,
};

// The most influences a vertex of the draw has (1 to 4; the default, 4, serves any vertex): a
// pipeline constant, as the renderer draws each mesh's triangles grouped by the influences their
// vertices need. A software rasteriser runs both sides of every branch, so only influences
// compiled out cost nothing there (src/render/influences.rs).
override INFLUENCES: u32 = 4u;

@group(0) @binding(0) var bone_texels: texture_2d_array<f32>;
@group(0) @binding(1) var<uniform> texel_layout: TexelLayout;

// The three rows of a 3x4 affine matrix.
struct Rows {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
};

// Which frames an instance shows: matrix indices (texel index / 3) of joint 0 in the two
// neighbouring frames of animation A and the weight of the second, the same for B, and the
// cross-fade weight of B.
struct Pose {
    a0: u32,
    a1: u32,
    aw: f32,
    b0: u32,
    b1: u32,
    bw: f32,
    fade: f32,
};

struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
};

fn rows_at(base: u32, joint: u32) -> Rows {
    let m = base + joint;
    let x = i32((m & texel_layout.mask) * 3u);
    let row = m >> texel_layout.shift;
    let y = i32(row & texel_layout.hmask);
    let layer = i32(row >> texel_layout.hshift);
    return Rows(
        textureLoad(bone_texels, vec2<i32>(x, y), layer, 0),
        textureLoad(bone_texels, vec2<i32>(x + 1, y), layer, 0),
        textureLoad(bone_texels, vec2<i32>(x + 2, y), layer, 0),
    );
}

fn mix_rows(a: Rows, b: Rows, t: f32) -> Rows {
    return Rows(mix(a.r0, b.r0, t), mix(a.r1, b.r1, t), mix(a.r2, b.r2, t));
}

fn scale_rows(a: Rows, w: f32) -> Rows {
    return Rows(a.r0 * w, a.r1 * w, a.r2 * w);
}

fn add_rows(a: Rows, b: Rows) -> Rows {
    return Rows(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2);
}

// Joint `joint`'s matrix for pose `p`: each animation interpolated between its two frames,
// then the two animations cross-faded. Weights of exactly 0 skip the fetches they would scale.
fn joint_rows(p: Pose, joint: u32) -> Rows {
    var a = rows_at(p.a0, joint);
    if (p.aw > 0.0) {
        a = mix_rows(a, rows_at(p.a1, joint), p.aw);
    }
    if (p.fade > 0.0) {
        var b = rows_at(p.b0, joint);
        if (p.bw > 0.0) {
            b = mix_rows(b, rows_at(p.b1, joint), p.bw);
        }
        a = mix_rows(a, b, p.fade);
    }
    return a;
}

// Skins bind-pose point `position` and normal `normal` bound to `joints` with `weights`
// (summing to 1). The normal goes through the cofactor of the blended 3x3 part, which is right
// under non-uniform scale and mirroring, and is normalised.
fn skin(p: Pose, joints: vec4<u32>, weights: vec4<f32>, position: vec3<f32>, normal: vec3<f32>) -> Skinned {
    // Influences are sorted largest first, so the first always counts; the others past
    // INFLUENCES are compiled out, and the rest skipped when their weight is 0 (most vertices
    // have one to three).
    var m = scale_rows(joint_rows(p, joints.x), weights.x);
    if (INFLUENCES >= 2u && weights.y != 0.0) {
        m = add_rows(m, scale_rows(joint_rows(p, joints.y), weights.y));
    }
    if (INFLUENCES >= 3u && weights.z != 0.0) {
        m = add_rows(m, scale_rows(joint_rows(p, joints.z), weights.z));
    }
    if (INFLUENCES >= 4u && weights.w != 0.0) {
        m = add_rows(m, scale_rows(joint_rows(p, joints.w), weights.w));
    }
    let h = vec4<f32>(position, 1.0);
    let out_position = vec3<f32>(dot(m.r0, h), dot(m.r1, h), dot(m.r2, h));
    // Columns of the 3x3 part, and their cofactor matrix.
    let c0 = vec3<f32>(m.r0.x, m.r1.x, m.r2.x);
    let c1 = vec3<f32>(m.r0.y, m.r1.y, m.r2.y);
    let c2 = vec3<f32>(m.r0.z, m.r1.z, m.r2.z);
    let cof = mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    var n = cof * normal;
    if (dot(c0, cross(c1, c2)) < 0.0) {
        n = -n;
    }
    let len = length(n);
    var out_normal = vec3<f32>(0.0);
    if (len > 0.0) {
        out_normal = n / len;
    }
    return Skinned(out_position, out_normal);
}
