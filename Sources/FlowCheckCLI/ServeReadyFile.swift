import Foundation
import FlowCheckReports
import FlowCheckServe

/// `serve --ready-file`: the document a script waits for instead of racing the build and the
/// start. Written atomically (a temporary file renamed into place), so whoever sees the file
/// sees all of it, and only once every port listens.
///
/// ```json
/// {"control": "http://127.0.0.1:PORT",
///  "providers": {"moltin": {"baseURL": "http://127.0.0.1:PORT", "baseURLs": {"main": "..."}}}}
/// ```
enum ServeReadyFile {
    static func document(endpoints: [FakeProviderHost.Endpoint], control: URL) -> Data {
        var providers: [String: Any] = [:]
        for endpoint in endpoints {
            providers[endpoint.provider.rawValue] = [
                "baseURL": endpoint.baseURL.absoluteString,
                "baseURLs": endpoint.baseURLs.mapValues(\.absoluteString),
            ] as [String: Any]
        }
        let document: [String: Any] = ["control": control.absoluteString, "providers": providers]
        // Strings and dictionaries of strings only: serialisation cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return data + Data("\n".utf8)
    }

    /// Removes the file at `path` if it still holds `data` (what this serve wrote).
    static func remove(_ path: String, ifStill data: Data) {
        guard FileManager.default.contents(atPath: path) == data else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `data` to `path` atomically, with the tool's one writer (parent folders made).
    /// - Throws: ``ReportWriter/WriteError``, the path and cause in plain words.
    static func write(_ data: Data, to path: String) throws {
        try ReportWriter.write(String(decoding: data, as: UTF8.self), to: path, defaultName: "ready.json")
    }
}
