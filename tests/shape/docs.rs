//! The docs' shape, checked with the code's (docs/ARCHITECTURE.md, "Docs and commits"):
//! - every relative link in README.md and docs/*.md resolves inside the repository: the file
//!   exists, and a `#anchor` names a heading of it by GitHub's slug rule; http(s) links are not
//!   followed, and no link leaves the repository (a clone has nothing beside it);
//! - the README's docs index names every page of docs/;
//! - docs/ARCHITECTURE.md's layer table is [`super::ALLOWED`], both ways, and has a row for
//!   every top-level module of `src/`;
//! - docs/PERFORMANCE.md and README.md stay short, and no heading in docs/ carries a date
//!   (history lives in git).
//!
//! Markdown is read as text: ATX headings and inline links outside fenced code and code spans,
//! which is how these pages are written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::{ALLOWED, root};

/// "About 300 lines": a reference of today's figures (issue 51), not a diary.
const PERFORMANCE_LINES: usize = 300;
/// "About 150 lines", with room for a line or two: the front door, not the manual.
const README_LINES: usize = 160;

/// README.md and every docs/*.md page, relative to the repository root, sorted.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md")];
    let docs = std::fs::read_dir(root().join("docs")).expect("read docs/");
    let mut md: Vec<PathBuf> = docs
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            p.strip_prefix(root())
                .expect("under the root")
                .to_path_buf()
        })
        .collect();
    md.sort();
    out.extend(md);
    out
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers and code spans
/// blanked (so that `` `a](b)` `` is not a link).
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut s = String::with_capacity(line.len());
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                s.push('`');
            } else {
                s.push(if in_code { ' ' } else { c });
            }
        }
        out.push((i + 1, s));
    }
    out
}

