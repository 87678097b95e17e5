import Foundation

extension StoredToken {
    /// The token as stored: JSON with sorted keys and `expiresAt` in Unix seconds.
    /// - Returns: The JSON bytes.
    /// - Throws: `OAuthError` `.storage` if encoding fails.
    public func encodedForStorage() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            return try encoder.encode(self)
        } catch {
            throw OAuthError.storage("could not encode the token")
        }
    }

    /// Decodes a token written by `encodedForStorage()`.
    /// - Parameter data: The stored bytes.
    /// - Throws: `OAuthError` `.storage` when the bytes are not a stored token.
    public init(storedData data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            self = try decoder.decode(StoredToken.self, from: data)
        } catch {
            throw OAuthError.storage("the stored token is unreadable")
        }
    }
}
