import Foundation
import FlowCheckFakeServer
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

/// A token store the driver can interrupt the way a crash would, for `crashStore` steps.
///
/// The crash is the driver's, not the SDK's: the SDK has no test switch. A store that conforms
/// says how far one of its writes gets before the point a crash is modelled at, and the driver
/// stops it there.
public protocol InterruptibleTokenStore: TokenStore {
    /// Does what `write(_:for:)` does up to `point` and no further: no clean-up, since a dead
    /// process cleans nothing. For ``StoreCrashPoint/nextWrite`` that is: the data has reached
    /// the disk and the write is not committed.
    func writeUntilCrash(_ data: Data, for key: String, at point: StoreCrashPoint) throws
}

extension FileTokenStore: InterruptibleTokenStore {
    /// The store's own write steps, through its public pieces, up to the rename: a new
    /// owner-only temporary file in the store's folder, the data written and flushed, and then
    /// nothing, so the old file is untouched and the temporary one is left behind.
    public func writeUntilCrash(_ data: Data, for key: String, at point: StoreCrashPoint) throws {
        switch point {
        case .nextWrite:
            _ = try fileURL(forKey: key)  // the key must name a file, as in a real write
            let temporary = directory.appendingPathComponent(".tmp-" + UUID().uuidString).path
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw StoreCrashError("the temporary token file could not be created before the crash") }
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0, InterruptedWrite.writeAll(data, to: descriptor), fsync(descriptor) == 0 else {
                throw StoreCrashError("the temporary token file could not be written before the crash")
            }
        }
    }
}

/// Raw writes for stores modelling a crash.
public enum InterruptedWrite {
    /// Writes all of `data` to `descriptor`; false on an error.
    public static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                #if canImport(Darwin)
                let count = Darwin.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #elseif canImport(Musl)
                let count = Musl.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #else
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #endif
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }
}

/// What the interrupted store write throws: the SDK sees its store fail (a storage error).
public struct StoreCrashError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The store the SDK is given: the real (or a broken) store, with a crash the runner can arm.
final class CrashableStore: TokenStore {
    /// The crash armed for the next write, if any.
    private let armed = Locked<StoreCrashPoint?>(nil)
    /// The store as opened now: a relaunch opens it anew.
    private let current: Locked<any TokenStore>
    private let open: @Sendable () throws -> any TokenStore

    /// - Parameters:
    ///   - inner: The store as the session opened it.
    ///   - reopen: Opens the store over its folder again, as an app does at launch.
    init(_ inner: any TokenStore, reopen: @escaping @Sendable () throws -> any TokenStore) {
        self.open = reopen
        current = Locked(inner)
    }

    private var inner: any TokenStore { current.withLock { $0 } }

    /// Opens the store anew over the same folder, as a relaunched app does: whatever the
    /// store does at open (a `FileTokenStore` removes the temporary files of dead saves) runs.
    func reopen() throws {
        let reopened = try open()
        current.withLock { $0 = reopened }
    }

    /// Arms a crash at `point` of the next write, when the store can be interrupted there.
    func arm(_ point: StoreCrashPoint) -> StoreCrashSupport {
        guard inner is any InterruptibleTokenStore else {
            return .unsupported("the driver's token store (\(type(of: inner))) cannot be interrupted mid-write")
        }
        armed.withLock { $0 = point }
        return .armed
    }

    func read(_ key: String) throws -> Data? { try inner.read(key) }
    func delete(_ key: String) throws { try inner.delete(key) }
    func keys() throws -> [String] { try inner.keys() }

    func write(_ data: Data, for key: String) throws {
        let point = armed.withLock { armed -> StoreCrashPoint? in defer { armed = nil }; return armed }
        guard let point, let interruptible = inner as? any InterruptibleTokenStore else { return try inner.write(data, for: key) }
        try interruptible.writeUntilCrash(data, for: key, at: point)
        throw StoreCrashError("the app crashed while the token store was writing (an injected crash, \(point.rawValue))")
    }
}
