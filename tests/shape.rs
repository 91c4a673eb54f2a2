//! The shape of the source tree, checked on every run (the rules of docs/ARCHITECTURE.md and
//! issue 16, "one idea per file"):
//! - no source file over [`FILE_LINES`] lines unless its `//!` header says why one idea needs
//!   more (a header line containing "one idea");
//! - no function over [`FN_LINES`] lines (signature to closing brace) in `src/`, `tests/`,
//!   `benches/` and `examples/`;
//! - every `crate::` path in a library module points down the layers of docs/ARCHITECTURE.md;
//! - no import circle between the files of `src/` (a file reaching a sibling through its
//!   parent's `pub use` counts as reaching the sibling);
//! - one module layout for the whole tree, `x/mod.rs`, and no two public types of one name
//!   (`shape/layout.rs`).
//!
//! The parsing is deliberately small: it reads Rust as text, skipping comments and string
//! literals, which is enough for this codebase's formatting (rustfmt-ed, no macros defining
//! items). Test-only code (`#[cfg(test)]` modules, files included only under `cfg(test)`) may
//! reach up the layering for fixtures and is not held to the layering rule.
//!
//! The docs are checked here too (`docs`): links, the layer table, length and dates.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "shape/docs.rs"]
mod docs;
#[path = "shape/layout.rs"]
mod layout;

/// "About 700 lines": the size past which a file must say why it is still one idea.
const FILE_LINES: usize = 750;
/// "About 150 lines": the longest function, counted from its `fn` line to its closing brace.
const FN_LINES: usize = 160;

/// What each top-level module of the library may use (docs/ARCHITECTURE.md, "Layers", draws
/// this table, and `docs` checks that it does; anim and format are leaves;
/// mesh <- import <- character <- bake, which fills format's builder; crowd <- format; render
/// <- crowd; app <- render; bench and cli on top). `input` (the one way an input file is read,
/// std only) is a leaf every module that reads files may use, and `atomic` (the one file
/// writer) stands on it alone. Modules not listed may use anything.
const ALLOWED: &[(&str, &[&str])] = &[
    ("input", &[]),
    ("atomic", &["input"]),
    ("anim", &[]),
    ("format", &["atomic", "input"]),
    ("mesh", &["anim"]),
    ("import", &["anim", "mesh", "input"]),
    ("character", &["anim", "mesh", "import", "input"]),
    (
        "bake",
        &[
            "anim",
            "mesh",
            "import",
            "character",
            "format",
            "atomic",
            "input",
        ],
    ),
    ("crowd", &["format", "input"]),
    ("render", &["crowd", "format"]),
    // The live tier: the crowd's live agents, their animations evaluated as the baker
    // evaluates them (bake's replay, character's poser, import's file policy) or from the
    // bake's poses (format), with the animation core's legs and feet; no wgpu.
    (
        "hybrid",
        &["anim", "crowd", "format", "bake", "character", "import"],
    ),
    ("app", &["render", "crowd", "format", "atomic", "hybrid"]),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The file's lines with comments and the contents of string and char literals blanked, so
/// that braces and paths inside them are not counted. Line structure is kept.
fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block = 0usize; // nesting depth of /* */ comments
    let mut in_str = false;
    let mut raw_hashes: Option<usize> = None;
    for line in text.lines() {
        let b: Vec<char> = line.chars().collect();
        let mut s = String::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let next = b.get(i + 1).copied();
            if block > 0 {
                if c == '*' && next == Some('/') {
                    block -= 1;
                    i += 2;
                } else if c == '/' && next == Some('*') {
                    block += 1;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            if let Some(h) = raw_hashes {
                if c == '"' && b[i + 1..].iter().take(h).filter(|&&x| x == '#').count() == h {
                    raw_hashes = None;
                    s.push('"');
                    i += 1 + h;
                } else {
                    i += 1;
                }
                continue;
            }
            if in_str {
                if c == '\\' {
                    i += 2;
                } else {
                    if c == '"' {
                        in_str = false;
                        s.push('"');
                    }
                    i += 1;
                }
                continue;
            }
            match c {
                '/' if next == Some('/') => break,
                '/' if next == Some('*') => {
                    block += 1;
                    i += 2;
                }
                '"' => {
                    in_str = true;
                    s.push('"');
                    i += 1;
                }
                'r' if next == Some('"') || next == Some('#') => {
                    let h = b[i + 1..].iter().take_while(|&&x| x == '#').count();
                    if b.get(i + 1 + h) == Some(&'"') {
                        raw_hashes = Some(h);
                        s.push('"');
                        i += 2 + h;
                    } else {
                        s.push(c);
                        i += 1;
                    }
                }
                '\'' => {
                    // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
                    let close = if next == Some('\\') {
                        b[i + 2..]
                            .iter()
                            .position(|&x| x == '\'')
                            .map(|p| i + 2 + p)
                    } else if b.get(i + 2) == Some(&'\'') {
                        Some(i + 2)
                    } else {
                        None
                    };
                    match close {
                        Some(end) => {
                            s.push_str("' '");
                            i = end + 1;
                        }
                        None => {
                            s.push(c);
                            i += 1;
                        }
                    }
                }
                _ => {
                    s.push(c);
                    i += 1;
                }
            }
        }
        out.push(s);
    }
    out
}

/// `(first line, line count, name)` of every function with a body.
fn functions(code: &[String]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, line) in code.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let mut depth = 0i64;
        let mut opened = false;
        'scan: for (j, l) in code.iter().enumerate().skip(i) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break 'scan, // a declaration only
                    _ => {}
                }
                if opened && depth == 0 {
                    out.push((i + 1, j - i + 1, name.clone()));
                    break 'scan;
                }
            }
        }
    }
    out
}

