import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the harness saw of a token store's files, measured with its own `lstat` calls: the
/// driver only says where the store is (``StoreLocation``), never what its files are like.
enum StoreFilesObservation: Sendable, Equatable {
    /// The driver's store keeps no files (a Keychain, memory): `storeFiles` checks are skipped.
    case notFileBacked
    /// The store's folder as it stands.
    case measured(StoreDirectoryFacts)
}

/// A store folder's facts.
struct StoreDirectoryFacts: Sendable, Equatable {
    /// One entry of the folder.
    struct Entry: Sendable, Equatable {
        var name: String
        /// Permission bits (`st_mode & 0o7777`).
        var mode: UInt32
        var inode: UInt64
        var isRegularFile: Bool
        var ownedByUser: Bool
        /// Size and modification time (nanoseconds): with the inode, whether a file was
        /// rewritten in place rather than replaced.
        var size: Int64 = 0
        var modified: Int64 = 0
        /// Whether it (a file, or a folder with anything inside) holds a secret of the flow's in
        /// any form it may be stored in: measured for entries that are not the store's own files,
        /// since an entry beside them is the store's layout unless it keeps a copy of a token.
        var holdsSecret = false
    }

    var directoryMode: UInt32
    var directoryIsDirectory: Bool
    var directoryOwnedByUser: Bool
    /// Every entry but `.` and `..`, sorted by name.
    var entries: [Entry]
    /// The files the driver says hold the stored items.
    var storeFiles: [String]

    private static func modified(_ info: stat) -> Int64 {
        #if canImport(Darwin)
        return Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
    }

    /// Measures `location` now; `secrets` (the fixture's and every token and code the fake
    /// issued) are looked for in whatever lies beside the store's own files.
    /// - Throws: ``DriverError`` when the folder cannot be inspected (the harness cannot judge).
    static func measure(_ location: StoreLocation, secrets: [String] = []) throws -> StoreDirectoryFacts {
        var forms = SecretFormCache()
        return try measure(location, secrets: secrets, forms: &forms)
    }

    /// As above, with the secrets' forms kept in `cache` from one measurement to the next: a
    /// flow measures its store after every step, with mostly the same secrets.
    static func measure(_ location: StoreLocation, secrets: [String], forms cache: inout SecretFormCache) throws -> StoreDirectoryFacts {
        let path = location.directory.path
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // A folder removed with the store's last item holds nothing to judge: an empty
            // store, closed to everyone since it is not there.
            if errno == ENOENT, location.files.isEmpty {
                return StoreDirectoryFacts(directoryMode: 0o700, directoryIsDirectory: true, directoryOwnedByUser: true, entries: [], storeFiles: [])
            }
            throw DriverError("storeFiles: the store directory the driver named cannot be inspected (errno \(errno))", party: .driver)
        }
        guard let names = Self.names(in: path)?.sorted() else {
            throw DriverError("storeFiles: the store directory the driver named cannot be listed", party: .driver)
        }
        let user = geteuid()
        // Built only when the folder holds something besides the store's own files (the common
        // case holds nothing else, and measuring runs after every step).
        var forms: [[UInt8]]?
        var budget = Self.readBudget
        var entries: [Entry] = []
        for name in names {
            var entry = stat()
            // Gone between the listing and now: the store was still writing, so nothing to judge.
            guard lstat(path + "/" + name, &entry) == 0 else { continue }
            var holdsSecret = false
            // An empty file holds nothing (the store's lock files are empty): no forms needed.
            let empty = (entry.st_mode & S_IFMT) == S_IFREG && entry.st_size == 0
            if !empty, !location.files.contains(name) {
                let secretForms = forms ?? cache.forms(of: secrets)
                forms = secretForms
                holdsSecret = !secretForms.isEmpty && Self.holdsSecret(path + "/" + name, forms: secretForms, budget: &budget)
            }
            entries.append(Entry(
                name: name, mode: UInt32(entry.st_mode) & 0o7777, inode: UInt64(entry.st_ino),
                isRegularFile: (entry.st_mode & S_IFMT) == S_IFREG, ownedByUser: entry.st_uid == user,
                size: Int64(entry.st_size), modified: Self.modified(entry),
                holdsSecret: holdsSecret
            ))
        }
        return StoreDirectoryFacts(
            directoryMode: UInt32(info.st_mode) & 0o7777, directoryIsDirectory: (info.st_mode & S_IFMT) == S_IFDIR,
            directoryOwnedByUser: info.st_uid == user, entries: entries, storeFiles: location.files.sorted()
        )
    }

    /// The names in the folder at `path` but `.` and `..`, or nil when it cannot be listed:
    /// `readdir` itself, since FileManager's listing was a fiftieth of the suite's CPU time
    /// (the store is measured after every step of every flow).
    static func names(in path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// How many bytes one measurement reads looking for secrets, at most: a store folder holds
    /// a few small files, and a huge one is not read to its end.
    static let readBudget = 4 << 20

    /// Whether the file at `path` (or, for a folder, anything under it) holds one of `forms`.
    /// Symbolic links are not followed: what lies elsewhere is not the store's.
    private static func holdsSecret(_ path: String, forms: [[UInt8]], budget: inout Int, depth: Int = 0) -> Bool {
        var info = stat()
        guard budget > 0, lstat(path, &info) == 0 else { return false }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: budget)) ?? Data()
            budget -= data.count
            let bytes = Array(data)
            return forms.contains { SecretForms.occurs($0, in: bytes) }
        case S_IFDIR:
            guard depth < 4, let names = Self.names(in: path) else { return false }
            return names.contains { holdsSecret(path + "/" + $0, forms: forms, budget: &budget, depth: depth + 1) }
        default:
            return false
        }
    }
}

/// The forms of secrets looked for in what lies beside a store's own files: the judge's own
/// (``SecretForms``, never the redactor's), built once per secret.
struct SecretFormCache: Sendable {
    private var built: [String: [[UInt8]]] = [:]

    /// Every form of every secret of at least four bytes (a form may repeat across secrets).
    mutating func forms(of secrets: [String]) -> [[UInt8]] {
        var forms: [[UInt8]] = []
        for secret in secrets where secret.count >= 4 {
            if let known = built[secret] {
                forms += known
            } else {
                let made = SecretForms.forms(of: secret).filter { !$0.isEmpty }.map { Array($0.utf8) }
                built[secret] = made
                forms += made
            }
        }
        return forms
    }
}
