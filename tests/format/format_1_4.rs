//! Format 1.4, animated impostors (`IMPO`, `IMPA`, `IMPX`): the committed 1.4 fixture, every
//! field written by the builder and read back, what the builder and reader accept and refuse
//! (reading rules 44-47, one validation for both), and older files read as having none.

use crate::common;
use crate::format_baked::{fixtures, read, refused, tiny_builder, unchecked, with_section};

use throng::bake::{BakeOptions, bake};
use throng::format::impostor::frame_bytes;
use throng::format::records::{ImpostorAnimRecord, ImpostorRecord, anim_flags, kinds};
use throng::format::{Builder, ThrongFile};

/// Views along a side and cell size of the atlas the tests give the tiny character: the
/// smallest grid, 2 px cells, so a frame is 2 × 36 × 4 = 288 bytes.
const VIEWS: u32 = 3;
const CELL: u32 = 2;

/// Gives `b`'s one character a small atlas: each animation 2 frames (3 for the first), one
/// after the other, after 64 bytes that belong to no frame, and pixels no two frames share.
fn with_impostors(b: &mut Builder) {
    let counts: Vec<u32> = (0..b.anims.len() as u32)
        .map(|a| if a == 0 { 3 } else { 2 })
        .collect();
    let mut first = 0;
    b.impostor_anims = counts
        .iter()
        .map(|&n| {
            first += n;
            ImpostorAnimRecord {
                first_frame: first - n,
                frame_count: n,
            }
        })
        .collect();
    b.impostors = vec![ImpostorRecord {
        views: VIEWS,
        cell: CELL,
        frame_count: first,
        level: 0,
        centre: [0.25, 0.5, -0.125],
        radius: 0.75,
        first_pixel: 64,
        reserved: [0; 2],
    }];
    let len = 64 + u64::from(first) * frame_bytes(VIEWS, CELL);
    b.impostor_pixels = (0..len).map(|i| (i * 37 % 251) as u8).collect();
}

fn tiny_with_impostors(tag: &str) -> Builder {
    let mut b = tiny_builder(tag);
    with_impostors(&mut b);
    b
}

#[test]
fn the_format_1_4_fixture_stays_readable() {
    // THRONG_BLESS=1 bakes the tiny recipe into it, with the small atlas of `with_impostors`
    // (the baker draws none yet), only if it was lost: a committed fixture must stay readable
    // by every later build.
    let path = fixtures().join("format-1.4.throng");
    if std::env::var("THRONG_BLESS").is_ok_and(|v| v == "1") {
        let mut recipe = common::tiny_recipe("fixture-1-4");
        recipe.output = path.clone();
        let mut b = bake(&recipe, &BakeOptions::default()).unwrap().builder;
        with_impostors(&mut b);
        b.write(&path).unwrap();
    }
    let f = ThrongFile::open(&path).unwrap_or_else(|e| {
        panic!("{e} (the committed fixture must stay; THRONG_BLESS=1 recreates it only if lost)")
    });
    assert_eq!(f.container().version(), (1, 4));
    let r = f.impostor(0).expect("the fixture has impostors");
    assert_eq!(
        (r.views, r.cell, r.frame_count, r.first_pixel),
        (3, 2, 7, 64)
    );
    assert_eq!(f.impostor_bytes(), 64 + 7 * 288);
    assert_eq!(f.impostor_frame_pixels(0, 6).map(<[u8]>::len), Some(288));
    // The 1.3, 1.2 and 1.1 facts are there as in their fixtures.
    assert_eq!(f.lod_joints(0, 0).as_ref(), [0, 1]);
    assert_eq!(f.facing_turns(0), 0);
    assert_eq!((f.joint_node(0), f.joint_node(1)), (Some(1), Some(2)));
}

