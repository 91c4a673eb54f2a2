//! The input key of a bake: every file a recipe reads, with its SHA-256, and one hash over the
//! tool version, `--force`, the recipe's text and those files. Equal keys mean an identical
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

/// The one key of a character file the input key needs; the others are left to loading.
#[derive(Deserialize)]
struct ModelKey {
    model: Option<Spanned<String>>,
}

/// The tool name and version stored in every file.
pub const TOOL: &str = concat!("throng ", env!("CARGO_PKG_VERSION"));

/// Lowercase hex of a digest.
fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file a bake of `recipe` reads, with hashes, and the key that identifies the bake's
/// inputs: equal keys mean an identical output. `force` is part of the key (it decides whether
/// an over-budget f16 bake is written). Bare models' URIs are listed when `external` allows
/// them, as loading reads them; a refused one is neither listed nor read.
///
/// # Errors
/// [`BakeError::Input`] for a file that cannot be read, saying where the recipe (and the
/// character file, for its model) names it.
pub fn inputs(
    recipe: &Recipe,
    force: bool,
    external: ExternalFiles,
) -> Result<(String, Vec<InputFile>), BakeError> {
    // Each file with where it was named, for a file that cannot be read.
    let mut files: Vec<(PathBuf, String)> = Vec::new();
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
            Source::Model(m) => {
                let named = named("model");
                files.extend(
                    crate::import::source_files(m, external)
                        .into_iter()
                        .map(|f| (f, named.clone())),
                );
            }
            Source::Character(f) => {
                let named = named("character");
                files.push((f.clone(), named.clone()));
                // The model the character file names, read without loading the character
                // (loading it reports what else is wrong with the file).
                let text = std::fs::read_to_string(f).unwrap_or_default();
                if let Ok(ModelKey { model: Some(m) }) = toml::from_str::<ModelKey>(&text) {
                    let dir = f.parent().unwrap_or(Path::new("."));
                    let file = f.file_name().map_or_else(
                        || f.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    let named =
                        format!("{named}{file}:{}: model: ", line_of(&text, m.span().start));
                    // Character files load their model held to its folder.
                    files.extend(
                        crate::import::source_files(
                            &dir.join(m.get_ref()),
                            ExternalFiles::ModelFolder,
                        )
                        .into_iter()
                        .map(|f| (f, named.clone())),
                    );
                }
            }
        }
        listed.insert(&c.source, start..files.len());
    }
    let mut key = Sha256::new();
    key.update(TOOL.as_bytes());
    key.update([0, u8::from(force)]);
    key.update(recipe.text.as_bytes());
    let mut out = Vec::new();
    // A file named again (characters made from one file) is read and hashed once; it is
    // listed each time, as the key has always listed it.
    let mut seen: HashMap<PathBuf, (sha2::digest::Output<Sha256>, u64)> = HashMap::new();
    for (f, named) in files {
        let (h, len) = match seen.get(&f) {
            Some(&(h, len)) => (h, len),
            None => {
                let bytes = std::fs::read(&f).map_err(|error| BakeError::Input {
                    named,
                    file: f.display().to_string(),
                    error,
                })?;
                let h = Sha256::digest(&bytes);
                seen.insert(f.clone(), (h, bytes.len() as u64));
                (h, bytes.len() as u64)
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
