// The ground: a square at y = 0 with a 1 m checker pattern, lit like the crowd (lighting.wgsl,
// prepended: the camera, the sun and its shadows).

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
    return vec4<f32>(base * lit(vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(o.world.x, 0.0, o.world.y)), 1.0);
}
