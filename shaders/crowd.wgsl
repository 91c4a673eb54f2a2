// The crowd: characters drawn instanced, one draw per mesh part and LOD level.
//
// Entry points:
// - vs_skinned: GPU skinning from the baked texels (skinning.wgsl, prepended to this file);
// - vs_unskinned: vertices drawn as they are: the bind pose, instanced (the floor that animation
//   cost is measured against), or vertices the CPU already skinned (the fallback path);
// - fs_lit: base colour (factor × texture) with the instance tint multiplied or painted over
//   it (its alpha says which), lit (the sun, shadowed by its
//   shadow map where it is in use, and hemisphere ambient) and fogged;
// - vs_skinned_motion, vs_unskinned_motion, fs_lit_motion: the same for a pass with a velocity
//   attachment: each vertex also placed as it was drawn in the previous frame (its previous
//   record, skinned again with its previous pose on the GPU path; the CPU path's vertices are
//   this frame's pose, so only its placement moves them), and the screen motion written;
// - vs_shadow_skinned, vs_shadow_unskinned: the same vertices seen from the sun, for the shadow
//   map (depth only);
// - vs_blob, fs_blob: a soft contact shadow (blob) under each instance.
// skinning.wgsl, lighting.wgsl (the camera, the sun, shadow lookups) and instance.wgsl (the
// instance record, placing and tinting) come before this file.

struct Material {
    base_color: vec4<f32>,
};

@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var base_texture: texture_2d<f32>;
@group(2) @binding(2) var base_sampler: sampler;

struct Vertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
};

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) tint: vec4<f32>,
    @location(3) world: vec3<f32>,
};

struct MotionOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) tint: vec4<f32>,
    @location(3) world: vec3<f32>,
    // Clip positions this frame and the previous one.
    @location(4) now: vec4<f32>,
    @location(5) before: vec4<f32>,
};

// `o` with its motion: `before` is where its vertex was in the previous frame, world space.
fn with_motion(o: Out, before: vec3<f32>) -> MotionOut {
    let b = camera.previous_view_proj * vec4<f32>(before, 1.0);
    return MotionOut(o.clip, o.normal, o.uv, o.tint, o.world, o.clip, b);
}

fn finish(inst: Instance, p: vec3<f32>, n: vec3<f32>, uv: vec2<f32>) -> Out {
    var o: Out;
    let world = place_point(inst, p);
    o.clip = camera.view_proj * vec4<f32>(world, 1.0);
    o.world = world;
    o.normal = place_normal(inst, n);
    o.uv = uv;
    o.tint = inst.tint;
    return o;
}

fn pose_of(inst: Instance) -> Pose {
    return Pose(
        inst.frames.x, inst.frames.y, inst.weights.y,
        inst.frames.z, inst.frames.w, inst.weights.z,
        inst.weights.w,
    );
}

@vertex
fn vs_skinned(v: Vertex, inst: Instance) -> Out {
    let s = skin(pose_of(inst), v.joints, v.weights, v.position, v.normal);
    return finish(inst, s.position, s.normal, v.uv);
}

@vertex
fn vs_skinned_motion(v: Vertex, inst: Instance, prev: Previous) -> MotionOut {
    let s = skin(pose_of(inst), v.joints, v.weights, v.position, v.normal);
    let before = previous_instance(prev, inst);
    let b = skin(pose_of(before), v.joints, v.weights, v.position, v.normal);
    return with_motion(finish(inst, s.position, s.normal, v.uv), place_point(before, b.position));
}

@vertex
fn vs_shadow_skinned(v: Vertex, inst: Instance) -> @builtin(position) vec4<f32> {
    let s = skin(pose_of(inst), v.joints, v.weights, v.position, v.normal);
    return camera.shadow_view_proj * vec4<f32>(place_point(inst, s.position), 1.0);
}

struct PlainVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
};

@vertex
fn vs_unskinned(v: PlainVertex, inst: Instance) -> Out {
    return finish(inst, v.position, v.normal, v.uv);
}

@vertex
fn vs_unskinned_motion(v: PlainVertex, inst: Instance, prev: Previous) -> MotionOut {
    let before = place_point(previous_instance(prev, inst), v.position);
    return with_motion(finish(inst, v.position, v.normal, v.uv), before);
}

@vertex
fn vs_shadow_unskinned(v: PlainVertex, inst: Instance) -> @builtin(position) vec4<f32> {
    return camera.shadow_view_proj * vec4<f32>(place_point(inst, v.position), 1.0);
}

struct BlobOut {
    @builtin(position) clip: vec4<f32>,
    // -1..1 across the blob's ellipse.
    @location(0) uv: vec2<f32>,
    // The share of the ground's colour the fog leaves there (a blob fades with it).
    @location(1) kept: f32,
};

// Blob shadows lie this far above the ground (metres), so that they win its depth test.
const BLOB_LIFT: f32 = 0.01;
// Darkness at the blob's centre (0 to 1).
const BLOB_STRENGTH: f32 = 0.5;

// `corner`: xy the corner's model-space x and z (the character's footprint, metres), zw its
// place on the ellipse (-1..1).
@vertex
fn vs_blob(@location(0) corner: vec4<f32>, inst: Instance) -> BlobOut {
    var o: BlobOut;
    let p = place_point(inst, vec3<f32>(corner.x, 0.0, corner.y));
    o.clip = camera.view_proj * vec4<f32>(p.x, inst.place.y + BLOB_LIFT, p.z, 1.0);
    o.uv = corner.zw;
    o.kept = fog_kept(inst.place.xyz);
    return o;
}

// Black, with an alpha that fades from the centre to the rim: blended over what is there, it
// darkens the ground by up to BLOB_STRENGTH.
@fragment
fn fs_blob(o: BlobOut) -> @location(0) vec4<f32> {
    let r = length(o.uv);
    return vec4<f32>(0.0, 0.0, 0.0, o.kept * BLOB_STRENGTH * (1.0 - smoothstep(0.3, 1.0, r)));
}

// A character's colour: base colour (factor × texture, read as sRGB so linear here) coloured
// by the tint (`tinted`), lit and fogged.
fn shade(normal: vec3<f32>, uv: vec2<f32>, tint: vec4<f32>, world: vec3<f32>) -> vec4<f32> {
    let base = material.base_color * textureSample(base_texture, base_sampler, uv);
    return vec4<f32>(fogged(tinted(base.rgb, tint) * lit(normal, world), world), 1.0);
}

@fragment
fn fs_lit(o: Out) -> @location(0) vec4<f32> {
    return shade(o.normal, o.uv, o.tint, o.world);
}

@fragment
fn fs_lit_motion(o: MotionOut) -> WithMotion {
    return WithMotion(shade(o.normal, o.uv, o.tint, o.world), screen_motion(o.now, o.before));
}
