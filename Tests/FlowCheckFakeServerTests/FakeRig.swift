import Foundation
import Testing
import FlowCheckFakeServer

/// What the fake-server test rigs (`CloverRig`, `CleverRig`, `BraintreeRig`) share: a fake
/// behind the socket-free responder chain, and the pages and redirects a browser reads.
protocol FakeRig {
    /// The fake, recording and faulting as over a socket.
    var world: FakeProviderServer { get }
}

extension FakeRig {
    /// The fake's answer to `request`, through its responder chain (no socket).
    func send(_ request: HTTPRequest) -> HTTPResponse {
        world.responder.respond(to: request)
    }

    /// The hidden `request_id` of a login or consent page.
    func requestID(in page: HTTPResponse) throws -> String {
        let marker = #"<input type="hidden" name="request_id" value=""#
        let text = page.bodyText
        let start = try #require(text.range(of: marker)).upperBound
        let end = try #require(text[start...].firstIndex(of: "\""))
        return String(text[start..<end])
    }

    /// The query of a redirect's `Location`, as ordered pairs, decoded per RFC 3986.
    func redirectQuery(_ response: HTTPResponse) throws -> [(name: String, value: String)] {
        let location = try #require(response.headers["Location"])
        let items = try #require(URLComponents(string: location)?.queryItems)
        return items.map { (name: $0.name, value: $0.value ?? "") }
    }

    /// `Basic` + base64 of `userPass` exactly as given, computed here rather than by the fake.
    static func basic(_ userPass: String) -> String {
        "Basic " + Data(userPass.utf8).base64EncodedString()
    }
}
