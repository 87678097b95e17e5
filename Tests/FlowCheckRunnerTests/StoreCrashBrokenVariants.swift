import Foundation
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK
import FlowCheckSpec

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately broken token store for the store-crash flow of issue 11 (MLT-STORE-CRASH):
/// our `FileTokenStore` whose rewrite of an existing item is done in place, the way
/// `data.write(to: url)` without `.atomic` does it: the file is truncated, then written. A crash
/// after the write began leaves a torn (here: half-written) file, and the old token is gone.
enum StoreCrashBrokenVariants {
    struct InPlaceStore: InterruptibleTokenStore {
        let base: FileTokenStore

        func read(_ key: String) throws -> Data? { try base.read(key) }
        func delete(_ key: String) throws { try base.delete(key) }
        func keys() throws -> [String] { try base.keys() }

        func write(_ data: Data, for key: String) throws {
            let url = try base.fileURL(forKey: key)
            // The first write is the real store's (it creates the file 0600); later ones rewrite it.
            guard FileManager.default.fileExists(atPath: url.path) else { return try base.write(data, for: key) }
            try data.write(to: url)
        }

        /// The same write, dying where a crash after the data write began leaves it: truncated,
        /// then half the bytes written.
        func writeUntilCrash(_ data: Data, for key: String, at point: StoreCrashPoint) throws {
            switch point {
            case .nextWrite:
                let url = try base.fileURL(forKey: key)
                guard FileManager.default.fileExists(atPath: url.path) else { return try base.writeUntilCrash(data, for: key, at: point) }
                let descriptor = open(url.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
                guard descriptor >= 0 else { throw StoreCrashError("the token file could not be opened before the crash") }
                defer { close(descriptor) }
                guard InterruptedWrite.writeAll(data.prefix(data.count / 2), to: descriptor) else {
                    throw StoreCrashError("the token file could not be written before the crash")
                }
            }
        }
    }

    static let rewritesInPlace: any FlowDriver = CoreSDKDriver(name: "token file rewritten in place (Data.write, not atomic)", store: { InPlaceStore(base: $0) })
}
