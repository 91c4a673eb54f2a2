//! The input key of a bake: every file a recipe reads, with its SHA-256, and one hash over the
//! tool version, the format version and baker revision, `--force`, the recipe's text and those files. Equal keys mean an identical
//! output, which is how `throng bake` knows a file is up to date without baking it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};
use toml::Spanned;

use super::error::BakeError;
use super::recipe::{Recipe, Source};
use crate::character::toml_error::line_of;
use crate::format::InputFile;
use crate::import::ExternalFiles;
use crate::input::Kind;

/// The one key of a character file the input key needs; the others are left to loading.
#[derive(Deserialize)]
struct ModelKey {
    model: Option<Spanned<String>>,
}

/// The tool name and version stored in every file.
pub const TOOL: &str = concat!("throng ", env!("CARGO_PKG_VERSION"));

/// The revision of what the baker writes for given inputs, part of the input key beside
/// [`TOOL`] and the format version. Raise it when a change to the baker changes its output
/// for the same recipe and files within one format version, so that up-to-date checks (and
/// the demo's cache of bakes) bake again rather than reuse a file the new baker would not
/// write.
pub const BAKER_REVISION: u32 = 1;

/// The start of every input key: the tool, the format version written
/// ([`crate::format::VERSION_MAJOR`].[`crate::format::VERSION_MINOR`]) and
/// [`BAKER_REVISION`]. The crate version alone did not change between format steps, so a file
/// baked in an older format was once taken as up to date (the demo reused a format 1.1 bake
/// of a model after the format gained impostors).
fn key_seed(version: (u16, u16), revision: u32) -> Sha256 {
    let mut key = Sha256::new();
    key.update(TOOL.as_bytes());
    key.update(version.0.to_le_bytes());
    key.update(version.1.to_le_bytes());
    key.update(revision.to_le_bytes());
    key
}

/// Lowercase hex of a digest.
fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// One file a bake reads.
#[derive(Clone)]
pub(super) struct Listed {
    /// The file, as it is read.
    pub path: PathBuf,
    /// Where it was named, as a message prefix ending in `": "` (the recipe's line and
    /// character, the character file's line for its model, the model and element for a
    /// buffer or image); empty for a bare model's own file.
    pub named: String,
    /// What it is to the bake, for a message: "the model", "the character file",
    /// "buffer 0 of the model".
    pub what: String,
    /// Its kind, for the size limit it is read under.
    pub kind: Kind,
}

/// Every file a bake of `recipe` reads (models, their buffers and images, character files and
/// the models they name), in the order the input key hashes them; a file named again
/// (characters made from one source) is listed again. Bare models' URIs are listed when
/// `external` allows them, as loading reads them; a refused one is not listed. The recipe
/// file itself is not among them (its text is).
pub(super) fn input_files(recipe: &Recipe, external: ExternalFiles) -> Vec<Listed> {
    let mut files: Vec<Listed> = Vec::new();
    // Where each source's files are in `files`: a source named again (characters made from
    // one file) lists them again without parsing its files again.
    let mut listed: HashMap<&Source, std::ops::Range<usize>> = HashMap::new();
    for c in &recipe.characters {
        if let Some(at) = listed.get(&c.source) {
            files.extend_from_within(at.clone());
            continue;
        }
        let start = files.len();
        let named = |key: &str| match c.lines.at(key) {
            Some(at) => format!("{at}: character '{}': ", c.name),
            None => String::new(),
        };
        match &c.source {
            Source::Model(m) => model_files(&mut files, m, external, &named("model")),
            Source::Character(f) => {
                let named = named("character");
                files.push(Listed {
                    path: f.clone(),
                    named: named.clone(),
                    what: "the character file".into(),
                    kind: Kind::Text,
                });
                // The model the character file names, read without loading the character
                // (loading it reports what else is wrong with the file).
                let text = crate::input::read_text(f).unwrap_or_default();
                if let Ok(ModelKey { model: Some(m) }) = toml::from_str::<ModelKey>(&text) {
                    let dir = f.parent().unwrap_or(Path::new("."));
                    let named = format!(
                        "{named}{}:{}: model: ",
                        file_name(f),
                        line_of(&text, m.span().start)
                    );
                    // Character files load their model held to its folder.
                    let model = dir.join(m.get_ref());
                    model_files(&mut files, &model, ExternalFiles::ModelFolder, &named);
                }
            }
        }
        listed.insert(&c.source, start..files.len());
    }
    files
}

