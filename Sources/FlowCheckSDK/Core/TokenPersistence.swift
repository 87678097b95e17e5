import Foundation

/// Loads and saves one `StoredToken` under one key of a `TokenStore`.
///
/// Every store failure leaves as `OAuthError` `.storage`, whatever the store threw, so provider
/// clients have one error shape to report.
struct TokenPersistence: Sendable {
    let store: any TokenStore
    let key: String

    func load() throws -> StoredToken? {
        let data: Data?
        do {
            data = try store.read(key)
        } catch {
            throw Self.storageError(error, "could not read the stored token")
        }
        return try data.map(StoredToken.init(storedData:))
    }

    func save(_ token: StoredToken) throws {
        let data = try token.encodedForStorage()
        do {
            try store.write(data, for: key)
        } catch {
            throw Self.storageError(error, "could not store the token")
        }
    }

    func clear() throws {
        do {
            try store.delete(key)
        } catch {
            throw Self.storageError(error, "could not delete the stored token")
        }
    }

    private static func storageError(_ error: any Error, _ fallback: String) -> OAuthError {
        if let error = error as? OAuthError, error.code == .storage {
            return error
        }
        // A foreign store's error text is unknown territory: do not repeat it.
        return OAuthError.storage(fallback)
    }
}
