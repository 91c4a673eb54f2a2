// The impostor tier: each far agent drawn as one camera-facing square that shows pictures of
// its character baked from views around and above it (docs/FORMAT.md "Impostors"), blended
// from the three views nearest the eye and the two impostor frames nearest its pose, lit by
// the sun with the pictures' normals, tinted and fogged as the meshes are.
//
// Entry points: vs_impostor + fs_impostor, and vs_impostor_motion + fs_impostor_motion for a
// pass with a velocity attachment. lighting.wgsl and instance.wgsl come before this file. The
// view grid, its bases, the normal code and the frame rule mirror src/format/impostor.rs line
// for line (its unit tests pin them).

struct Atlas {
    // xyz: the centre of every picture (model units); w: half a picture's side (model units).
    sphere: vec4<f32>,
    // x: views along a side of the grid; y: a view's side in pixels; z: frames per row of a
    // layer; w: frames per layer.
    grid: vec4<u32>,
    // x: the frame table's first matrix (the lowest frame base of the character's
    // animations); y: matrices per baked frame (joints); z: the table's width in texels;
    // w: a frame's side in pixels (views × cell).
    table: vec4<u32>,
    // xy: one over a layer's width and height in pixels; z: the mip levels below the full
    // pictures (render/draw/impostor_mips.rs).
    layer: vec4<f32>,
};

@group(2) @binding(0) var<uniform> atlas: Atlas;
// Per baked frame of the character: x the animation's first impostor frame, y its impostor
// frames (bit 31: it loops), z (f32 bits) the impostor position of this baked frame, w (f32
// bits) how far one baked frame moves it.
@group(2) @binding(1) var frame_table: texture_2d<u32>;
@group(2) @binding(2) var colour_atlas: texture_2d_array<f32>;
@group(2) @binding(3) var normal_atlas: texture_2d_array<f32>;
@group(2) @binding(4) var atlas_sampler: sampler;

struct ImpostorOut {
    @builtin(position) clip: vec4<f32>,
    // The three views' picture coordinates (0..1 across the cell) at this point.
    @location(0) uv0: vec2<f32>,
    @location(1) uv1: vec2<f32>,
    @location(2) uv2: vec2<f32>,
    // The three views' grid columns and rows, packed 8 bits each (x: columns, y: rows).
    @location(3) @interpolate(flat) views: vec2<u32>,
    // The three views' weights (summing to 1).
    @location(4) @interpolate(flat) view_weights: vec3<f32>,
    // The two impostor frames (within the atlas).
    @location(5) @interpolate(flat) frames: vec2<u32>,
    // x: the second frame's weight; y: the sun's visibility at the agent; zw: the cosine and
    // sine of its heading (model normals to world).
    @location(6) @interpolate(flat) misc: vec4<f32>,
    @location(7) @interpolate(flat) tint: vec4<f32>,
    @location(8) world: vec3<f32>,
    // Clip positions this frame and the previous one (read with a velocity attachment).
    @location(9) now: vec4<f32>,
    @location(10) before: vec4<f32>,
};

// The hemi-octahedral grid position (columns, rows in 0..views−1) of direction d (model
// space), below the horizon taken at it: `grid_position`.
fn grid_position(d: vec3<f32>, views: f32) -> vec2<f32> {
    let y = max(d.y, 0.0);
    let s = abs(d.x) + y + abs(d.z);
    var p = vec2<f32>(0.0);
    if (s > 0.0) {
        p = vec2<f32>(d.x, d.z) / s;
    }
    let last = views - 1.0;
    return clamp((vec2<f32>(p.x + p.y, p.x - p.y) + 1.0) * 0.5 * last, vec2<f32>(0.0), vec2<f32>(last));
}

// The direction towards the eye of grid view (i, j): `view_direction`.
fn view_direction(ij: vec2<f32>, views: f32) -> vec3<f32> {
    let last = max(views - 1.0, 1.0);
    let uv = 2.0 * ij / last - 1.0;
    let x = (uv.x + uv.y) * 0.5;
    let z = (uv.x - uv.y) * 0.5;
    let y = 1.0 - abs(x) - abs(z);
    return normalize(vec3<f32>(x, max(y, 0.0), z));
}

// The right and up axes of the picture seen along −d: `view_basis`.
fn view_right(d: vec3<f32>) -> vec3<f32> {
    if (abs(d.x) + abs(d.z) > 0.0) {
        return normalize(vec3<f32>(d.z, 0.0, -d.x));
    }
    return vec3<f32>(1.0, 0.0, 0.0);
}

