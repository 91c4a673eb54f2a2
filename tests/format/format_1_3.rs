//! Format 1.3, skeleton LOD (`JLOD`): the committed 1.3 fixture, what the builder and reader
//! accept and refuse (reading rules 42-43, one validation for both), and older files read as
//! keeping every joint.

use crate::common;
use crate::format_baked::{fixtures, read, refused, tiny_builder, unchecked, with_section};

use throng::bake::{BakeOptions, bake};
use throng::format::ThrongFile;
use throng::format::records::{MeshRecord, kinds};

#[test]
fn the_format_1_3_fixture_stays_readable() {
    // THRONG_BLESS=1 bakes the tiny recipe into it (only if it was lost: a committed fixture
    // must stay readable by every later build).
    let path = fixtures().join("format-1.3.throng");
    if std::env::var("THRONG_BLESS").is_ok_and(|v| v == "1") {
        let mut recipe = common::tiny_recipe("fixture-1-3");
        recipe.output = path.clone();
        bake(&recipe, &BakeOptions::default())
            .unwrap()
            .builder
            .write(&path)
            .unwrap();
    }
    let f = ThrongFile::open(&path).unwrap_or_else(|e| {
        panic!("{e} (the committed fixture must stay; THRONG_BLESS=1 recreates it only if lost)")
    });
    assert_eq!(f.container().version(), (1, 3));
    let ch = &f.characters()[0];
    // Two joints per level, every level recorded.
    assert_eq!(
        f.container().section(kinds::JLOD).map(<[u8]>::len),
        Some(4 * 2 * ch.lod_count as usize)
    );
    assert_eq!(f.lod_joints(0, 0).as_ref(), [0, 1]);
    // The 1.2 and 1.1 facts are there as in their fixtures.
    assert_eq!(f.facing_turns(0), 0);
    assert_eq!((f.joint_node(0), f.joint_node(1)), (Some(1), Some(2)));
}

#[test]
fn skeleton_lods_are_written_and_read_back() {
    // The tiny recipe asking for a far level. Its one triangle has nothing to simplify, so
    // the bake stores LOD 0 alone (a level must save a tenth of the triangles); a copy of it
    // stands for the far level.
    let mut recipe = common::tiny_recipe("jlod-written");
    recipe.lods = vec![1.0, 0.5];
    let mut b = bake(&recipe, &BakeOptions::default()).unwrap().builder;
    assert_eq!(
        (b.characters[0].lod_count, b.characters[0].part_count),
        (1, 1)
    );
    let far = MeshRecord {
        lod: 1,
        ..b.meshes[0]
    };
    b.meshes.push(far);
    b.characters[0].lod_count = 2;
    let lods = b.characters[0].lod_count as usize;
    // The child drawn with the root at the last level.
    let mut map: Vec<u32> = (0..lods).flat_map(|_| [0, 1]).collect();
    map[2 * (lods - 1) + 1] = 0;
    b.lod_joints = vec![map];
    let f = read(&b.to_bytes().unwrap()).unwrap();
    assert_eq!(f.lod_joints(0, lods - 1).as_ref(), [0, 0]);
    assert_eq!(f.lod_joint_count(0, lods - 1), 1);
    assert_eq!(f.lod_joint_count(0, 0), 2);
    // Past the levels and the characters: nothing.
    assert!(f.lod_joints(0, lods).is_empty() && f.lod_joints(1, 0).is_empty());
    assert_eq!(f.lod_joint_count(1, 0), 0);
    // A 1.2 file's JLOD is skipped with the section, whatever it holds.
    b.lod_joints = vec![vec![1; 2 * lods]];
    let mut old = unchecked(&b);
    old[10..12].copy_from_slice(&2u16.to_le_bytes());
    common::reseal(&mut old);
    let f = read(&old).unwrap();
    assert_eq!(f.lod_joints(0, lods - 1).as_ref(), [0, 1]);
}

#[test]
fn hostile_1_3_tables_get_typed_errors() {
    // Rule 43, through the builder and the reader alike (the same message).
    refused(
        "jlod-root",
        "character 0 'tiny': LOD 0 draws joint 0 with joint 1, neither itself nor what its parent is drawn with (it has none)",
        |b| {
            let lods = b.characters[0].lod_count as usize;
            b.lod_joints = vec![(0..lods).flat_map(|_| [1, 1]).collect()];
        },
    );
    refused(
        "jlod-past",
        "LOD 0 draws joint 1 with joint 7, neither itself nor what its parent is drawn with (0)",
        |b| {
            let lods = b.characters[0].lod_count as usize;
            b.lod_joints = vec![(0..lods).flat_map(|_| [0, 7]).collect()];
        },
    );
    // Rule 42 for what the builder was given.
    refused(
        "jlod-long",
        "'JLOD' holds 3 entries, but the characters' LOD levels times their joints are 2",
        |b| b.lod_joints = vec![vec![0, 1, 0]],
    );
    let mut b = tiny_builder("jlod-many");
    b.lod_joints = vec![vec![0, 1], vec![0, 1]];
    let e = b.to_bytes().err().unwrap().to_string();
    assert!(e.contains("'JLOD': 2 entries for 1 characters"), "{e}");
    // Rule 42: a 1.3 file without JLOD, with an entry too many, with a cut entry.
    let bytes = tiny_builder("jlod").to_bytes().unwrap();
    let e = read(&with_section(&bytes, kinds::JLOD, |_| None))
        .err()
        .unwrap();
    assert!(
        e.contains("no 'JLOD' section (every file of format 1.3 or later has one)"),
        "{e}"
    );
    let e = read(&with_section(&bytes, kinds::JLOD, |d| {
        Some([d, &[0, 0, 0, 0]].concat())
    }))
    .err()
    .unwrap();
    assert!(
        e.contains("'JLOD' holds")
            && e.contains("but the characters' LOD levels times their joints are"),
        "{e}"
    );
    let e = read(&with_section(&bytes, kinds::JLOD, |d| {
        Some(d[..d.len() - 2].to_vec())
    }))
    .err()
    .unwrap();
    assert!(
        e.contains("is not a whole number of 4-byte skeleton LOD entries"),
        "{e}"
    );
}
