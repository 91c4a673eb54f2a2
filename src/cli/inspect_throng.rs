//! `throng inspect FILE.throng`: the header, sections, characters, animations, events, LOD
//! meshes and the errors measured at bake time, as text or JSON. Format 1.1's additions show
//! as each joint's glTF `node` and each animation's `ground_speed`, `foot_slide` and `source`
//! (`null` where the file records none, as every 1.0 file); each looping animation without a
//! ground speed shows why (`no_ground_speed`, from `META`). Format 1.4's impostors show as
//! each character's `impostor` (`null` without) and each animation's impostor frames. Lengths
//! are metres, printed as text in the unit that suits them ([`length`]).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::bake::length;
use crate::format::impostor::frame_bytes;
use crate::format::records::{NONE, anim_flags, anim_kind, mesh_flags};
use crate::format::{Metadata, ThrongFile};

#[derive(Serialize)]
struct Report {
    file: String,
    version: String,
    file_size: usize,
    sections: Vec<SectionInfo>,
    texel_format: &'static str,
    texel_count: u64,
    max_joints: u32,
    characters: Vec<CharacterInfo>,
    images: Vec<ImageInfo>,
    metadata: Metadata,
}

#[derive(Serialize)]
struct SectionInfo {
    kind: String,
    offset: usize,
    size: usize,
    align: u32,
}

#[derive(Serialize)]
struct CharacterInfo {
    name: String,
    height: f32,
    /// Quarter turns about +y baked into its matrices and bounds (format 1.2; 0 before).
    facing_turns: u8,
    /// Joints each LOD level skins with (format 1.3; every joint before).
    lod_joint_counts: Vec<usize>,
    /// Per LOD level, the joint each joint is drawn with (format 1.3; itself before).
    lod_joints: Vec<Vec<u32>>,
    /// Its impostor atlas (format 1.4); `None` without one.
    impostor: Option<ImpostorInfo>,
    joints: Vec<JointInfo>,
    anims: Vec<AnimInfo>,
    meshes: Vec<MeshInfo>,
}

/// A character's impostor atlas (`IMPO`).
#[derive(Serialize)]
struct ImpostorInfo {
    views: u32,
    /// Pixels.
    cell: u32,
    frame_count: u32,
    level: u32,
    /// Model units.
    centre: [f32; 3],
    /// Model units.
    radius: f32,
    /// Byte offset in `IMPX`.
    first_pixel: u64,
}

/// An animation's impostor frames (`IMPA`): 0 frames where its character has none.
#[derive(Serialize)]
struct ImpostorFrames {
    first_frame: u32,
    frame_count: u32,
}

#[derive(Serialize)]
struct JointInfo {
    name: String,
    parent: Option<u32>,
    /// glTF node index.
    node: Option<u32>,
}

/// Where an animation came from: a clip's glTF animations, or a state and the parameter
/// values it was baked at.
#[derive(Serialize)]
#[serde(untagged)]
enum SourceInfo {
    Clip { gltf_animations: Vec<u32> },
    State { state: u32, params: Vec<ParamInfo> },
}

#[derive(Serialize)]
struct ParamInfo {
    name: String,
    value: f32,
}

#[derive(Serialize)]
struct AnimInfo {
    name: String,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    param: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    param_value: Option<f32>,
    looping: bool,
    duration: f32,
    fps: f32,
    frames: u32,
    first_texel: u64,
    interpolation_error: f32,
    precision_error: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycle_motion: Option<[f32; 3]>,
    /// Metres per second.
    ground_speed: Option<f32>,
    /// Metres per second.
    foot_slide: Option<f32>,
    /// The baker locked its planted feet to `ground_speed`.
    feet_locked: bool,
    /// Why a looping animation has no ground speed (`META`'s `no_ground_speed`).
    no_ground_speed: Option<String>,
    source: Option<SourceInfo>,
    impostor: ImpostorFrames,
    events: Vec<EventInfo>,
    /// Union of the per-frame bounds: min then max.
    bounds: [[f32; 3]; 2],
}

#[derive(Serialize)]
struct EventInfo {
    name: String,
    time: f32,
}

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    part: u32,
    lod: u32,
    ratio: f32,
    error: f32,
    vertices: u32,
    triangles: u32,
    rigid: bool,
    base_color: [f32; 4],
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<u32>,
}

#[derive(Serialize)]
struct ImageInfo {
    width: u32,
    height: u32,
}

/// What animation `ai` of `f` records of its source; `None` when nothing.
fn source(f: &ThrongFile, ai: usize) -> Option<SourceInfo> {
    if let Some((state, params)) = f.state_source(ai) {
        return Some(SourceInfo::State {
            state,
            params: params
                .iter()
                .map(|p| ParamInfo {
                    name: f.str(p.name).to_string(),
                    value: p.value,
                })
                .collect(),
        });
    }
    let gltf = f.clip_sources(ai);
    (!gltf.is_empty()).then(|| SourceInfo::Clip {
        gltf_animations: gltf.to_vec(),
    })
}

