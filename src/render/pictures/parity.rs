//! The GPU half of the skinning parity test: a compute pass that calls `skin` from
//! `shaders/skinning.wgsl` for every (pose, vertex) pair and reads the results back, to be
//! compared with [`crate::render::draw::cpu_skin`].

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use wgpu::util::DeviceExt as _;

use crate::crowd::FramePose;
use crate::format::records::VertexRecord;
use crate::render::crowd::CrowdRenderer;
use crate::render::device::Gpu;
use crate::render::draw::pipelines::SKINNING_WGSL;
use crate::render::error::RenderError;

/// The parity shader (after [`SKINNING_WGSL`]).
pub const PARITY_WGSL: &str = include_str!("../../../shaders/parity.wgsl");

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct ParityVertex {
    position: [f32; 4],
    normal: [f32; 4],
    joints: [u32; 4],
    weights: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct ParityPose {
    frames: [u32; 4],
    weights: [f32; 4],
}

/// Skins `vertices` for each of `poses` on the GPU with the shader's skinning function, using
/// `renderer`'s texel texture: (position, normal) per pose, then per vertex.
///
/// # Errors
/// [`RenderError::Gpu`] when the pass fails validation or the readback fails.
pub fn gpu_skin(
    gpu: &Gpu,
    renderer: &CrowdRenderer,
    poses: &[FramePose],
    vertices: &[VertexRecord],
) -> Result<Vec<(Vec3, Vec3)>, RenderError> {
    gpu_skin_with(gpu, renderer, poses, vertices, 4)
}

/// [`gpu_skin`] with the shader's `INFLUENCES` constant at `influences` (1 to 4, as the
/// renderer's pipeline for a run of triangles has it): a vertex's influences past it are not
/// counted.
///
/// # Errors
/// As [`gpu_skin`].
pub fn gpu_skin_with(
    gpu: &Gpu,
    renderer: &CrowdRenderer,
    poses: &[FramePose],
    vertices: &[VertexRecord],
    influences: u32,
) -> Result<Vec<(Vec3, Vec3)>, RenderError> {
    let device = &gpu.device;
    let verts: Vec<ParityVertex> = vertices
        .iter()
        .map(|v| ParityVertex {
            position: [v.position[0], v.position[1], v.position[2], 1.0],
            normal: [v.normal[0], v.normal[1], v.normal[2], 0.0],
            joints: v.joints.map(u32::from),
            weights: v.weights,
        })
        .collect();
    let ps: Vec<ParityPose> = poses
        .iter()
        .map(|p| ParityPose {
            frames: [p.a0, p.a1, p.b0, p.b1],
            weights: [p.aw, p.bw, p.fade, 0.0],
        })
        .collect();
    let n = verts.len() * ps.len();
    let storage = |label, contents: &[u8]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let vbuf = storage("parity vertices", bytemuck::cast_slice(&verts));
    let pbuf = storage("parity poses", bytemuck::cast_slice(&ps));
    let out_size = (n * 32).max(32) as u64;
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("parity out"),
        size: out_size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("parity readback"),
        size: out_size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let counts = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("parity counts"),
        contents: bytemuck::cast_slice(&[verts.len() as u32, ps.len() as u32, 0, 0]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("parity.wgsl"),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(format!("{SKINNING_WGSL}\n{PARITY_WGSL}"))),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("parity"),
        layout: None,
        module: &module,
        entry_point: Some("skin_all"),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &[("INFLUENCES", f64::from(influences))],
            ..Default::default()
        },
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("parity"),
        layout: &pipeline.get_bind_group_layout(1),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: vbuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: pbuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: out.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: counts.as_entire_binding(),
            },
        ],
    });
    // The texel group of the crowd renderer matches the layout the shader derives (texture
    // array and layout uniform), but a derived layout is its own object: rebuild the group
    // against it from the same resources.
    let texel_layout = pipeline.get_bind_group_layout(0);
    let texel_group = renderer.texel_group_for(device, &texel_layout);
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("parity"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &texel_group, &[]);
        pass.set_bind_group(1, &group, &[]);
        pass.dispatch_workgroups((verts.len() as u32).div_ceil(64), ps.len() as u32, 1);
    }
    encoder.copy_buffer_to_buffer(&out, 0, &readback, 0, out_size);
    gpu.queue.submit([encoder.finish()]);
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(RenderError::Gpu(format!("parity pass: {e}")));
    }
    let data = gpu.read_buffer(&readback, "parity readback")?;
    // (position, normal) as two vec4 per pair; read unaligned, the bytes are a plain Vec.
    let result = data
        .chunks_exact(32)
        .take(n)
        .map(|c| {
            let v: [[f32; 4]; 2] = bytemuck::pod_read_unaligned(c);
            (
                Vec3::new(v[0][0], v[0][1], v[0][2]),
                Vec3::new(v[1][0], v[1][1], v[1][2]),
            )
        })
        .collect();
    Ok(result)
}
