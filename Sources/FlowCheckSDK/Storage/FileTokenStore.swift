import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A token store backed by one file per key in a private directory (Linux, tests, CLIs).
///
/// Readable by its owner only: the directory is `0700` and each file `0600`. Writes are atomic:
/// the data goes to a temporary file in the same directory, is `fsync`ed, then `rename`d over the
/// old file, and the directory is `fsync`ed, so a reader sees the old blob or the new one, never a
/// partial file, and a crash cannot leave a torn token. Data survives reopening the directory with
/// a new instance. Keys map reversibly to file names (see `FileTokenStore+Filenames.swift`).
///
/// A save holds an advisory lock (`flock`) on its temporary file from the moment it is created
/// until it is renamed into place, so a temporary file nobody holds is a killed save's leftover,
/// whatever process ids say: in containers every app starts with the same id, and two
/// containers sharing the folder see each other's ids as dead. The empty `.writers.lock` file beside the
/// tokens closes the one gap (a temporary file created and not yet locked): saves hold it shared
/// while they create and lock theirs, and clean-up holds it exclusively while it looks.
public final class FileTokenStore: TokenStore {
    /// The directory holding the files.
    public let directory: URL
    /// `directory`'s path with a trailing `/`: every file's path is this and a name (a URL
    /// built per call cost more than the system calls it names).
    private let folder: String

    /// Opens (creating if needed) the store in `directory`.
    ///
    /// Missing directories are created with mode `0700`; an existing one is tightened to `0700`.
    /// - Parameter directory: A file URL of the directory to use.
    /// - Throws: `OAuthError` `.storage` when the directory cannot be created, is not a directory,
    ///   is owned by another user, or its mode cannot be set.
    public init(directory: URL) throws {
        guard directory.isFileURL else {
            throw OAuthError.storage("the token directory must be a file URL")
        }
        self.directory = directory.standardizedFileURL
        let path = self.directory.path
        folder = path.hasSuffix("/") ? path : path + "/"
        // One mkdir when the parent is there (every open but the first finds the folder made);
        // FileManager, which makes missing parents too, only when it is not.
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            do {
                try FileManager.default.createDirectory(
                    atPath: path,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw OAuthError.storage("could not create the token directory")
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw Self.posixFailure("could not inspect the token directory")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OAuthError.storage("the token directory path is not a directory")
        }
        // Someone else's directory could be read or swapped under us: refuse it.
        guard info.st_uid == geteuid() else {
            throw OAuthError.storage("the token directory is owned by another user")
        }
        guard chmod(path, 0o700) == 0 else {
            throw Self.posixFailure("could not restrict the token directory to its owner")
        }
        removeLeftoverTemporaryFiles()
    }

    /// Reads the blob stored under `key`.
    /// - Returns: The data, or nil when there is no file for `key`.
    /// - Throws: `OAuthError` `.storage` when the file exists but cannot be read.
    public func read(_ key: String) throws -> Data? {
        let path = try filePath(for: key)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw Self.posixFailure("could not open the token file for key '\(key)'")
        }
        defer { close(descriptor) }
        return try Self.readAll(from: descriptor, key: key)
    }

