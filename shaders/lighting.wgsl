// The camera, the sun and its shadow map: shared by every lit shader (crowd.wgsl,
// ground.wgsl), prepended to them.

struct Camera {
    view_proj: mat4x4<f32>,
    // xyz: unit direction towards the light; w: ambient level.
    light: vec4<f32>,
    // World to the shadow map's clip space (x, y in -1..1, z in 0..1).
    shadow_view_proj: mat4x4<f32>,
    // x: 1 when the shadow map is in use, else 0; y: one texel of the map in uv;
    // z: depth bias (clip z); w: strength (the share of direct light a shadow takes away).
    shadow: vec4<f32>,
};

@group(1) @binding(0) var<uniform> camera: Camera;
@group(3) @binding(0) var shadow_map: texture_depth_2d;
@group(3) @binding(1) var shadow_sampler: sampler_comparison;

// How much of the sun reaches `world` (0 to 1): 1 without the map or outside it, else a 3x3
// percentage-closer filter of bilinear comparisons (soft edges a few texels wide).
fn sun_visibility(world: vec3<f32>) -> f32 {
    if (camera.shadow.x < 0.5) {
        return 1.0;
    }
    let c = camera.shadow_view_proj * vec4<f32>(world, 1.0);
    let ndc = c.xyz / c.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0) {
        return 1.0;
    }
    let depth = ndc.z - camera.shadow.z;
    var lit = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let offset = vec2<f32>(f32(x), f32(y)) * camera.shadow.y;
            lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + offset, depth);
        }
    }
    return 1.0 - camera.shadow.w * (1.0 - lit / 9.0);
}

// Lambert light and ambient of a surface of normal `n` (any length) at `world`.
fn lit(n: vec3<f32>, world: vec3<f32>) -> f32 {
    var unit = n;
    let len = length(n);
    if (len > 0.0) {
        unit = n / len;
    }
    let diffuse = max(dot(unit, camera.light.xyz), 0.0) * sun_visibility(world);
    return camera.light.w + (1.0 - camera.light.w) * diffuse;
}
