//! What differs between operating systems, in one place: reading a file only when it
//! is a regular file (a FIFO or a device is never opened for reading, so loading
//! cannot block or read without end), and folders and files private to the host's
//! user (owner and mode checked; created 0700 and 0600).
//!
//! Only Unix can make these checks. Elsewhere a file is still read only when it is a
//! regular file within its size limit, but no folder is trusted as private, so the
//! compile cache is not used.

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// What a path is when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Folder,
    // Only Unix tells these apart; elsewhere they are `Other`.
    #[cfg(unix)]
    Fifo,
    #[cfg(unix)]
    CharDevice,
    #[cfg(unix)]
    BlockDevice,
    #[cfg(unix)]
    Socket,
    Other,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Folder => "a folder",
            #[cfg(unix)]
            FileKind::Fifo => "a FIFO (named pipe)",
            #[cfg(unix)]
            FileKind::CharDevice => "a character device",
            #[cfg(unix)]
            FileKind::BlockDevice => "a block device",
            #[cfg(unix)]
            FileKind::Socket => "a socket",
            FileKind::Other => "neither a file nor a folder",
        })
    }
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The path (or what a symlink there points to) is not a regular file.
    #[error("it is {0}, not a regular file")]
    NotRegular(FileKind),
    /// The file is larger than the limit for its kind.
    #[error("it is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// Its size, or what was read before the limit stopped the read.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not one the host trusts (see [`read_trusted_file`]).
    #[error("{0}")]
    Untrusted(String),
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl ReadError {
    /// Whether the file is simply not there.
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(error) if error.kind() == io::ErrorKind::NotFound)
    }
}

/// Reads `path` if it is a regular file (a symlink is followed only to one) of at
/// most `limit` bytes. The kind and size are checked before the file is opened, and
/// again on the file actually opened; the read itself stops past the limit.
pub(crate) fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_checked(path, limit, None)
}

/// Reads `path` if it is a regular file (not a symlink) of at most `limit` bytes that
/// only its owner may write, owned as `owner` asks: a file the host will trust.
pub(crate) fn read_trusted_file(path: &Path, limit: u64, owner: Owner) -> Result<Vec<u8>, ReadError> {
    read_checked(path, limit, Some(owner))
}

/// [`read_regular_file`], or with `trusted`, [`read_trusted_file`].
fn read_checked(path: &Path, limit: u64, trusted: Option<Owner>) -> Result<Vec<u8>, ReadError> {
    let follow = trusted.is_none();
    let before = if follow { fs::metadata(path)? } else { fs::symlink_metadata(path)? };
    if before.file_type().is_symlink() {
        return Err(ReadError::Untrusted("it is a symbolic link".into()));
    }
    check_regular(&before, limit)?;
    let file = open_without_blocking(path, follow)?;
    let metadata = file.metadata()?;
    check_regular(&metadata, limit)?;
    if let Some(owner) = trusted {
        let (file_owner, mode) = owner_and_mode(&metadata);
        if owner == Owner::Me && Some(file_owner) != my_uid() {
            return Err(ReadError::Untrusted(format!("it belongs to another user (uid {file_owner})")));
        }
        if mode & 0o022 != 0 {
            return Err(ReadError::Untrusted(format!("other users may write it (mode {mode:03o})")));
        }
    }
    read_bounded(file, limit, metadata.len())
}

/// Reads at most `limit` bytes of `file` (expected to be `expected` bytes long).
fn read_bounded(file: File, limit: u64, expected: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(usize::try_from(expected.min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let size = bytes.len() as u64;
    if size > limit {
        return Err(ReadError::TooLarge { size, limit });
    }
    Ok(bytes)
}

fn check_regular(metadata: &Metadata, limit: u64) -> Result<(), ReadError> {
    if !metadata.is_file() {
        return Err(ReadError::NotRegular(kind_of(metadata)));
    }
    if metadata.len() > limit {
        return Err(ReadError::TooLarge { size: metadata.len(), limit });
    }
    Ok(())
}

/// Why a folder is not trusted to hold code the host will run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FolderError {
    /// The path is a symbolic link (it could be pointed elsewhere at any time).
    #[error("{} is a symbolic link; name the folder it points to instead", .0.display())]
    Symlink(PathBuf),
    /// The path exists and is not a folder.
    #[error("{} is {kind}, not a folder", .path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: FileKind,
    },
    /// Another user owns the folder.
    #[cfg(unix)]
    #[error("{} belongs to another user (uid {owner}, not {me})", .path.display())]
    OtherOwner {
        /// The folder.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The host's user.
        me: u32,
    },
    /// Users other than the owner may write in the folder.
    #[cfg(unix)]
    #[error("{} can be written by other users (mode {mode:03o})", .path.display())]
    WritableByOthers {
        /// The folder.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The folder could not be created or examined.
    #[error("cannot use {}: {error}", .path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// This operating system cannot tell who may write a folder.
    #[cfg(not(unix))]
    #[error("{} cannot be checked on this operating system", .0.display())]
    Unsupported(PathBuf),
}

/// Who must own a trusted folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The host's own user.
    Me,
    /// Any user; the operator vouches for them (a shared, read-only folder).
    Anyone,
}