// The model-space normal of an 8-bit octahedral code read as unorm: `decode_normal`.
fn decode_normal(code: vec2<f32>) -> vec3<f32> {
    let e = code * 2.0 - 1.0;
    var n = vec3<f32>(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) {
        let s = select(vec2<f32>(-1.0), vec2<f32>(1.0), e >= vec2<f32>(0.0));
        n = vec3<f32>((1.0 - abs(e.yx)) * s, n.z);
    }
    return normalize(n);
}

// The two impostor frames (within the atlas) and the second's weight of a pose: matrix base
// `base` with weight `w` towards the next baked frame (`frames_at`).
fn impostor_frames(base: u32, w: f32) -> vec3<f32> {
    let index = (base - atlas.table.x) / max(atlas.table.y, 1u);
    let width = max(atlas.table.z, 1u);
    let e = textureLoad(frame_table, vec2<u32>(index % width, index / width), 0);
    let count = max(e.y & 0x7fffffffu, 1u);
    let looping = (e.y >> 31u) != 0u;
    let x = max(bitcast<f32>(e.z) + w * bitcast<f32>(e.w), 0.0);
    let lo_f = floor(x);
    var lo = u32(lo_f);
    var hi = lo + 1u;
    var t = x - lo_f;
    if (looping) {
        lo = lo % count;
        hi = hi % count;
    } else if (lo >= count - 1u) {
        lo = count - 1u;
        hi = lo;
        t = 0.0;
    }
    return vec3<f32>(f32(e.x + lo), f32(e.x + hi), t);
}

// World point `p` in the picture of the view towards `d` of an agent at `centre` (world) with
// heading cosine/sine `cs` and scale `scale`: 0..1 across the cell, y down.
fn picture_uv(p: vec3<f32>, centre: vec3<f32>, cs: vec2<f32>, scale: f32, d: vec3<f32>) -> vec2<f32> {
    let w = (p - centre) / scale;
    // World to model: the heading turned back (place_point's inverse).
    let m = vec3<f32>(cs.x * w.x - cs.y * w.z, w.y, cs.y * w.x + cs.x * w.z);
    let right = view_right(d);
    let up = cross(d, right);
    let r2 = 2.0 * atlas.sphere.w;
    return vec2<f32>(dot(m, right) / r2 + 0.5, 0.5 - dot(m, up) / r2);
}

// The square's corner `corner` (0..5, two triangles) of agent `inst`, seen from the eye.
fn impostor_vertex(corner: u32, inst: Instance) -> ImpostorOut {
    var o: ImpostorOut;
    let scale = inst.weights.x;
    let centre = place_point(inst, atlas.sphere.xyz);
    let cs = vec2<f32>(cos(inst.place.w), sin(inst.place.w));
    // The eye, seen from the agent, in model space.
    let e = camera.eye.xyz - centre;
    let to_eye = vec3<f32>(cs.x * e.x - cs.y * e.z, e.y, cs.y * e.x + cs.x * e.z);
    // The square faces the eye: its axes from the eye's direction, +y up where it can.
    let forward = normalize(e);
    var right = cross(vec3<f32>(0.0, 1.0, 0.0), forward);
    if (dot(right, right) < 1e-8) {
        right = vec3<f32>(1.0, 0.0, 0.0);
    }
    right = normalize(right);
    let up = cross(forward, right);
    let xs = array<f32, 6>(-1.0, 1.0, 1.0, -1.0, 1.0, -1.0);
    let ys = array<f32, 6>(-1.0, -1.0, 1.0, -1.0, 1.0, 1.0);
    let half = atlas.sphere.w * scale;
    let p = centre + (xs[corner] * right + ys[corner] * up) * half;
    o.clip = camera.view_proj * vec4<f32>(p, 1.0);
    o.world = p;
    o.now = o.clip;
    o.before = o.clip;

    // The three grid views around the eye's direction and their barycentric weights.
    let views = f32(atlas.grid.x);
    let q = grid_position(to_eye, views);
    let cell = min(floor(q), vec2<f32>(views - 2.0));
    let f = q - cell;
    var a = vec2<f32>(0.0, 0.0);
    var b = vec2<f32>(1.0, 0.0);
    var c = vec2<f32>(0.0, 1.0);
    var weights = vec3<f32>(1.0 - f.x - f.y, f.x, f.y);
    if (f.x + f.y > 1.0) {
        a = vec2<f32>(1.0, 1.0);
        weights = vec3<f32>(f.x + f.y - 1.0, 1.0 - f.y, 1.0 - f.x);
    }
    let ij0 = cell + a;
    let ij1 = cell + b;
    let ij2 = cell + c;
    o.uv0 = picture_uv(p, centre, cs, scale, view_direction(ij0, views));
    o.uv1 = picture_uv(p, centre, cs, scale, view_direction(ij1, views));
    o.uv2 = picture_uv(p, centre, cs, scale, view_direction(ij2, views));
    let i = vec3<u32>(u32(ij0.x), u32(ij1.x), u32(ij2.x));
    let j = vec3<u32>(u32(ij0.y), u32(ij1.y), u32(ij2.y));
    o.views = vec2<u32>(i.x | (i.y << 8u) | (i.z << 16u), j.x | (j.y << 8u) | (j.z << 16u));
    o.view_weights = weights;

    // The pose: A's frames, or B's once the cross-fade is past half way (the far tier swaps
    // where the meshes blend).
    var frames = impostor_frames(inst.frames.x, inst.weights.y);
    if (inst.weights.w >= 0.5) {
        frames = impostor_frames(inst.frames.z, inst.weights.z);
    }
    o.frames = vec2<u32>(u32(frames.x), u32(frames.y));
    o.misc = vec4<f32>(frames.z, sun_visibility(centre), cs);
    o.tint = inst.tint;
    return o;
}

