//! Scratch directories and files: one per call, under the system temp dir, removed on drop
//! unless the test is failing (then kept, and named on stderr, for a look at what it held).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh, empty directory (`payability-<label>-<pid>-<n>-<nanos>`), removed on drop.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates a directory unique to this process and call.
    pub fn new(label: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("payability-{label}-{}-{n}-{nanos}", std::process::id());
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).expect("a scratch directory");
        Self(path)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside it.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("scratch directory kept (the test failed): {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A path `name` in a scratch directory of its own (the file is not created), removed with
/// the directory on drop. It derefs to its `Path`.
pub struct ScratchFile {
    path: PathBuf,
    _dir: ScratchDir,
}

impl ScratchFile {
    /// A fresh directory labelled `label` and the path `name` inside it.
    pub fn new(label: &str, name: &str) -> Self {
        let dir = ScratchDir::new(label);
        Self { path: dir.join(name), _dir: dir }
    }
}

impl std::ops::Deref for ScratchFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ScratchFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}
