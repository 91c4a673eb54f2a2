//! The one way throng writes a file: atomically. The bytes go into a temporary file beside the
//! target, are flushed to disk, and the temporary file is renamed over the target, so a reader
//! sees the old complete file or the new complete file, never half of one.
//!
//! The temporary file of target `DIR/NAME` is `DIR/.NAME.tmp-throng-PID-N`: hidden, in the same
//! folder (a rename across file systems is not atomic), `PID` the writing process and `N` a
//! counter within it, so two writers never share one. It is removed on every error path,
//! including a panic inside the caller's closure (a guard deletes it on drop unless the rename
//! happened). A run that is killed cannot clean up, so every successful write then removes the
//! temporaries of the same target (`.NAME.tmp-throng-<digits>-<digits>`, and
//! `.NAME.tmp-<digits>` of throng versions before this writer) that belong to processes no
//! longer running; nothing else in the folder is touched.
//!
//! [`check_target`] tells before any work whether a target can be written at all (a path
//! that is empty, names a folder, a device or a FIFO, or lies in a folder that is missing or
//! read-only), and [`check_not_input`] whether it is one of the command's own inputs (which
//! the write would destroy), so a command fails in a moment rather than after minutes of
//! baking or rendering, with its inputs unchanged.
//!
//! A crate-root leaf that knows only std (and [`crate::input`]'s names for kinds of files), so
//! every module may use it, `format` included (the `.throng` container writer goes through it
//! without giving up being a leaf).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use thiserror::Error;

/// What every temporary name carries after `.NAME`, so the stale ones of a target are found
/// by name alone.
pub const TEMP_MARK: &str = ".tmp-throng-";

/// Size of the write buffer, bytes: large enough that a multi-megabyte bake is written in few
/// system calls, small enough not to matter beside it.
const BUFFER: usize = 1 << 20;

/// Where the liveness of a process cannot be asked (no `/proc`), a temporary file left this
/// long untouched is taken to be stale: far longer than any write takes, since a live writer
/// keeps changing its file.
const STALE_AGE: Duration = Duration::from_secs(60 * 60);

/// Counts the temporary files this process has made, so concurrent writes of one target from
/// several threads use different names.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The temporary names of throng versions before this writer: `.NAME.tmp-PID`.
const LEGACY_MARK: &str = ".tmp-";

/// Why a file could not be written; the target keeps its old content (or stays absent).
/// The system's words are part of the message, so they are not also its `source()` (a chain
/// printed whole would say them twice).
#[derive(Debug, Error)]
#[error("{}: {what}: {error}", path.display())]
pub struct WriteError {
    /// The target file.
    pub path: PathBuf,
    /// The step that failed: "creating a temporary file", "writing", "flushing to disk" or
    /// "renaming into place".
    pub what: &'static str,
    /// What the system (or the caller's closure) said.
    pub error: std::io::Error,
}

/// Why a target cannot be written, found by [`check_target`] before any work.
#[derive(Debug, Error)]
#[error("{}", describe(path, what))]
pub struct TargetError {
    /// The target as given.
    pub path: PathBuf,
    /// What is wrong with it.
    pub what: String,
}

fn describe(path: &Path, what: &str) -> String {
    if path.as_os_str().is_empty() {
        what.to_string()
    } else {
        format!("{}: {what}", path.display())
    }
}

/// Writes `bytes` to `path` atomically.
///
/// # Errors
/// As [`write_with`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with(path, |w| w.write_all(bytes))
}

/// Writes `path` atomically: `write` fills a buffered temporary file beside it (its error is
/// reported as the "writing" step), which is then flushed, synced to disk and renamed over
/// `path`. After the rename, the temporaries that killed runs left for `path` are removed
/// (best effort: failing to remove one is not an error of this write).
///
/// The folder of `path` must exist.
///
/// # Errors
/// [`WriteError`] naming `path` and the step that failed; the temporary file is removed and
/// `path` is untouched.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let fail = |what: &'static str| {
        move |error| WriteError {
            path: path.to_path_buf(),
            what,
            error,
        }
    };
    let tmp = temp_name(path);
    let file = File::create(&tmp).map_err(fail("creating a temporary file"))?;
    // Declared before the writer, so it is dropped after it: the file is closed, then removed.
    let mut guard = Guard {
        path: tmp,
        committed: false,
    };
    let mut w = BufWriter::with_capacity(BUFFER, file);
    write(&mut w).map_err(fail("writing"))?;
    let file = w
        .into_inner()
        .map_err(|e| fail("writing")(e.into_error()))?;
    file.sync_all().map_err(fail("flushing to disk"))?;
    drop(file);
    std::fs::rename(&guard.path, path).map_err(fail("renaming into place"))?;
    guard.committed = true;
    sync_folder(path);
    remove_stale(path);
    Ok(())
}