fn report(f: &ThrongFile) -> Report {
    let c = f.container();
    let (major, minor) = c.version();
    let characters = f
        .characters()
        .iter()
        .enumerate()
        .map(|(ci, ch)| {
            let joints = &f.joints()[ch.first_joint as usize..][..ch.joint_count as usize];
            let anims = &f.anims()[ch.first_anim as usize..][..ch.anim_count as usize];
            let meshes =
                &f.meshes()[ch.first_mesh as usize..][..(ch.part_count * ch.lod_count) as usize];
            // A character without parts has no levels to list, whatever its lod_count says.
            let levels = if ch.part_count == 0 {
                0
            } else {
                ch.lod_count as usize
            };
            CharacterInfo {
                name: f.str(ch.name).to_string(),
                height: ch.height,
                facing_turns: f.facing_turns(ci),
                lod_joint_counts: (0..levels).map(|lod| f.lod_joint_count(ci, lod)).collect(),
                lod_joints: (0..levels)
                    .map(|lod| f.lod_joints(ci, lod).into_owned())
                    .collect(),
                impostor: f.impostor(ci).map(|r| ImpostorInfo {
                    views: r.views,
                    cell: r.cell,
                    frame_count: r.frame_count,
                    level: r.level,
                    centre: r.centre,
                    radius: r.radius,
                    first_pixel: r.first_pixel,
                }),
                joints: joints
                    .iter()
                    .enumerate()
                    .map(|(k, j)| JointInfo {
                        name: f.str(j.name).to_string(),
                        parent: u32::try_from(j.parent).ok(),
                        node: f.joint_node(ch.first_joint as usize + k),
                    })
                    .collect(),
                anims: anims
                    .iter()
                    .enumerate()
                    .map(|(k, a)| {
                        let ai = ch.first_anim as usize + k;
                        let state = a.kind == anim_kind::STATE;
                        let has_param = a.param.len > 0;
                        let bounds =
                            &f.bounds()[a.first_bounds as usize..][..a.frame_count as usize];
                        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
                        for b in bounds {
                            for k in 0..3 {
                                lo[k] = lo[k].min(b.min[k]);
                                hi[k] = hi[k].max(b.max[k]);
                            }
                        }
                        AnimInfo {
                            name: f.str(a.name).to_string(),
                            kind: if state { "state" } else { "clip" },
                            param: has_param.then(|| f.str(a.param).to_string()),
                            param_value: has_param.then_some(a.param_value),
                            looping: a.flags & anim_flags::LOOPING != 0,
                            duration: a.duration,
                            fps: a.fps,
                            frames: a.frame_count,
                            first_texel: a.first_texel,
                            interpolation_error: a.interpolation_error,
                            precision_error: a.precision_error,
                            cycle_motion: (a.flags & anim_flags::ROOT_MOTION != 0)
                                .then_some(a.cycle_motion),
                            ground_speed: f.ground_speed(ai),
                            foot_slide: f.foot_slide(ai),
                            feet_locked: f.feet_locked(ai),
                            no_ground_speed: f
                                .metadata()
                                .no_ground_speed
                                .iter()
                                .find(|n| usize::try_from(n.anim).is_ok_and(|n| n == ai))
                                .map(|n| n.why.clone()),
                            source: source(f, ai),
                            impostor: {
                                let i = f.impostor_anim(ai);
                                ImpostorFrames {
                                    first_frame: i.first_frame,
                                    frame_count: i.frame_count,
                                }
                            },
                            events: f.events()[a.first_event as usize..][..a.event_count as usize]
                                .iter()
                                .map(|e| EventInfo {
                                    name: f.str(e.name).to_string(),
                                    time: e.time,
                                })
                                .collect(),
                            bounds: [lo, hi],
                        }
                    })
                    .collect(),
                meshes: meshes
                    .iter()
                    .map(|m| MeshInfo {
                        name: f.str(m.name).to_string(),
                        part: m.part,
                        lod: m.lod,
                        ratio: m.ratio,
                        error: m.error,
                        vertices: m.vertex_count,
                        triangles: m.index_count / 3,
                        rigid: m.flags & mesh_flags::RIGID != 0,
                        base_color: m.base_color,
                        image: (m.image != NONE).then_some(m.image),
                    })
                    .collect(),
            }
        })
        .collect();
    Report {
        file: f.name().to_string(),
        version: format!("{major}.{minor}"),
        file_size: c.bytes().len(),
        sections: c
            .sections()
            .iter()
            .map(|s| SectionInfo {
                kind: String::from_utf8_lossy(&s.kind).into_owned(),
                offset: s.range.start,
                size: s.range.len(),
                align: s.align,
            })
            .collect(),
        texel_format: f.format().name(),
        texel_count: f.info().texel_count,
        max_joints: f.info().max_joints,
        characters,
        images: f
            .images()
            .iter()
            .map(|i| ImageInfo {
                width: i.width,
                height: i.height,
            })
            .collect(),
        metadata: f.metadata().clone(),
    }
}

