//! `throng inspect`: what a model or a `.throng` file contains, as text or JSON; with no file,
//! the default bake.

use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use super::baking::default_bake;
use super::{MergeArg, load_model};
use crate::import::Model;

/// Whether `path` is a `.throng` file (by extension, or by its first bytes).
fn is_throng(path: &std::path::Path) -> bool {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("throng"))
    {
        return true;
    }
    // Through the input check, so that a FIFO is not opened here; what it refuses is not a
    // `.throng` file, and loading it as a model says why.
    let mut magic = [0u8; 8];
    crate::input::open(path, crate::input::Kind::Throng)
        .and_then(|(mut f, _)| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| magic == crate::format::MAGIC)
}

/// Arguments of `throng inspect`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "With no FILE, inspects the default bake (baking it first if it is missing or out of \
date): bake/mannequin.throng in the repository root, else the built-in mannequin crowd's bake \
in the cache, $XDG_CACHE_HOME/throng/mannequin.throng (or ~/.cache/throng/)."
)]
pub struct Args {
    /// The glTF model (.glb, or .gltf with its buffers and images beside it) or .throng file
    /// (default: the default bake).
    #[arg(value_name = "FILE")]
    file: Option<std::path::PathBuf>,
    /// Merge a model's animations that drive disjoint joints into one clip. Bare flag means
    /// 'always'.
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, default_missing_value = "always", value_name = "WHEN")]
    merge_animations: MergeArg,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub(super) struct Report {
    file: String,
    joints: Vec<JointInfo>,
    clips: Vec<ClipInfo>,
    meshes: Vec<MeshInfo>,
    notes: Vec<String>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct JointInfo {
    index: usize,
    name: String,
    node: usize,
    parent: Option<usize>,
}

#[derive(Serialize)]
struct ClipInfo {
    name: String,
    duration: f32,
    channels: usize,
    keys: usize,
    interpolations: Vec<&'static str>,
}

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    node: usize,
    mesh: usize,
    primitive: usize,
    vertices: usize,
    triangles: usize,
    max_influences: usize,
    binding: &'static str,
    material: String,
    textured: bool,
}

/// Gathers the report for `model`.
pub(super) fn report(model: &Model) -> Report {
    let skeleton = &model.skeleton;
    Report {
        file: model.name.clone(),
        joints: (0..skeleton.len())
            .map(|j| JointInfo {
                index: j,
                name: skeleton.names()[j].clone(),
                node: model.joint_nodes[j],
                parent: skeleton.parent(j),
            })
            .collect(),
        clips: model
            .clips
            .iter()
            .map(|c| ClipInfo {
                name: c.name().to_string(),
                duration: c.duration(),
                channels: c.channels().len(),
                keys: c.key_times().len(),
                interpolations: c.interpolations().into_iter().map(|i| i.name()).collect(),
            })
            .collect(),
        meshes: model
            .meshes
            .iter()
            .map(|m| {
                let material = model.materials.get(m.mesh.material);
                MeshInfo {
                    name: m.mesh.name.clone(),
                    node: m.source.node,
                    mesh: m.source.mesh,
                    primitive: m.source.primitive,
                    vertices: m.mesh.vertex_count(),
                    triangles: m.mesh.triangle_count(),
                    max_influences: m.mesh.max_influences(),
                    binding: if m.mesh.rigid { "rigid" } else { "skinned" },
                    material: material.map(|x| x.name.clone()).unwrap_or_default(),
                    textured: material.is_some_and(|x| x.base_color_texture.is_some()),
                }
            })
            .collect(),
        notes: model.notes.clone(),
        warnings: model.warnings.clone(),
    }
}

/// The deepest indentation of the joint tree, columns: past it, nesting no longer helps the
/// eye (and a width over 65535 is more than `format!` accepts: a 65,535-deep chain of joints
/// once made `inspect` panic).
const MAX_INDENT: usize = 80;

/// Renders the report as indented text.
pub(super) fn text(r: &Report) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(s, "{}", r.file);
    let _ = writeln!(s, "joints ({}):", r.joints.len());
    let mut depth = vec![0usize; r.joints.len()];
    for j in &r.joints {
        if let Some(p) = j.parent {
            depth[j.index] = depth[p] + 1;
        }
        let _ = writeln!(
            s,
            "  {:indent$}{} {} (node {})",
            "",
            j.index,
            j.name,
            j.node,
            indent = (depth[j.index] * 2).min(MAX_INDENT)
        );
    }
    let _ = writeln!(s, "clips ({}):", r.clips.len());
    for c in &r.clips {
        let _ = writeln!(
            s,
            "  {:<20} {:>7.3} s  {:>3} channels  {:>4} key times  {}",
            c.name,
            c.duration,
            c.channels,
            c.keys,
            c.interpolations.join(", ")
        );
    }
    let _ = writeln!(s, "meshes ({}):", r.meshes.len());
    for m in &r.meshes {
        let _ = writeln!(
            s,
            "  {:<24} {:>6} vertices {:>6} triangles  max {} influences  {:<7}  material '{}'{}",
            m.name,
            m.vertices,
            m.triangles,
            m.max_influences,
            m.binding,
            m.material,
            if m.textured { " (textured)" } else { "" }
        );
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(s, "warnings ({}):", r.warnings.len());
        for w in &r.warnings {
            let _ = writeln!(s, "  {w}");
        }
    }
    s
}

pub(super) fn run(args: &Args, external: crate::import::ExternalFiles) -> Result<()> {
    let Some(file) = &args.file else {
        let bake = default_bake(false)?;
        return super::inspect_throng::run(&bake, args.json);
    };
    if is_throng(file) {
        return super::inspect_throng::run(file, args.json);
    }
    let model = load_model(file, args.merge_animations, external)?;
    let r = report(&model);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", text(&r));
    }
    Ok(())
}
