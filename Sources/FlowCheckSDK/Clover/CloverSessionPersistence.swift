import Foundation

/// Loads, saves and deletes the one `CloverStoredSession` under `CloverPaymentSDK.storeKey`.
///
/// JSON with sorted keys and dates in Unix seconds, like `StoredToken`. Every store failure
/// leaves as `OAuthError` `.storage`, and a foreign store's error text is not repeated (it is
/// unknown territory and might hold anything).
struct CloverSessionPersistence: Sendable {
    let store: any TokenStore
    let key: String

    func load() throws -> CloverStoredSession? {
        let data: Data?
        do {
            data = try store.read(key)
        } catch {
            throw Self.storageError(error, "could not read the stored Clover session")
        }
        guard let data else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(CloverStoredSession.self, from: data)
        } catch {
            throw OAuthError.storage("the stored Clover session is unreadable")
        }
    }

    /// Whether anything is stored under the key, readable or not (so `logout` reports the
    /// deletion of an unreadable session too).
    func exists() throws -> Bool {
        do {
            return try store.read(key) != nil
        } catch {
            throw Self.storageError(error, "could not read the stored Clover session")
        }
    }

    func save(_ session: CloverStoredSession) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do {
            data = try encoder.encode(session)
        } catch {
            throw OAuthError.storage("could not encode the Clover session")
        }
        do {
            try store.write(data, for: key)
        } catch {
            throw Self.storageError(error, "could not store the Clover session")
        }
    }

    func clear() throws {
        do {
            try store.delete(key)
        } catch {
            throw Self.storageError(error, "could not delete the stored Clover session")
        }
    }

    private static func storageError(_ error: any Error, _ fallback: String) -> OAuthError {
        if let error = error as? OAuthError, error.code == .storage {
            return error
        }
        return OAuthError.storage(fallback)
    }
}
