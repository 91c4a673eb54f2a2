//! Hostile input on the output side, end to end through the `throng` binary: a bake whose
//! numbers overflow f32 fails naming the character and animation and leaves the old file
//! byte-identical; output paths that cannot be written fail before any work; a bake killed
//! with SIGKILL mid-write leaves its temporary, which the next bake removes; agent counts and
//! empty LOD configs get the demo's messages; and some 250 corruptions of the format 1.1
//! fixture (bit flips with and without recomputed checksums, truncations, header and section
//! table edits, huge counts) make `inspect`, `inspect --json` and `render` exit 0 or 1 within a
//! time limit, never panic, name the file, and say each clause of a message once.
//!
//! Every input lives in a temporary folder removed at the end. Only the rendering of accepted
//! corruptions needs a graphics backend; without one it is skipped with a printed reason,
//! unless `THRONG_REQUIRE_BACKENDS` names one.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use throng::format::records::kinds;
use throng::format::{Container, ENTRY_SIZE, HEADER_SIZE};

/// Longest one command may run before the test calls it hung. Generous: a debug build on a
/// loaded 2-core machine with a software renderer; a hang runs forever, so any bound tells.
const TIMEOUT: Duration = Duration::from_secs(180);

/// How a command ended.
struct Outcome {
    /// The exit code; `None` when a signal ended it (an abort).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `throng args` in `dir` with output captured in files there (no pipe can fill up),
/// killing it and failing the test after [`TIMEOUT`].
fn run_in(dir: &Path, args: &[&OsStr]) -> Outcome {
    let (out, err) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("throng {args:?} hung (killed after {TIMEOUT:?})");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    let o = Outcome {
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
    };
    let _ = std::fs::remove_file(out);
    let _ = std::fs::remove_file(err);
    o
}

/// [`run_in`] with string arguments.
fn throng(dir: &Path, args: &[&str]) -> Outcome {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_in(dir, &args)
}

/// Fails unless every line of `stderr` says each of its ": "-separated clauses once.
fn each_clause_once(stderr: &str, what: &str) {
    for line in stderr.lines() {
        let clauses: Vec<&str> = line.split(": ").collect();
        for (i, c) in clauses.iter().enumerate() {
            assert!(
                !clauses[..i].contains(c),
                "{what}: '{c}' is said twice in: {line}"
            );
        }
    }
}

/// The mannequin's model, absolute, for recipes in temporary folders.
fn model() -> String {
    common::mannequin_path().display().to_string()
}

/// Writes a recipe baking the mannequin model into `output`, with `extra` lines in its
/// character table.
fn recipe(dir: &Path, name: &str, output: &str, extra: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "output = \"{output}\"\nlods = [1.0]\n[[characters]]\nname = \"mannequin\"\nmodel = \"{}\"\n{extra}\n",
            model()
        ),
    )
    .unwrap();
    path
}

/// Names in `dir` starting with `start`, sorted.
fn names_starting(dir: &Path, start: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(start))
        .collect();
    names.sort();
    names
}

