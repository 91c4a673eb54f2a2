//! The outer shape of a model file, checked before the `gltf` crate sees it: plain glTF JSON,
//! or a GLB whose header and chunk headers fit in the file.
//!
//! Said here because the crate's own messages for these ("could not completely read the
//! object", "JSON chunk length exceeds that of slice", "unsupported version") do not say that
//! the file is truncated or what it holds, and because its GLB reader subtracts the header's
//! size from the declared length unchecked (a declared length under 12 overflows).

/// The GLB header: magic, version, total length (glTF 2.0 specification, section 4.4).
const HEADER: usize = 12;
/// A chunk header: length, type.
const CHUNK_HEADER: usize = 8;
/// Chunk types.
const JSON: u32 = 0x4E4F_534A;
const BIN: u32 = 0x004E_4942;

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at.checked_add(4)?)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
}

/// A chunk type for messages: its four characters when printable, else hex.
fn type_name(ty: u32) -> String {
    if ty == BIN {
        return "'BIN'".into();
    }
    let b = ty.to_le_bytes();
    if b.iter().all(|c| c.is_ascii_graphic()) {
        format!("'{}'", String::from_utf8_lossy(&b))
    } else {
        format!("0x{ty:08X}")
    }
}

/// The part of `bytes` the glTF parser should read: all of a JSON file, or a GLB up to the
/// length its header declares (later bytes are not part of it).
///
/// # Errors
/// What is wrong, for the caller to prefix with the file name: an empty file, not glTF at all, a truncated
/// GLB (the header, a chunk header or a chunk cut short, with both lengths), a GLB version
/// other than 2, a declared length shorter than the header, or chunks of the wrong type.
pub(super) fn check(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.is_empty() {
        return Err("the file is empty (0 bytes)".into());
    }
    let Some(rest) = bytes.strip_prefix(b"glTF") else {
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let first = text.iter().find(|b| !b.is_ascii_whitespace());
        return if first == Some(&b'{') {
            Ok(bytes)
        } else {
            Err("not a glTF file: it starts neither with the bytes 'glTF' (a binary GLB) nor with '{' (glTF JSON)".into())
        };
    };
    let (Some(version), Some(declared)) = (u32_at(rest, 0), u32_at(rest, 4)) else {
        return Err(format!(
            "truncated GLB: {} bytes, less than its {HEADER}-byte header",
            bytes.len()
        ));
    };
    if version != 2 {
        return Err(format!(
            "GLB version {version}; throng reads version 2 (glTF 2.0)"
        ));
    }
    let declared = declared as usize;
    if declared > bytes.len() {
        return Err(format!(
            "truncated GLB: header says {declared} bytes, file has {}",
            bytes.len()
        ));
    }
    if declared < HEADER + CHUNK_HEADER {
        return Err(format!(
            "GLB header says the file is {declared} bytes long, too short for a header and a JSON chunk ({} bytes at least)",
            HEADER + CHUNK_HEADER
        ));
    }
    let glb = &bytes[..declared];
    let mut at = HEADER;
    let mut index = 0;
    while at < glb.len() {
        let (Some(len), Some(ty)) = (u32_at(glb, at), u32_at(glb, at + 4)) else {
            return Err(format!(
                "truncated GLB: chunk {index}'s header at byte {at} needs {CHUNK_HEADER} bytes, the GLB has {} left",
                glb.len() - at
            ));
        };
        let start = at + CHUNK_HEADER;
        let left = glb.len() - start;
        let len = len as usize;
        if len > left {
            return Err(format!(
                "truncated GLB: chunk {index} ({}) says {len} bytes at byte {start}, but only {left} follow",
                type_name(ty)
            ));
        }
        match (index, ty) {
            (0, JSON) | (1, BIN) => {}
            (0, _) => {
                return Err(format!(
                    "GLB chunk 0 has type {}; the first chunk must be 'JSON'",
                    type_name(ty)
                ));
            }
            (1, _) => {
                // The specification lets readers skip unknown chunks, but the `gltf` crate
                // refuses them; say which one.
                return Err(format!(
                    "GLB chunk 1 has type {}; throng reads only a 'BIN' chunk after the JSON",
                    type_name(ty)
                ));
            }
            _ => {
                return Err(format!(
                    "GLB has a chunk {index} ({}) after its JSON and BIN chunks; throng reads only those two",
                    type_name(ty)
                ));
            }
        }
        at = start + len;
        index += 1;
    }
    Ok(glb)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GLB with a JSON chunk holding `json` and, when given, a BIN chunk.
    fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
        let mut out = b"glTF".to_vec();
        out.extend(2u32.to_le_bytes());
        out.extend(0u32.to_le_bytes());
        for (ty, data) in std::iter::once((JSON, json)).chain(bin.map(|b| (BIN, b))) {
            out.extend((data.len() as u32).to_le_bytes());
            out.extend(ty.to_le_bytes());
            out.extend(data);
        }
        let len = out.len() as u32;
        out[8..12].copy_from_slice(&len.to_le_bytes());
        out
    }

    #[test]
    fn a_whole_glb_and_json_pass() {
        let g = glb(b"{}", Some(b"1234"));
        assert_eq!(check(&g).unwrap(), &g[..]);
        assert!(check(b"  {\"asset\":{}}").is_ok());
        // Bytes after the declared length are not part of the GLB.
        let mut longer = g.clone();
        longer.extend(b"junk");
        assert_eq!(check(&longer).unwrap(), &g[..]);
    }

    #[test]
    fn every_truncation_says_truncated() {
        let g = glb(b"{\"asset\":{\"version\":\"2.0\"}}", Some(&[7; 40]));
        for n in 4..g.len() {
            let e = check(&g[..n]).unwrap_err();
            assert!(e.starts_with("truncated GLB"), "{n}: {e}");
        }
        // Header fixed up to the cut length: the chunks say it.
        for n in [21, 30, 60] {
            let mut cut = g[..n].to_vec();
            cut[8..12].copy_from_slice(&(n as u32).to_le_bytes());
            let e = check(&cut).unwrap_err();
            assert!(e.starts_with("truncated GLB: chunk"), "{n}: {e}");
        }
    }

    #[test]
    fn wrong_versions_lengths_and_chunk_types_are_named() {
        let g = glb(b"{}", Some(b"1234"));
        let mut v = g.clone();
        v[4] = 1;
        assert!(check(&v).unwrap_err().contains("GLB version 1"));
        let mut short = g.clone();
        short[8..12].copy_from_slice(&5u32.to_le_bytes());
        assert!(check(&short).unwrap_err().contains("too short"));
        let mut first = g.clone();
        first[16..20].copy_from_slice(b"BIN\0");
        assert!(check(&first).unwrap_err().contains("first chunk"));
        let mut second = g.clone();
        second[26..30].copy_from_slice(b"XTRA");
        assert!(check(&second).unwrap_err().contains("'XTRA'"));
        assert!(check(b"hello").unwrap_err().contains("not a glTF file"));
    }
}
