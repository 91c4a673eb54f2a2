//! The baked-file reader against damaged and hostile input: every flipped bit and every
//! truncation of a small file is an error; files with valid checksums but hostile tables (huge
//! counts, ranges past the end, parents out of order, broken UTF-8, NaN texels) get a typed
//! error naming the problem; the committed format 1.0 and 1.1 fixtures stay readable forever;
//! format 1.2's facing turns are checked (rules 40-41).
//! (The reader's fuzz and its saved crashing inputs are in tests/hostile/fuzz.rs.)

use crate::common;

use std::path::{Path, PathBuf};

use throng::bake::{BakeOptions, Recipe, bake};
use throng::format::records::{StrRef, anim_flags, ext_flags, kinds};
use throng::format::{Builder, Container, FormatError, TexelFormat, ThrongFile, Writer};

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub(crate) fn tiny_builder(tag: &str) -> Builder {
    bake(&common::tiny_recipe(tag), &BakeOptions::default())
        .unwrap()
        .builder
}

pub(crate) fn read(bytes: &[u8]) -> Result<ThrongFile, String> {
    ThrongFile::from_bytes(bytes, "x.throng").map_err(|e| e.to_string())
}

#[test]
fn the_tiny_file_reads_back() {
    let b = tiny_builder("tiny-ok");
    let f = read(&b.to_bytes().unwrap()).unwrap();
    assert_eq!(f.characters().len(), 1);
    // The clip, and the state at two paces.
    assert_eq!(f.anims().len(), 3);
    assert!(
        f.anims()
            .iter()
            .all(|a| a.flags & anim_flags::ROOT_MOTION != 0)
    );
    assert_eq!(
        f.events().len(),
        3,
        "the step once per cycle of each animation"
    );
}

#[test]
fn every_flipped_bit_and_every_truncation_is_an_error() {
    let bytes = tiny_builder("tiny-flip").to_bytes().unwrap();
    assert!(
        bytes.len() < 16_384,
        "keep the file small: {} bytes",
        bytes.len()
    );
    let mut b = bytes.clone();
    for i in 0..b.len() {
        for bit in 0..8 {
            b[i] ^= 1 << bit;
            assert!(
                read(&b).is_err(),
                "flipping bit {bit} of byte {i} went unnoticed"
            );
            b[i] ^= 1 << bit;
        }
    }
    for len in 0..bytes.len() {
        assert!(
            read(&bytes[..len]).is_err(),
            "truncation to {len} bytes was accepted"
        );
    }
    assert!(read(&bytes).is_ok());
}

/// The builder's tables as they are, not validated: the hostile file.
pub(crate) fn unchecked(b: &Builder) -> Vec<u8> {
    b.to_writer().unwrap().to_bytes()
}

/// Edits the builder, then expects reading to fail with `expected` in the message, and the
/// builder to refuse to write it in the same words (one validation, shared).
pub(crate) fn refused(tag: &str, expected: &str, edit: impl FnOnce(&mut Builder)) {
    let mut b = tiny_builder(tag);
    edit(&mut b);
    let e = read(&unchecked(&b))
        .err()
        .unwrap_or_else(|| panic!("{tag}: accepted; expected an error containing '{expected}'"));
    assert!(e.contains(expected), "{tag}: '{e}' lacks '{expected}'");
    assert!(e.starts_with("x.throng: "), "{e}");
    let w = b
        .to_bytes()
        .err()
        .unwrap_or_else(|| panic!("{tag}: the builder would write what the reader refuses"))
        .to_string();
    assert_eq!(
        w.strip_prefix("(in memory): not written: "),
        e.strip_prefix("x.throng: "),
        "{tag}"
    );
}

