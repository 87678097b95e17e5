#if canImport(Security)
import Foundation
import Security

/// A token store in the Apple Keychain: one `kSecClassGenericPassword` item per key, under one
/// service name, readable only after first unlock and never synced to other devices.
///
/// Follows the tutorial's `KeychainWrapper` (seed 003, "Keychain Wrapper") but reads `OSStatus`
/// the right way round: the tutorial's `MoltinTokenStorage` treats the wrapper's `true` (success)
/// as an error. Here only `errSecSuccess` succeeds, `errSecItemNotFound` means "nothing stored",
/// and everything else throws.
public final class KeychainTokenStore: TokenStore {
    /// The `kSecAttrService` value shared by all items of this store.
    public let service: String

    /// Creates a store for the items of `service`.
    /// - Parameter service: The Keychain service name, e.g. the app's bundle identifier plus a suffix.
    public init(service: String) {
        self.service = service
    }

    /// Reads the item for `key`.
    /// - Returns: The data, or nil when there is no item.
    /// - Throws: `OAuthError` `.storage` with the Keychain's status on any other failure.
    public func read(_ key: String) throws -> Data? {
        var query = baseQuery(account: key)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else {
                throw OAuthError.storage("the Keychain returned an item without data")
            }
            return data
        case errSecItemNotFound:
            return nil
        default:
            throw Self.failure("read", status)
        }
    }

    /// Stores `data` for `key`, updating the item if it exists and adding it otherwise.
    /// - Throws: `OAuthError` `.storage` with the Keychain's status on failure.
    public func write(_ data: Data, for key: String) throws {
        let query = baseQuery(account: key)
        let changes: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query as CFDictionary, changes as CFDictionary)
        if status == errSecItemNotFound {
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw Self.failure("write", status)
        }
    }

    /// Deletes the item for `key`; a missing item is not an error.
    /// - Throws: `OAuthError` `.storage` with the Keychain's status on failure.
    public func delete(_ key: String) throws {
        let status = SecItemDelete(baseQuery(account: key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw Self.failure("delete", status)
        }
    }

    /// The keys (account names) of this service's items, sorted.
    /// - Throws: `OAuthError` `.storage` with the Keychain's status on failure.
    public func keys() throws -> [String] {
        var query = baseQuery(account: nil)
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            let items = result as? [[String: Any]] ?? []
            return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
        case errSecItemNotFound:
            return []
        default:
            throw Self.failure("list", status)
        }
    }

    private func baseQuery(account: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
        ]
        if let account {
            query[kSecAttrAccount as String] = account
        }
        return query
    }

    private static func failure(_ operation: String, _ status: OSStatus) -> OAuthError {
        let text = SecCopyErrorMessageString(status, nil) as String? ?? "unknown error"
        return OAuthError.storage("Keychain \(operation) failed: \(text) (OSStatus \(status))")
    }
}
#endif
