//! The default bake: the mannequin crowd that `throng demo`, `render`, `bench` and `inspect`
//! fall back on when given no file, and that `throng bake` bakes when given no recipe.
//!
//! Its recipe, character file and model are built into the binary ([`BUILTIN_FILES`]), so
//! throng needs no checkout to run:
//! - in the repository root (where [`DEFAULT_RECIPE`] is), the repository's recipe is used, as
//!   a developer editing it expects, and the bake is `bake/mannequin.throng` beside it;
//! - anywhere else, the built-in files are written into the cache folder ([`cache_dir`]),
//!   under [`BUILTIN_DIR`], and baked into [`CACHED_BAKE`] there.
//!
//! The built-in files are rewritten whenever they differ from the ones in the binary, and the
//! bake is up to date by its input key, which hashes them with throng's version
//! ([`super::inputs`]): a new throng, or a changed recipe, character or model, rebakes once.
//! They are real files (not read from memory) so that everything that reads a bake's recipe
//! later (the bench's live baseline, `throng bake` of that recipe) finds it.

use std::path::{Path, PathBuf};

use super::baker::BakeOptions;
use super::output::{OutputError, bake_if_stale};
use super::recipe::Recipe;
use crate::atomic::{check_target, write_bytes};

pub use super::output::DEFAULT_RECIPE;

/// One file of the built-in default bake.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinFile {
    /// Its path relative to the folder it is written into, as in the repository (the recipe
    /// names the character file and the character file the model by these relative paths).
    pub path: &'static str,
    /// Its content, as committed to the repository when this throng was built.
    pub bytes: &'static [u8],
}

/// The built-in default bake's inputs: the recipe ([`DEFAULT_RECIPE`], the first), the
/// mannequin's character file and the mannequin model (written by
/// [`crate::import::mannequin::generate_glb`]).
pub const BUILTIN_FILES: [BuiltinFile; 3] = [
    BuiltinFile {
        path: DEFAULT_RECIPE,
        bytes: include_bytes!("../../bake/mannequin.toml"),
    },
    BuiltinFile {
        path: "assets/mannequin.toml",
        bytes: include_bytes!("../../assets/mannequin.toml"),
    },
    BuiltinFile {
        path: "assets/mannequin.glb",
        bytes: include_bytes!("../../assets/mannequin.glb"),
    },
];

/// The folder in the cache folder that the built-in files are written into.
pub const BUILTIN_DIR: &str = "builtin";

/// The file name of the built-in default bake in the cache folder.
pub const CACHED_BAKE: &str = "mannequin.throng";

/// throng's cache folder (the default bake outside the repository, and `throng demo`'s bakes
/// of the models it is given): `$XDG_CACHE_HOME/throng` when that is an absolute path (as the
/// XDG specification asks), else `$HOME/.cache/throng`, else `throng` in the system temporary
/// folder. Nothing is created.
pub fn cache_dir() -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").and_then(absolute) {
        return dir.join("throng");
    }
    if let Some(home) = std::env::var_os("HOME").and_then(absolute) {
        return home.join(".cache").join("throng");
    }
    std::env::temp_dir().join("throng")
}

/// Where the default recipe comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefaultSource {
    /// [`DEFAULT_RECIPE`] in the current folder (the repository root).
    Repository,
    /// The built-in files, written into `folder` (`CACHE/builtin`) and baked into the cache.
    Builtin {
        /// The folder the built-in files were written into.
        folder: PathBuf,
    },
}

/// The default recipe, loaded and ready to bake, with where it came from.
#[derive(Clone, Debug)]
pub struct DefaultRecipe {
    /// The recipe; its `output` is the default bake's file.
    pub recipe: Recipe,
    /// Where it came from.
    pub source: DefaultSource,
}

/// The default recipe: [`DEFAULT_RECIPE`] when the current folder has it (the repository
/// root), else the built-in one in [`cache_dir`] ([`builtin_recipe`]).
///
/// # Errors
/// [`OutputError::DefaultRecipe`] if the repository's recipe cannot be read or is invalid;
/// else as [`builtin_recipe`].
pub fn default_recipe() -> Result<DefaultRecipe, OutputError> {
    let repository = Path::new(DEFAULT_RECIPE);
    if repository.is_file() {
        let recipe =
            Recipe::load(repository).map_err(|source| OutputError::DefaultRecipe { source })?;
        return Ok(DefaultRecipe {
            recipe,
            source: DefaultSource::Repository,
        });
    }
    let cache = cache_dir();
    Ok(DefaultRecipe {
        recipe: builtin_recipe(&cache)?,
        source: DefaultSource::Builtin {
            folder: cache.join(BUILTIN_DIR),
        },
    })
}

