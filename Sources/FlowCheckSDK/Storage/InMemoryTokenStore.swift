import Foundation

/// A token store that lives only as long as the process: for tests and for apps that must not
/// persist tokens.
public final class InMemoryTokenStore: TokenStore {
    private let items = Locked<[String: Data]>([:])

    /// Creates an empty store.
    public init() {}

    /// Reads the blob stored under `key`, or nil.
    public func read(_ key: String) throws -> Data? {
        items.withLock { $0[key] }
    }

    /// Stores `data` under `key`.
    public func write(_ data: Data, for key: String) throws {
        items.withLock { $0[key] = data }
    }

    /// Removes the item under `key`, if any.
    public func delete(_ key: String) throws {
        items.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// The stored keys, sorted.
    public func keys() throws -> [String] {
        items.withLock { $0.keys.sorted() }
    }
}
