// The ground: the flat plaza or the relief (src/render/ground_mesh.rs), with a 1 m checker
// pattern, lit like the crowd (lighting.wgsl, prepended: the camera, the light and its
// shadows, fog, motion). It does not move: its motion is the camera's.

struct Vertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // 1 on the relief's terrace, steps and ramp (stone), 0 on the plaza.
    @location(2) stone: f32,
};

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) stone: f32,
};

struct MotionOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) stone: f32,
    // Clip positions this frame and the previous one.
    @location(3) now: vec4<f32>,
    @location(4) before: vec4<f32>,
};

@vertex
fn vs_ground(v: Vertex) -> Out {
    var o: Out;
    o.clip = camera.view_proj * vec4<f32>(v.position, 1.0);
    o.world = v.position;
    o.normal = v.normal;
    o.stone = v.stone;
    return o;
}

@vertex
fn vs_ground_motion(v: Vertex) -> MotionOut {
    var o: MotionOut;
    let p = vec4<f32>(v.position, 1.0);
    o.clip = camera.view_proj * p;
    o.world = v.position;
    o.normal = v.normal;
    o.stone = v.stone;
    o.now = o.clip;
    o.before = camera.previous_view_proj * p;
    return o;
}

fn ground_color(world: vec3<f32>, normal: vec3<f32>, stone: f32) -> vec4<f32> {
    let cell = floor(world.xz);
    let checker = (i32(cell.x) + i32(cell.y)) & 1;
    let plaza = select(vec3<f32>(0.42, 0.44, 0.40), vec3<f32>(0.50, 0.52, 0.47), checker == 1);
    // Sandstone, its checker fainter.
    let built = select(vec3<f32>(0.56, 0.45, 0.33), vec3<f32>(0.60, 0.49, 0.36), checker == 1);
    let base = mix(plaza, built, stone);
    return vec4<f32>(fogged(base * lit(normal, world), world), 1.0);
}

@fragment
fn fs_ground(o: Out) -> @location(0) vec4<f32> {
    return ground_color(o.world, o.normal, o.stone);
}

@fragment
fn fs_ground_motion(o: MotionOut) -> WithMotion {
    return WithMotion(ground_color(o.world, o.normal, o.stone), screen_motion(o.now, o.before));
}
