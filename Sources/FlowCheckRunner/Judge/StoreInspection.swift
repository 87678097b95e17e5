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
        let path = location.directory.path
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw DriverError("storeFiles: the store directory the driver named cannot be inspected (errno \(errno))", party: .driver)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw DriverError("storeFiles: the store directory the driver named cannot be listed", party: .driver)
        }
        let user = geteuid()
        // Built only when the folder holds something besides the store's own files (the common
        // case holds nothing else, and measuring runs after every step).
        var forms: [String]?
        var budget = Self.readBudget
        var entries: [Entry] = []
        for name in names {
            var entry = stat()
            // Gone between the listing and now: the store was still writing, so nothing to judge.
            guard lstat(path + "/" + name, &entry) == 0 else { continue }
            var holdsSecret = false
            if !location.files.contains(name) {
                let secretForms = forms ?? Array(Set(secrets.filter { $0.count >= 4 }.flatMap(Redactor.forms(of:)).filter { !$0.isEmpty }))
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

    /// How many bytes one measurement reads looking for secrets, at most: a store folder holds
    /// a few small files, and a huge one is not read to its end.
    static let readBudget = 4 << 20

    /// Whether the file at `path` (or, for a folder, anything under it) holds one of `forms`.
    /// Symbolic links are not followed: what lies elsewhere is not the store's.
    private static func holdsSecret(_ path: String, forms: [String], budget: inout Int, depth: Int = 0) -> Bool {
        var info = stat()
        guard budget > 0, lstat(path, &info) == 0 else { return false }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: budget)) ?? Data()
            budget -= data.count
            let text = String(decoding: data, as: UTF8.self)
            return forms.contains { text.contains($0) }
        case S_IFDIR:
            guard depth < 4, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
            return names.contains { holdsSecret(path + "/" + $0, forms: forms, budget: &budget, depth: depth + 1) }
        default:
            return false
        }
    }
}