/// Checks that `path` is a folder (not a symlink), owned as `owner` asks, that no one
/// but its owner may write in. With `create`, a missing folder is made with mode 0700.
pub(crate) fn trusted_folder(path: &Path, owner: Owner, create: bool) -> Result<(), FolderError> {
    let io = |error| FolderError::Io { path: path.to_path_buf(), error };
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound && create => {
            create_private_folder(path).map_err(io)?;
            fs::symlink_metadata(path).map_err(io)?
        }
        Err(error) => return Err(io(error)),
    };
    if metadata.file_type().is_symlink() {
        return Err(FolderError::Symlink(path.to_path_buf()));
    }
    if !metadata.is_dir() {
        return Err(FolderError::NotAFolder { path: path.to_path_buf(), kind: kind_of(&metadata) });
    }
    check_owner_and_mode(path, &metadata, owner)
}

/// Why a secret file cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SecretError {
    /// Someone other than the host's user may read or write it, or owns it.
    #[error("{} is not private to this user (owner uid {owner}, mode {mode:03o}); remove it and it is made anew", .path.display())]
    NotPrivate {
        /// The file.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Its permission bits.
        mode: u32,
    },
    /// It could not be read or created.
    #[error("cannot use {}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: ReadError,
    },
}

/// The contents of the secret file at `path`, made from `make()` (mode 0600) when it
/// does not exist yet. An existing one must be a regular file of at most `limit`
/// bytes that only the host's user may read or write.
pub(crate) fn private_secret(
    path: &Path,
    limit: u64,
    make: impl FnOnce() -> io::Result<Vec<u8>>,
) -> Result<Vec<u8>, SecretError> {
    let io = |error: ReadError| SecretError::Io { path: path.to_path_buf(), error };
    if fs::symlink_metadata(path).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        match make().and_then(|secret| create_new_private_file(path, &secret)) {
            // Another process made it first: theirs is read below like any other.
            Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(io(error.into())),
            _ => {}
        }
    }
    let metadata = fs::symlink_metadata(path).map_err(|e| io(e.into()))?;
    let (owner, mode) = owner_and_mode(&metadata);
    if !metadata.is_file() || Some(owner) != my_uid() || mode & 0o077 != 0 {
        return Err(SecretError::NotPrivate { path: path.to_path_buf(), owner, mode });
    }
    read_trusted_file(path, limit, Owner::Me).map_err(io)
}

/// Writes `bytes` to `path` so that a reader sees the old file or the whole new one,
/// never part of it: a private (0600) temporary file beside it, then renamed over it.
pub(crate) fn write_private_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    // tempfile makes the temporary file 0600 with an unguessable name.
    let mut temporary = tempfile::NamedTempFile::new_in(folder)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Opens `path` for reading, following a symlink there only when `follow` says so.
#[cfg(unix)]
fn open_without_blocking(path: &Path, follow: bool) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    // A FIFO put in the file's place since it was checked must not block the open, nor
    // a terminal become the host's; a symlink put there must not be followed where the
    // caller checked for none.
    let flags = OFlags::NONBLOCK | OFlags::NOCTTY | if follow { OFlags::empty() } else { OFlags::NOFOLLOW };
    fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path)
}

/// Opens `path` for reading.
#[cfg(not(unix))]
fn open_without_blocking(path: &Path, _follow: bool) -> io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn kind_of(metadata: &Metadata) -> FileKind {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    match () {
        _ if kind.is_dir() => FileKind::Folder,
        _ if kind.is_fifo() => FileKind::Fifo,
        _ if kind.is_char_device() => FileKind::CharDevice,
        _ if kind.is_block_device() => FileKind::BlockDevice,
        _ if kind.is_socket() => FileKind::Socket,
        _ => FileKind::Other,
    }
}

#[cfg(not(unix))]
fn kind_of(metadata: &Metadata) -> FileKind {
    if metadata.is_dir() { FileKind::Folder } else { FileKind::Other }
}

/// Raises the number of files the process may have open to the most it is allowed,
/// so that a server can hold many connections; a failure only leaves it as it was.
#[cfg(all(unix, feature = "http"))]
pub(crate) fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        limit.current = limit.maximum;
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            tracing::debug!("cannot raise the open-file limit: {error}");
        }
    }
}

/// Raises the number of files the process may have open (nothing to do here).
#[cfg(all(not(unix), feature = "http"))]
pub(crate) fn raise_open_file_limit() {}

/// Gives the calling thread the lowest scheduling priority, so that what it does in
/// the background takes only the time other threads leave. Linux keeps a nice value
/// per thread; elsewhere `setpriority` would lower the whole process, so nothing is done.
#[cfg(target_os = "linux")]
pub(crate) fn lower_this_threads_priority() {
    // `None`: the caller, which on Linux is the calling thread alone.
    if let Err(error) = rustix::process::setpriority_process(None, 19) {
        tracing::debug!("cannot lower the background thread's priority: {error}");
    }
}

