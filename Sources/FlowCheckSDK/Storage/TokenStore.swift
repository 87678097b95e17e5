import Foundation

/// Secure storage of small blobs by key: the platform seam for token persistence.
///
/// The SDK core defines the protocol; `FileTokenStore` serves Linux and tests, and
/// `KeychainTokenStore` serves Apple platforms (model: AppAuth keeps platform pieces behind
/// protocols so `AppAuthCore` has no dependencies). Implementations should throw `OAuthError` with
/// code `.storage`; other errors are wrapped into one by the SDK.
public protocol TokenStore: Sendable {
    /// Reads the blob stored under `key`.
    /// - Parameter key: The item's key.
    /// - Returns: The data, or nil when nothing is stored under `key`.
    /// - Throws: `OAuthError` `.storage` when the store cannot be read.
    func read(_ key: String) throws -> Data?

    /// Stores `data` under `key`, replacing what was there.
    /// - Parameters:
    ///   - data: The blob to store.
    ///   - key: The item's key.
    /// - Throws: `OAuthError` `.storage` when the data could not be stored.
    func write(_ data: Data, for key: String) throws

    /// Removes the item under `key`. Removing a missing item is not an error.
    /// - Parameter key: The item's key.
    /// - Throws: `OAuthError` `.storage` when the item exists but could not be removed.
    func delete(_ key: String) throws

    /// The keys of all stored items, sorted.
    /// - Throws: `OAuthError` `.storage` when the store cannot be listed.
    func keys() throws -> [String]
}