#[test]
fn hostile_tables_get_typed_errors() {
    refused("joints", "joints (1 to 65536", |b| {
        b.characters[0].joint_count = u32::MAX
    });
    refused("joints0", "0 joints", |b| b.characters[0].joint_count = 0);
    refused("anim-count", "run past the tables", |b| {
        b.characters[0].anim_count = u32::MAX
    });
    refused("mesh-count", "run past the tables", |b| {
        b.characters[0].lod_count = u32::MAX;
        b.characters[0].part_count = u32::MAX;
    });
    refused("parent-self", "is not an earlier joint", |b| {
        b.joints[0].parent = 0
    });
    refused("parent-later", "is not an earlier joint", |b| {
        b.joints[0].parent = 1
    });
    refused("parent-neg", "is not an earlier joint", |b| {
        b.joints[1].parent = -7
    });
    refused("ibm", "inverse bind matrix is not finite", |b| {
        b.joints[1].inverse_bind[5] = f32::NAN
    });
    refused("texel-range", "run past the", |b| {
        b.anims[0].first_texel = u64::MAX - 3
    });
    refused("frames", "run past the", |b| {
        b.anims[0].frame_count = u32::MAX
    });
    refused("no-frames", "no frames", |b| b.anims[0].frame_count = 0);
    refused("kind", "unknown kind 9", |b| b.anims[0].kind = 9);
    refused("flags", "unknown flags", |b| b.anims[0].flags |= 0x80);
    refused("duration", "must be finite", |b| {
        b.anims[0].duration = f32::INFINITY
    });
    refused("owner", "belongs to character 3", |b| {
        b.anims[1].character = 3
    });
    refused("events", "events from", |b| b.anims[0].event_count = 1000);
    refused("event-time", "within 0..", |b| b.events[0].time = 99.0);
    refused("motion", "root motion of", |b| {
        b.anims[0].first_motion = u32::MAX
    });
    refused("bounds", "bounds of", |b| {
        b.anims[0].first_bounds = u32::MAX - 1
    });
    refused("bounds-order", "min above max", |b| {
        b.bounds[0].min[1] = 1e9
    });
    refused("string", "lies outside the string table", |b| {
        b.anims[0].name = StrRef {
            offset: u32::MAX,
            len: 2,
        }
    });
    refused("utf8", "not valid UTF-8", |b| {
        let r = b.string("é");
        b.characters[0].name = StrRef {
            offset: r.offset,
            len: 1,
        };
    });
    refused("index", "is past its 3 vertices", |b| b.indices[1] = 3);
    refused("vertex-joint", "joint 2 does not exist", |b| {
        b.vertices[0].joints[0] = 2
    });
    refused("vertex-nan", "a value is not finite", |b| {
        b.vertices[2].normal[0] = f32::NAN
    });
    refused("mesh-vertices", "vertices from", |b| {
        b.meshes[0].vertex_count = 1 << 30
    });
    refused("triangles", "whole triangles", |b| {
        b.meshes[0].index_count = 2;
    });
    refused("image", "image 0 does not exist", |b| b.meshes[0].image = 0);
    refused("image-size", "do not fit", |b| {
        b.push_image(4, 4, &[0; 16]);
    });
    refused("placement", "its place says", |b| b.meshes[0].lod = 1);
    refused("nan-texel", "is not finite", |b| {
        b.push_texels(&[[0.0, f32::NAN, 0.0, 0.0]]);
    });
}

#[test]
fn hostile_1_1_tables_get_typed_errors() {
    refused("ext-flags", "unknown 1.1 flags 0x8", |b| {
        b.anim_ext[0].flags = 8
    });
    refused(
        "locked-no-speed",
        "feet locked without a ground speed",
        |b| b.anim_ext[0].flags = ext_flags::FEET_LOCKED,
    );
    refused("speed-nan", "must be finite and >= 0 when present", |b| {
        b.anim_ext[0].flags |= ext_flags::GROUND_SPEED;
        b.anim_ext[0].ground_speed = f32::NAN;
    });
    refused("slide-neg", "must be finite and >= 0 when present", |b| {
        b.anim_ext[1].flags |= ext_flags::FOOT_SLIDE;
        b.anim_ext[1].foot_slide = -0.5;
    });
    refused("speed-inf", "must be finite and >= 0 when present", |b| {
        b.anim_ext[2].flags |= ext_flags::GROUND_SPEED;
        b.anim_ext[2].ground_speed = f32::INFINITY;
    });
    refused("clip-state", "a clip cannot have a state", |b| {
        b.anim_ext[0].state = 0
    });
    refused(
        "state-gltf",
        "a state cannot have glTF animation sources",
        |b| {
            b.anim_ext[1].source_count = 1;
            b.anim_sources.push(0);
        },
    );
    refused(
        "param-range",
        "not right after the previous animation's",
        |b| b.anim_ext[1].first_param = u32::MAX,
    );
    refused("param-count", "run past the", |b| {
        b.anim_ext[2].param_count = u32::MAX
    });
    refused("param-extra", "but 'AGLT' holds 2 and 'APRM' 3", |b| {
        b.anim_sources.push(7);
        let name = b.params[0].name;
        b.params
            .push(throng::format::records::ParamRecord { name, value: 0.0 });
    });
    refused("param-nan", "parameter 0: value NaN is not finite", |b| {
        b.params[0].value = f32::NAN
    });
    refused("param-name", "parameter 0: string at", |b| {
        b.params[1].name.offset = u32::MAX
    });
    // The builder pads missing nodes and facts; a file whose tables disagree in length is
    // written by hand.
    let bytes = tiny_builder("jnod").to_bytes().unwrap();
    let c = Container::from_bytes(&bytes, "x").unwrap();
    let mut w = Writer::new();
    for s in c.sections() {
        let data = &c.bytes()[s.range.clone()];
        let data = if s.kind == kinds::JNOD {
            &data[..4]
        } else {
            data
        };
        w.add(s.kind, s.align, data.to_vec()).unwrap();
    }
    let e = read(&w.to_bytes()).err().unwrap();
    assert!(
        e.contains("'JNOD' holds 1 joint nodes and 'AEXT' 3 animation records, but the file has 2 joints and 3 animations"),
        "{e}"
    );
}