/// Checks, before any work, that `path` can be written: it is not empty, does not name a
/// folder or anything but a regular file, and its folder exists (or, with `create_folder`,
/// is created now, as the write would need it) and lets this process create a file in it,
/// which is tried with a temporary file of the writer's own naming, removed at once.
///
/// # Errors
/// [`TargetError`] naming `path` and what is wrong.
pub fn check_target(path: &Path, create_folder: bool) -> Result<(), TargetError> {
    let fail = |what: String| TargetError {
        path: path.to_path_buf(),
        what,
    };
    if path.as_os_str().is_empty() {
        return Err(fail("the output path is empty".into()));
    }
    let ends_in_separator = path
        .as_os_str()
        .as_encoded_bytes()
        .last()
        .is_some_and(|b| std::path::is_separator(char::from(*b)));
    if path.is_dir() {
        return Err(fail("is a folder; give a file name".into()));
    }
    if ends_in_separator || path.file_name().is_none() {
        return Err(fail("names a folder; give a file name".into()));
    }
    // A link is replaced, not followed; anything else but a file (a device, a FIFO) is not
    // throng's to replace.
    if let Ok(m) = std::fs::symlink_metadata(path)
        && !m.file_type().is_symlink()
        && let Some(what) = crate::input::what_is(m.file_type())
    {
        return Err(fail(format!(
            "is {what}; throng replaces only regular files"
        )));
    }
    let dir = folder_of(path);
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(fail(format!("{} is not a folder", dir.display())));
        }
        Ok(_) => {}
        Err(_) if create_folder => {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail(format!("cannot create the folder {}: {e}", dir.display())))?;
        }
        Err(e) => {
            return Err(fail(format!(
                "the folder {} cannot be used: {e}",
                dir.display()
            )));
        }
    }
    let probe = temp_name(path);
    File::create_new(&probe)
        .map_err(|e| fail(format!("cannot create a file in {}: {e}", dir.display())))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Refuses target `path` when it is one of `inputs` (each with what it is, e.g. "the
/// model"): the same file by identity, not by name (device and inode; links followed, so a
/// hard or symbolic link to an input, or an input that is a link to the target, is caught),
/// so that a command never replaces what it reads. Called before any work, beside
/// [`check_target`]. A target that does not exist is none of them; an input that does not
/// exist is left to its reader.
///
/// # Errors
/// [`TargetError`] naming `path` and the input it is.
pub fn check_not_input<'a>(
    path: &Path,
    inputs: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Result<(), TargetError> {
    // The target itself (a link is what a write replaces) and what it leads to.
    let target = [identity(path, false), identity(path, true)];
    if target.iter().all(Option::is_none) {
        return Ok(());
    }
    for (input, what) in inputs {
        if identity(input, true).is_some_and(|id| target.contains(&Some(id))) {
            return Err(TargetError {
                path: path.to_path_buf(),
                what: format!(
                    "is the same file as {what} {}; give another output path",
                    input.display()
                ),
            });
        }
    }
    Ok(())
}

/// What makes the file at `path` the file it is (the link itself unless `follow`): its device
/// and inode; `None` when there is none.
#[cfg(unix)]
fn identity(path: &Path, follow: bool) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    m.ok().map(|m| (m.dev(), m.ino()))
}

/// What makes the file at `path` the file it is, where there are no inode numbers: its
/// canonical path (links are always followed).
#[cfg(not(unix))]
fn identity(path: &Path, _follow: bool) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The folder `path` is in ("." for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A fresh temporary name for target `path`: `.NAME.tmp-throng-PID-N`.
fn temp_name(path: &Path) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!("{}{}-{n}", temp_prefix(path), std::process::id()))
}

/// `.NAME`: the target's file name as its temporaries start.
fn hidden_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}")
}

/// `.NAME.tmp-throng-`: the start of every temporary name of target `path`.
fn temp_prefix(path: &Path) -> String {
    format!("{}{TEMP_MARK}", hidden_name(path))
}