/// GitHub's anchor for a heading: its text as rendered (code spans' contents kept, link
/// targets dropped), lower-cased, punctuation other than `-` and `_` dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](target)` renders as `text`.
    while let Some(open) = rest.find("](") {
        let close = rest[open..].find(')').map_or(rest.len(), |c| open + c + 1);
        text.push_str(&rest[..open]);
        rest = &rest[close..];
    }
    text.push_str(rest);
    text.chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .flat_map(char::to_lowercase)
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings; a repeated slug gets `-1`, `-2`, ... as on GitHub.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in headings(text) {
        let s = slug(&line);
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// `(line number, text)` of every ATX heading outside code, with the text of code spans kept.
fn headings(text: &str) -> Vec<(usize, String)> {
    let raw: Vec<&str> = text.lines().collect();
    prose_lines(text)
        .into_iter()
        .filter_map(|(n, _)| {
            let line = raw[n - 1];
            let hashes = line.chars().take_while(|&c| c == '#').count();
            let rest = line[hashes..].strip_prefix(' ')?;
            (1..=6)
                .contains(&hashes)
                .then(|| (n, rest.trim().trim_end_matches('#').trim().to_string()))
        })
        .collect()
}

/// `(line number, target)` of every inline link and image in `text`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            // A title (`(file "title")`) is not part of the target.
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n, target.trim_matches(['<', '>']).to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// What is wrong with a link from `page` (relative to `root`) to `target`, if anything.
fn check_link(root: &Path, page: &Path, target: &str) -> Option<String> {
    if target.starts_with("https://") || target.starts_with("http://") {
        return None;
    }
    if target.is_empty() || target.contains(':') || target.starts_with('/') {
        return Some("not a relative link into the repository".into());
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    // The target, relative to the root, refusing to climb out of it.
    let mut rel = PathBuf::new();
    let base = if path.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().unwrap_or(Path::new("")).join(path)
    };
    for c in base.components() {
        match c {
            Component::Normal(x) => rel.push(x),
            Component::CurDir => {}
            Component::ParentDir if rel.pop() => {}
            _ => return Some("points outside the repository".into()),
        }
    }
    let file = root.join(&rel);
    if !file.exists() {
        return Some(format!("{} does not exist", rel.display()));
    }
    if anchor.is_empty() {
        return None;
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    (!anchors(&text).contains(anchor))
        .then(|| format!("{} has no heading whose anchor is #{anchor}", rel.display()))
}

#[test]
fn every_link_in_the_docs_resolves_inside_the_repository() {
    let mut wrong = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(root().join(&page)).expect("read a page");
        for (n, target) in links(&text) {
            count += 1;
            if let Some(why) = check_link(&root(), &page, &target) {
                wrong.push(format!("{}:{n}: ({target}): {why}", page.display()));
            }
        }
    }
    // README's index alone links every page: far fewer means the reading is broken.
    assert!(
        count > 15,
        "found only {count} links: the link reader is broken"
    );
    assert!(
        wrong.is_empty(),
        "links that do not resolve:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_readme_indexes_every_docs_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("read README.md");
    let linked: BTreeSet<String> = links(&readme).into_iter().map(|(_, t)| t).collect();
    let missing: Vec<String> = pages()
        .into_iter()
        .skip(1)
        .map(|p| p.display().to_string())
        .filter(|p| !linked.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "pages README.md's \"Docs\" list does not link: {missing:?}"
    );
}

/// The layer table of docs/ARCHITECTURE.md: module to what it may use (`None`: anything).
fn documented_layers(text: &str) -> BTreeMap<String, Option<BTreeSet<String>>> {
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let names = |c: &str| -> BTreeSet<String> {
        c.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let lines: Vec<&str> = text.lines().collect();
    let Some(head) = lines.iter().position(|l| {
        let c = cells(l);
        l.trim_start().starts_with('|') && c.len() > 1 && c[0] == "module" && c[1] == "may use"
    }) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for l in lines[head + 2..]
        .iter()
        .take_while(|l| l.trim_start().starts_with('|'))
    {
        let c = cells(l);
        let module = c[0].trim_matches('`').to_string();
        let uses = (!c[1].contains("anything")).then(|| names(&c[1]));
        out.insert(module, uses);
    }
    out
}

/// Differences between a documented layer table and `allowed`, and modules of `src` without
/// a row or rows without a module.
fn layer_differences(
    doc: &BTreeMap<String, Option<BTreeSet<String>>>,
    allowed: &[(&str, &[&str])],
    modules: &BTreeSet<String>,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for (m, uses) in allowed {
        let want: BTreeSet<String> = uses.iter().map(|u| u.to_string()).collect();
        match doc.get(*m) {
            Some(Some(got)) if *got == want => {}
            Some(Some(got)) => wrong.push(format!("{m}: the page says {got:?}, the test {want:?}")),
            Some(None) => wrong.push(format!("{m}: the page says anything, the test {want:?}")),
            None => wrong.push(format!("{m}: no row on the page")),
        }
    }
    for (m, uses) in doc {
        if let Some(uses) = uses
            && !allowed.iter().any(|(a, _)| a == m)
        {
            wrong.push(format!(
                "{m}: the page says {uses:?}, the test checks nothing"
            ));
        }
        if !modules.contains(m) {
            wrong.push(format!("{m}: a row for a module src/ does not have"));
        }
    }
    for m in modules.iter().filter(|m| !doc.contains_key(*m)) {
        wrong.push(format!("{m}: a module of src/ without a row"));
    }
    wrong
}

/// The top-level modules of `src/`: its folders and files, but for the crate roots.
fn top_modules() -> BTreeSet<String> {
    let src = std::fs::read_dir(root().join("src")).expect("read src/");
    src.flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().to_string()))
        .filter(|m| !matches!(m.as_str(), "lib" | "main" | "bin"))
        .collect()
}

#[test]
fn the_architecture_page_draws_the_layers_this_test_enforces() {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md"))
        .expect("read docs/ARCHITECTURE.md");
    let doc = documented_layers(&text);
    assert!(
        doc.len() >= ALLOWED.len(),
        "docs/ARCHITECTURE.md: no `| module | may use |` table found (or a short one: {doc:?})"
    );
    let wrong = layer_differences(&doc, ALLOWED, &top_modules());
    assert!(
        wrong.is_empty(),
        "docs/ARCHITECTURE.md's layer table and tests/shape.rs's ALLOWED differ:\n{}",
        wrong.join("\n")
    );
}

/// Whether `s` holds a date written `20YY-MM-DD`.
fn has_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (0..b.len().saturating_sub(9)).any(|i| {
        b[i] == b'2'
            && b[i + 1] == b'0'
            && digits(i + 2..i + 4)
            && b[i + 4] == b'-'
            && digits(i + 5..i + 7)
            && b[i + 7] == b'-'
            && digits(i + 8..i + 10)
    })
}