/// The bytes of `bytes` laid out again with section `kind`'s data made by `data` (`None`:
/// the section left out), checksums and offsets made anew.
pub(crate) fn with_section(
    bytes: &[u8],
    kind: [u8; 4],
    data: impl Fn(&[u8]) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let c = Container::from_bytes(bytes, "x").unwrap();
    let mut w = Writer::new();
    for s in c.sections() {
        let old = &c.bytes()[s.range.clone()];
        let new = if s.kind == kind {
            data(old)
        } else {
            Some(old.to_vec())
        };
        if let Some(new) = new {
            w.add(s.kind, s.align, new).unwrap();
        }
    }
    w.to_bytes()
}

#[test]
fn hostile_1_2_tables_get_typed_errors() {
    // Rule 41, through the builder and the reader alike (the same message).
    refused(
        "turns-4",
        "character 0 'tiny': facing turn of 4 quarter turns, expected 0 to 3",
        |b| b.facing_turns = vec![4],
    );
    let mut b = tiny_builder("turns-many");
    b.facing_turns = vec![1, 2];
    let e = b.to_bytes().err().unwrap().to_string();
    assert!(e.contains("'CEXT': 2 entries for 1 characters"), "{e}");
    // Rule 40: a 1.2 file without CEXT, with a record too many, with a cut record.
    let bytes = tiny_builder("cext").to_bytes().unwrap();
    let e = read(&with_section(&bytes, kinds::CEXT, |_| None))
        .err()
        .unwrap();
    assert!(
        e.contains("no 'CEXT' section (every file of format 1.2 or later has one)"),
        "{e}"
    );
    let e = read(&with_section(&bytes, kinds::CEXT, |d| {
        Some([d, d].concat())
    }))
    .err()
    .unwrap();
    assert!(
        e.contains("'CEXT' holds 2 character records, but the file has 1 characters"),
        "{e}"
    );
    let e = read(&with_section(&bytes, kinds::CEXT, |d| {
        Some(d[..12].to_vec())
    }))
    .err()
    .unwrap();
    assert!(
        e.contains("section 'CEXT': 12 bytes is not a whole number of 16-byte records"),
        "{e}"
    );
    // Turns 0 to 3 read back as written; four in a 1.1 file are skipped with the section.
    for k in 0..4u8 {
        let mut b = tiny_builder(&format!("turns-{k}"));
        b.facing_turns = vec![k];
        let f = read(&b.to_bytes().unwrap()).unwrap();
        assert_eq!((f.facing_turns(0), f.facing_turns(1)), (k, 0));
    }
    let mut b = tiny_builder("turns-1-1");
    b.facing_turns = vec![4];
    let mut old = b.to_writer().unwrap().to_bytes();
    old[10..12].copy_from_slice(&1u16.to_le_bytes());
    common::reseal(&mut old);
    assert_eq!(read(&old).unwrap().facing_turns(0), 0);
}

