//! The `.throng` container: round trips, atomic writes, and refusal of every damaged or hostile
//! file with a typed error (never a panic): every single flipped bit, every truncation, and
//! hand-made tables with huge counts, out-of-file ranges, overlaps and bad alignment.

use crate::common;

use throng::format::{Container, FormatError, HEADER_SIZE, Writer};

fn sample() -> Writer<'static> {
    let mut w = Writer::new();
    w.add(*b"STRS", 1, b"hello".to_vec()).unwrap();
    w.add(*b"MESH", 16, (0u8..37).collect::<Vec<u8>>()).unwrap();
    w.add(*b"TEXL", 4096, vec![7u8; 100]).unwrap();
    w.add(*b"EMPT", 8, Vec::new()).unwrap();
    w
}

fn error_of(bytes: Vec<u8>) -> String {
    match Container::from_bytes(&bytes, "x.throng") {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn round_trip_in_memory_and_through_a_mapped_file() {
    let bytes = sample().to_bytes();
    let c = Container::from_bytes(&bytes, "mem").unwrap();
    // This build writes format 1.4.
    assert_eq!(c.version(), (1, 4));
    assert_eq!(c.section(*b"STRS"), Some(&b"hello"[..]));
    assert_eq!(c.section(*b"MESH").unwrap(), (0u8..37).collect::<Vec<_>>());
    assert_eq!(c.section(*b"EMPT"), Some(&[][..]));
    assert_eq!(c.section(*b"NONE"), None);
    for s in c.sections() {
        assert_eq!(s.range.start % s.align as usize, 0, "{:?}", s);
    }
    let dir = common::temp_dir("container");
    let path = dir.join("a.throng");
    sample().write(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    let mapped = Container::open(&path).unwrap();
    assert_eq!(mapped.section(*b"TEXL"), Some(&[7u8; 100][..]));
    // The mapping is page-aligned, so a 4096-aligned section starts on a page.
    assert_eq!(
        mapped.section(*b"TEXL").unwrap().as_ptr() as usize % 4096,
        0
    );
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = common::temp_dir("container-fail");
    let path = dir.join("missing-folder").join("b.throng");
    let err = sample().write(&path).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::Io {
                what: "creating a temporary file",
                ..
            }
        ),
        "{err}"
    );
    // Replacing an existing file: the old content stays until the new one is complete.
    let path = dir.join("c.throng");
    std::fs::write(&path, b"old").unwrap();
    sample().write(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), sample().to_bytes());
}

#[test]
fn every_single_flipped_bit_is_caught() {
    let bytes = sample().to_bytes();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(
                Container::from_bytes(&b, "x").is_err(),
                "flipping bit {bit} of byte {i} went unnoticed"
            );
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    let bytes = sample().to_bytes();
    for len in 0..bytes.len() {
        assert!(
            Container::from_bytes(&bytes[..len], "x").is_err(),
            "truncation to {len} bytes was accepted"
        );
    }
    assert!(
        error_of(bytes[..10].to_vec())
            .contains("the file is 10 bytes, shorter than the 64-byte header")
    );
    assert!(error_of(b"GLTF....".to_vec()).contains("not a throng file"));
}

#[test]
fn other_major_versions_are_named() {
    let mut b = sample().to_bytes();
    b[8..10].copy_from_slice(&2u16.to_le_bytes());
    b[10..12].copy_from_slice(&0u16.to_le_bytes());
    common::reseal(&mut b);
    assert_eq!(
        error_of(b.clone()),
        "x.throng: made by a newer throng (format 2.0); this build reads 1.x"
    );
    b[8..10].copy_from_slice(&0u16.to_le_bytes());
    b[10..12].copy_from_slice(&3u16.to_le_bytes());
    common::reseal(&mut b);
    assert_eq!(
        error_of(b),
        "x.throng: made by an older throng (format 0.3); this build reads 1.x"
    );
    // A newer minor version only adds sections: still readable.
    let mut b = sample().to_bytes();
    b[10..12].copy_from_slice(&7u16.to_le_bytes());
    common::reseal(&mut b);
    assert_eq!(Container::from_bytes(&b, "x").unwrap().version(), (1, 7));
}

/// Sets field `at..at+N` of section table entry `i` and reseals.
fn edit_entry(b: &mut [u8], i: usize, at: usize, value: &[u8]) {
    let start = HEADER_SIZE + i * 32 + at;
    b[start..start + value.len()].copy_from_slice(value);
    common::reseal(b);
}

#[test]
fn hostile_tables_give_typed_errors() {
    let good = sample().to_bytes();
    let len = good.len();
    let mut b = good.clone();
    b[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
    common::reseal(&mut b);
    assert!(
        error_of(b)
            .contains("section table of 4294967295 entries at byte 64 does not fit in the file")
    );
    let mut b = good.clone();
    b[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    common::reseal(&mut b);
    assert!(error_of(b).contains("does not fit in the file"));
    let mut b = good.clone();
    edit_entry(&mut b, 1, 16, &u64::MAX.to_le_bytes());
    assert!(
        error_of(b).contains("section 1 ('MESH'): bytes"),
        "size past the end"
    );
    let mut b = good.clone();
    edit_entry(&mut b, 1, 8, &((len as u64) + 16).to_le_bytes());
    assert!(error_of(b).contains("lie outside the file"));
    let mut b = good.clone();
    edit_entry(&mut b, 0, 8, &16u64.to_le_bytes());
    assert!(error_of(b).contains("inside the header or section table"));
    let mut b = good.clone();
    edit_entry(&mut b, 2, 24, &3u32.to_le_bytes());
    assert!(error_of(b).contains("alignment 3 is not a power of two"));
    let mut b = good.clone();
    edit_entry(&mut b, 1, 24, &4096u32.to_le_bytes());
    assert!(error_of(b).contains("is not a multiple of its alignment 4096"));
    let mut b = good.clone();
    // MESH made to start where STRS does.
    let strs_offset: [u8; 8] = b[HEADER_SIZE + 8..HEADER_SIZE + 16].try_into().unwrap();
    edit_entry(&mut b, 1, 8, &strs_offset);
    edit_entry(&mut b, 1, 24, &1u32.to_le_bytes());
    assert!(error_of(b).contains("overlaps or precedes section 'STRS'"));
    let mut b = good.clone();
    edit_entry(&mut b, 3, 0, b"MESH");
    assert!(error_of(b).contains("the kind appears twice"));
    let mut b = good;
    edit_entry(&mut b, 0, 0, &[0, 1, 2, 3]);
    assert!(error_of(b).contains("kind is not 4 printable ASCII characters"));
}

#[test]
fn the_writer_refuses_bad_sections() {
    let mut w = Writer::new();
    w.add(*b"ABCD", 4, vec![]).unwrap();
    assert_eq!(
        w.add(*b"ABCD", 4, vec![]).unwrap_err().to_string(),
        "section 'ABCD': added twice"
    );
    assert_eq!(
        w.add(*b"EFGH", 12, vec![]).unwrap_err().to_string(),
        "section 'EFGH': alignment 12 is not a power of two up to 4096"
    );
    assert!(w.add(*b"A\0CD", 4, vec![]).is_err());
}
