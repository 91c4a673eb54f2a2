//! Loading buffer and image bytes: the GLB binary chunk, data URIs and files next to the model.

use std::io::Read;
use std::path::Path;

use crate::import::ExternalFiles;
use crate::input::{self, Kind};
use crate::mesh::Texture;

use super::{Source, uri};

/// Reads the bytes a URI points to: a data URI, or a file in `base_dir` that `scope` lets
/// throng read ([`uri::resolve`]). At most `limit` bytes of a file are read (a buffer's
/// declared length; the file's own length is compared with it first).
pub(super) fn read_uri(
    uri: &str,
    base_dir: Option<&Path>,
    scope: ExternalFiles,
    limit: Option<usize>,
    what: &str,
) -> Result<Vec<u8>, String> {
    if let Some(decoded) = uri::data_uri(uri) {
        return decoded.map_err(|e| format!("{what}: {e}"));
    }
    let Some(dir) = base_dir else {
        return Err(format!(
            "{what}: refers to external file '{uri}', but the model was not loaded from a file"
        ));
    };
    let path = uri::resolve(uri, dir, scope).map_err(|e| format!("{what}: {e}"))?;
    let cannot = |e: std::io::Error| format!("{what}: cannot read '{}': {e}", path.display());
    let Some(limit) = limit else {
        return input::read(&path, Kind::Model).map_err(cannot);
    };
    let (file, len) = input::open(&path, Kind::Model).map_err(cannot)?;
    if len < limit as u64 {
        return Err(format!(
            "{what}: declares {limit} bytes, but '{}' has only {len} (truncated file?)",
            path.display()
        ));
    }
    // The length was checked against the real file, so this allocation is backed by data.
    let mut bytes = Vec::with_capacity(limit);
    file.take(limit as u64)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    Ok(bytes)
}

/// An element as messages name it: `buffer 0`, or `image 2 ('skin')` when it has a name.
fn element(kind: &str, index: usize, name: Option<&str>) -> String {
    match name.filter(|n| !n.is_empty()) {
        Some(name) => format!("{kind} {index} ('{name}')"),
        None => format!("{kind} {index}"),
    }
}

/// Loads every buffer of the document, checking each is at least as long as it declares.
pub(super) fn load_buffers(
    doc: &gltf::Document,
    blob: Option<Vec<u8>>,
    base_dir: Option<&Path>,
    scope: ExternalFiles,
) -> Result<Vec<Vec<u8>>, String> {
    let mut blob = blob;
    let mut out = Vec::new();
    for buffer in doc.buffers() {
        let what = element("buffer", buffer.index(), buffer.name());
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => blob.take().ok_or_else(|| {
                format!("{what}: refers to the GLB binary chunk, but the file has none")
            })?,
            gltf::buffer::Source::Uri(uri) => {
                read_uri(uri, base_dir, scope, Some(buffer.length()), &what)?
            }
        };
        if data.len() < buffer.length() {
            return Err(format!(
                "{what}: declares {} bytes but only {} are present (truncated file?)",
                buffer.length(),
                data.len()
            ));
        }
        out.push(data);
    }
    Ok(out)
}

impl Source<'_> {
    /// Decodes an image (PNG or JPEG) to RGBA8.
    ///
    /// # Errors
    /// Why it cannot, starting with `image N ('name')` and naming the file it reads, if any.
    pub(super) fn image(&self, image: &gltf::Image) -> Result<Texture, String> {
        let what = element("image", image.index(), image.name());
        // Read the JSON directly: `gltf::Image::source` panics on an image with a buffer view but
        // no MIME type, or with neither a URI nor a buffer view. The format is sniffed anyway.
        let json = self
            .doc
            .as_json()
            .images
            .get(image.index())
            .ok_or_else(|| format!("{what}: does not exist"))?;
        let (bytes, origin) = match (&json.buffer_view, &json.uri) {
            (Some(view), _) => {
                let view = self.doc.views().nth(view.value()).ok_or_else(|| {
                    format!("{what}: buffer view {} does not exist", view.value())
                })?;
                let bytes = self.view_range(&view, 0, view.length(), &what)?.to_vec();
                (bytes, format!("in buffer view {}", view.index()))
            }
            (None, Some(u)) if u.starts_with("data:") => (
                read_uri(u, self.base_dir, self.scope, None, &what)?,
                "in its data URI".into(),
            ),
            (None, Some(u)) => (
                read_uri(u, self.base_dir, self.scope, None, &what)?,
                format!("'{}'", uri::percent_decode(u)),
            ),
            (None, None) => return Err(format!("{what}: has neither a URI nor a buffer view")),
        };
        let decoded = image::load_from_memory(&bytes)
            .map_err(|e| format!("{what}: cannot decode the picture {origin}: {e}"))?;
        let rgba = decoded.to_rgba8();
        let (width, height) = rgba.dimensions();
        Ok(Texture {
            width,
            height,
            rgba: rgba.into_raw(),
        })
    }
}

/// The external files (buffers and images given by URI) that the glTF document in `bytes`
/// reads from `base_dir` when `scope` allows them ([`uri::resolve`]), each with the element
/// that names it (`buffer 0 ('name')`, `image 2`); a file it refuses is not listed, so that
/// no one reads it on the model's behalf (a bake hashes its inputs). Data URIs and the GLB
/// chunk are not files. A document that does not parse has none
/// (importing it reports the error). A buffer is listed whether or not it exists (reading it
/// reports the error); an image only when it can be opened, since one that cannot is a
/// warning, not an error, and must not stop a bake from hashing its inputs (when it appears,
/// the list, and so the bake's input key, changes).
pub(crate) fn external_files(
    bytes: &[u8],
    base_dir: &Path,
    scope: ExternalFiles,
) -> Vec<(std::path::PathBuf, String)> {
    // The container check first: the crate's GLB reader overflows on some headers.
    let Ok(doc) = super::container::check(bytes)
        .map_err(drop)
        .and_then(|b| gltf::Gltf::from_slice_without_validation(b).map_err(drop))
    else {
        return Vec::new();
    };
    let file = |u: &str| {
        (!u.starts_with("data:"))
            .then(|| uri::resolve(u, base_dir, scope).ok())
            .flatten()
    };
    let buffers = doc.buffers().filter_map(|b| match b.source() {
        gltf::buffer::Source::Uri(u) => {
            file(u).map(|p| (p, element("buffer", b.index(), b.name())))
        }
        gltf::buffer::Source::Bin => None,
    });
    // Read the JSON, not `gltf::Image::source`, which panics on some malformed images.
    let images = doc
        .as_json()
        .images
        .iter()
        .enumerate()
        .filter_map(|(n, i)| {
            let p = i.uri.as_deref().and_then(file)?;
            Some((p, element("image", n, i.name.as_deref())))
        })
        .filter(|(p, _)| input::open(p, Kind::Model).is_ok());
    buffers.chain(images).collect()
}
