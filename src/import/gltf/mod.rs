//! The glTF 2.0 importer (.glb and .gltf with external or embedded buffers).
//!
//! Parsing and schema validation come from the `gltf` crate; buffers, accessors and images are
//! decoded here with bounds checks so that every error names the file and the element. The
//! steps: hierarchy ([`scene`]), joint choice and skeleton ([`scene`]), meshes ([`meshes`]),
//! animations ([`animations`]), materials.

mod accessor;
mod animations;
mod buffers;
mod container;
mod layout;
mod meshes;
mod scene;
mod uri;

use std::path::Path;

use glam::Vec4;

pub use animations::{MERGED_CLIP_NAME, MergeAnimations};
pub(crate) use buffers::external_files;
pub(crate) use uri::folder_of;

use super::{ExternalFiles, Images, ImportError, ImportOptions, Model, ModelMesh, PrimitiveRef};
use crate::anim::{Clip, Skeleton};
use crate::mesh::Material;

/// The parsed document and its loaded buffers.
pub(super) struct Source<'a> {
    doc: &'a gltf::Document,
    base_dir: Option<&'a Path>,
    /// Which files `base_dir`'s URIs may name.
    scope: ExternalFiles,
    buffers: Vec<Vec<u8>>,
}

fn check_position_accessors(root: &gltf::json::Root) -> Result<(), String> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    let name = match semantic {
                        gltf::json::validation::Checked::Valid(s) => s.to_string(),
                        gltf::json::validation::Checked::Invalid => "(unknown)".to_string(),
                    };
                    return Err(format!(
                        "mesh {m}, primitive {p}: attribute {name} uses accessor {}, but there are {} accessors",
                        index.value(),
                        root.accessors.len()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Imports a model from bytes. `file` names it in messages; `base_dir` resolves external files.
///
/// The steps run in a fixed order (parse, buffers, hierarchy, joints, skeleton, meshes,
/// materials, clips), which is also the order of the warnings and of the first error reported.
pub(super) fn import(
    bytes: &[u8],
    file: &str,
    base_dir: Option<&Path>,
    options: &ImportOptions,
) -> Result<Model, ImportError> {
    let invalid = |what: String| ImportError::Invalid {
        file: file.to_string(),
        what,
    };
    let (document, blob) = parse(bytes, file)?;
    let doc = &document;
    animations::check_channels(doc).map_err(invalid)?;
    let buffers =
        buffers::load_buffers(doc, blob, base_dir, options.external_files).map_err(invalid)?;
    // Before anything reads a view or sizes a decode by an accessor's count.
    layout::check(doc, &buffers).map_err(invalid)?;
    let src = Source {
        doc,
        base_dir,
        scope: options.external_files,
        buffers,
    };
    let mut warnings = Vec::new();

    let scene = doc
        .default_scene()
        .or_else(|| doc.scenes().next())
        .ok_or_else(|| invalid("has no scene".into()))?;
    let h = scene::hierarchy(doc, &scene, &mut warnings).map_err(invalid)?;

    let animated = animated_nodes(doc, h.parent.len());
    let joints = scene::choose_joints(&src, &h, &animated).map_err(invalid)?;
    if joints.nodes.is_empty() {
        return Err(invalid(
            "has no skin and no mesh: nothing to animate".into(),
        ));
    }
    let skeleton = joints
        .raw
        .clone()
        .validate()
        .map_err(|cause| ImportError::Anim {
            file: file.to_string(),
            cause: Box::new(cause),
        })?;

    let primitives = meshes::read_meshes(&src, &h, &joints, &mut warnings).map_err(invalid)?;
    let mut materials = read_materials(&src, &primitives, options, &mut warnings);
    let meshes = bind_materials(primitives, &mut materials, &skeleton, file)?;
    let clips = read_clips(&src, &joints, &skeleton, options, &mut warnings, file)?;

    Ok(Model {
        name: file.to_string(),
        skeleton,
        joint_nodes: joints.nodes,
        joint_in_skin: joints.in_skin,
        clips: clips.clips,
        clip_sources: clips.sources,
        meshes,
        materials,
        warnings,
        notes: clips.notes,
    })
}

/// Parses and schema-validates the document, after the two repairs the `gltf` crate's
/// validation needs (see [`relax_schema`]); returns it with the GLB's binary chunk, if any.
/// A step of its own because it is the only one that works on the JSON rather than the document.
fn parse(bytes: &[u8], file: &str) -> Result<(gltf::Document, Option<Vec<u8>>), ImportError> {
    let parse_error = |cause| ImportError::Parse {
        file: file.to_string(),
        cause,
    };
    let bytes = container::check(bytes).map_err(|what| ImportError::Invalid {
        file: file.to_string(),
        what,
    })?;
    let unchecked = gltf::Gltf::from_slice_without_validation(bytes).map_err(parse_error)?;
    // The crate's schema validation itself indexes `accessors` with each POSITION attribute
    // unchecked; reject out-of-range ones first so that validation cannot panic.
    check_position_accessors(unchecked.document.as_json()).map_err(|what| {
        ImportError::Invalid {
            file: file.to_string(),
            what,
        }
    })?;
    let blob = unchecked.blob;
    let mut json = unchecked.document.into_json();
    relax_schema(&mut json);
    let document = gltf::Document::from_json(json).map_err(parse_error)?;
    Ok((document, blob))
}

/// Loosens what the `gltf` crate's validation asks beyond what players and throng need, so that
/// files players load also load here.
fn relax_schema(json: &mut gltf::json::Root) {
    // The specification wants min/max on POSITION accessors, and the crate's validation refuses
    // files without; players (three.js among them) compute bounds themselves, and so does
    // throng, which never reads them. Fill in placeholders so such files load.
    let positions: Vec<usize> = json
        .meshes
        .iter()
        .flat_map(|m| m.primitives.iter())
        .filter_map(|p| {
            p.attributes
                .get(&gltf::json::validation::Checked::Valid(
                    gltf::Semantic::Positions,
                ))
                .map(|i| i.value())
        })
        .collect();
    for i in positions {
        if let Some(acc) = json.accessors.get_mut(i)
            && (acc.min.is_none() || acc.max.is_none())
        {
            acc.min = Some(serde_json::json!([0.0, 0.0, 0.0]));
            acc.max = Some(serde_json::json!([0.0, 0.0, 0.0]));
        }
    }
    // KHR_mesh_quantization only widens the component types attributes may use; the accessor
    // decoder here reads every type, so the extension is supported although the `gltf` crate's
    // validation does not know it.
    json.extensions_required
        .retain(|e| e != "KHR_mesh_quantization");
}

/// Per document node (`node_count` of them): whether an animation channel moves it. Morph
/// weights move no node, so they do not count.
fn animated_nodes(doc: &gltf::Document, node_count: usize) -> Vec<bool> {
    let mut animated = vec![false; node_count];
    for anim in doc.animations() {
        for ch in anim.channels() {
            if ch.target().property() != gltf::animation::Property::MorphTargetWeights {
                animated[ch.target().node().index()] = true;
            }
        }
    }
    animated
}

/// Materials: one per glTF material, in file order. Base-colour images are decoded only for
/// materials some primitive uses, and only when `options` asks for images. An image that
/// cannot be read or decoded is one warning naming it and the materials drawn untextured
/// for it, so a model whose texture file is missing still bakes, shows and poses.
fn read_materials(
    src: &Source,
    primitives: &[meshes::Primitive],
    options: &ImportOptions,
    warnings: &mut Vec<String>,
) -> Vec<Material> {
    let mut materials = Vec::new();
    // Per image that failed: why, and the materials it leaves untextured (in file order).
    let mut failed: Vec<(usize, String, Vec<String>)> = Vec::new();
    for m in src.doc.materials() {
        let pbr = m.pbr_metallic_roughness();
        let used = primitives.iter().any(|p| p.material == m.index());
        let label = material_label(&m);
        let texture = match pbr.base_color_texture().map(|info| info.texture().source()) {
            Some(Some(image)) if used && options.images == Images::Load => {
                match src.image(&image) {
                    Ok(t) => Some(t),
                    Err(why) => {
                        match failed.iter_mut().find(|(i, ..)| *i == image.index()) {
                            Some((.., users)) => users.push(label),
                            None => failed.push((image.index(), why, vec![label])),
                        }
                        None
                    }
                }
            }
            Some(None) if used => {
                warnings.push(format!(
                    "{label}: base-colour texture has no PNG or JPEG image (only an extension's); drawn untextured"
                ));
                None
            }
            _ => None,
        };
        materials.push(Material {
            name: m.name().unwrap_or_default().to_string(),
            base_color_factor: Vec4::from(pbr.base_color_factor()),
            base_color_texture: texture,
        });
    }
    for (_, why, users) in failed {
        warnings.push(format!("{why}; {} drawn untextured", users.join(", ")));
    }
    materials
}

/// `material N` or `material N ('name')`, for messages.
fn material_label(m: &gltf::Material) -> String {
    let index = m.index().unwrap_or(0);
    match m.name().filter(|n| !n.is_empty()) {
        Some(name) => format!("material {index} ('{name}')"),
        None => format!("material {index}"),
    }
}

/// Gives each primitive its material index, appending a default material to `materials` for
/// primitives without one, and validates the meshes against the skeleton.
///
/// # Errors
/// [`ImportError::Mesh`] for the first mesh that fails validation.
fn bind_materials(
    primitives: Vec<meshes::Primitive>,
    materials: &mut Vec<Material>,
    skeleton: &Skeleton,
    file: &str,
) -> Result<Vec<ModelMesh>, ImportError> {
    let default_material = materials.len();
    if primitives.iter().any(|p| p.material.is_none()) {
        materials.push(Material::default());
    }
    primitives
        .into_iter()
        .map(|mut p| {
            p.mesh.material = p.material.unwrap_or(default_material);
            p.mesh
                .validate(skeleton.len())
                .map_err(|cause| ImportError::Mesh {
                    file: file.to_string(),
                    cause: Box::new(cause),
                })?;
            Ok(ModelMesh {
                source: p.source,
                mesh: p.mesh,
            })
        })
        .collect()
}

/// The clips of a model with where each came from (see [`read_clips`]).
struct Clips {
    /// Validated clips.
    clips: Vec<Clip>,
    /// Per clip, the glTF animation indices it was read from.
    sources: Vec<Vec<usize>>,
    /// What merging did, for the user.
    notes: Vec<String>,
}

/// Reads the animations, merges them as `options` asks, and validates each clip against the
/// skeleton; returns the clips, the glTF animations each came from, and the notes saying what
/// was merged.
///
/// # Errors
/// [`ImportError::Invalid`] for unreadable or unmergeable animations, [`ImportError::Anim`]
/// for a clip that fails validation.
fn read_clips(
    src: &Source,
    joints: &scene::Joints,
    skeleton: &Skeleton,
    options: &ImportOptions,
    warnings: &mut Vec<String>,
    file: &str,
) -> Result<Clips, ImportError> {
    let invalid = |what: String| ImportError::Invalid {
        file: file.to_string(),
        what,
    };
    let raw_clips = animations::read_animations(src, joints, warnings).map_err(invalid)?;
    let (raw_clips, merge_note) =
        animations::merge(raw_clips, options.merge_animations, skeleton.names())
            .map_err(invalid)?;
    let mut clips = Vec::with_capacity(raw_clips.len());
    let mut sources = Vec::with_capacity(raw_clips.len());
    for merged in raw_clips {
        let clip = merged
            .clip
            .validate(skeleton)
            .map_err(|cause| ImportError::Anim {
                file: file.to_string(),
                cause: Box::new(cause),
            })?;
        clips.push(clip.lasting_at_least(merged.end));
        sources.push(merged.sources);
    }
    Ok(Clips {
        clips,
        sources,
        notes: merge_note.into_iter().collect(),
    })
}
