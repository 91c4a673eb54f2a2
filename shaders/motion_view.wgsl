// The "motion vectors" view: a velocity attachment (VELOCITY_FORMAT in src/render/pass.rs)
// drawn as colours over the whole target. Hue: the direction of the screen motion (right red,
// down yellow-green, left cyan, up blue-violet); brightness: its speed, full at `full_pixels`
// pixels a frame; still pixels dark grey.

struct View {
    // x: pixels of motion a frame drawn at full brightness.
    full_pixels: vec4<f32>,
};

@group(0) @binding(0) var velocity: texture_2d<f32>;
@group(0) @binding(1) var<uniform> view: View;

// One triangle covering the target.
@vertex
fn vs_full(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

fn hue(angle: f32) -> vec3<f32> {
    let h = angle / 6.2831853 + 1.0;
    let k = fract(vec3<f32>(h) + vec3<f32>(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0;
    return clamp(abs(k - 3.0) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn fs_motion(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(velocity));
    let v = textureLoad(velocity, vec2<i32>(at.xy), 0).xy * size;
    let speed = length(v);
    let amount = clamp(speed / max(view.full_pixels.x, 1e-6), 0.0, 1.0);
    var direction = vec3<f32>(0.0);
    if (speed > 0.0) {
        direction = hue(atan2(v.y, v.x));
    }
    // Linear colour: an sRGB target encodes it.
    return vec4<f32>(mix(vec3<f32>(0.02), direction, amount), 1.0);
}