@vertex
fn vs_impostor(@builtin(vertex_index) corner: u32, inst: Instance) -> ImpostorOut {
    return impostor_vertex(corner, inst);
}

@vertex
fn vs_impostor_motion(@builtin(vertex_index) corner: u32, inst: Instance, prev: Previous) -> ImpostorOut {
    var o = impostor_vertex(corner, inst);
    // The same corner as the previous record placed the square (its offset from the centre
    // scaled with it).
    let before = previous_instance(prev, inst);
    let centre_now = place_point(inst, atlas.sphere.xyz);
    let centre_before = place_point(before, atlas.sphere.xyz);
    let offset = (o.world - centre_now) * (before.weights.x / max(inst.weights.x, 1e-6));
    o.before = camera.previous_view_proj * vec4<f32>(centre_before + offset, 1.0);
    return o;
}

// Where view (i, j) of `frame` shows picture coordinates `uv`: the layer, and the point in it
// (0..1).
struct AtlasPoint {
    layer: u32,
    at: vec2<f32>,
};

// `margin`: how far inside the cell to stay, full-size pixels (half a texel of the coarsest
// mip level read), so that filtering never reads the next view's picture.
fn atlas_point(frame: u32, i: u32, j: u32, uv: vec2<f32>, margin: f32) -> AtlasPoint {
    let cell = f32(atlas.grid.y);
    let per_row = max(atlas.grid.z, 1u);
    let per_layer = max(atlas.grid.w, 1u);
    let slot = frame % per_layer;
    let origin = vec2<f32>(f32(slot % per_row), f32(slot / per_row)) * f32(atlas.table.w)
        + vec2<f32>(f32(i), f32(j)) * cell;
    let inside = clamp(uv * cell, vec2<f32>(margin), vec2<f32>(cell - margin));
    return AtlasPoint(frame / per_layer, (origin + inside) * atlas.layer.xy);
}

// How far pictures are minified at this fragment: the mip level the six reads share, 0 at
// full size, 1 where a picture pixel is half a screen pixel. Derivatives are taken here, in
// uniform control flow, before any discard.
fn minified(o: ImpostorOut) -> f32 {
    let cell = f32(atlas.grid.y);
    let footprint = max(length(dpdx(o.uv0 * cell)), length(dpdy(o.uv0 * cell)));
    return clamp(log2(max(footprint, 1e-6)), 0.0, atlas.layer.z);
}

