//! Every buffer view and accessor checked against the buffers' real lengths, before anything
//! reads a view or sizes a decode by an accessor's count. A file can declare any length; only
//! bytes that are really there may decide how much is read or allocated.
//!
//! The decoders ([`super::accessor`]) still bounds-check every range they read; this pass
//! exists so that an impossible size is refused up front, with the element's index and name,
//! whether or not the importer would have reached it.

use super::accessor::{component_count, component_size};

/// `kind N` or `kind N ('name')`, for messages.
fn label(kind: &str, index: usize, name: Option<&str>) -> String {
    match name.filter(|n| !n.is_empty()) {
        Some(n) => format!("{kind} {index} ('{n}')"),
        None => format!("{kind} {index}"),
    }
}

/// Per accessor, what first uses it (`POSITION`, `indices`, `sampler input`...), so that a
/// message says which data is broken.
fn uses(doc: &gltf::Document) -> Vec<Option<String>> {
    let mut uses = vec![None; doc.accessors().len()];
    let mut note = |i: usize, what: String| {
        if let Some(u @ None) = uses.get_mut(i) {
            *u = Some(what);
        }
    };
    for mesh in doc.meshes() {
        for prim in mesh.primitives() {
            for (semantic, acc) in prim.attributes() {
                note(acc.index(), semantic.to_string());
            }
            if let Some(acc) = prim.indices() {
                note(acc.index(), "indices".into());
            }
        }
    }
    for skin in doc.skins() {
        if let Some(acc) = skin.inverse_bind_matrices() {
            note(acc.index(), "inverseBindMatrices".into());
        }
    }
    for anim in doc.animations() {
        for sampler in anim.samplers() {
            note(sampler.input().index(), "sampler input".into());
            note(sampler.output().index(), "sampler output".into());
        }
    }
    uses
}

