import Foundation

/// Loads and saves the one `CleverToken` under `CleverInstantLogin.storeKey`, as JSON with sorted
/// keys.
///
/// Every store failure leaves as `OAuthError` `.storage`, and a foreign store's error text is not
/// repeated (it is unknown territory and might hold anything).
struct CleverTokenPersistence: Sendable {
    let store: any TokenStore
    let key: String

    func load() throws -> CleverToken? {
        let data: Data?
        do {
            data = try store.read(key)
        } catch {
            throw Self.storageError(error, "could not read the stored Clever token")
        }
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(CleverToken.self, from: data)
        } catch {
            throw OAuthError.storage("the stored Clever token is unreadable")
        }
    }

    func save(_ token: CleverToken) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(token)
        } catch {
            throw OAuthError.storage("could not encode the Clever token")
        }
        do {
            try store.write(data, for: key)
        } catch {
            throw Self.storageError(error, "could not store the Clever token")
        }
    }

    private static func storageError(_ error: any Error, _ fallback: String) -> OAuthError {
        if let error = error as? OAuthError, error.code == .storage {
            return error
        }
        return OAuthError.storage(fallback)
    }
}
