import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Deliberately broken token stores for the store-inspection flows of issue 11 (MLT-STORE-FILES,
/// CLV-FULL-21). Each is our `FileTokenStore` with its write done one realistic wrong way, the
/// kind a file store ships with; reads, deletes and listing stay the real store's.
enum StoreBrokenVariants {
    /// How a broken write goes.
    enum Defect: Sendable {
        /// Rewrites an existing file in place (`open(path, O_WRONLY | O_TRUNC)`, "keeps its
        /// permissions and saves a rename"): the same inode, and a crash mid-write tears the token.
        case rewriteInPlace
        /// Creates its temporary file with mode 0644 (`open(tmp, O_CREAT, 0o644)`, the mode
        /// `FileManager.createFile` gives under the usual umask) before the rename: every user
        /// of the machine can read the token.
        case worldReadable
        /// Writes through the real store, then keeps a copy in a temporary-looking backup file
        /// it never unlinks: the token (and, after rotation, every old one) lingers beside it
        /// until the store's next clean-up.
        case leavesTemporaryFile
    }

    struct MiswritingStore: TokenStore {
        let base: FileTokenStore
        let defect: Defect

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func delete(_ key: String) throws { try base.delete(key) }
        func keys() throws -> [String] { try base.keys() }

        func write(_ data: Data, for key: String) throws {
            let path = try base.fileURL(forKey: key).path
            switch defect {
            case .rewriteInPlace:
                // Only a file already there is rewritten; the first write is the real store's.
                guard FileManager.default.fileExists(atPath: path) else { return try base.write(data, for: key) }
                try Self.writeFile(path, data, flags: O_WRONLY | O_TRUNC, mode: 0o600)
            case .worldReadable:
                // Named as the store names its own temporary files (`.tmp-UUID`).
                let temporary = base.directory.appendingPathComponent(".tmp-" + UUID().uuidString).path
                try Self.writeFile(temporary, data, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
                guard rename(temporary, path) == 0 else {
                    unlink(temporary)
                    throw StoreWriteError("could not replace the token file")
                }
            case .leavesTemporaryFile:
                // After the real write (whose clean-up would take a copy made before it), named
                // as the store names its own temporary files (`.tmp-UUID`).
                try base.write(data, for: key)
                let temporary = base.directory.appendingPathComponent(".tmp-" + UUID().uuidString).path
                try Self.writeFile(temporary, data, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            }
        }

        /// Writes `data` to `path` opened with `flags`; the mode is set explicitly (as a store
        /// that means it would), so the umask does not decide it.
        private static func writeFile(_ path: String, _ data: Data, flags: Int32, mode: mode_t) throws {
            let descriptor = open(path, flags | O_CLOEXEC, mode)
            guard descriptor >= 0 else { throw StoreWriteError("could not open the token file") }
            defer { close(descriptor) }
            guard fchmod(descriptor, mode) == 0 else { throw StoreWriteError("could not set the token file's mode") }
            let written = data.withUnsafeBytes { bytes in bytes.isEmpty ? 0 : systemWrite(descriptor, bytes.baseAddress!, bytes.count) }
            guard written == data.count else { throw StoreWriteError("could not write the token file") }
        }
    }

    /// The C `write`, which the store's own `write(_:for:)` shadows.
    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.write(descriptor, buffer, count)
        #elseif canImport(Musl)
        return Musl.write(descriptor, buffer, count)
        #else
        return Glibc.write(descriptor, buffer, count)
        #endif
    }

    static let rewritesInPlace: any FlowDriver = CoreSDKDriver(name: "token file rewritten in place", store: { MiswritingStore(base: $0, defect: .rewriteInPlace) })
    static let worldReadable: any FlowDriver = CoreSDKDriver(name: "token file mode 0644", store: { MiswritingStore(base: $0, defect: .worldReadable) })
    static let leavesTemporaryFile: any FlowDriver = CoreSDKDriver(name: "temporary token file left behind", store: { MiswritingStore(base: $0, defect: .leavesTemporaryFile) })
}

/// A broken store's own write failure (the SDK wraps it as a storage error).
struct StoreWriteError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
