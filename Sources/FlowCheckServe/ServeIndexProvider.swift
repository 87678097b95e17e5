import Foundation
import FlowCheckFakeServer
import FlowCheckProviders

/// A persona with `GET /` answered by its ``ServeDirectory`` as JSON, for `flowcheck serve`:
/// every other request goes to the persona untouched. Flows never see it.
///
/// `/` is served on the primary origin (Clover's `api`); the directory names the origin of
/// every endpoint and, once started, every origin's base URL.
final class ServeIndexProvider<Wrapped: FakeProvider>: FakeProvider {
    private let wrapped: Wrapped
    private let provider: String
    private let directory: ServeDirectory
    private let baseURLs = Locked<[String: String]>([:])
    /// The last answer and the second of the clock it was built for: the document changes only
    /// with the clock's second and the base URLs (which clear it), and building it (a date
    /// formatter and a JSON document) cost twenty times a products answer, so a client
    /// pipelining `GET /` could hold up every port on the loop.
    private let cached = Locked<(second: Int, response: HTTPResponse)?>(nil)

    init(_ wrapped: Wrapped, provider: String, directory: ServeDirectory) {
        self.wrapped = wrapped
        self.provider = provider
        self.directory = directory
    }

    /// Where each origin listens, once known.
    func setBaseURLs(_ urls: [String: URL]) {
        baseURLs.withLock { $0 = urls.mapValues(\.absoluteString) }
        cached.withLock { $0 = nil }
    }

    var name: String { wrapped.name }
    var issuedSecrets: [String] { wrapped.issuedSecrets }
    static var origins: [String] { Wrapped.origins }
    func origin(serving path: String) -> String {
        path == "/" ? Wrapped.origins[0] : wrapped.origin(serving: path)
    }
    func accessTokenExpiry(_ token: String) -> Date? { wrapped.accessTokenExpiry(token) }

    func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        guard request.path == "/" else { return wrapped.handle(request, now: now) }
        guard request.method == "GET" else {
            var response = HTTPResponse.json(405, ["error": "method_not_allowed", "error_description": "GET / lists this fake's endpoints"])
            response.headers.set("Allow", "GET")
            return response
        }
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        if let hit = cached.withLock({ $0 }), hit.second == second { return hit.response }
        let response = HTTPResponse.json(200, document(now: now))
        cached.withLock { $0 = (second, response) }
        return response
    }

    private func document(now: Date) -> [String: Any] {
        [
            "provider": provider,
            "now": ISO8601DateFormatter().string(from: now),
            "baseURLs": baseURLs.withLock { $0 },
            "endpoints": directory.endpoints.map { ["method": $0.method, "path": $0.path, "origin": $0.origin, "summary": $0.summary] },
            "accounts": directory.accounts.map { ["kind": $0.kind, "id": $0.id, "details": $0.details] as [String: Any] },
            "note": "Fixture secrets and passwords are never listed; they are in the fixture you served (flowcheck serve --fixture, or the default in docs/serve.md).",
        ]
    }
}

/// Wraps an existential persona in ``ServeIndexProvider`` (opening it for the generic).
func indexed(_ persona: some FakeProvider, provider: String, directory: ServeDirectory) -> any FakeProvider & BaseURLSettable {
    ServeIndexProvider(persona, provider: provider, directory: directory)
}

/// A provider told its base URLs once it listens.
protocol BaseURLSettable: AnyObject {
    func setBaseURLs(_ urls: [String: URL])
}

extension ServeIndexProvider: BaseURLSettable {}
