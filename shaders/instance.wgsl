// An agent's instance record and what every character shader does with it: place model-space
// points and normals in the world, and colour a base colour with the agent's tint. Shared by
// crowd.wgsl and impostor.wgsl, which come after it.

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

// The record an instance was drawn with in the previous frame (its tint is not read).
struct Previous {
    @location(9) place: vec4<f32>,
    @location(10) weights: vec4<f32>,
    @location(11) frames: vec4<u32>,
};

fn previous_instance(p: Previous, inst: Instance) -> Instance {
    return Instance(p.place, p.weights, p.frames, inst.tint);
}

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

// The tint over the linear base colour `base`. Its alpha says how: 1 multiplies (an agent's
// own tint: white leaves the base as it is); 0 paints, the tint's colour at the base's
// lightness, so that its hue shows on any texture (the LOD-colours view: a violet multiplied
// into an orange fur came out a dark red, LOD 2's colour); between, a mix of the two. The
// lightness is carried by its square root (closer to how light it looks) from half the tint
// on black to all of it on white, so that the texture's pattern still reads.
fn tinted(base: vec3<f32>, tint: vec4<f32>) -> vec3<f32> {
    let lightness = clamp(dot(base, vec3<f32>(0.2126, 0.7152, 0.0722)), 0.0, 1.0);
    let painted = tint.rgb * (0.5 + 0.5 * sqrt(lightness));
    return mix(painted, base * tint.rgb, tint.a);
}