/// Gives the calling thread the lowest scheduling priority (not done here: see the
/// Linux version).
#[cfg(not(target_os = "linux"))]
pub(crate) fn lower_this_threads_priority() {}

/// The host's (effective) user id, where the operating system has one.
#[cfg(unix)]
pub(crate) fn my_uid() -> Option<u32> {
    Some(rustix::process::geteuid().as_raw())
}

/// The host's (effective) user id, where the operating system has one.
#[cfg(not(unix))]
pub(crate) fn my_uid() -> Option<u32> {
    None
}

#[cfg(unix)]
fn owner_and_mode(metadata: &Metadata) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    (metadata.uid(), metadata.mode() & 0o7777)
}

#[cfg(not(unix))]
fn owner_and_mode(_metadata: &Metadata) -> (u32, u32) {
    (u32::MAX, 0o777)
}

#[cfg(unix)]
fn check_owner_and_mode(path: &Path, metadata: &Metadata, owner: Owner) -> Result<(), FolderError> {
    let (folder_owner, mode) = owner_and_mode(metadata);
    let me = rustix::process::geteuid().as_raw();
    if owner == Owner::Me && folder_owner != me {
        return Err(FolderError::OtherOwner { path: path.to_path_buf(), owner: folder_owner, me });
    }
    if mode & 0o022 != 0 {
        return Err(FolderError::WritableByOthers { path: path.to_path_buf(), mode });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_owner_and_mode(path: &Path, _metadata: &Metadata, _owner: Owner) -> Result<(), FolderError> {
    Err(FolderError::Unsupported(path.to_path_buf()))
}

#[cfg(unix)]
fn create_private_folder(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    match fs::DirBuilder::new().mode(0o700).create(path) {
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

#[cfg(not(unix))]
fn create_private_folder(path: &Path) -> io::Result<()> {
    fs::create_dir_all(path)
}

#[cfg(unix)]
fn create_new_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(not(unix))]
fn create_new_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let file = folder.path().join("a.wasm");
        fs::write(&file, b"0123456789").expect("write");
        assert_eq!(read_regular_file(&file, 10).expect("within the limit"), b"0123456789");
        let error = read_regular_file(&file, 9).expect_err("over the limit");
        assert_eq!(error.to_string(), "it is 10 bytes, over the limit of 9 bytes");
        let error = read_regular_file(folder.path(), 10).expect_err("a folder");
        assert_eq!(error.to_string(), "it is a folder, not a regular file");
        let error = read_regular_file(Path::new("/dev/zero"), 10).expect_err("a device");
        assert_eq!(error.to_string(), "it is a character device, not a regular file");
        assert!(read_regular_file(&folder.path().join("missing"), 10).expect_err("missing").is_not_found());
    }

    #[test]
    fn a_trusted_folder_is_made_private_and_a_shared_one_must_not_be_writable() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let cache = folder.path().join("deep/cache");
        trusted_folder(&cache, Owner::Me, true).expect("created");
        assert_eq!(fs::metadata(&cache).expect("made").permissions().mode() & 0o777, 0o700);
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o777)).expect("chmod");
        let error = trusted_folder(&cache, Owner::Anyone, false).expect_err("writable by all");
        assert!(error.to_string().ends_with("can be written by other users (mode 777)"), "{error}");
        let link = folder.path().join("link");
        std::os::unix::fs::symlink(&cache, &link).expect("symlink");
        assert!(matches!(trusted_folder(&link, Owner::Me, true), Err(FolderError::Symlink(_))));
    }

    #[test]
    fn a_secret_is_made_private_once_and_refused_when_others_may_read_it() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let key = folder.path().join("key");
        assert_eq!(private_secret(&key, 64, || Ok(b"first".to_vec())).expect("made"), b"first");
        assert_eq!(private_secret(&key, 64, || Ok(b"second".to_vec())).expect("kept"), b"first");
        assert_eq!(fs::metadata(&key).expect("made").permissions().mode() & 0o777, 0o600);
        fs::set_permissions(&key, fs::Permissions::from_mode(0o644)).expect("chmod");
        let error = private_secret(&key, 64, || Ok(Vec::new())).expect_err("readable by others");
        assert!(matches!(error, SecretError::NotPrivate { mode: 0o644, .. }), "{error}");
    }
}

/// Gives the memory the allocator holds free back to the system, where it keeps it:
/// glibc keeps what a burst freed (its heap and every thread's arena) until told.
#[cfg(all(feature = "http", target_os = "linux", target_env = "gnu"))]
pub(crate) fn return_free_memory() {
    // SAFETY: malloc_trim only walks and releases the allocator's own free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Nothing here: the allocators of other systems give free memory back themselves.
#[cfg(all(feature = "http", not(all(target_os = "linux", target_env = "gnu"))))]
pub(crate) fn return_free_memory() {}
