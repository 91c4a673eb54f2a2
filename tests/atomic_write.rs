//! Files are written atomically (src/atomic.rs): a bake killed mid-way leaves at most its
//! temporary file beside the target, never half a target, and the next bake to the same target
//! removes that temporary (and any other stale one of that target, but nothing else).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use throng::format::ThrongFile;

/// The temporary-name prefix of target `name` (see src/atomic.rs).
fn prefix(name: &str) -> String {
    format!(".{name}{}", throng::atomic::TEMP_MARK)
}

/// Names in `dir` that start with `start`, sorted.
fn names_starting(dir: &Path, start: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(start))
        .collect();
    names.sort();
    names
}

/// `throng bake` of the default recipe into `out`, quietly, even if up to date.
fn bake_command(out: &Path) -> Command {
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("bake/mannequin.toml");
    let mut c = Command::new(env!("CARGO_BIN_EXE_throng"));
    c.arg("bake")
        .arg(recipe)
        .arg("-o")
        .arg(out)
        .args(["-q", "--rebuild"]);
    c
}

/// The target is the old complete file or a complete new bake, never anything between.
fn old_or_complete(out: &Path, old: &[u8]) {
    let bytes = std::fs::read(out).unwrap();
    if bytes != old {
        ThrongFile::open(out).unwrap_or_else(|e| panic!("{}: half a file? {e}", out.display()));
    }
}

#[test]
fn a_killed_bake_leaves_at_most_its_temporary_and_the_next_bake_removes_it() {
    let dir = common::temp_dir("atomic-kill");
    let out = dir.join("m.throng");
    let old = b"the old complete file".to_vec();
    std::fs::write(&out, &old).unwrap();
    // A temporary left by an earlier killed run: PID u32::MAX is above Linux's largest
    // (2^22), so its process is surely gone. Whatever the kill below catches, the next bake
    // must remove this one.
    let planted = format!("{}{}-0", prefix("m.throng"), u32::MAX);
    std::fs::write(dir.join(&planted), b"half a bake").unwrap();
    // Another target's stale temporary, and a file of no scheme: both must stay.
    let others = [
        format!("{}{}-0", prefix("other.throng"), u32::MAX),
        ".m.throng.tmp-notes".to_string(),
    ];
    for name in &others {
        std::fs::write(dir.join(name), b"not ours").unwrap();
    }

    // Kill the bake as soon as its temporary file appears (mid-write); if it never shows
    // (the write was quicker than the polling), kill whatever is left of the run.
    let mut child = bake_command(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let own = format!("{}{}-", prefix("m.throng"), child.id());
    // A debug build bakes the mannequin in seconds; this only bounds a hung run.
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut caught = false;
    while Instant::now() < deadline {
        if !names_starting(&dir, &own).is_empty() {
            caught = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap_or(()); // Already exited is fine.
    let status = child.wait().unwrap();
    eprintln!("killed mid-write: {caught}; exit status {status}");

    // At most the killed run's one temporary, besides the planted ones; the target whole.
    let left = names_starting(&dir, &own);
    assert!(left.len() <= 1, "temporaries left: {left:?}");
    old_or_complete(&out, &old);
    if status.success() {
        // The polling missed the write and the run finished on its own: it removed the stale
        // temporary itself, as the next bake below must when a run is killed.
        assert!(
            !dir.join(&planted).exists(),
            "a finished bake left {planted}"
        );
    } else {
        assert!(
            dir.join(&planted).exists(),
            "a killed bake removed {planted}"
        );
    }

    // The next bake to the same target removes every stale temporary of it.
    let next = bake_command(&out).output().unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert_eq!(
        names_starting(&dir, &prefix("m.throng")),
        Vec::<String>::new()
    );
    let file = ThrongFile::open(&out).unwrap();
    assert!(!file.characters().is_empty());
    for name in &others {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            b"not ours",
            "{name}"
        );
    }
}

#[test]
fn gen_mannequin_leaves_only_its_file() {
    let dir: PathBuf = common::temp_dir("atomic-gen");
    let out = dir.join("m.glb");
    let (code, _, err) = common::throng(&["gen-mannequin", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(names_starting(&dir, ""), ["m.glb"]);
}
