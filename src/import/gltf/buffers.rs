//! Loading buffer and image bytes: the GLB binary chunk, data URIs and files next to the model.

use std::path::Path;

use base64::Engine;

use crate::mesh::Texture;

use super::Source;

/// Decodes a `data:` URI with base64 payload; `None` when `uri` is not a data URI.
fn data_uri(uri: &str) -> Option<Result<Vec<u8>, String>> {
    let rest = uri.strip_prefix("data:")?;
    Some(match rest.split_once(";base64,") {
        Some((_, payload)) => base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| format!("invalid base64 data: {e}")),
        None => Err("data URI is not base64-encoded".to_string()),
    })
}

/// Decodes `%XX` escapes in a relative URI.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = uri
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads the bytes a URI points to: a data URI, or a file relative to `base_dir`.
pub(super) fn read_uri(uri: &str, base_dir: Option<&Path>, what: &str) -> Result<Vec<u8>, String> {
    if let Some(decoded) = data_uri(uri) {
        return decoded.map_err(|e| format!("{what}: {e}"));
    }
    if uri.contains("://") {
        return Err(format!(
            "{what}: URI '{uri}' is not a relative file path; only files next to the model and data URIs are supported"
        ));
    }
    let Some(dir) = base_dir else {
        return Err(format!(
            "{what}: refers to external file '{uri}', but the model was not loaded from a file"
        ));
    };
    let path = dir.join(percent_decode(uri));
    std::fs::read(&path).map_err(|e| format!("{what}: cannot read '{}': {e}", path.display()))
}

/// Loads every buffer of the document, checking each is at least as long as it declares.
pub(super) fn load_buffers(
    doc: &gltf::Document,
    blob: Option<Vec<u8>>,
    base_dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>, String> {
    let mut blob = blob;
    let mut out = Vec::new();
    for buffer in doc.buffers() {
        let what = format!("buffer {}", buffer.index());
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => blob.take().ok_or_else(|| {
                format!("{what}: refers to the GLB binary chunk, but the file has none")
            })?,
            gltf::buffer::Source::Uri(uri) => read_uri(uri, base_dir, &what)?,
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
        let what = match image.name().filter(|n| !n.is_empty()) {
            Some(name) => format!("image {} ('{name}')", image.index()),
            None => format!("image {}", image.index()),
        };
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
            (None, Some(uri)) if uri.starts_with("data:") => (
                read_uri(uri, self.base_dir, &what)?,
                "in its data URI".into(),
            ),
            (None, Some(uri)) => (
                read_uri(uri, self.base_dir, &what)?,
                format!("'{}'", percent_decode(uri)),
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

/// The external files (buffers and images given by relative URI) that the glTF document in
/// `bytes` reads from `base_dir`. Data URIs and the GLB chunk are not files. A document that
/// does not parse has none (importing it reports the error). A buffer is listed whether or not
/// it can be read (reading it reports the error); an image only when it can be opened, since
/// one that cannot is a warning, not an error, and must not stop a bake from hashing its
/// inputs (when it appears, the list, and so the bake's input key, changes).
pub(crate) fn external_files(bytes: &[u8], base_dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(doc) = gltf::Gltf::from_slice_without_validation(bytes) else {
        return Vec::new();
    };
    let file = |u: &str| {
        (!u.starts_with("data:") && !u.contains("://")).then(|| base_dir.join(percent_decode(u)))
    };
    let buffers = doc.buffers().filter_map(|b| match b.source() {
        gltf::buffer::Source::Uri(u) => file(u),
        gltf::buffer::Source::Bin => None,
    });
    // Read the JSON, not `gltf::Image::source`, which panics on some malformed images.
    let images = doc
        .as_json()
        .images
        .iter()
        .filter_map(|i| i.uri.as_deref().and_then(file))
        .filter(|p| p.is_file() && std::fs::File::open(p).is_ok());
    buffers.chain(images).collect()
}
