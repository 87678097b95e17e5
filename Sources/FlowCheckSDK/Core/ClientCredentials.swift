/// A client id and secret, held in memory only (never written to a store).
struct ClientCredentials: Sendable, Equatable, CustomStringConvertible {
    let clientId: String
    let clientSecret: String

    /// Redacted: shows the id, never the secret.
    var description: String {
        "ClientCredentials(clientId: \(clientId), clientSecret: \(Redaction.placeholder))"
    }
}