#[test]
fn impostors_are_written_and_read_back() {
    let b = tiny_with_impostors("impo-written");
    let f = read(&b.to_bytes().unwrap()).unwrap();
    assert_eq!(f.impostor(0), Some(&b.impostors[0]));
    for (a, want) in b.impostor_anims.iter().enumerate() {
        assert_eq!(f.impostor_anim(a), *want, "animation {a}");
    }
    assert_eq!(f.impostor_bytes(), b.impostor_pixels.len() as u64);
    let size = frame_bytes(VIEWS, CELL) as usize;
    for k in 0..b.impostors[0].frame_count {
        let at = 64 + k as usize * size;
        assert_eq!(
            f.impostor_frame_pixels(0, k),
            Some(&b.impostor_pixels[at..at + size]),
            "frame {k}"
        );
    }
    // Past the frames, the characters and the animations: nothing.
    assert_eq!(f.impostor_frame_pixels(0, b.impostors[0].frame_count), None);
    assert_eq!(f.impostor(1), None);
    assert_eq!(f.impostor_frame_pixels(1, 0), None);
    assert_eq!(
        f.impostor_anim(b.anims.len()),
        ImpostorAnimRecord::default()
    );
    // The sections: one record per character and per animation, the pixels as given.
    let c = f.container();
    assert_eq!(c.section(kinds::IMPO).map(<[u8]>::len), Some(48));
    assert_eq!(
        c.section(kinds::IMPA).map(<[u8]>::len),
        Some(8 * b.anims.len())
    );
    assert_eq!(c.section(kinds::IMPX), Some(&b.impostor_pixels[..]));
}

#[test]
fn files_without_impostors_read_as_having_none() {
    // A 1.4 file without: views 0, every animation 0 frames, IMPX empty.
    let b = tiny_builder("impo-none");
    let bytes = b.to_bytes().unwrap();
    let f = read(&bytes).unwrap();
    assert_eq!(f.impostor(0), None);
    assert_eq!(f.impostor_anim(0), ImpostorAnimRecord::default());
    assert_eq!(f.impostor_bytes(), 0);
    assert_eq!(f.container().section(kinds::IMPO), Some(&[0u8; 48][..]));
    // A 1.3 file's impostor sections are skipped, whatever they hold.
    let mut old = unchecked(&tiny_with_impostors("impo-old"));
    old[10..12].copy_from_slice(&3u16.to_le_bytes());
    common::reseal(&mut old);
    let f = read(&old).unwrap();
    assert_eq!(f.container().version(), (1, 3));
    assert_eq!(f.impostor(0), None);
    assert_eq!(f.impostor_anim(0), ImpostorAnimRecord::default());
    assert_eq!(
        (f.impostor_bytes(), f.impostor_frame_pixels(0, 0)),
        (0, None)
    );
    // And the committed 1.3 fixture has none.
    let f = ThrongFile::open(&fixtures().join("format-1.3.throng")).unwrap();
    assert_eq!((f.impostor(0), f.impostor_bytes()), (None, 0));
}

/// An edit of an impostor record.
type Edit = fn(&mut ImpostorRecord);

/// `refused` on the tiny builder given the small atlas, then `edit`.
fn refused_with(tag: &str, expected: &str, edit: impl FnOnce(&mut Builder)) {
    refused(tag, expected, |b| {
        with_impostors(b);
        edit(b);
    });
}

#[test]
fn hostile_impostor_records_get_typed_errors() {
    let who = "character 0 'tiny'";
    // Rule 45, without impostors.
    refused(
        "impo-none-cell",
        &format!("{who}: no impostors (views 0), but cell 4, 0 frames, LOD 0 and first pixel 0"),
        |b| {
            b.impostors = vec![ImpostorRecord {
                cell: 4,
                ..ImpostorRecord::default()
            }]
        },
    );
    refused(
        "impo-none-anim",
        "but its character has no impostors (views 0)",
        |b| {
            b.impostor_anims = vec![ImpostorAnimRecord {
                first_frame: 0,
                frame_count: 1,
            }]
        },
    );
    // Rule 45, with impostors.
    // (The atlas side rule, views × cell <= 16384, is implied by these two: 33 × 256 = 8448.)
    let cases: [(&str, String, Edit); 8] = [
        (
            "views-even",
            format!("{who}: 4 impostor views per side, expected an odd number from 3 to 33"),
            |r| r.views = 4,
        ),
        ("views-35", "35 impostor views per side".into(), |r| {
            r.views = 35
        }),
        (
            "cell-0",
            format!("{who}: impostor cells of 0 pixels, expected 1 to 256"),
            |r| r.cell = 0,
        ),
        (
            "radius",
            "impostor centre [0.25, 0.5, -0.125] and radius 0 must be finite, the radius > 0"
                .into(),
            |r| r.radius = 0.0,
        ),
        ("centre", "impostor centre [NaN, 0.5, -0.125]".into(), |r| {
            r.centre[0] = f32::NAN
        }),
        ("frames-0", format!("{who}: impostors with 0 frames"), |r| {
            r.frame_count = 0
        }),
        (
            "level",
            format!("{who}: impostors drawn from LOD 1, but it has 1 LOD levels"),
            |r| r.level = 1,
        ),
        (
            "reserved",
            format!("{who}: impostor reserved fields [0, 9] are not zero"),
            |r| r.reserved[1] = 9,
        ),
    ];
    for (tag, expected, edit) in cases {
        refused_with(&format!("impo-{tag}"), &expected, |b| {
            edit(&mut b.impostors[0])
        });
    }
}