/// The last part of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Lists model `m` and the buffers and images it names, `named` where the model was named.
fn model_files(files: &mut Vec<Listed>, m: &Path, external: ExternalFiles, named: &str) {
    for f in crate::import::source_files(m, external) {
        let (named, what) = match &f.element {
            // The model and the element naming the file: a missing buffer is found here.
            Some(e) => (
                format!("{named}{}: {e}: ", file_name(m)),
                format!("{e} of the model"),
            ),
            None => (named.to_string(), "the model".to_string()),
        };
        files.push(Listed {
            path: f.path,
            named,
            what,
            kind: Kind::Model,
        });
    }
}

/// Every file a bake of `recipe` reads (models with their buffers and images, character
/// files and the models they name), with hashes, and the key that identifies the bake's
/// inputs: equal keys mean an identical output. `force` is part of the key (it decides
/// whether an over-budget f16 bake is written). Bare models' URIs are listed when `external`
/// allows them, as loading reads them; a refused one is neither listed nor read.
///
/// # Errors
/// [`BakeError::Input`] for a file that cannot be read (missing, not a regular file, over
/// its kind's size limit), saying where the recipe (and the character file, for its model;
/// the model and element, for a buffer or image) names it.
pub fn inputs(
    recipe: &Recipe,
    force: bool,
    external: ExternalFiles,
) -> Result<(String, Vec<InputFile>), BakeError> {
    let mut key = key_seed(
        (crate::format::VERSION_MAJOR, crate::format::VERSION_MINOR),
        BAKER_REVISION,
    );
    key.update([0, u8::from(force)]);
    key.update(recipe.text.as_bytes());
    let mut out = Vec::new();
    // A file named again (characters made from one file) is read and hashed once; it is
    // listed each time, as the key has always listed it.
    let mut seen: HashMap<PathBuf, (sha2::digest::Output<Sha256>, u64)> = HashMap::new();
    for Listed {
        path: f,
        named,
        kind,
        ..
    } in input_files(recipe, external)
    {
        let (h, len) = match seen.get(&f) {
            Some(&(h, len)) => (h, len),
            None => {
                let (h, len) = hash(&f, kind).map_err(|error| BakeError::Input {
                    named,
                    file: f.display().to_string(),
                    error,
                })?;
                seen.insert(f.clone(), (h, len));
                (h, len)
            }
        };
        key.update(f.display().to_string().as_bytes());
        key.update(h);
        out.push(InputFile {
            path: f.display().to_string(),
            sha256: hex(h),
            bytes: len,
        });
    }
    Ok((hex(key.finalize()), out))
}

/// The SHA-256 and length of file `f`, read as a file of `kind` ([`crate::input`]), streamed.
fn hash(f: &Path, kind: Kind) -> std::io::Result<(sha2::digest::Output<Sha256>, u64)> {
    let (mut r, _) = crate::input::reader(f, kind)?;
    let mut hasher = Sha256::new();
    let len = std::io::copy(&mut r, &mut hasher)?;
    Ok((hasher.finalize(), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each part of the seed changes the key: a bake from an older format or baker revision
    /// is never taken as up to date.
    #[test]
    fn the_key_seed_holds_the_format_version_and_baker_revision() {
        let now = (crate::format::VERSION_MAJOR, crate::format::VERSION_MINOR);
        let key = |v, r| hex(key_seed(v, r).finalize());
        let current = key(now, BAKER_REVISION);
        assert_ne!(current, key((now.0, now.1 - 1), BAKER_REVISION));
        assert_ne!(current, key((now.0 + 1, now.1), BAKER_REVISION));
        assert_ne!(current, key(now, BAKER_REVISION + 1));
        assert_eq!(current, key(now, BAKER_REVISION));
    }
}
