// The ground: a square at y = 0 with a 1 m checker pattern, lit like the crowd (lighting.wgsl,
// prepended: the camera, the light and its shadows, fog, motion). It does not move: its
// motion is the camera's.

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec2<f32>,
};

struct MotionOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec2<f32>,
    // Clip positions this frame and the previous one.
    @location(1) now: vec4<f32>,
    @location(2) before: vec4<f32>,
};

@vertex
fn vs_ground(@location(0) xz: vec2<f32>) -> Out {
    var o: Out;
    o.clip = camera.view_proj * vec4<f32>(xz.x, 0.0, xz.y, 1.0);
    o.world = xz;
    return o;
}

@vertex
fn vs_ground_motion(@location(0) xz: vec2<f32>) -> MotionOut {
    var o: MotionOut;
    let p = vec4<f32>(xz.x, 0.0, xz.y, 1.0);
    o.clip = camera.view_proj * p;
    o.world = xz;
    o.now = o.clip;
    o.before = camera.previous_view_proj * p;
    return o;
}

fn ground_color(world: vec2<f32>) -> vec4<f32> {
    let cell = floor(world);
    let checker = (i32(cell.x) + i32(cell.y)) & 1;
    let base = select(vec3<f32>(0.42, 0.44, 0.40), vec3<f32>(0.50, 0.52, 0.47), checker == 1);
    let p = vec3<f32>(world.x, 0.0, world.y);
    return vec4<f32>(fogged(base * lit(vec3<f32>(0.0, 1.0, 0.0), p), p), 1.0);
}

@fragment
fn fs_ground(o: Out) -> @location(0) vec4<f32> {
    return ground_color(o.world);
}

@fragment
fn fs_ground_motion(o: MotionOut) -> WithMotion {
    return WithMotion(ground_color(o.world), screen_motion(o.now, o.before));
}