/// A character's facing turn in words: how the baker turned it about +y.
fn facing(turns: u8) -> String {
    match turns % 4 {
        0 => "facing not turned".into(),
        // In the bake summary's words: three quarter turns are -90°.
        k => format!(
            "facing turned {} about +y ({k} quarter turn{})",
            ["90°", "180°", "-90°"][usize::from(k - 1)],
            if k == 1 { "" } else { "s" }
        ),
    }
}

/// A character's impostors in words: "9×9 views, 16 px cells, 144 frames from LOD 2,
/// 23,887,872 bytes", or "none".
fn impostors(i: Option<&ImpostorInfo>) -> String {
    let Some(i) = i else {
        return "none".into();
    };
    let bytes = u64::from(i.frame_count) * frame_bytes(i.views, i.cell);
    let digits = bytes.to_string();
    let mut grouped = String::new();
    for (k, d) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(d);
    }
    format!(
        "{v}×{v} views, {} px cells, {} frames from LOD {}, {grouped} bytes",
        i.cell,
        i.frame_count,
        i.level,
        v = i.views
    )
}

fn text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: throng format {}, {} bytes, {} {} texels, baked by {}",
        r.file, r.version, r.file_size, r.texel_count, r.texel_format, r.metadata.tool
    );
    let _ = writeln!(s, "precision: {}", r.metadata.precision);
    let _ = writeln!(s, "\nsections ({}):", r.sections.len());
    for sec in &r.sections {
        let _ = writeln!(
            s,
            "  {}  at {:>10}  {:>10} bytes  align {}",
            sec.kind, sec.offset, sec.size, sec.align
        );
    }
    for c in &r.characters {
        let _ = writeln!(
            s,
            "\ncharacter '{}': {} joints, height {:.3} m, {}",
            c.name,
            c.joints.len(),
            c.height,
            facing(c.facing_turns)
        );
        let _ = writeln!(
            s,
            "  {:<5} {:<22} {:>8} {:>7} {:>7} {:>9} {:>11}  {:>10} {:>10}  events",
            "kind",
            "name",
            "length",
            "frames",
            "fps",
            "speed m/s",
            "first texel",
            "interp err",
            "prec err",
        );
        for a in &c.anims {
            let name = match (&a.param, a.param_value) {
                (Some(p), Some(v)) => format!("{} {p}={v}", a.name),
                _ => a.name.clone(),
            };
            let _ = writeln!(
                s,
                "  {:<5} {:<22} {:>7.3}s {:>7} {:>7.2} {:>9} {:>11}  {:>10} {:>10}  {}{}{}",
                a.kind,
                name,
                a.duration,
                a.frames,
                a.fps,
                a.ground_speed
                    .map_or("-".to_string(), |v| format!("{v:.3}")),
                a.first_texel,
                length(a.interpolation_error),
                length(a.precision_error),
                a.events
                    .iter()
                    .map(|e| format!("{}@{:.3}", e.name, e.time))
                    .collect::<Vec<_>>()
                    .join(" "),
                if a.looping { "" } else { " (once)" },
                match a.cycle_motion {
                    Some(m) => format!(" root motion {:.3},{:.3} m per cycle", m[0], m[1]),
                    None => String::new(),
                }
            );
            if let Some(why) = &a.no_ground_speed {
                let _ = writeln!(s, "        no ground speed: {why}");
            }
        }
        let lods = c.meshes.iter().map(|m| m.lod + 1).max().unwrap_or(0);
        for lod in 0..lods {
            let level: Vec<&MeshInfo> = c.meshes.iter().filter(|m| m.lod == lod).collect();
            let _ = writeln!(
                s,
                "  LOD {lod} (ratio {}): {} parts, {} vertices, {} triangles, error {}, skins {} of {} joints",
                level.first().map_or(1.0, |m| m.ratio),
                level.len(),
                level.iter().map(|m| m.vertices).sum::<u32>(),
                level.iter().map(|m| m.triangles).sum::<u32>(),
                length(level.iter().map(|m| m.error).fold(0.0f32, f32::max)),
                c.lod_joint_counts
                    .get(lod as usize)
                    .copied()
                    .unwrap_or(c.joints.len()),
                c.joints.len()
            );
        }
        let _ = writeln!(s, "  impostors: {}", impostors(c.impostor.as_ref()));
    }
    let _ = writeln!(
        s,
        "\nbaked from {} ({} input files); budgets: f16 {}%, interpolation {}% of height",
        r.metadata.recipe_path,
        r.metadata.inputs.len(),
        r.metadata.precision_budget * 100.0,
        r.metadata.interpolation_budget * 100.0
    );
    s
}

/// Prints a `.throng` file's contents.
pub(super) fn run(path: &Path, json: bool) -> Result<()> {
    let f = ThrongFile::open(path)?;
    let r = report(&f);
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", text(&r));
    }
    Ok(())
}
