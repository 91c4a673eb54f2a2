//! What a buffer or image URI names, and whether throng may read it.
//!
//! A model is untrusted input: its URIs must not make a bake read files the user did not hand
//! over (`/etc/passwd`, `../../.ssh/id_rsa`, a symbolic link out of the folder, `/dev/zero`).
//! By default ([`ExternalFiles::ModelFolder`]) a URI must name a regular file inside the
//! model's folder: no absolute path or `file:` URI, no `..` that climbs out, and no symbolic
//! link that leads out (the folder and the file are canonicalised and the one must contain the
//! other). [`ExternalFiles::Anywhere`] lifts the folder rule for trusted pipelines; the
//! regular-file rule stays, as reading a device or a FIFO never ends. Everything is decided
//! from names and metadata, before the file is opened.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::import::ExternalFiles;

/// The hint every refusal ends with, so the user knows the way out for trusted models.
const OPT_OUT: &str = "--allow-outside-uris lifts this for trusted models";

/// Decodes a `data:` URI with base64 payload; `None` when `uri` is not a data URI.
pub(super) fn data_uri(uri: &str) -> Option<Result<Vec<u8>, String>> {
    let rest = uri.strip_prefix("data:")?;
    Some(match rest.split_once(";base64,") {
        Some((_, payload)) => base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| format!("invalid base64 data: {e}")),
        None => Err("data URI is not base64-encoded".to_string()),
    })
}

/// Decodes `%XX` escapes. Invalid UTF-8 in the result is replaced (U+FFFD), which can neither
/// make nor hide a `.` or a `/`.
pub(super) fn percent_decode(uri: &str) -> String {
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

/// The folder of a model path: `.` for a bare file name, whose `parent()` is empty.
pub(crate) fn folder_of(model: &Path) -> &Path {
    match model.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A path from a URI (percent-decoded), or why the URI names no local file. `file:` URIs give
/// their path; other schemes (`http://` ...) are refused whatever the scope.
fn uri_path(uri: &str) -> Result<String, String> {
    if let Some(rest) = uri.strip_prefix("file:") {
        // file:///abs, file://localhost/abs, file:/abs. A remote host is no local file.
        let path = match rest.strip_prefix("//") {
            Some(r) => {
                let (host, path) = r.split_at(r.find('/').unwrap_or(r.len()));
                if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                    return Err(format!(
                        "URI '{uri}' names a file on host '{host}'; throng reads only local files"
                    ));
                }
                path
            }
            None => rest,
        };
        return Ok(percent_decode(path));
    }
    if uri.contains("://") {
        return Err(format!(
            "URI '{uri}' is neither a file path nor a data URI; throng reads no other kind"
        ));
    }
    Ok(percent_decode(uri))
}

/// Whether `path` is absolute on any platform: a leading `/` or `\`, or a drive letter
/// (`C:`), whatever the platform throng runs on, so a model means the same everywhere.
fn looks_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    Path::new(path).is_absolute()
        || matches!(b.first(), Some(b'/' | b'\\'))
        || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// Whether the relative `path` climbs above its starting folder at some point (`a/../../b`).
/// `\` counts as a separator too, as it is one on Windows.
fn climbs_out(path: &str) -> bool {
    let mut depth = 0usize;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            _ => depth += 1,
        }
    }
    false
}

