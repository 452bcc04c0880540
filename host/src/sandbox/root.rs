//! The empty, read-only folder every call sees at `/`: paths outside every granted
//! folder would never reach the host otherwise, so an open there is denied by name.

use std::path::PathBuf;

use wasmtime_wasi::filesystem::{Descriptor, Dir};
use wasmtime_wasi::{FsPerms, OpenMode};

/// The empty folder every call sees at `/`, so that paths outside the granted folders
/// reach the host and can be denied by name. Opened once; removed when dropped.
#[derive(Debug)]
pub(crate) struct EmptyRoot {
    path: PathBuf,
    folder: std::fs::File,
}

impl EmptyRoot {
    /// Makes a fresh empty folder under the system's temporary folder.
    pub(crate) fn create() -> std::io::Result<EmptyRoot> {
        let path = std::env::temp_dir().join(format!("toolhost-root-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&path)?;
        let folder = std::fs::File::open(&path)?;
        Ok(EmptyRoot { path, folder })
    }

    /// A read-only descriptor of the folder for one call (a duplicated handle: no path
    /// is looked up again).
    pub(crate) fn descriptor(&self) -> std::io::Result<Descriptor> {
        Ok(Descriptor::Dir(Dir::new(self.folder.try_clone()?, FsPerms::ReadOnly, OpenMode::READ, false)))
    }
}

impl Drop for EmptyRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// A number unique within this process, for folder names.
fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