#[test]
fn hostile_impostor_frames_and_pixels_get_typed_errors() {
    let who = "character 0 'tiny'";
    // Rule 46: too few frames for a looping and for a clamped animation, and past the
    // character's frames (first + count in 64 bits: no wrap-around).
    refused_with(
        "impa-loop-0",
        "impostor frames, a looping animation needs at least 1",
        |b| {
            b.anims[0].flags |= anim_flags::LOOPING;
            b.impostor_anims[0].frame_count = 0;
        },
    );
    refused_with(
        "impa-clamped-1",
        ": 1 impostor frames, a clamped animation needs at least 2",
        |b| {
            b.anims[0].flags &= !anim_flags::LOOPING;
            b.impostor_anims[0].frame_count = 1;
        },
    );
    refused_with(
        "impa-past",
        &format!("{who}, animation 1 'go': impostor frames 3+5 run past its character's 7"),
        |b| b.impostor_anims[1].frame_count = 5,
    );
    refused_with(
        "impa-wrap",
        &format!("impostor frames {}+2 run past its character's 7", u32::MAX),
        |b| b.impostor_anims[1].first_frame = u32::MAX,
    );
    // Rule 47: an unaligned start, a frame too many for the pixels, and sizes whose product
    // or sum overflow 64 bits.
    refused_with(
        "impx-align",
        &format!("{who}: impostor pixels start at byte 66, not a multiple of 4"),
        |b| b.impostors[0].first_pixel = 66,
    );
    let len = 64 + 7 * 288;
    refused_with(
        "impx-short",
        &format!(
            "{who}: 7 impostor frames of 288 bytes from byte 64 run past the {} bytes of 'IMPX'",
            len - 4
        ),
        |b| b.impostor_pixels.truncate(len - 4),
    );
    refused_with("impx-sum", "run past the 2080 bytes of 'IMPX'", |b| {
        b.impostors[0].first_pixel = u64::MAX - 3
    });
    refused_with("impx-product", "run past the 2080 bytes of 'IMPX'", |b| {
        (b.impostors[0].views, b.impostors[0].cell) = (33, 256);
        b.impostors[0].frame_count = u32::MAX;
        b.impostor_anims[1].frame_count = u32::MAX - 3;
    });
}

#[test]
fn hostile_1_4_sections_get_typed_errors() {
    // Rule 44 for what the builder was given.
    let mut b = tiny_builder("impo-many");
    b.impostors = vec![ImpostorRecord::default(); 2];
    let e = b.to_bytes().err().unwrap().to_string();
    assert!(e.contains("'IMPO': 2 entries for 1 characters"), "{e}");
    let mut b = tiny_builder("impa-many");
    b.impostor_anims = vec![ImpostorAnimRecord::default(); 4];
    let e = b.to_bytes().err().unwrap().to_string();
    assert!(e.contains("'IMPA': 4 entries for 3 animations"), "{e}");
    // Rule 44: a 1.4 file without each section, with a record too many, with a cut record.
    let bytes = tiny_with_impostors("impo-sections").to_bytes().unwrap();
    for kind in [kinds::IMPO, kinds::IMPA, kinds::IMPX] {
        let e = read(&with_section(&bytes, kind, |_| None)).err().unwrap();
        let name = String::from_utf8_lossy(&kind);
        assert!(
            e.contains(&format!(
                "no '{name}' section (every file of format 1.4 or later has one)"
            )),
            "{e}"
        );
    }
    for (kind, record) in [(kinds::IMPO, 48), (kinds::IMPA, 8)] {
        let e = read(&with_section(&bytes, kind, |d| {
            Some([d, &vec![0; record][..]].concat())
        }))
        .err()
        .unwrap();
        assert!(
            e.contains("'IMPO' holds")
                && e.contains("but the file has 1 characters and 3 animations"),
            "{e}"
        );
        let e = read(&with_section(&bytes, kind, |d| {
            Some(d[..d.len() - 2].to_vec())
        }))
        .err()
        .unwrap();
        assert!(
            e.contains(&format!("is not a whole number of {record}-byte records")),
            "{e}"
        );
    }
}
