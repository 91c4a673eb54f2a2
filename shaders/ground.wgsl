// The ground: a square at y = 0 with a 1 m checker pattern, lit like the crowd.

struct Camera {
    view_proj: mat4x4<f32>,
    light: vec4<f32>,
};

@group(1) @binding(0) var<uniform> camera: Camera;

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec2<f32>,
};

@vertex
fn vs_ground(@location(0) xz: vec2<f32>) -> Out {
    var o: Out;
    o.clip = camera.view_proj * vec4<f32>(xz.x, 0.0, xz.y, 1.0);
    o.world = xz;
    return o;
}

@fragment
fn fs_ground(o: Out) -> @location(0) vec4<f32> {
    let cell = floor(o.world);
    let checker = (i32(cell.x) + i32(cell.y)) & 1;
    let base = select(vec3<f32>(0.42, 0.44, 0.40), vec3<f32>(0.50, 0.52, 0.47), checker == 1);
    let diffuse = max(camera.light.y, 0.0);
    let light = camera.light.w + (1.0 - camera.light.w) * diffuse;
    return vec4<f32>(base * light, 1.0);
}