/// Checks every buffer view (its range within its buffer's real bytes) and every accessor
/// (its elements within its view, its stride no smaller than an element, its sparse indices
/// and values within their views).
///
/// # Errors
/// The first impossible element, named with its index and name and the sizes that disagree:
/// `bufferView 3 ('name'): byteOffset 0 + byteLength 1099511627776 exceeds buffer 0's 12345
/// bytes`.
pub(super) fn check(doc: &gltf::Document, buffers: &[Vec<u8>]) -> Result<(), String> {
    for view in doc.views() {
        let b = view.buffer().index();
        let real = buffers.get(b).map_or(0, Vec::len);
        if view
            .offset()
            .checked_add(view.length())
            .is_none_or(|end| end > real)
        {
            return Err(format!(
                "{}: byteOffset {} + byteLength {} exceeds buffer {b}'s {real} bytes",
                label("bufferView", view.index(), view.name()),
                view.offset(),
                view.length()
            ));
        }
    }
    // An accessor without a view is zeros (plus sparse values): its count is backed by no
    // bytes at all. Real uses mirror an accessor that has data (a mesh's vertex count, a clip's
    // key count), which takes at least one byte per element, so more elements than the file
    // has bytes of buffer data is a corrupt count, refused before it sizes an allocation.
    let data_bytes = buffers
        .iter()
        .fold(0usize, |n, b| n.saturating_add(b.len()));
    let uses = uses(doc);
    for acc in doc.accessors() {
        let what = match uses.get(acc.index()).cloned().flatten() {
            Some(u) => format!("{} ({u})", label("accessor", acc.index(), acc.name())),
            None => label("accessor", acc.index(), acc.name()),
        };
        let elem = component_count(acc.dimensions()) * component_size(acc.data_type());
        let count = acc.count();
        match acc.view() {
            Some(view) => {
                let stride = view.stride().unwrap_or(elem);
                if stride < elem {
                    return Err(format!(
                        "{what}: bufferView {}'s byteStride {stride} is smaller than its {elem}-byte elements",
                        view.index()
                    ));
                }
                let end = match count.checked_sub(1) {
                    None => Some(acc.offset()),
                    Some(last) => last
                        .checked_mul(stride)
                        .and_then(|s| s.checked_add(elem))
                        .and_then(|s| s.checked_add(acc.offset())),
                };
                if end.is_none_or(|e| e > view.length()) {
                    return Err(format!(
                        "{what}: byteOffset {} + {count} elements of {elem} bytes every {stride} bytes reaches byte {} of bufferView {}, which is only {} bytes long",
                        acc.offset(),
                        end.map_or("2^64 or more".to_string(), |e| e.to_string()),
                        view.index(),
                        view.length()
                    ));
                }
            }
            None if count > data_bytes => {
                return Err(format!(
                    "{what}: has no bufferView and {count} elements, more than the file's {data_bytes} bytes of buffer data could match (a corrupt count?)"
                ));
            }
            None => {}
        }
        if let Some(sparse) = acc.sparse() {
            let n = sparse.count();
            if n > count {
                return Err(format!(
                    "{what}: replaces {n} sparse elements of its {count}"
                ));
            }
            let indices = sparse.indices();
            let index_size = match indices.index_type() {
                gltf::accessor::sparse::IndexType::U8 => 1,
                gltf::accessor::sparse::IndexType::U16 => 2,
                gltf::accessor::sparse::IndexType::U32 => 4,
            };
            let values = sparse.values();
            for (part, view, offset, size) in [
                (
                    "sparse indices",
                    indices.view(),
                    indices.offset(),
                    index_size,
                ),
                ("sparse values", values.view(), values.offset(), elem),
            ] {
                let end = n.checked_mul(size).and_then(|s| s.checked_add(offset));
                if end.is_none_or(|e| e > view.length()) {
                    return Err(format!(
                        "{what}, {part}: byteOffset {offset} + {n} of {size} bytes reaches byte {} of bufferView {}, which is only {} bytes long",
                        end.map_or("2^64 or more".to_string(), |e| e.to_string()),
                        view.index(),
                        view.length()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// A document with one 24-byte buffer, `views` and `accessors`.
    fn doc(views: Value, accessors: Value) -> gltf::Document {
        let root = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 24}],
            "bufferViews": views,
            "accessors": accessors,
        });
        gltf::Gltf::from_slice(&serde_json::to_vec(&root).unwrap())
            .unwrap()
            .document
    }

    fn vec3(view: usize, offset: usize, count: usize) -> Value {
        json!({"bufferView": view, "byteOffset": offset, "componentType": 5126, "count": count, "type": "VEC3"})
    }

    #[test]
    fn data_that_fits_passes() {
        let d = doc(
            json!([{"buffer": 0, "byteLength": 24}]),
            json!([vec3(0, 0, 2)]),
        );
        assert_eq!(check(&d, &[vec![0; 24]]), Ok(()));
        // Interleaved: two elements 12 bytes apart within 24 bytes.
        let d = doc(
            json!([{"buffer": 0, "byteLength": 24, "byteStride": 12}]),
            json!([vec3(0, 0, 2)]),
        );
        assert_eq!(check(&d, &[vec![0; 24]]), Ok(()));
    }

    #[test]
    fn a_view_past_its_buffer_names_both() {
        let d = doc(
            json!([{"buffer": 0, "byteLength": 1u64 << 40, "name": "huge"}]),
            json!([]),
        );
        assert_eq!(
            check(&d, &[vec![0; 24]]).unwrap_err(),
            "bufferView 0 ('huge'): byteOffset 0 + byteLength 1099511627776 exceeds buffer 0's 24 bytes"
        );
        // The real bytes count, not the declared length.
        let d = doc(json!([{"buffer": 0, "byteLength": 24}]), json!([]));
        assert!(check(&d, &[vec![0; 20]]).unwrap_err().contains("20 bytes"));
    }

    #[test]
    fn an_accessor_past_its_view_is_refused() {
        for (offset, count) in [(0, 3), (4, 2), (0, usize::MAX / 2), (usize::MAX - 8, 1)] {
            let d = doc(
                json!([{"buffer": 0, "byteLength": 24}]),
                json!([vec3(0, offset, count)]),
            );
            let e = check(&d, &[vec![0; 24]]).unwrap_err();
            assert!(
                e.starts_with("accessor 0: ") && e.contains("only 24 bytes long"),
                "{offset} {count}: {e}"
            );
        }
    }

    #[test]
    fn a_stride_smaller_than_an_element_is_refused() {
        let d = doc(
            json!([{"buffer": 0, "byteLength": 24, "byteStride": 8}]),
            json!([vec3(0, 0, 2)]),
        );
        let e = check(&d, &[vec![0; 24]]).unwrap_err();
        assert!(e.contains("byteStride 8") && e.contains("12-byte"), "{e}");
    }

    #[test]
    fn sparse_data_past_its_views_and_counts_without_data_are_refused() {
        let sparse = |count: usize, n: usize| {
            json!([{
                "componentType": 5126, "count": count, "type": "SCALAR",
                "sparse": {
                    "count": n,
                    "indices": {"bufferView": 0, "componentType": 5125},
                    "values": {"bufferView": 1}
                }
            }])
        };
        let views = json!([
            {"buffer": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 8}
        ]);
        assert_eq!(
            check(&doc(views.clone(), sparse(4, 2)), &[vec![0; 24]]),
            Ok(())
        );
        let e = check(&doc(views.clone(), sparse(4, 3)), &[vec![0; 24]]).unwrap_err();
        assert!(
            e.contains("sparse indices") && e.contains("only 8 bytes"),
            "{e}"
        );
        let e = check(&doc(views.clone(), sparse(1, 2)), &[vec![0; 24]]).unwrap_err();
        assert!(e.contains("2 sparse elements of its 1"), "{e}");
        let e = check(&doc(views, sparse(1 << 40, 2)), &[vec![0; 24]]).unwrap_err();
        assert!(e.contains("no bufferView") && e.contains("24 bytes"), "{e}");
    }
}