/// The name of the function a line starts, if it does.
fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let before_ok = words[..at].iter().all(|w| {
        matches!(
            *w,
            "pub" | "const" | "async" | "unsafe" | "extern" | "default"
        ) || w.starts_with("pub(")
            || w.starts_with('"')
    });
    let name: String = words
        .get(at + 1)?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (before_ok && !name.is_empty()).then_some(name)
}

#[test]
fn no_file_is_over_the_limit_without_a_reason() {
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        for path in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let lines = text.lines().count();
            let says_why = text
                .lines()
                .take_while(|l| l.starts_with("//!") || l.starts_with("#!"))
                .any(|l| l.contains("one idea"));
            if lines > FILE_LINES && !says_why {
                long.push(format!("{}: {lines} lines", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {FILE_LINES} lines whose //! header does not say why one idea needs them:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_is_over_the_limit() {
    let mut long = Vec::new();
    let mut seen = 0;
    for dir in ["src", "tests", "benches", "examples"] {
        for path in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            for (line, len, name) in functions(&code_lines(&text)) {
                seen += 1;
                if len > FN_LINES {
                    long.push(format!("{}:{line}: {name}, {len} lines", path.display()));
                }
            }
        }
    }
    // The parser found the crate's functions (there are well over a thousand), so an empty
    // list below means something.
    assert!(
        seen > 1000,
        "found only {seen} functions: the parser is broken"
    );
    assert!(
        long.is_empty(),
        "functions over {FN_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// A source file of the library and what it says about its imports.
struct SourceFile {
    /// Module path, e.g. `["crowd", "grid"]`; `[]` for lib.rs.
    module: Vec<String>,
    /// Whether the file is a module root (`lib.rs`, `mod.rs`).
    is_root: bool,
    /// Non-test code lines.
    code: Vec<String>,
    /// Whether the whole file is compiled only for tests.
    test_only: bool,
}

/// The library's files by module path.
fn library() -> BTreeMap<Vec<String>, SourceFile> {
    let src = root().join("src");
    let mut files = BTreeMap::new();
    for path in rust_files(&src) {
        let rel = path.strip_prefix(&src).expect("under src");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if parts == ["main"] || parts.first().is_some_and(|p| p == "bin") {
            continue;
        }
        let is_root = matches!(parts.last().map(String::as_str), Some("mod" | "lib"));
        if is_root {
            parts.pop();
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let mut code = code_lines(&text);
        // Unit tests sit at the bottom of a file behind `#[cfg(test)]`.
        if let Some(at) = code.windows(2).position(|w| {
            w[0].trim() == "#[cfg(test)]"
                && w[1].trim_start().starts_with("mod ")
                && w[1].trim_end().ends_with('{')
        }) {
            code.truncate(at);
        }
        files.insert(
            parts.clone(),
            SourceFile {
                module: parts,
                is_root,
                code,
                test_only: false,
            },
        );
    }
    // Files declared under `#[cfg(test)] mod x;` are fixtures.
    let test_children: Vec<Vec<String>> = files
        .values()
        .flat_map(|f| {
            let text = std::fs::read_to_string(file_path(&src, f)).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines
                .windows(2)
                .filter(|w| w[0].trim() == "#[cfg(test)]")
                .filter_map(|w| {
                    let name = w[1].trim().strip_prefix("mod ")?.strip_suffix(';')?;
                    let mut m = f.module.clone();
                    m.push(name.to_string());
                    Some(m)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for m in test_children {
        if let Some(f) = files.get_mut(&m) {
            f.test_only = true;
        }
    }
    files
}

fn file_path(src: &Path, f: &SourceFile) -> PathBuf {
    let mut p = src.to_path_buf();
    for m in &f.module {
        p.push(m);
    }
    if f.is_root {
        if f.module.is_empty() {
            src.join("lib.rs")
        } else {
            p.join("mod.rs")
        }
    } else {
        p.with_extension("rs")
    }
}

/// Every path a file names: `use` trees expanded (`a::{b, c::d}` gives `a::b`, `a::c::d`)
/// plus inline `crate::`/`super::` paths in code.
fn paths(code: &[String]) -> Vec<String> {
    let text = code.join("\n");
    let mut out = Vec::new();
    // `use` declarations, possibly over several lines.
    let mut rest = text.as_str();
    while let Some(at) = find_use(rest) {
        let after = &rest[at..];
        let end = after.find(';').unwrap_or(after.len());
        let tree = after[..end]
            .trim_start_matches("pub(crate) use")
            .trim_start_matches("pub(super) use")
            .trim_start_matches("pub use")
            .trim_start_matches("use");
        expand(&squash(tree), "", &mut out);
        rest = &after[end..];
    }
    // Inline paths.
    for prefix in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix) {
            let start = from + i;
            let ok_before = text[..start]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
            let p: String = text[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            if ok_before {
                out.push(p.trim_end_matches(':').to_string());
            }
            from = start + prefix.len();
        }
    }
    out
}

/// The byte offset of the next `use` declaration.
fn find_use(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find("use ") {
        let at = from + i;
        let before = text[..at].trim_end();
        let starts = before.is_empty()
            || before.ends_with(';')
            || before.ends_with('{')
            || before.ends_with('}')
            || before.ends_with("pub")
            || before.ends_with("pub(crate)")
            || before.ends_with("pub(super)")
            || before.ends_with(']');
        if starts
            && text[..at]
                .chars()
                .last()
                .is_none_or(|c| !c.is_alphanumeric())
        {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// A `use` tree with its white space folded: single spaces, none around `::`, braces and
/// commas (so `F as G` keeps its spaces and `a :: { b }` becomes `a::{b}`).
fn squash(tree: &str) -> String {
    let mut s = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (":: ", "::"),
        (" ::", "::"),
        ("{ ", "{"),
        (" {", "{"),
        (" }", "}"),
        ("} ", "}"),
        (", ", ","),
        (" ,", ","),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// Expands a squashed `use` tree into full paths (`a::{b,c::d}` gives `a::b` and `a::c::d`;
/// `x as y` gives `x`; `a::{self}` gives `a`).
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    if let Some(open) = tree.find('{') {
        let pre = format!("{prefix}{}", &tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], &pre, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &pre, out);
        return;
    }
    let leaf = tree.split(" as ").next().unwrap_or(tree).trim();
    let leaf = leaf.trim_end_matches("::*");
    if leaf.is_empty() {
        return;
    }
    if leaf == "self" {
        out.push(prefix.trim_end_matches("::").to_string());
    } else {
        out.push(format!("{prefix}{leaf}"));
    }
}

/// The module path a `crate::`/`super::`/`self::` path resolves to (the longest prefix that
/// is a file), or `None` for paths outside the crate.
fn resolve(
    from: &SourceFile,
    path: &str,
    files: &BTreeMap<Vec<String>, SourceFile>,
) -> Option<(Vec<String>, Option<String>)> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    // A file's `self` is its own module and `super` the one above, for roots and leaves alike.
    let mut base: Vec<String> = from.module.clone();
    let mut i = 0;
    match segs.first().copied() {
        Some("crate") => {
            base.clear();
            i = 1;
        }
        Some("super") | Some("self") => {
            while let Some(s) = segs.get(i) {
                match *s {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                i += 1;
            }
        }
        _ => return None,
    }
    let mut m = base;
    let mut last_file = files.contains_key(&m).then(|| m.clone());
    let mut item = None;
    for s in &segs[i..] {
        m.push((*s).to_string());
        if files.contains_key(&m) {
            last_file = Some(m.clone());
            item = None;
        } else {
            item = Some((*s).to_string());
            break;
        }
    }
    last_file.map(|f| (f, item))
}

/// The child file of module root `root` that an item it re-exports comes from.
fn reexport_source(
    root: &SourceFile,
    item: &str,
    files: &BTreeMap<Vec<String>, SourceFile>,
) -> Option<Vec<String>> {
    let text = root.code.join("\n");
    let mut found = None;
    let mut rest = text.as_str();
    while let Some(at) = rest.find("pub use ") {
        let after = &rest[at..];
        let end = after.find(';').unwrap_or(after.len());
        let mut ps = Vec::new();
        expand(&squash(&after[end.min("pub use".len())..end]), "", &mut ps);
        for p in ps {
            if p.rsplit("::").next() == Some(item) {
                let full =
                    if p.starts_with("crate") || p.starts_with("super") || p.starts_with("self") {
                        p
                    } else {
                        format!("self::{p}")
                    };
                if let Some((f, _)) = resolve(root, &full, files)
                    && f != root.module
                {
                    found = Some(f);
                }
            }
        }
        rest = &after[end..];
    }
    found
}

#[test]
fn library_modules_follow_the_layering() {
    let files = library();
    let mut wrong = BTreeSet::new();
    for f in files.values().filter(|f| !f.test_only) {
        let Some(top) = f.module.first() else {
            continue;
        };
        let Some((_, allowed)) = ALLOWED.iter().find(|(m, _)| m == top) else {
            continue;
        };
        for p in paths(&f.code) {
            let Some((target, _)) = resolve(f, &p, &files) else {
                continue;
            };
            let Some(t) = target.first() else { continue };
            if t != top && !allowed.contains(&t.as_str()) {
                wrong.insert(format!("src/{}: uses {p}", f.module.join("/")));
            }
        }
    }
    assert!(
        files.len() > 50,
        "found only {} library files: the walk is broken",
        files.len()
    );
    assert!(
        wrong.is_empty(),
        "imports against the layers of docs/ARCHITECTURE.md:\n{}",
        wrong.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn no_import_circle_between_files() {
    let files = library();
    // Edges between files; a path into a module root that names an item the root re-exports
    // from a child is an edge to that child. Edges from a root to its own children (its `mod`
    // and `pub use` lines) are how a module is assembled, not an import, and are left out.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in files.values().filter(|f| !f.test_only) {
        for p in paths(&f.code) {
            let Some((mut target, item)) = resolve(f, &p, &files) else {
                continue;
            };
            if let (Some(item), Some(t)) = (&item, files.get(&target))
                && t.is_root
                && let Some(src) = reexport_source(t, item, &files)
            {
                target = src;
            }
            let into_root = files.get(&target).is_some_and(|t| t.is_root);
            let own_child = f.is_root && target.starts_with(&f.module);
            if target != f.module && !into_root && !own_child {
                edges.entry(f.module.clone()).or_default().insert(target);
            }
        }
    }
    // Depth-first search for a back edge.
    let mut circles = Vec::new();
    let mut state: BTreeMap<Vec<String>, u8> = BTreeMap::new(); // 1 = on stack, 2 = done
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m) {
                Some(1) => {
                    let at = stack.iter().position(|s| s == m).unwrap_or(0);
                    let names: Vec<String> = stack[at..]
                        .iter()
                        .chain([m])
                        .map(|s| s.join("::"))
                        .collect();
                    circles.push(names.join(" -> "));
                }
                Some(_) => {}
                None => visit(m, edges, state, stack, circles),
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
    }
    let mut stack = Vec::new();
    for n in files.keys() {
        if !state.contains_key(n) {
            visit(n, &edges, &mut state, &mut stack, &mut circles);
        }
    }
    let edge_count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(
        edge_count > 50,
        "found only {edge_count} imports between files: the parser is broken"
    );
    assert!(
        circles.is_empty(),
        "import circles between files:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_parser_reads_what_it_must() {
    // The checks above are only as good as this reading of Rust; pin its corner cases.
    let code = code_lines(
        "fn a() { let s = \"}\"; let c = '}'; // }\n}\n/* fn b() { */\npub(crate) fn c<'a>(x: &'a str) {\n}\n",
    );
    let fns = functions(&code);
    assert_eq!(
        fns,
        vec![(1, 2, "a".to_string()), (4, 2, "c".to_string())],
        "{code:?}"
    );
    let mut out = Vec::new();
    expand(
        &squash("super::{a::{B, C},\n d, e::F as G, h::{self}}"),
        "",
        &mut out,
    );
    assert_eq!(
        out,
        [
            "super::a::B",
            "super::a::C",
            "super::d",
            "super::e::F",
            "super::h"
        ]
    );
    let ps = paths(&[
        "use crate::x::{y, z::W};".to_string(),
        "let v = crate::q::r();".to_string(),
    ]);
    assert!(ps.contains(&"crate::x::y".to_string()), "{ps:?}");
    assert!(ps.contains(&"crate::x::z::W".to_string()), "{ps:?}");
    assert!(ps.contains(&"crate::q::r".to_string()), "{ps:?}");
}