#[test]
fn the_docs_stay_short_and_state_todays_facts() {
    let lines = |p: &str| {
        let text = std::fs::read_to_string(root().join(p)).expect("read a page");
        text.lines().count()
    };
    let perf = lines("docs/PERFORMANCE.md");
    assert!(
        perf <= PERFORMANCE_LINES,
        "docs/PERFORMANCE.md has {perf} lines, more than {PERFORMANCE_LINES}: state today's figures, history lives in git"
    );
    let readme = lines("README.md");
    assert!(
        readme <= README_LINES,
        "README.md has {readme} lines, more than {README_LINES}: move the details to a page of docs/"
    );
    let mut dated = Vec::new();
    for page in pages().into_iter().skip(1) {
        let text = std::fs::read_to_string(root().join(&page)).expect("read a page");
        for (n, h) in headings(&text) {
            if has_date(&h) {
                dated.push(format!("{}:{n}: {h}", page.display()));
            }
        }
    }
    assert!(
        dated.is_empty(),
        "headings with dates (a doc states today's facts; history lives in git):\n{}",
        dated.join("\n")
    );
}

#[test]
fn the_doc_checks_catch_what_they_look_for() {
    // The slug rule, on headings of these pages.
    assert_eq!(
        slug("`throng bench`: LOD presets, skinning paths and the live baseline"),
        "throng-bench-lod-presets-skinning-paths-and-the-live-baseline"
    );
    assert_eq!(slug("A program's own agents"), "a-programs-own-agents");
    assert_eq!(
        slug("AGLT: glTF animation indices (1.1; 4 bytes each)"),
        "aglt-gltf-animation-indices-11-4-bytes-each"
    );
    let page = "# T\n## Cost\n## Cost\n```\n## Not a heading\n[x](../shared/a.md)\n```\n";
    assert_eq!(
        anchors(page),
        BTreeSet::from(["t".into(), "cost".into(), "cost-1".into()])
    );
    // Links: code is skipped, titles dropped.
    let text = "[a](docs/X.md \"t\") `[b](no.md)` ![c](y.png)\n```\n[d](z.md)\n```\n";
    assert_eq!(
        links(text),
        vec![(1, "docs/X.md".into()), (1, "y.png".into())]
    );
    // Each kind of bad link is caught; good ones pass.
    let (r, readme, perf) = (
        root(),
        Path::new("README.md"),
        Path::new("docs/PERFORMANCE.md"),
    );
    assert!(check_link(&r, readme, "../shared/DESIGN.md").is_some());
    assert!(check_link(&r, readme, "docs/NO-SUCH-PAGE.md").is_some());
    assert!(check_link(&r, readme, "docs/PERFORMANCE.md#no-such-heading").is_some());
    assert!(check_link(&r, readme, "/etc/passwd").is_some());
    assert!(check_link(&r, readme, "file:docs/PERFORMANCE.md").is_some());
    assert_eq!(check_link(&r, readme, "docs/PERFORMANCE.md#targets"), None);
    assert_eq!(check_link(&r, perf, "#targets"), None);
    assert_eq!(check_link(&r, perf, "../README.md#layout"), None);
    assert_eq!(check_link(&r, readme, "https://example.com/x"), None);
    // Dates in headings.
    assert!(has_date("The performance round (2026-12-01)"));
    assert!(!has_date("Format 1.1 (64 bytes, at offset 0)"));
    // The layer comparison, both ways and against the modules of src/.
    let allowed: &[(&str, &[&str])] = &[("a", &[]), ("b", &["a"])];
    let modules = BTreeSet::from(["a".into(), "b".into(), "c".into()]);
    let row = |uses: &[&str]| Some(uses.iter().map(|u| u.to_string()).collect());
    let good = BTreeMap::from([
        ("a".into(), row(&[])),
        ("b".into(), row(&["a"])),
        ("c".into(), None),
    ]);
    assert!(layer_differences(&good, allowed, &modules).is_empty());
    for bad in [
        BTreeMap::from([
            ("a".into(), row(&[])),
            ("b".into(), row(&[])),
            ("c".into(), None),
        ]),
        BTreeMap::from([("a".into(), row(&[])), ("b".into(), row(&["a"]))]),
        BTreeMap::from([
            ("a".into(), row(&[])),
            ("b".into(), None),
            ("c".into(), None),
        ]),
        BTreeMap::from([
            ("a".into(), row(&[])),
            ("b".into(), row(&["a"])),
            ("c".into(), row(&[])),
        ]),
    ] {
        assert!(
            !layer_differences(&bad, allowed, &modules).is_empty(),
            "{bad:?}"
        );
    }
    let table = "| module | may use |\n| --- | --- |\n| `b` | `a` |\n| `a` | nothing |\n| `c` | anything (not checked) |\n";
    assert_eq!(documented_layers(table), good);
}