#[test]
fn the_baker_records_nodes_speeds_and_sources() {
    let f = read(&tiny_builder("tiny-1-1").to_bytes().unwrap()).unwrap();
    assert_eq!(f.container().version(), (1, 4));
    // It has root motion: never turned.
    assert_eq!(f.facing_turns(0), 0);
    // The glTF of common::one_channel_model: node 0 is the mesh, 1 the root, 2 its child.
    assert_eq!((f.joint_node(0), f.joint_node(1)), (Some(1), Some(2)));
    // Every animation has root motion, 2 m per 1 s cycle of the clip, which the state plays
    // at paces 1 and 2. f32 root motion sampled at 4 frames/s: within 1e-4 m/s.
    for (a, want) in [(0, 2.0), (1, 2.0), (2, 4.0)] {
        let got = f.ground_speed(a).unwrap();
        assert!((got - want).abs() < 1e-4, "animation {a}: {got}");
        assert_eq!(
            f.foot_slide(a),
            None,
            "root motion: the feet are not measured"
        );
    }
    // The clip came from the model's glTF animation 0.
    assert_eq!(f.clip_sources(0), &[0]);
    assert!(f.state_source(0).is_none());
    for (a, pace) in [(1, 1.0), (2, 2.0)] {
        let (state, params) = f.state_source(a).unwrap();
        let params: Vec<(&str, f32)> = params.iter().map(|p| (f.str(p.name), p.value)).collect();
        assert_eq!((state, params), (0, vec![("pace", pace)]));
    }
}

#[test]
fn a_1_0_file_skips_the_1_1_sections_and_reads_them_as_absent() {
    // A 1.2 bake relabelled 1.0: format 1.0 does not define the new kinds, so they are
    // skipped, whatever they hold.
    let mut b = tiny_builder("relabel").to_bytes().unwrap();
    b[10..12].copy_from_slice(&0u16.to_le_bytes());
    common::reseal(&mut b);
    let f = read(&b).unwrap();
    assert_eq!(f.container().version(), (1, 0));
    assert!(f.anim_ext(0).is_none());
    assert_eq!((f.joint_node(0), f.ground_speed(0)), (None, None));
}

#[test]
fn nan_f16_texels_and_a_bad_info_section_are_refused() {
    let mut recipe = common::tiny_recipe("tiny-f16");
    recipe.precision = throng::bake::PrecisionChoice::F16;
    let mut b = bake(
        &recipe,
        &BakeOptions {
            force: true,
            progress: None,
            ..Default::default()
        },
    )
    .unwrap()
    .builder;
    assert_eq!(b.format(), TexelFormat::Rgba16F);
    b.push_texels(&[[f32::INFINITY, 0.0, 0.0, 0.0]]);
    assert!(b.to_bytes().is_err());
    let e = read(&unchecked(&b)).err().unwrap();
    assert!(e.contains("is not finite"), "{e}");

    // A texel count that disagrees with the texel bytes, and an unknown format code.
    let bytes = tiny_builder("tiny-info").to_bytes().unwrap();
    let c = Container::from_bytes(&bytes, "x").unwrap();
    let info = c
        .sections()
        .iter()
        .find(|s| s.kind == kinds::INFO)
        .unwrap()
        .range
        .start;
    for (at, value, expected) in [
        (
            info + 8,
            u64::MAX.to_le_bytes().to_vec(),
            "texels, but section 'TEXL' is",
        ),
        (info, 7u32.to_le_bytes().to_vec(), "unknown texel format 7"),
        (
            info + 4,
            9u32.to_le_bytes().to_vec(),
            "INFO says the largest skeleton has 9",
        ),
    ] {
        let mut b = bytes.clone();
        b[at..at + value.len()].copy_from_slice(&value);
        common::reseal(&mut b);
        let e = read(&b).err().unwrap();
        assert!(e.contains(expected), "'{e}' lacks '{expected}'");
    }
}