    /// Stores `data` under `key` atomically (temp file, `fsync`, `rename`, directory `fsync`).
    /// - Throws: `OAuthError` `.storage` when any step fails; the previous blob is then intact.
    public func write(_ data: Data, for key: String) throws {
        let path = try filePath(for: key)
        removeLeftoverTemporaryFiles()
        let temporaryPath = folder + Self.temporaryName()
        let descriptor = try createLockedTemporaryFile(temporaryPath, key: key)
        // Closing the descriptor releases the lock: it stays open until the rename is done.
        do {
            // The umask can only remove bits, but be explicit: the file is the owner's alone.
            guard fchmod(descriptor, 0o600) == 0 else {
                throw Self.posixFailure("could not restrict the token file for key '\(key)'")
            }
            try Self.writeAll(data, to: descriptor, key: key)
            guard fsync(descriptor) == 0 else {
                throw Self.posixFailure("could not flush the token file for key '\(key)'")
            }
            guard rename(temporaryPath, path) == 0 else {
                throw Self.posixFailure("could not replace the token file for key '\(key)'")
            }
        } catch {
            unlink(temporaryPath)
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else {
            throw Self.posixFailure("could not close the token file for key '\(key)'")
        }
        try syncDirectory()
    }

    /// Creates `path` for this save alone (`O_EXCL`, owner-only) and locks it, holding the
    /// folder's `.writers.lock` shared meanwhile so no clean-up sees it unlocked.
    private func createLockedTemporaryFile(_ path: String, key: String) throws -> Int32 {
        let gate = try openGate()
        defer { close(gate) }
        // A file system with no flock (some FUSE and SMB mounts) still saves, unguarded.
        guard Self.lock(gate, LOCK_SH) || Self.lockingUnsupported(errno) else {
            throw Self.posixFailure("could not lock the token directory for key '\(key)'")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw Self.posixFailure("could not create a temporary token file for key '\(key)'")
        }
        // A file this save has just created: nobody else can hold it.
        guard Self.lock(descriptor, LOCK_EX | LOCK_NB) || Self.lockingUnsupported(errno) else {
            let failure = Self.posixFailure("could not lock the temporary token file for key '\(key)'")
            unlink(path)
            close(descriptor)
            throw failure
        }
        return descriptor
    }

    /// The folder's `.writers.lock` file, opened (created empty and owner-only if missing).
    private func openGate() throws -> Int32 {
        let descriptor = open(folder + Self.gateName, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.posixFailure("could not open the token directory's lock file") }
        return descriptor
    }

    /// Whether a failed `flock` says the file system has no such locks (nothing to wait for).
    private static func lockingUnsupported(_ code: Int32) -> Bool {
        code == ENOLCK || code == EOPNOTSUPP || code == EINVAL || code == ENOSYS
    }

    /// `flock`, again after a signal interrupts it.
    private static func lock(_ descriptor: Int32, _ operation: Int32) -> Bool {
        while flock(descriptor, operation) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Removes the file for `key`; a missing file is not an error.
    /// - Throws: `OAuthError` `.storage` when the file exists but cannot be removed.
    /// Leftover temporary files (which may hold a token a killed save was writing) go too,
    /// so no token bytes stay in the directory once the store says it is empty.
    public func delete(_ key: String) throws {
        let path = try filePath(for: key)
        let removedLeftovers = removeLeftoverTemporaryFiles()
        if unlink(path) != 0 {
            if errno == ENOENT {
                if removedLeftovers > 0 { try syncDirectory() }
                return
            }
            throw Self.posixFailure("could not delete the token file for key '\(key)'")
        }
        try syncDirectory()
    }

    /// The original keys of all stored items, sorted. Temporary and foreign files are ignored.
    /// - Throws: `OAuthError` `.storage` when the directory cannot be listed.
    public func keys() throws -> [String] {
        guard let names = Self.names(in: folder) else {
            throw OAuthError.storage("could not list the token directory")
        }
        return names.compactMap(Self.key(forFileName:)).sorted()
    }

    /// The file that holds (or would hold) the item under `key`: for tools that inspect the
    /// store's files, such as a conformance harness checking their modes.
    /// - Throws: `OAuthError` `.storage` when `key` cannot name a file.
    public func fileURL(forKey key: String) throws -> URL {
        directory.appendingPathComponent(try Self.fileName(forKey: key), isDirectory: false)
    }

    /// The name, in ``directory``, of the file that holds (or would hold) the item under `key`.
    /// - Throws: `OAuthError` `.storage` when `key` cannot name a file.
    public func fileName(forKey key: String) throws -> String {
        try Self.fileName(forKey: key)
    }

    // MARK: - Private

    /// Temporary files start with a dot, which no encoded key file name does: `.tmp-UUID`.
    static let temporaryPrefix = ".tmp-"
    /// The folder's lock file (empty, owner-only; a dot name, so never a key).
    static let gateName = ".writers.lock"

    static func temporaryName() -> String {
        temporaryPrefix + UUID().uuidString
    }

    /// Removes the temporary files of saves that can no longer finish: those no save holds
    /// locked (its process killed mid-save, in this container or another). A save in
    /// progress, in any process, keeps its file. Failures are ignored: a leftover that cannot
    /// be removed is no reason not to save.
    /// - Returns: how many were removed.
    @discardableResult
    func removeLeftoverTemporaryFiles() -> Int {
        guard let names = Self.names(in: folder),
              names.contains(where: { $0.hasPrefix(Self.temporaryPrefix) }) else { return 0 }
        // Exclusive: no save is between creating its file and locking it while we look. Never
        // waited for long: a save holds it shared for two system calls, and one frozen in
        // between (a paused container) must not hold up this process; the clean-up is tried
        // again at the next open, save or delete. With no flock at all, nothing can tell a
        // leftover from a save in progress: nothing is removed.
        guard let gate = try? openGate() else { return 0 }
        defer { close(gate) }
        var tries = 0
        while !Self.lock(gate, LOCK_EX | LOCK_NB) {
            tries += 1
            guard errno == EWOULDBLOCK, tries < 1_000 else { return 0 }
            sched_yield()
        }
        var removed = 0
        for name in names where name.hasPrefix(Self.temporaryPrefix) {
            let path = folder + name
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard descriptor >= 0 else { continue }
            // Held: a save in progress. Free: nobody will ever finish it.
            if Self.lock(descriptor, LOCK_EX | LOCK_NB), unlink(path) == 0 { removed += 1 }
            close(descriptor)
        }
        return removed
    }

    private func filePath(for key: String) throws -> String {
        folder + (try Self.fileName(forKey: key))
    }

    private func syncDirectory() throws {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.posixFailure("could not open the token directory to flush it")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw Self.posixFailure("could not flush the token directory")
        }
    }
}
