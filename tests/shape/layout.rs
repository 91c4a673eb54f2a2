//! How the source tree is laid out, beside the size and layering rules of `tests/shape.rs`:
//! one module layout for the whole tree (a module with children is `x/mod.rs`, never `x.rs`
//! beside a folder `x/`), so a reader finds a module's root in one place.

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