// The two passes over the tier (render/draw/impostors.rs): `blended` false draws the solid
// part with depth, true the rest blended over it. Up close (lod 0) the solid pass keeps
// coverage 0.5 and up, the silhouette the meshes would draw, and the blended pass adds
// nothing. Minified, coverage is the share of a pixel the figure covers: a solid pass there
// would keep pixels a figure thinner than a pixel barely touches and drop whole limbs, and a
// far crowd speckled; so from lod 0 to 1 the solid pass keeps ever less (cores only) and the
// blended pass lays the rest over what is behind with that share, a far agent's average over
// the pixel. The hand-over is gradual in lod, so no agent changes look at one distance.
fn shade_impostor(o: ImpostorOut, blended: bool) -> vec4<f32> {
    let lod = minified(o);
    let soft = clamp(lod, 0.0, 1.0);
    // Work skipped where a pass draws nothing.
    if (blended && soft <= 0.0) {
        discard;
    }
    let margin = 0.5 * exp2(ceil(lod));
    let uvs = array<vec2<f32>, 3>(o.uv0, o.uv1, o.uv2);
    var vw = array<f32, 3>(o.view_weights.x, o.view_weights.y, o.view_weights.z);
    var fw = array<f32, 2>(1.0 - o.misc.x, o.misc.x);
    let frames = array<u32, 2>(o.frames.x, o.frames.y);
    // From lod 1 (a figure a few pixels tall, blended) the nearest view and frame alone:
    // the others move it by under a pixel there, and one read in six keeps the far field,
    // where squares overlap many deep, from costing more than the meshes it replaces.
    if (lod >= 1.0) {
        let w = o.view_weights;
        let v = select(select(2u, 1u, w.y >= w.z), 0u, w.x >= w.y && w.x >= w.z);
        vw = array<f32, 3>(f32(v == 0u), f32(v == 1u), f32(v == 2u));
        let k = select(0.0, 1.0, o.misc.x > 0.5);
        fw = array<f32, 2>(1.0 - k, k);
    }
    // The 3 views × 2 frames, weighted by view, frame and coverage: colours first, so that
    // a fragment outside the figure (most of the square) is discarded after 6 reads, not 12.
    var points: array<AtlasPoint, 6>;
    var weights: array<f32, 6>;
    var colour = vec3<f32>(0.0);
    var coverage = 0.0;
    for (var k = 0u; k < 2u; k++) {
        for (var v = 0u; v < 3u; v++) {
            let n = k * 3u + v;
            weights[n] = 0.0;
            if (fw[k] * vw[v] <= 0.0) {
                continue;
            }
            let i = (o.views.x >> (8u * v)) & 0xffu;
            let j = (o.views.y >> (8u * v)) & 0xffu;
            points[n] = atlas_point(frames[k], i, j, uvs[v], margin);
            let c = textureSampleLevel(colour_atlas, atlas_sampler, points[n].at, points[n].layer, lod);
            weights[n] = fw[k] * vw[v] * c.a;
            colour += weights[n] * c.rgb;
            coverage += weights[n];
        }
    }
    // `soft`: 0 up close, 1 from lod 1. The solid pass's threshold rises from 0.5 (the
    // silhouette) to 0.95: far away only fully covered cores are solid, so that what is
    // behind them fails the depth test before it is shaded. The blended pass draws below
    // the threshold, its coverage faded in over the same span.
    let threshold = 0.5 + 0.45 * soft;
    var alpha = 1.0;
    if (blended) {
        alpha = min(coverage, 1.0) * soft;
        if (coverage >= threshold || alpha < 1.0 / 255.0) {
            discard;
        }
    } else if (coverage < threshold) {
        discard;
    }
    var normal = vec3<f32>(0.0);
    for (var n = 0u; n < 6u; n++) {
        if (weights[n] > 0.0) {
            let code = textureSampleLevel(normal_atlas, atlas_sampler, points[n].at, points[n].layer, lod).xy;
            normal += weights[n] * decode_normal(code);
        }
    }
    let base = colour / coverage;
    let cs = o.misc.zw;
    let n = normal;
    let world_normal = vec3<f32>(cs.x * n.x + cs.y * n.z, n.y, -cs.y * n.x + cs.x * n.z);
    let lit_colour = tinted(base, o.tint) * lit_with(world_normal, o.misc.y);
    return vec4<f32>(fogged(lit_colour, o.world), alpha);
}

@fragment
fn fs_impostor(o: ImpostorOut) -> @location(0) vec4<f32> {
    return shade_impostor(o, false);
}

@fragment
fn fs_impostor_blended(o: ImpostorOut) -> @location(0) vec4<f32> {
    return shade_impostor(o, true);
}

@fragment
fn fs_impostor_motion(o: ImpostorOut) -> WithMotion {
    return WithMotion(shade_impostor(o, false), screen_motion(o.now, o.before));
}

// The blended pass in a pass with a velocity attachment: the pipeline leaves velocity as it
// is (what is behind a partly covered pixel moves as it does).
@fragment
fn fs_impostor_blended_motion(o: ImpostorOut) -> WithMotion {
    return WithMotion(shade_impostor(o, true), screen_motion(o.now, o.before));
}