/// Removes the temporary file unless it was renamed into place.
struct Guard {
    path: PathBuf,
    committed: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Makes the rename itself durable where the system allows syncing a folder; where it does
/// not (or fails), the file's own content is still on disk, which is what the readers check.
fn sync_folder(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Removes the temporaries of target `path` whose writing process is gone (best effort:
/// one that cannot be removed stays). Every successful write does this after its rename; a
/// command that finds its target up to date and writes nothing calls it instead, so that the
/// temporary of a killed run does not stay for good.
pub fn remove_stale(path: &Path) {
    let prefix = temp_prefix(path);
    let legacy = format!("{}{LEGACY_MARK}", hidden_name(path));
    let Ok(entries) = std::fs::read_dir(folder_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| {
            n.strip_prefix(&prefix)
                .and_then(writer_pid)
                .or_else(|| n.strip_prefix(&legacy).and_then(legacy_pid))
        }) else {
            continue;
        };
        let stale = match alive(pid) {
            Some(alive) => !alive,
            None => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_AGE),
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if stale && is_file {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The PID of a temporary name's `PID-N` tail; `None` unless the tail is exactly that.
fn writer_pid(tail: &str) -> Option<u32> {
    let (pid, n) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok()
}

/// The PID of a legacy temporary name's `PID` tail; `None` unless the tail is exactly digits.
fn legacy_pid(tail: &str) -> Option<u32> {
    if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tail.parse().ok()
}

/// Whether process `pid` is running: `Some` where `/proc` can tell, `None` elsewhere. This
/// process counts as running, so its own writes in other threads are never disturbed.
fn alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new("/proc").join(pid.to_string()).exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty folder, unique per test and process.
    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("throng-atomic-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Names of the entries of `dir`, sorted.
    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A PID above Linux's largest (2^22), so no process has it.
    const DEAD: u32 = u32::MAX;

    #[test]
    fn writes_and_replaces_leaving_only_the_target() {
        let dir = temp_dir("write");
        let path = dir.join("a.bin");
        write_bytes(&path, b"first").unwrap();
        write_with(&path, |w| {
            w.write_all(b"sec")?;
            w.write_all(b"ond")
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(entries(&dir), ["a.bin"]);
    }

    #[test]
    fn a_failed_write_removes_its_temporary_and_keeps_the_old_file() {
        let dir = temp_dir("fail");
        let path = dir.join("a.bin");
        std::fs::write(&path, b"old").unwrap();
        let e = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("encoder gave up"))
        })
        .unwrap_err();
        assert_eq!(e.what, "writing");
        assert_eq!(
            e.to_string(),
            format!("{}: writing: encoder gave up", path.display())
        );
        // The cause is in the message, so not also the source: a chain says it once.
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(entries(&dir), ["a.bin"]);

        // A target that is a folder: the temporary file is complete, the rename fails.
        let taken = dir.join("taken");
        std::fs::create_dir_all(taken.join("x")).unwrap();
        let e = write_bytes(&taken, b"data").unwrap_err();
        assert_eq!(e.what, "renaming into place");
        assert_eq!(entries(&dir), ["a.bin", "taken"]);

        // A missing folder: nothing is created.
        let e = write_bytes(&dir.join("no/such/file"), b"data").unwrap_err();
        assert_eq!(e.what, "creating a temporary file");
        assert!(e.to_string().contains("no/such/file"), "{e}");
    }

    #[test]
    fn a_panic_while_writing_removes_the_temporary() {
        let dir = temp_dir("panic");
        let path = dir.join("a.bin");
        let result = std::panic::catch_unwind(|| {
            let _ = write_with(&path, |w| {
                w.write_all(b"half")?;
                panic!("the caller's closure panicked");
            });
        });
        assert!(result.is_err());
        assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
    }

    #[test]
    fn stale_temporaries_of_the_target_go_and_nothing_else() {
        let dir = temp_dir("stale");
        let path = dir.join("crowd.throng");
        let stale = [
            format!(".crowd.throng{TEMP_MARK}{DEAD}-0"),
            format!(".crowd.throng{TEMP_MARK}{DEAD}-17"),
            // Of a throng before this writer.
            format!(".crowd.throng{LEGACY_MARK}{DEAD}"),
        ];
        let kept = [
            // Another target's temporary.
            format!(".other.throng{TEMP_MARK}{DEAD}-0"),
            // A live writer's (this process stands in for it).
            format!(".crowd.throng{TEMP_MARK}{}-99", std::process::id()),
            // Not of the scheme.
            format!(".crowd.throng{TEMP_MARK}{DEAD}"),
            format!(".crowd.throng{TEMP_MARK}{DEAD}-1x"),
            format!(".crowd.throng{TEMP_MARK}-1"),
            format!(".crowd.throng{LEGACY_MARK}{}", std::process::id()),
            format!(".crowd.throng{LEGACY_MARK}notes"),
            format!(".crowd.throng{LEGACY_MARK}{DEAD}x"),
            "crowd.throng.bak".to_string(),
        ];
        for name in stale.iter().chain(&kept) {
            std::fs::write(dir.join(name), b"junk").unwrap();
        }
        write_bytes(&path, b"new").unwrap();
        let mut expected: Vec<String> = kept.to_vec();
        expected.push("crowd.throng".to_string());
        expected.sort();
        assert_eq!(entries(&dir), expected);
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn a_failed_write_leaves_stale_temporaries_alone() {
        let dir = temp_dir("stale-fail");
        let path = dir.join("a.bin");
        let stale = format!(".a.bin{TEMP_MARK}{DEAD}-0");
        std::fs::write(dir.join(&stale), b"junk").unwrap();
        write_with(&path, |_| Err(std::io::Error::other("no"))).unwrap_err();
        assert_eq!(entries(&dir), [stale]);
    }

    #[test]
    fn targets_that_cannot_be_written_are_named_before_any_work() {
        let dir = temp_dir("check");
        let msg = |p: &Path, create| check_target(p, create).unwrap_err().to_string();
        assert_eq!(msg(Path::new(""), true), "the output path is empty");
        assert_eq!(
            msg(&dir, true),
            format!("{}: is a folder; give a file name", dir.display())
        );
        let slash = PathBuf::from(format!("{}/new/", dir.display()));
        assert!(msg(&slash, true).ends_with("names a folder; give a file name"));
        let file = dir.join("file");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(
            msg(&file.join("a.png"), true),
            format!(
                "{}: {} is not a folder",
                file.join("a.png").display(),
                file.display()
            )
        );
        let missing = dir.join("no/such/a.png");
        assert!(
            msg(&missing, false).contains("the folder"),
            "{}",
            msg(&missing, false)
        );
        assert!(!dir.join("no").exists(), "checking created a folder");
        // A missing folder is created when asked, as the write would need it.
        check_target(&missing, true).unwrap();
        assert!(dir.join("no/such").is_dir());
        // A target that is fine: nothing is left behind by the trial file, an old file stays.
        check_target(&file, false).unwrap();
        check_target(&dir.join("new.bin"), false).unwrap();
        assert_eq!(entries(&dir), ["file", "no"]);
        assert_eq!(std::fs::read(&file).unwrap(), b"x");
        #[cfg(unix)]
        assert_eq!(
            msg(Path::new("/dev/null"), false),
            "/dev/null: is a device; throng replaces only regular files"
        );
    }

    #[test]
    fn a_target_that_is_one_of_its_inputs_is_refused() {
        let dir = temp_dir("inputs");
        let model = dir.join("m.glb");
        std::fs::write(&model, b"model").unwrap();
        let other = dir.join("other.glb");
        std::fs::write(&other, b"other").unwrap();
        let inputs = [
            (model.as_path(), "the model"),
            (other.as_path(), "the other"),
        ];
        let msg = |p: &Path| check_not_input(p, inputs).unwrap_err().to_string();
        let said = format!(
            "is the same file as the model {}; give another output path",
            model.display()
        );
        assert_eq!(msg(&model), format!("{}: {said}", model.display()));
        // Another name of the same file: through "..", a hard link, a symbolic link.
        let dotted = dir.join("x/../m.glb");
        std::fs::create_dir(dir.join("x")).unwrap();
        assert!(msg(&dotted).ends_with(&said), "{}", msg(&dotted));
        std::fs::hard_link(&model, dir.join("hard.glb")).unwrap();
        assert!(msg(&dir.join("hard.glb")).ends_with(&said));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&model, dir.join("soft.glb")).unwrap();
            assert!(msg(&dir.join("soft.glb")).ends_with(&said));
            // An input that is a link to the target.
            let link = dir.join("link.glb");
            std::os::unix::fs::symlink(&other, &link).unwrap();
            let e = check_not_input(&other, [(link.as_path(), "the model")]).unwrap_err();
            assert!(e.to_string().contains("the model"), "{e}");
        }
        // A new file, a file of the same bytes elsewhere, a missing input: fine.
        check_not_input(&dir.join("new.glb"), inputs).unwrap();
        let copy = dir.join("copy.glb");
        std::fs::write(&copy, b"model").unwrap();
        check_not_input(&copy, inputs).unwrap();
        check_not_input(&copy, [(dir.join("none").as_path(), "the model")]).unwrap();
        assert_eq!(std::fs::read(&model).unwrap(), b"model");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_follow_the_scheme() {
        assert_eq!(temp_prefix(Path::new("out/x.png")), ".x.png.tmp-throng-");
        assert_eq!(writer_pid("123-4"), Some(123));
        assert_eq!(writer_pid("123-"), None);
        assert_eq!(writer_pid("123"), None);
        assert_eq!(writer_pid("+1-2"), None);
        assert_eq!(legacy_pid("77"), Some(77));
        assert_eq!(legacy_pid("77x"), None);
        assert_eq!(legacy_pid(""), None);
        assert_eq!(alive(std::process::id()), Some(true));
    }
}