#[test]
fn a_bake_that_overflows_f32_fails_and_keeps_the_old_file() {
    let dir = common::temp_dir("hostile-scale");
    let good = recipe(&dir, "good.toml", "out.throng", "");
    let o = throng(&dir, &["bake", "-q", good.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let old = std::fs::read(dir.join("out.throng")).unwrap();

    let big = recipe(&dir, "big.toml", "out.throng", "scale = [1e25, 1e25, 1e25]");
    let o = throng(&dir, &["bake", "-q", big.to_str().unwrap()]);
    eprintln!("{}", o.stderr);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    for part in [
        "character 'mannequin'",
        "animation '",
        "overflows f32",
        "scale",
    ] {
        assert!(o.stderr.contains(part), "'{part}' missing: {}", o.stderr);
    }
    assert!(!o.stdout.contains("inf"), "{}", o.stdout);
    each_clause_once(&o.stderr, "scale 1e25");
    assert!(
        std::fs::read(dir.join("out.throng")).unwrap() == old,
        "the old output changed"
    );
    assert_eq!(names_starting(&dir, ".out.throng"), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outputs_that_cannot_be_written_fail_before_the_work() {
    let dir = common::temp_dir("hostile-targets");
    // A model that exists but is not glTF: any command that reads it before checking its
    // output would fail on the model instead, so the output's message proves the order.
    std::fs::write(dir.join("broken.glb"), b"not a model").unwrap();
    std::fs::write(dir.join("a-file"), b"x").unwrap();
    let broken = dir.join("broken.glb").display().to_string();
    let recipe_to = |name: &str, output: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!("output = \"{output}\"\n[[characters]]\nname = \"b\"\nmodel = \"{broken}\"\n"),
        )
        .unwrap();
        path.display().to_string()
    };
    let d = dir.display().to_string();
    let empty = recipe_to("empty.toml", "");
    let folder = recipe_to("folder.toml", &d);
    let under_file = recipe_to("under.toml", "a-file/x.throng");
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["bake".into(), empty],
            format!("{d}/empty.toml:1: output is empty: give the .throng file to write"),
        ),
        (
            vec!["bake".into(), folder],
            format!("{d}: is a folder; give a file name"),
        ),
        (
            vec!["bake".into(), under_file],
            format!("{d}/a-file/x.throng: {d}/a-file is not a folder"),
        ),
        (
            vec!["bake".into(), broken.clone(), "-o".into(), d.clone()],
            format!("{d}: is a folder; give a file name"),
        ),
        (
            vec![
                "render".into(),
                "--bake".into(),
                "missing.throng".into(),
                "--out".into(),
                "a-file/x.png".into(),
            ],
            "a-file/x.png: a-file is not a folder".into(),
        ),
        (
            vec![
                "demo".into(),
                "--headless".into(),
                "--bake".into(),
                "missing.throng".into(),
                "--screenshot".into(),
                "a-file/x.png".into(),
            ],
            "a-file/x.png: a-file is not a folder".into(),
        ),
        (
            vec![
                "export-texture".into(),
                "missing.throng".into(),
                "a-file/x.png".into(),
            ],
            "a-file/x.png: a-file is not a folder".into(),
        ),
        (
            vec![
                "bench".into(),
                "--bake".into(),
                "missing.throng".into(),
                "--out".into(),
                "a-file".into(),
            ],
            "a-file/results.csv: a-file is not a folder".into(),
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = throng(&dir, &args);
        assert_eq!(o.code, Some(1), "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains(&expected),
            "{args:?}: '{expected}' missing: {}",
            o.stderr
        );
        assert!(!o.stderr.contains("renaming into place"), "{}", o.stderr);
        each_clause_once(&o.stderr, &format!("{args:?}"));
    }
    // Nothing was written, the files given stay, no temporary is left.
    assert_eq!(
        names_starting(&dir, ""),
        [
            "a-file",
            "broken.glb",
            "empty.toml",
            "folder.toml",
            "under.toml"
        ]
    );
    assert_eq!(std::fs::read(dir.join("a-file")).unwrap(), b"x");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bake_killed_mid_write_leaves_a_temporary_the_next_bake_removes() {
    let dir = common::temp_dir("hostile-kill");
    // Six characters at 1000 frames a second: a file of some 40 MB, whose writing (and sync)
    // takes long enough to be caught; a quick bake rewrites the target afterwards.
    let mut slow =
        String::from("output = \"out.throng\"\nfps = 1000\nprecision = \"f32\"\nlods = [1.0]\n");
    for i in 0..6 {
        slow += &format!("[[characters]]\nname = \"m{i}\"\nmodel = \"{}\"\n", model());
    }
    std::fs::write(dir.join("slow.toml"), slow).unwrap();
    let quick = recipe(&dir, "quick.toml", "out.throng", "");
    let old = b"the old complete file".to_vec();
    // A temporary of a throng before the atomic writer (.NAME.tmp-PID), of a process that
    // surely is gone (above Linux's largest PID, 2^22): the next bake removes it as well.
    let legacy = format!(".out.throng.tmp-{}", u32::MAX);
    std::fs::write(dir.join(&legacy), b"half a bake").unwrap();

    let mut caught = None;
    for attempt in 1..=5 {
        std::fs::write(dir.join("out.throng"), &old).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["bake", "-q", "--rebuild", "slow.toml"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let own = format!(".out.throng.tmp-throng-{}-", child.id());
        let start = Instant::now();
        // The writer's temporary with bytes in it: the output check's trial file is empty.
        let writing = || {
            names_starting(&dir, &own)
                .into_iter()
                .find(|n| std::fs::metadata(dir.join(n)).is_ok_and(|m| m.len() > 0))
        };
        let mut seen = None;
        while start.elapsed() < TIMEOUT && child.try_wait().unwrap().is_none() {
            if let Some(n) = writing() {
                seen = Some(n);
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        // SIGKILL, and reaped: a zombie still counts as a running process.
        let _ = child.kill();
        let status = child.wait().unwrap();
        eprintln!("attempt {attempt}: temporary {seen:?}, exit {status}");
        if let Some(n) = seen
            && dir.join(&n).exists()
        {
            caught = Some(n);
            break;
        }
    }
    let Some(temp) = caught else {
        panic!("no bake was caught mid-write in 5 attempts");
    };
    assert_eq!(std::fs::read(dir.join("out.throng")).unwrap(), old);

    let o = throng(&dir, &["bake", "-q", "--rebuild", quick.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(!dir.join(&temp).exists(), "{temp} was left");
    assert!(!dir.join(&legacy).exists(), "{legacy} was left");
    assert_eq!(names_starting(&dir, ".out.throng"), Vec::<String>::new());
    let o = throng(&dir, &["inspect", "out.throng"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The committed format 1.1 fixture: small, stable, and every section present.
fn fixture() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-1.1.throng"))
        .unwrap()
}

#[test]
fn agent_counts_folders_and_empty_presets_get_one_clear_message() {
    let dir = common::temp_dir("hostile-messages");
    std::fs::write(dir.join("f.throng"), fixture()).unwrap();
    std::fs::write(dir.join("empty.toml"), b"").unwrap();
    let d = dir.display().to_string();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "render",
                "--bake",
                "f.throng",
                "--instances",
                "10000000",
                "--out",
                "x.png",
            ],
            "error: --instances 10000000: between 1 and 200000 agents",
        ),
        (
            &[
                "demo",
                "--headless",
                "--bake",
                "f.throng",
                "--count",
                "10000000",
            ],
            "error: --count 10000000: between 1 and 200000 agents",
        ),
        (
            &["render", "--bake", &d, "--out", "x.png"],
            &format!("error: {d}: is a folder, not a .throng file"),
        ),
        (
            &["demo", "--headless", "--bake", &d],
            &format!("error: {d}: is a folder, not a .throng file"),
        ),
        (
            &[
                "demo",
                "--headless",
                "--bake",
                "f.throng",
                "--lod-config",
                "empty.toml",
            ],
            "error: empty.toml: defines no LOD presets",
        ),
        (
            &[
                "bench",
                "--bake",
                "f.throng",
                "--config",
                "empty.toml",
                "--out",
                "b",
            ],
            "error: empty.toml: defines no LOD presets",
        ),
    ];
    for (args, expected) in cases {
        let o = throng(&dir, args);
        eprintln!("{args:?}: {}", o.stderr.trim_end());
        assert_eq!(o.code, Some(1), "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(expected), "{args:?}: {}", o.stderr);
        assert_eq!(o.stderr.matches(expected).count(), 1, "{}", o.stderr);
        assert!(!o.stderr.contains("No such device"), "{}", o.stderr);
        assert!(!o.stderr.contains("(there are: )"), "{}", o.stderr);
        each_clause_once(&o.stderr, &format!("{args:?}"));
    }
    assert!(!dir.join("x.png").exists() && !dir.join("b").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The section table of `b`: (kind, byte of its entry, offset, size).
fn table(b: &[u8]) -> Vec<([u8; 4], usize, u64, u64)> {
    let c = Container::from_bytes(b, "fixture").unwrap();
    c.sections()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.kind,
                HEADER_SIZE + i * ENTRY_SIZE,
                s.range.start as u64,
                s.range.len() as u64,
            )
        })
        .collect()
}

/// `b` with `value` written at `at`, checksums and size recomputed.
fn sealed_edit(b: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = b.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    common::reseal(&mut b);
    b
}

/// Some 250 damaged copies of `good`, named: bit flips spread over the file as they are and
/// with checksums recomputed (so they reach the table checks), truncations at many lengths,
/// header edits, section table entries with huge or misaligned offsets and sizes, and
/// records with huge counts.
fn corruptions(good: &[u8]) -> Vec<(String, Vec<u8>)> {
    let n = good.len();
    let mut out = Vec::new();
    const FLIPS: usize = 70;
    for i in 0..FLIPS {
        let (at, bit) = (i * n / FLIPS, i % 8);
        let mut b = good.to_vec();
        b[at] ^= 1 << bit;
        out.push((format!("flip-{at}-{bit}"), b.clone()));
        let at = (at + n / (2 * FLIPS)).min(n - 1);
        let mut b = good.to_vec();
        b[at] ^= 1 << ((i * 3 + 1) % 8);
        common::reseal(&mut b);
        out.push((format!("flip-sealed-{at}"), b));
    }
    let mut lengths = vec![0, 1, 7, 8, 9, 63, 64, 65, 95, 96, 97, n - 1];
    lengths.extend((1..24).map(|k| k * n / 24));
    for len in lengths {
        out.push((format!("cut-{len}"), good[..len].to_vec()));
        if len > HEADER_SIZE {
            let mut b = good[..len].to_vec();
            common::reseal(&mut b);
            out.push((format!("cut-sealed-{len}"), b));
        }
    }
    let header: [(&str, usize, Vec<u8>); 13] = [
        ("major-0", 8, 0u16.to_le_bytes().to_vec()),
        ("major-2", 8, 2u16.to_le_bytes().to_vec()),
        ("minor-big", 10, u16::MAX.to_le_bytes().to_vec()),
        ("flags", 12, u32::MAX.to_le_bytes().to_vec()),
        ("count-0", 28, 0u32.to_le_bytes().to_vec()),
        ("count-1", 28, 1u32.to_le_bytes().to_vec()),
        ("count-20", 28, 20u32.to_le_bytes().to_vec()),
        ("count-huge", 28, u32::MAX.to_le_bytes().to_vec()),
        ("table-0", 32, 0u64.to_le_bytes().to_vec()),
        ("table-65", 32, 65u64.to_le_bytes().to_vec()),
        ("table-huge", 32, u64::MAX.to_le_bytes().to_vec()),
        ("header-size", 40, 65u32.to_le_bytes().to_vec()),
        ("reserved", 44, [0xff; 16].to_vec()),
    ];
    for (tag, at, v) in header {
        out.push((format!("header-{tag}"), sealed_edit(good, at, &v)));
    }
    let entry_edits: [(&str, usize, Vec<u8>); 8] = [
        ("offset-huge", 8, u64::MAX.to_le_bytes().to_vec()),
        ("offset-end", 8, (n as u64).to_le_bytes().to_vec()),
        ("size-huge", 16, u64::MAX.to_le_bytes().to_vec()),
        ("size-file", 16, (n as u64).to_le_bytes().to_vec()),
        ("size-1", 16, 1u64.to_le_bytes().to_vec()),
        ("align-0", 24, 0u32.to_le_bytes().to_vec()),
        ("align-8192", 24, 8192u32.to_le_bytes().to_vec()),
        ("kind-0", 0, vec![0; 4]),
    ];
    for (i, (kind, entry, _, _)) in table(good).into_iter().enumerate() {
        let name = String::from_utf8_lossy(&kind).into_owned();
        for k in [i % 8, (i + 3) % 8, (i + 5) % 8] {
            let (tag, at, v) = &entry_edits[k];
            out.push((format!("{name}-{tag}"), sealed_edit(good, entry + at, v)));
        }
    }
    // Huge counts and indices in records: a reader must check them against the tables
    // before it loops or allocates.
    let start = |kind| {
        table(good)
            .into_iter()
            .find(|(k, ..)| *k == kind)
            .map(|(_, _, offset, _)| offset as usize)
            .unwrap()
    };
    let records: [(&str, [u8; 4], usize, Vec<u8>); 8] = [
        (
            "char-joints",
            kinds::CHAR,
            12,
            u32::MAX.to_le_bytes().to_vec(),
        ),
        (
            "char-anims",
            kinds::CHAR,
            20,
            u32::MAX.to_le_bytes().to_vec(),
        ),
        (
            "char-parts",
            kinds::CHAR,
            28,
            u32::MAX.to_le_bytes().to_vec(),
        ),
        (
            "char-lods",
            kinds::CHAR,
            32,
            u32::MAX.to_le_bytes().to_vec(),
        ),
        (
            "anim-frames",
            kinds::ANIM,
            20,
            u32::MAX.to_le_bytes().to_vec(),
        ),
        (
            "anim-texel",
            kinds::ANIM,
            24,
            u64::MAX.to_le_bytes().to_vec(),
        ),
        (
            "info-texels",
            kinds::INFO,
            8,
            u64::MAX.to_le_bytes().to_vec(),
        ),
        (
            "mesh-vertices",
            kinds::MESH,
            36,
            u32::MAX.to_le_bytes().to_vec(),
        ),
    ];
    for (tag, kind, at, v) in records {
        out.push((
            format!("record-{tag}"),
            sealed_edit(good, start(kind) + at, &v),
        ));
    }
    out
}

/// The checks every run on a damaged file passes: it ended by itself with 0 or 1 (no panic,
/// which exits 101, no abort, which a signal ends), its refusal names the file, and says each
/// clause once.
fn judged(o: &Outcome, file: &str, what: &str) {
    assert!(
        matches!(o.code, Some(0 | 1)),
        "{what}: exit {:?}\n{}",
        o.code,
        o.stderr
    );
    assert!(!o.stderr.contains("panicked"), "{what}: {}", o.stderr);
    if o.code == Some(1) {
        assert!(
            o.stderr.contains(file),
            "{what}: the file is not named: {}",
            o.stderr
        );
    } else {
        assert!(!o.stdout.is_empty(), "{what}: accepted but printed nothing");
    }
    each_clause_once(&o.stderr, what);
}

#[test]
fn damaged_files_are_refused_cleanly() {
    let dir = common::temp_dir("hostile-corrupt");
    let good = fixture();
    let cases = corruptions(&good);
    assert!(cases.len() >= 200, "{} corruptions", cases.len());
    let (mut refused, mut accepted) = (0, Vec::new());
    for (i, (tag, bytes)) in cases.iter().enumerate() {
        let file = format!("c{i:03}-{tag}.throng");
        std::fs::write(dir.join(&file), bytes).unwrap();
        let plain = throng(&dir, &["inspect", &file]);
        judged(&plain, &file, &format!("inspect {file}"));
        let json = throng(&dir, &["inspect", &file, "--json"]);
        judged(&json, &file, &format!("inspect {file} --json"));
        assert_eq!(plain.code, json.code, "{file}: text and JSON disagree");
        if plain.code == Some(1) {
            refused += 1;
            // Refusals are the reader's: the same words either way.
            assert_eq!(plain.stderr, json.stderr, "{file}");
            // Keep some refused ones, of every kind of damage, to render below.
            if refused % 25 == 1 || tag.starts_with("record-") {
                continue;
            }
        } else {
            accepted.push(file.clone());
        }
        std::fs::remove_file(dir.join(&file)).unwrap();
    }
    eprintln!(
        "{} corruptions: {refused} refused, {} accepted ({:?})",
        cases.len(),
        accepted.len(),
        accepted
    );
    // Bit flips without resealing, truncations, and bad headers all break a checksum or a
    // rule: most must be refused (the sealed flips in padding or in a float may be fine).
    assert!(refused * 10 >= cases.len() * 8, "only {refused} refused");

    // render on a few: the refused ones fail before any device is opened.
    let mut rendered = 0;
    for name in names_starting(&dir, "c") {
        let o = throng(
            &dir,
            &[
                "render",
                "--bake",
                &name,
                "--instances",
                "4",
                "--size",
                "64x64",
                "--out",
                "x.png",
            ],
        );
        judged(&o, &name, &format!("render {name}"));
        rendered += 1;
    }
    assert!(rendered >= 8, "rendered {rendered}");
    // And one damaged file that is accepted (a flipped bit in section padding, resealed),
    // which really draws: that needs a backend.
    let padding = {
        let t = table(&good);
        // The bytes just before the page-aligned texels are padding.
        let texl = t.iter().find(|(k, ..)| *k == kinds::TEXL).unwrap().2 as usize;
        texl - 1
    };
    let mut b = good.clone();
    b[padding] ^= 0x10;
    common::reseal(&mut b);
    std::fs::write(dir.join("padding.throng"), &b).unwrap();
    let o = throng(
        &dir,
        &[
            "render",
            "--bake",
            "padding.throng",
            "--instances",
            "4",
            "--size",
            "64x64",
            "--out",
            "x.png",
        ],
    );
    judged(&o, "padding.throng", "render padding.throng");
    if o.code != Some(0) {
        let required = common::backend_required("vulkan") || common::backend_required("gl");
        assert!(
            !required && o.stderr.contains("adapter"),
            "an accepted file failed to render: {}",
            o.stderr
        );
        eprintln!(
            "skipped drawing an accepted damaged file: {}",
            o.stderr.trim_end()
        );
    } else {
        assert!(dir.join("x.png").is_file());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_table_section_of_a_wrong_size_is_named_in_words() {
    let dir = common::temp_dir("hostile-sizes");
    let good = fixture();
    let mut checked = 0;
    for (kind, entry, _, size) in table(&good) {
        let name = String::from_utf8_lossy(&kind).into_owned();
        // Sections of bytes (strings, metadata, pixels) have no element size; one of a byte
        // or less cannot be made smaller without becoming a whole number.
        if [kinds::STRS, kinds::META, kinds::PIXL].contains(&kind) || size < 2 {
            continue;
        }
        let b = sealed_edit(&good, entry + 16, &1u64.to_le_bytes());
        let file = format!("{name}.throng");
        std::fs::write(dir.join(&file), &b).unwrap();
        let o = throng(&dir, &["inspect", &file]);
        assert_eq!(o.code, Some(1), "{name}: {}", o.stderr);
        let expected = if kind == kinds::INFO {
            format!("{file}: section 'INFO': 1 byte, expected 32")
        } else {
            format!("{file}: section '{name}': 1 byte is not a whole number of ")
        };
        assert!(o.stderr.contains(&expected), "{name}: {}", o.stderr);
        for word in ["Slop", "bytemuck", "Alignment", "OutputSlice"] {
            assert!(!o.stderr.contains(word), "{name}: {}", o.stderr);
        }
        checked += 1;
    }
    let o = throng(&dir, &["inspect", "VERT.throng"]);
    assert!(
        o.stderr
            .contains("section 'VERT': 1 byte is not a whole number of 56-byte vertices"),
        "{}",
        o.stderr
    );
    assert!(checked >= 12, "{checked} sections checked");
    std::fs::remove_dir_all(&dir).unwrap();
}
