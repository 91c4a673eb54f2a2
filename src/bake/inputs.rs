//! The input key of a bake: every file a recipe reads, with its SHA-256, and one hash over the
//! tool version, `--force`, the recipe's text and those files. Equal keys mean an identical
//! output, which is how `throng bake` knows a file is up to date without baking it.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::BakeError;
use super::recipe::{Recipe, Source};
use crate::format::InputFile;
use crate::import::ExternalFiles;

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
/// [`BakeError::Input`] for a file that cannot be read.
pub fn inputs(
    recipe: &Recipe,
    force: bool,
    external: ExternalFiles,
) -> Result<(String, Vec<InputFile>), BakeError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for c in &recipe.characters {
        match &c.source {
            Source::Model(m) => files.extend(crate::import::source_files(m, external)),
            Source::Character(f) => {
                files.push(f.clone());
                // The model the character file names (read without loading the character).
                let model = std::fs::read_to_string(f)
                    .ok()
                    .and_then(|t| t.parse::<toml::Table>().ok())
                    .and_then(|t| t.get("model")?.as_str().map(str::to_string));
                if let Some(m) = model {
                    let dir = f.parent().unwrap_or(Path::new("."));
                    // Character files load their model held to its folder.
                    files.extend(crate::import::source_files(
                        &dir.join(m),
                        ExternalFiles::ModelFolder,
                    ));
                }
            }
        }
    }
    let mut key = Sha256::new();
    key.update(TOOL.as_bytes());
    key.update([0, u8::from(force)]);
    key.update(recipe.text.as_bytes());
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).map_err(|source| BakeError::Input {
            file: f.display().to_string(),
            source,
        })?;
        let h = Sha256::digest(&bytes);
        key.update(f.display().to_string().as_bytes());
        key.update(h);
        out.push(InputFile {
            path: f.display().to_string(),
            sha256: hex(h),
            bytes: bytes.len() as u64,
        });
    }
    Ok((hex(key.finalize()), out))
}
