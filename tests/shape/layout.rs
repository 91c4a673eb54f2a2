//! How the source tree is laid out, beside the size and layering rules of `tests/shape.rs`:
//! one module layout for the whole tree (a module with children is `x/mod.rs`, never `x.rs`
//! beside a folder `x/`), so a reader finds a module's root in one place; `render/` and
//! `crowd/` with their public API at the top and the rest in sub-folders; and no two public
//! types of one name.

use super::{root, rust_files};

/// Every module with child files has its root in `x/mod.rs`: no `x.rs` stands beside a
/// folder `x/`, and no folder of `src/` lacks its `mod.rs`.
#[test]
fn every_module_folder_has_its_root_inside() {
    let src = root().join("src");
    let mut folders = std::collections::BTreeSet::new();
    for file in rust_files(&src) {
        let mut dir = file.parent();
        while let Some(d) = dir.filter(|d| *d != src) {
            folders.insert(d.to_path_buf());
            dir = d.parent();
        }
    }
    let mut wrong = Vec::new();
    for folder in &folders {
        let rel = folder.strip_prefix(&src).expect("under src").display();
        if folder.with_extension("rs").is_file() {
            wrong.push(format!(
                "src/{rel}.rs beside src/{rel}/: move it to src/{rel}/mod.rs"
            ));
        }
        if !folder.join("mod.rs").is_file() {
            wrong.push(format!("src/{rel}/ has no mod.rs"));
        }
    }
    assert!(
        folders.len() > 10,
        "found only {} module folders: the walk is broken",
        folders.len()
    );
    assert!(
        wrong.is_empty(),
        "two module layouts side by side (the tree uses x/mod.rs):\n{}",
        wrong.join("\n")
    );
}

/// The most `.rs` files at the top of `src/render/` and `src/crowd/` (issue 51: "about 12"):
/// the top holds a module's public API, its insides and helpers go into sub-folders
/// (`render/draw/`, `render/pictures/`, `crowd/frame/`, `crowd/plaza/`).
const TOP_FILES: usize = 12;

#[test]
fn render_and_crowd_keep_their_insides_in_folders() {
    for module in ["render", "crowd"] {
        let dir = root().join("src").join(module);
        let files: Vec<String> = std::fs::read_dir(&dir)
            .expect("read a module folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert!(
            (2..=TOP_FILES).contains(&files.len()),
            "src/{module}/ holds {} files at its top (at most {TOP_FILES}: its public API; insides \
             and helpers go into a sub-folder): {}",
            files.len(),
            files.join(", ")
        );
    }
}

/// Names two types may share: each command's clap arguments are `Args` in its own module of
/// `cli` (named through it, `bake::Args`, as clap's derive examples do), none of them public.
const SHARED_NAMES: &[(&str, &str)] = &[("Args", "src/cli/")];

/// No two public types (`pub struct`, `pub enum`, `pub type`, `pub trait`) of `src/` share a
/// name: a name says one thing, in the docs, in a search and in an error.
#[test]
fn no_two_public_types_share_a_name() {
    let src = root().join("src");
    let mut seen: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).expect("read a source file");
        let rel = format!(
            "src/{}",
            file.strip_prefix(&src).expect("under src").display()
        );
        for (i, line) in text.lines().enumerate() {
            let Some(name) = public_type(line) else {
                continue;
            };
            let shared = SHARED_NAMES
                .iter()
                .any(|(n, dir)| *n == name && rel.starts_with(dir));
            if !shared {
                seen.entry(name)
                    .or_default()
                    .push(format!("{rel}:{}", i + 1));
            }
        }
    }
    assert!(
        seen.len() > 100,
        "found only {} public type names: the scan is broken",
        seen.len()
    );
    let twins: Vec<String> = seen
        .iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        twins.is_empty(),
        "public types sharing a name (rename one to say what it is):\n{}",
        twins.join("\n")
    );
}

/// The type a line declares public, if it does: `pub struct X`, `pub enum X<T>`,
/// `pub type X = ..`, `pub trait X: ..` (not `pub(crate)`, not in a comment).
fn public_type(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let rest = ["struct ", "enum ", "type ", "trait "]
        .iter()
        .find_map(|kw| rest.strip_prefix(kw))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[test]
fn public_type_reads_declarations_only() {
    assert_eq!(public_type("pub struct Crowd {"), Some("Crowd".into()));
    assert_eq!(public_type("    pub enum Wrap<T> {"), Some("Wrap".into()));
    assert_eq!(public_type("pub type Kind = [u8; 4];"), Some("Kind".into()));
    assert_eq!(
        public_type("pub trait Driver: Send {"),
        Some("Driver".into())
    );
    assert_eq!(public_type("pub(crate) struct Hidden;"), None);
    assert_eq!(public_type("/// pub struct InADoc"), None);
    assert_eq!(public_type("pub fn structure() {}"), None);
}