#[test]
fn missing_sections_and_bad_metadata_are_refused() {
    let b = tiny_builder("tiny-missing");
    let full = Container::from_bytes(&b.to_bytes().unwrap(), "x").unwrap();
    for skip in [
        kinds::INFO,
        kinds::ANIM,
        kinds::TEXL,
        kinds::META,
        kinds::JNOD,
        kinds::APRM,
    ] {
        let mut w = Writer::new();
        for s in full.sections().iter().filter(|s| s.kind != skip) {
            w.add(s.kind, s.align, full.bytes()[s.range.clone()].to_vec())
                .unwrap();
        }
        let e = read(&w.to_bytes()).err().unwrap();
        let name = String::from_utf8_lossy(&skip).into_owned();
        assert!(e.contains(&format!("no '{name}' section")), "{e}");
    }
    // The file with its META replaced by `text`.
    let with_meta = |text: &str| {
        let mut w = Writer::new();
        for s in full.sections() {
            let data = if s.kind == kinds::META {
                text.as_bytes().to_vec()
            } else {
                full.bytes()[s.range.clone()].to_vec()
            };
            w.add(s.kind, s.align, data).unwrap();
        }
        w.to_bytes()
    };
    let e = read(&with_meta("{\"tool\": 3}")).err().unwrap();
    assert!(
        e.contains("section 'META' is not valid bake metadata"),
        "{e}"
    );
    // A key twice, at the top or inside an input, is ambiguous: refused, not resolved.
    let meta = serde_json::to_string(&b.metadata).unwrap();
    let twice = meta.replacen('{', "{\"tool\": \"other\",", 1);
    let input_twice = meta.replacen("\"path\":", "\"bytes\": 1, \"path\":", 1);
    for (text, key) in [(twice, "tool"), (input_twice, "bytes")] {
        let e = read(&with_meta(&text)).err().unwrap();
        assert!(
            e.contains(&format!("the key \"{key}\" appears twice in one object")),
            "{e}"
        );
    }
    // The one optional key, `no_ground_speed`: read when present, refused when malformed.
    let reasons = |list: &str| meta.replacen('{', &format!("{{\"no_ground_speed\": {list},"), 1);
    let f = read(&with_meta(&reasons(
        "[{\"anim\": 0, \"why\": \"a foot never lifts\"}]",
    )))
    .unwrap();
    let listed = &f.metadata().no_ground_speed;
    assert_eq!(
        (listed.len(), listed[0].why.as_str()),
        (1, "a foot never lifts")
    );
    for bad in [
        "{}",
        "[{\"anim\": 0}]",
        "[{\"anim\": -1, \"why\": \"x\"}]",
        "[{\"anim\": 4294967296, \"why\": \"x\"}]",
    ] {
        let e = read(&with_meta(&reasons(bad))).err().unwrap();
        assert!(
            e.contains("section 'META' is not valid bake metadata"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn the_format_1_0_fixture_stays_readable() {
    // Written by throng before format 1.1 (the tiny recipe, baked as the 1.1 fixture is
    // below); this build writes 1.1, so it cannot be made again: it must stay.
    let path = fixtures().join("format-1.0.throng");
    let f = ThrongFile::open(&path)
        .unwrap_or_else(|e| panic!("{e} (the committed 1.0 fixture must stay)"));
    assert_eq!(f.container().version(), (1, 0));
    // Nothing of format 1.1 is recorded.
    assert!((0..f.anims().len()).all(|a| f.anim_ext(a).is_none() && f.ground_speed(a).is_none()));
    assert!((0..f.joints().len()).all(|j| f.joint_node(j).is_none()));
    assert_eq!(f.format(), TexelFormat::Rgba32F);
    assert_eq!(f.characters().len(), 1);
    let ch = &f.characters()[0];
    assert_eq!(f.str(ch.name), "tiny");
    let joints: Vec<(&str, i32)> = f
        .joints()
        .iter()
        .map(|j| (f.str(j.name), j.parent))
        .collect();
    assert_eq!(joints, [("root", -1), ("child", 0)]);
    let anims: Vec<(&str, u32, f32)> = f
        .anims()
        .iter()
        .map(|a| (f.str(a.name), a.frame_count, a.param_value))
        .collect();
    assert_eq!(anims, [("test", 4, 0.0), ("go", 4, 1.0), ("go", 2, 2.0)]);
    // The clip travels 2 m per second along +x: root motion 0.5 m per frame at 4 frames/s.
    let clip = &f.anims()[0];
    for k in 0..4 {
        let m = &f.motion()[(clip.first_motion + k) as usize];
        assert!((m.x - 0.5 * k as f32).abs() < 1e-4, "{m:?}");
    }
    assert_eq!(f.str(f.events()[0].name), "step");
    // Every texel is a row of an affine matrix whose 3x3 part is a rotation (the clip only
    // translates): rows of unit length. Tolerance: f32 rounding of the pipeline.
    let t = f.texels();
    for i in 0..t.len() {
        let r = t.get(i);
        let len = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-5, "texel {i}: {r:?}");
    }
    let (v, idx) = f.mesh_data(0);
    assert_eq!((v.len(), idx.len()), (3, 3));
    assert!(matches!(
        ThrongFile::from_bytes(&std::fs::read(&path).unwrap()[..100], "cut"),
        Err(FormatError::Size { .. })
    ));
}

#[test]
fn the_format_1_2_fixture_stays_readable() {
    // Written by throng before format 1.3 (the tiny recipe, baked); this build writes 1.3, so
    // it cannot be made again: it must stay.
    let path = fixtures().join("format-1.2.throng");
    let f = ThrongFile::open(&path)
        .unwrap_or_else(|e| panic!("{e} (the committed 1.2 fixture must stay)"));
    assert_eq!(f.container().version(), (1, 2));
    // Nothing of format 1.3 is recorded: every level keeps every joint.
    let ch = &f.characters()[0];
    for lod in 0..ch.lod_count as usize {
        assert_eq!(f.lod_joints(0, lod).as_ref(), [0, 1]);
        assert_eq!(f.lod_joint_count(0, lod), 2);
    }
    // The tiny character has root motion: it keeps its facing, recorded as 0.
    assert_eq!(f.facing_turns(0), 0);
    assert!(
        f.container()
            .section(kinds::CEXT)
            .is_some_and(|d| d.len() == 16)
    );
    // The 1.1 facts are there as in the 1.1 fixture.
    assert_eq!((f.joint_node(0), f.joint_node(1)), (Some(1), Some(2)));
    assert!(f.clip_sources(0) == [0] && f.state_source(0).is_none());
}

#[test]
fn the_format_1_1_fixture_stays_readable() {
    // Written by throng before format 1.2 (the tiny recipe, baked); this build writes 1.2, so
    // it cannot be made again: it must stay.
    let path = fixtures().join("format-1.1.throng");
    let f = ThrongFile::open(&path)
        .unwrap_or_else(|e| panic!("{e} (the committed 1.1 fixture must stay)"));
    assert_eq!(f.container().version(), (1, 1));
    // Nothing of format 1.2 is recorded: no facing turn.
    assert_eq!(f.facing_turns(0), 0);
    let joints: Vec<(&str, Option<u32>)> = (0..f.joints().len())
        .map(|j| (f.str(f.joints()[j].name), f.joint_node(j)))
        .collect();
    assert_eq!(joints, [("root", Some(1)), ("child", Some(2))]);
    // Ground speeds from root motion: 2 m per 1 s cycle, the state at paces 1 and 2; f32
    // root motion sampled at 4 frames/s: within 1e-4 m/s.
    let speeds: Vec<f32> = (0..3).map(|a| f.ground_speed(a).unwrap()).collect();
    for (got, want) in speeds.iter().zip([2.0, 2.0, 4.0]) {
        assert!((got - want).abs() < 1e-4, "{speeds:?}");
    }
    assert!((0..3).all(|a| f.foot_slide(a).is_none()));
    // The clip came from glTF animation 0; it is no state.
    assert!(f.clip_sources(0) == [0] && f.state_source(0).is_none());
    let (state, params) = f.state_source(2).unwrap();
    assert_eq!(
        (state, f.str(params[0].name), params[0].value),
        (0, "pace", 2.0)
    );
}

#[test]
fn a_bare_fox_records_its_nodes_and_stands_with_survey() {
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let mut recipe = Recipe::for_model(&fox, Path::new("unused.throng"));
    // A low rate keeps the debug-build bake short; nodes and sources do not depend on it.
    recipe.characters[0].fps = throng::bake::Rate::Fixed(5.0);
    let f = read(
        &bake(&recipe, &BakeOptions::default())
            .unwrap()
            .builder
            .to_bytes()
            .unwrap(),
    )
    .unwrap();
    let model = throng::import::load(&fox, &throng::import::ImportOptions::default()).unwrap();
    let nodes: Vec<Option<u32>> = (0..f.joints().len()).map(|j| f.joint_node(j)).collect();
    let expected: Vec<Option<u32>> = model.joint_nodes.iter().map(|n| Some(*n as u32)).collect();
    assert_eq!(nodes, expected);
    // A bare model: no states; its clips move neither by root motion nor by a parameter, so
    // no ground speed is known yet, and the crowd stands with Survey.
    assert!((0..f.anims().len()).all(|a| f.state_source(a).is_none()));
    let p = throng::crowd::palette::Palette::new(&f, &Default::default()).unwrap();
    let idle = p.characters()[0].idle.unwrap();
    assert_eq!(f.str(f.anims()[idle as usize].name), "Survey");
}