/// Checks, before any work, that `path`, a file in the cache folder ([`cache_dir`]), can be
/// written (as [`check_target`], creating its folder), and says it is the cache's when not.
///
/// # Errors
/// [`OutputError::CacheFolder`] if a folder stands there, else [`OutputError::Cache`] naming
/// the entry and what is wrong.
pub fn check_cache_entry(path: &Path) -> Result<(), OutputError> {
    check_target(path, true).map_err(|e| {
        if path.is_dir() {
            OutputError::CacheFolder {
                path: path.to_path_buf(),
            }
        } else {
            OutputError::Cache(e)
        }
    })
}

/// The built-in default recipe, its files written into `cache/builtin` (each only when it
/// differs from the built-in one, so a reused bake touches nothing), with its output set to
/// `cache/mannequin.throng` ([`CACHED_BAKE`]). Folders are created as needed.
///
/// # Errors
/// [`OutputError::CacheFolder`] or [`OutputError::Cache`] if a file cannot be written there
/// (a folder in its place, a read-only cache), [`OutputError::Builtin`] if writing one fails.
pub fn builtin_recipe(cache: &Path) -> Result<Recipe, OutputError> {
    let folder = cache.join(BUILTIN_DIR);
    for f in &BUILTIN_FILES {
        let path = folder.join(f.path);
        // Read as any input (a FIFO left in the cache must not hold this); what is refused
        // is then refused as a target, naming what it is.
        if crate::input::read(&path, crate::input::Kind::Model).is_ok_and(|b| b == f.bytes) {
            continue;
        }
        check_cache_entry(&path)?;
        write_bytes(&path, f.bytes).map_err(|error| OutputError::Builtin { error })?;
    }
    let mut recipe = Recipe::load(&folder.join(DEFAULT_RECIPE))?;
    recipe.output = cache.join(CACHED_BAKE);
    Ok(recipe)
}

/// The default bake's file ([`default_recipe`]'s output), baked first when missing or out of
/// date ([`bake_if_stale`]); `before_baking` is called with the recipe just before that bake
/// (not at all when the file is up to date). Outside the repository root the recipe's
/// `output` is the cache file, so saying it says where the cache is.
///
/// # Errors
/// As [`default_recipe`], [`check_cache_entry`] (outside the repository root) and
/// [`bake_if_stale`].
pub fn default_bake(
    options: &BakeOptions,
    before_baking: impl FnOnce(&Recipe),
) -> Result<PathBuf, OutputError> {
    let default = default_recipe()?;
    if let DefaultSource::Builtin { .. } = default.source {
        check_cache_entry(&default.recipe.output)?;
    }
    bake_if_stale(&default.recipe, options, before_baking)?;
    Ok(default.recipe.output)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system temp folder.
    fn temp(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("throng-default-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_built_in_files_are_the_repository_s() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for f in &BUILTIN_FILES {
            assert_eq!(
                std::fs::read(root.join(f.path)).unwrap(),
                f.bytes,
                "{}",
                f.path
            );
        }
    }

    #[test]
    fn the_built_in_recipe_is_written_once_and_restored_when_changed() {
        let cache = temp("builtin");
        let recipe = builtin_recipe(&cache).unwrap();
        assert_eq!(recipe.output, cache.join(CACHED_BAKE));
        assert_eq!(
            recipe.path.as_deref(),
            Some(cache.join(BUILTIN_DIR).join(DEFAULT_RECIPE).as_path())
        );
        let character = cache.join(BUILTIN_DIR).join("assets/mannequin.toml");
        // Files are written by renaming a new file over the old one: a rewrite changes the
        // inode, however coarse the file system's clock.
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let written = inode(&character);
        // Unchanged files are left alone.
        builtin_recipe(&cache).unwrap();
        assert_eq!(inode(&character), written);
        // An edited one is put back.
        std::fs::write(&character, "model = \"other.glb\"\n").unwrap();
        builtin_recipe(&cache).unwrap();
        assert_eq!(std::fs::read(&character).unwrap(), BUILTIN_FILES[1].bytes);
        let _ = std::fs::remove_dir_all(&cache);
    }
}
