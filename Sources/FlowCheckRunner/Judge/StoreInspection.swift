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

    /// Measures `location` now.
    /// - Throws: ``DriverError`` when the folder cannot be inspected (the harness cannot judge).
    static func measure(_ location: StoreLocation) throws -> StoreDirectoryFacts {
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
        var entries: [Entry] = []
        for name in names {
            var entry = stat()
            // Gone between the listing and now: the store was still writing, so nothing to judge.
            guard lstat(path + "/" + name, &entry) == 0 else { continue }
            entries.append(Entry(
                name: name, mode: UInt32(entry.st_mode) & 0o7777, inode: UInt64(entry.st_ino),
                isRegularFile: (entry.st_mode & S_IFMT) == S_IFREG, ownedByUser: entry.st_uid == user,
                size: Int64(entry.st_size), modified: Self.modified(entry)
            ))
        }
        return StoreDirectoryFacts(
            directoryMode: UInt32(info.st_mode) & 0o7777, directoryIsDirectory: (info.st_mode & S_IFMT) == S_IFDIR,
            directoryOwnedByUser: info.st_uid == user, entries: entries, storeFiles: location.files.sorted()
        )
    }
}
