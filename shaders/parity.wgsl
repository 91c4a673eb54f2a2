// Parity test: runs the skinning function of skinning.wgsl (prepended) in a compute shader and
// writes skinned positions and normals for every (pose, vertex) pair, so tests can compare the
// GPU's arithmetic with the CPU path's.

struct ParityVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
    joints: vec4<u32>,
    weights: vec4<f32>,
};

// Pose fields as in skinning.wgsl; floats are stored as their bits.
struct ParityPose {
    frames: vec4<u32>,
    weights: vec4<f32>,
};

struct Counts {
    vertices: u32,
    poses: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(1) @binding(0) var<storage, read> vertices: array<ParityVertex>;
@group(1) @binding(1) var<storage, read> poses: array<ParityPose>;
@group(1) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(1) @binding(3) var<uniform> counts: Counts;

@compute @workgroup_size(64)
fn skin_all(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let p = id.y;
    if (v >= counts.vertices || p >= counts.poses) {
        return;
    }
    let vert = vertices[v];
    let q = poses[p];
    let pose = Pose(q.frames.x, q.frames.y, q.weights.x, q.frames.z, q.frames.w, q.weights.y, q.weights.z);
    let s = skin(pose, vert.joints, vert.weights, vert.position.xyz, vert.normal.xyz);
    let k = (p * counts.vertices + v) * 2u;
    out[k] = vec4<f32>(s.position, 1.0);
    out[k + 1u] = vec4<f32>(s.normal, 0.0);
}