/// The file `uri` names, resolved against `folder` (the model's folder), if `scope` lets
/// throng read it. Decided from names and metadata only: nothing is opened.
///
/// The path returned is canonical when the file exists (so it is the file that was checked,
/// not whatever a link points to later); a missing file gives the joined path, whose read
/// then reports "No such file".
///
/// # Errors
/// Why not, naming the URI and the folder: an absolute path or `file:` URI, a `..` that
/// climbs out of the folder, a symbolic link that leads out (all under
/// [`ExternalFiles::ModelFolder`]), a non-file URI scheme, or something that is not a regular
/// file (a folder, a device, a FIFO).
pub(super) fn resolve(uri: &str, folder: &Path, scope: ExternalFiles) -> Result<PathBuf, String> {
    let decoded = uri_path(uri)?;
    let shown = if decoded == uri {
        format!("URI '{uri}'")
    } else {
        format!("URI '{uri}' ('{decoded}')")
    };
    let confined = scope == ExternalFiles::ModelFolder;
    // The folder as messages show it: canonical (absolute, no links) when it can be, as the
    // model's path may be relative (`.` for a bare file name).
    let root = folder.canonicalize();
    let shown_folder = root.as_deref().unwrap_or(folder).display().to_string();
    let absolute = looks_absolute(&decoded) || uri.starts_with("file:");
    if confined && absolute {
        return Err(format!(
            "{shown} is an absolute path; only files inside the model's folder '{shown_folder}' are read ({OPT_OUT})"
        ));
    }
    if confined && climbs_out(&decoded) {
        return Err(format!(
            "{shown} climbs out of the model's folder '{shown_folder}' with '..' ({OPT_OUT})"
        ));
    }
    let joined = if absolute {
        PathBuf::from(&decoded)
    } else {
        folder.join(&decoded)
    };
    let file = match joined.canonicalize() {
        Ok(c) => c,
        // Missing (or a dangling link): reading it reports why, and reads nothing.
        Err(_) => return Ok(joined),
    };
    if confined {
        let root = root.map_err(|e| {
            format!("{shown}: cannot resolve the model's folder '{shown_folder}': {e}")
        })?;
        if !file.starts_with(&root) {
            return Err(format!(
                "{shown} leads through a symbolic link to '{}', outside the model's folder '{shown_folder}' ({OPT_OUT})",
                file.display()
            ));
        }
    }
    match std::fs::metadata(&file) {
        Ok(m) if m.is_file() => Ok(file),
        Ok(_) => Err(format!(
            "{shown} names '{}', which is not a regular file",
            file.display()
        )),
        Err(e) => Err(format!("cannot read '{}': {e}", joined.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder `model/` inside a fresh temporary folder, with `model/inside.bin`,
    /// `model/sub/deep.bin` and `secret.bin` beside `model/`. Removed on drop.
    struct Tree(PathBuf);

    impl Tree {
        fn new(tag: &str) -> Self {
            let root =
                std::env::temp_dir().join(format!("throng-uri-{}-{tag}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(root.join("model/sub")).unwrap();
            std::fs::write(root.join("model/inside.bin"), b"in").unwrap();
            std::fs::write(root.join("model/sub/deep.bin"), b"deep").unwrap();
            std::fs::write(root.join("secret.bin"), b"secret").unwrap();
            Tree(root)
        }
        fn model(&self) -> PathBuf {
            self.0.join("model")
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn confined(uri: &str, folder: &Path) -> Result<PathBuf, String> {
        resolve(uri, folder, ExternalFiles::ModelFolder)
    }

    #[test]
    fn files_inside_the_folder_are_allowed() {
        let t = Tree::new("inside");
        let dir = t.model();
        for uri in [
            "inside.bin",
            "./inside.bin",
            "sub/deep.bin",
            "sub/../inside.bin",
            "sub%2Fdeep.bin",
            "missing.bin",
        ] {
            let p = confined(uri, &dir).unwrap_or_else(|e| panic!("{uri}: {e}"));
            assert!(
                p.starts_with(&dir) || p.starts_with(dir.canonicalize().unwrap()),
                "{uri}: {p:?}"
            );
        }
        assert_eq!(
            std::fs::read(confined("sub/../inside.bin", &dir).unwrap()).unwrap(),
            b"in"
        );
    }

    #[test]
    fn absolute_paths_and_file_uris_are_refused() {
        let t = Tree::new("absolute");
        let dir = t.model();
        let inside = dir.join("inside.bin").display().to_string();
        for uri in [
            "/etc/passwd".to_string(),
            "file:///etc/passwd".to_string(),
            "file://localhost/etc/passwd".to_string(),
            "%2Fetc%2Fpasswd".to_string(),
            "\\etc\\passwd".to_string(),
            "C:/Windows/win.ini".to_string(),
            // Absolute even when it names a file inside the folder: the rule is about names.
            inside,
        ] {
            let e = confined(&uri, &dir).unwrap_err();
            assert!(e.contains("absolute") && e.contains(&uri), "{uri}: {e}");
            assert!(e.contains("--allow-outside-uris"), "{e}");
        }
    }

    #[test]
    fn climbing_out_is_refused_however_it_is_spelled() {
        let t = Tree::new("climb");
        let dir = t.model();
        for uri in [
            "../secret.bin",
            "..%2Fsecret.bin",
            "%2e%2e/secret.bin",
            "sub/../../secret.bin",
            "..\\secret.bin",
            "./../model/inside.bin",
        ] {
            let e = confined(uri, &dir).unwrap_err();
            assert!(e.contains("climbs out") && e.contains(uri), "{uri}: {e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_the_folder_is_refused() {
        let t = Tree::new("link");
        let dir = t.model();
        std::os::unix::fs::symlink(t.0.join("secret.bin"), dir.join("link.bin")).unwrap();
        std::os::unix::fs::symlink(&t.0, dir.join("up")).unwrap();
        std::os::unix::fs::symlink(dir.join("inside.bin"), dir.join("ok.bin")).unwrap();
        for uri in ["link.bin", "up/secret.bin", "up/model/../secret.bin"] {
            let e = confined(uri, &dir).unwrap_err();
            assert!(e.contains("symbolic link") && e.contains(uri), "{uri}: {e}");
        }
        // A link that stays inside is fine.
        assert_eq!(
            std::fs::read(confined("ok.bin", &dir).unwrap()).unwrap(),
            b"in"
        );
        // And everything is allowed when the scope says so.
        let p = resolve("link.bin", &dir, ExternalFiles::Anywhere).unwrap();
        assert_eq!(std::fs::read(p).unwrap(), b"secret");
    }

    #[test]
    fn anywhere_allows_outside_files_but_not_other_schemes() {
        let t = Tree::new("anywhere");
        let dir = t.model();
        let secret = t.0.join("secret.bin").canonicalize().unwrap();
        for uri in [
            "../secret.bin".to_string(),
            secret.display().to_string(),
            format!("file://{}", secret.display()),
        ] {
            let p = resolve(&uri, &dir, ExternalFiles::Anywhere)
                .unwrap_or_else(|e| panic!("{uri}: {e}"));
            assert_eq!(std::fs::read(p).unwrap(), b"secret", "{uri}");
        }
        for uri in ["http://example.com/a.bin", "file://host/a.bin"] {
            let e = resolve(uri, &dir, ExternalFiles::Anywhere).unwrap_err();
            assert!(e.contains(uri), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_folders_are_no_files_even_anywhere() {
        let t = Tree::new("device");
        let dir = t.model();
        let e = resolve("/dev/zero", &dir, ExternalFiles::Anywhere).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = confined("sub", &dir).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        // The folder itself is not a file inside it.
        assert!(confined(".", &dir).is_err());
    }

    #[test]
    fn a_bare_model_name_has_the_current_folder() {
        assert_eq!(folder_of(Path::new("m.gltf")), Path::new("."));
        assert_eq!(folder_of(Path::new("a/m.gltf")), Path::new("a"));
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b%2Fc"), "a b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
