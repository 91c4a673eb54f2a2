// The crowd: characters drawn instanced, one draw per mesh part and LOD level.
//
// Entry points:
// - vs_skinned: GPU skinning from the baked texels (skinning.wgsl, prepended to this file);
// - vs_unskinned: vertices drawn as they are: the bind pose, instanced (the floor that animation
//   cost is measured against), or vertices the CPU already skinned (the fallback path);
// - fs_lit: base colour (factor × texture × instance tint), directional light and ambient.

struct Camera {
    view_proj: mat4x4<f32>,
    // xyz: unit direction towards the light; w: ambient level.
    light: vec4<f32>,
};

struct Material {
    base_color: vec4<f32>,
};

@group(1) @binding(0) var<uniform> camera: Camera;
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var base_texture: texture_2d<f32>;
@group(2) @binding(2) var base_sampler: sampler;

struct Instance {
    // xyz: position on the ground (metres); w: heading (radians about +y).
    @location(5) place: vec4<f32>,
    // x: uniform scale; y: weight of A's second frame; z: weight of B's second frame;
    // w: cross-fade weight of B.
    @location(6) weights: vec4<f32>,
    // Frame bases: A's two frames, B's two frames.
    @location(7) frames: vec4<u32>,
    @location(8) tint: vec4<f32>,
};

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
};

// Model space to world: scale, turn by the heading, move to the place.
fn place_point(inst: Instance, p: vec3<f32>) -> vec3<f32> {
    let c = cos(inst.place.w);
    let s = sin(inst.place.w);
    let q = p * inst.weights.x;
    return vec3<f32>(c * q.x + s * q.z, q.y, -s * q.x + c * q.z) + inst.place.xyz;
}

fn place_normal(inst: Instance, n: vec3<f32>) -> vec3<f32> {
    let c = cos(inst.place.w);
    let s = sin(inst.place.w);
    return vec3<f32>(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
}

fn finish(inst: Instance, p: vec3<f32>, n: vec3<f32>, uv: vec2<f32>) -> Out {
    var o: Out;
    o.clip = camera.view_proj * vec4<f32>(place_point(inst, p), 1.0);
    o.normal = place_normal(inst, n);
    o.uv = uv;
    o.tint = inst.tint;
    return o;
}

@vertex
fn vs_skinned(v: Vertex, inst: Instance) -> Out {
    let pose = Pose(
        inst.frames.x, inst.frames.y, inst.weights.y,
        inst.frames.z, inst.frames.w, inst.weights.z,
        inst.weights.w,
    );
    let s = skin(pose, v.joints, v.weights, v.position, v.normal);
    return finish(inst, s.position, s.normal, v.uv);
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

@fragment
fn fs_lit(o: Out) -> @location(0) vec4<f32> {
    let base = material.base_color * textureSample(base_texture, base_sampler, o.uv) * o.tint;
    var n = o.normal;
    let len = length(n);
    if (len > 0.0) {
        n = n / len;
    }
    let diffuse = max(dot(n, camera.light.xyz), 0.0);
    let light = camera.light.w + (1.0 - camera.light.w) * diffuse;
    return vec4<f32>(base.rgb * light, 1.0);
}
