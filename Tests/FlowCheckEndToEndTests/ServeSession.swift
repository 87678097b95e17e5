import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import FlowCheckTestSupport

/// A launched `flowcheck serve --ready-file` and its URLs, read from the ready file, with a
/// URLSession whose every request has a deadline: what a script outside the package sees.
final class ServeSession: @unchecked Sendable {
    let child: ChildProcess
    let ready: [String: Any]
    let control: URL
    private let session: URLSession
    /// The ready file's folder, removed with the session.
    private let folder: URL
    /// The ready file serve wrote.
    var readyFile: URL { folder.appendingPathComponent("ready.json") }

    /// Starts serve with `arguments` (plus `--ready-file`) and waits for it to say it serves;
    /// the ready file is written before that line.
    static func launch(_ arguments: [String] = []) async throws -> ServeSession {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let readyFile = folder.appendingPathComponent("ready.json")
        let child = try await ChildProcess.launch("flowcheck serve", executable: try FlowCheckBinaryTests.binary(), arguments: ["serve", "--ready-file", readyFile.path] + arguments, deadline: FlowCheckBinaryTests.childDeadline)
        do {
            try await child.stdout.waitFor("Ctrl-C stops.", "flowcheck serve: its ready line")
            let data = try Data(contentsOf: readyFile)
            let ready = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "the ready file is a JSON object")
            let control = try #require((ready["control"] as? String).flatMap(URL.init(string:)), "the ready file names the control URL")
            return ServeSession(child: child, ready: ready, control: control, folder: folder)
        } catch {
            child.kill()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    private init(child: ChildProcess, ready: [String: Any], control: URL, folder: URL) {
        self.folder = folder
        self.child = child
        self.ready = ready
        self.control = control
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = HangBound.seconds
        configuration.timeoutIntervalForResource = HangBound.seconds
        session = URLSession(configuration: configuration)
    }

    /// The provider's base URLs by origin, from the ready file.
    func baseURLs(_ provider: String) throws -> [String: URL] {
        let providers = try #require(ready["providers"] as? [String: Any])
        let entry = try #require(providers[provider] as? [String: Any], "the ready file lists \(provider)")
        let urls = try #require(entry["baseURLs"] as? [String: String])
        return urls.compactMapValues(URL.init(string:))
    }

    func baseURL(_ provider: String) throws -> URL {
        let providers = try #require(ready["providers"] as? [String: Any])
        let entry = try #require(providers[provider] as? [String: Any], "the ready file lists \(provider)")
        return try #require((entry["baseURL"] as? String).flatMap(URL.init(string:)))
    }

    /// Sends one request; the status and body.
    func send(_ method: String, _ url: URL, body: Data? = nil, contentType: String? = nil, bearer: String? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await Self.exchange(request, on: session, "flowcheck serve: \(method) \(url.path)")
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// `session.data(for: request)`, failing by name (`what`) if no answer comes: URLSession's
    /// own timeout, and a bound past it in case its callback never comes.
    static func exchange(_ request: URLRequest, on session: URLSession, _ what: String) async throws -> (Data, URLResponse) {
        let exchange = Task { try await session.data(for: request) }
        return try await boundedValue(of: exchange, within: HangBound.standard + .seconds(30), waitingFor: what)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Interrupts serve and returns its exit status.
    func stop() async throws -> Int32 {
        session.invalidateAndCancel()
        child.interrupt()
        return try await child.exitStatus()
    }
}
