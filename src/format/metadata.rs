//! The `META` section: what a file was baked from and how, as UTF-8 JSON. Used to tell whether
//! a re-bake would change anything, and shown by `throng inspect`.

use serde::{Deserialize, Serialize};

/// One input file of a bake.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as the recipe (or command line) named it, resolved.
    pub path: String,
    /// Lowercase hex SHA-256 of its bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Bake metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// The tool that baked the file, e.g. `throng 0.1.0`.
    pub tool: String,
    /// Hex SHA-256 over the tool version, the recipe and every input file's hash: equal keys
    /// mean a re-bake would write the same file.
    pub input_key: String,
    /// The recipe's path (or `-` for a bake of a bare model without a recipe).
    pub recipe_path: String,
    /// The recipe's text (for a bare model: the equivalent recipe).
    pub recipe: String,
    /// Every file read besides the recipe (whose text is stored whole): character files,
    /// models and their external buffers and images.
    pub inputs: Vec<InputFile>,
    /// `f32` or `f16`, and why (`"f16 (auto: within the budget)"`).
    pub precision: String,
    /// The budget for f16 error, as a fraction of character height.
    pub precision_budget: f32,
    /// The budget for mid-frame interpolation error used by `fps = "auto"`, as a fraction of
    /// character height.
    pub interpolation_budget: f32,
}
