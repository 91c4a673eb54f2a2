// The camera, the light (sun, hemisphere ambient, fog), the sun's shadow map and screen
// motion: shared by every lit shader (crowd.wgsl, ground.wgsl), prepended to them. Colours
// are linear; an sRGB target encodes them.

struct Camera {
    view_proj: mat4x4<f32>,
    // World to the shadow map's clip space (x, y in -1..1, z in 0..1).
    shadow_view_proj: mat4x4<f32>,
    // The previous frame's view_proj (for motion; the same as view_proj on a first frame).
    previous_view_proj: mat4x4<f32>,
    // x: 1 when the shadow map is in use, else 0; y: one texel of the map in uv;
    // z: depth bias (clip z); w: strength (the share of direct light a shadow takes away).
    shadow: vec4<f32>,
    // xyz: the camera's position, world space (for fog).
    eye: vec4<f32>,
    // xyz: unit direction towards the sun; w: the sun's strength.
    sun: vec4<f32>,
    // xyz: ambient from the sky (a normal straight up).
    sky_ambient: vec4<f32>,
    // xyz: ambient from the ground (a normal straight down); w: where fog starts (metres).
    ground_ambient: vec4<f32>,
    // xyz: the fog's colour; w: 1 / the distance over which half gives way to it (0: none).
    fog: vec4<f32>,
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

// The light reaching a surface of normal `n` (any length) at `world`, per channel, as a
// factor of its base colour: hemisphere ambient (the sky's above, the ground's below,
// blended by the normal's height) and the sun's Lambert term where it is not shadowed.
fn lit(n: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    return lit_with(n, sun_visibility(world));
}

// `lit` with the sun's visibility given (0 to 1): an impostor looks it up once per agent, as
// its flat quad would shadow itself.
fn lit_with(n: vec3<f32>, visibility: f32) -> vec3<f32> {
    var unit = n;
    let len = length(n);
    if (len > 0.0) {
        unit = n / len;
    }
    let ambient = mix(camera.ground_ambient.xyz, camera.sky_ambient.xyz, unit.y * 0.5 + 0.5);
    let diffuse = max(dot(unit, camera.sun.xyz), 0.0) * visibility;
    return ambient + camera.sun.w * diffuse;
}

// The share of a surface's colour at `world` that the fog leaves (1 near, towards 0 far).
fn fog_kept(world: vec3<f32>) -> f32 {
    let beyond = max(distance(world, camera.eye.xyz) - camera.ground_ambient.w, 0.0);
    return exp2(-beyond * camera.fog.w);
}

// `color` (linear) seen from the camera at `world`: given way to the fog with distance.
fn fogged(color: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    return mix(camera.fog.xyz, color, fog_kept(world));
}

// The screen motion from the previous frame's clip position `before` to this frame's `now`:
// in units of the target's size, x right, y down (VELOCITY_FORMAT in src/render/pass.rs).
// A point behind last frame's camera has no meaningful motion: zero.
fn screen_motion(now: vec4<f32>, before: vec4<f32>) -> vec2<f32> {
    if (before.w <= 0.0 || now.w <= 0.0) {
        return vec2<f32>(0.0);
    }
    return (now.xy / now.w - before.xy / before.w) * vec2<f32>(0.5, -0.5);
}

// The outputs of a pass with a velocity attachment.
struct WithMotion {
    @location(0) color: vec4<f32>,
    @location(1) velocity: vec2<f32>,
};
