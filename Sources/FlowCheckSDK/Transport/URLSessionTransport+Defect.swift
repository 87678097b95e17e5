import Foundation

extension URLSessionTransport {
    /// A defect switch for the harness's own tests, not API (internal: reached only through
    /// `@testable import`). While it is true for a task, every `URLSessionTransport` made in that
    /// task or its children lets URLSession follow redirects, as URLSession does when no delegate
    /// refuses them: the SDK as it would ship had the refusing delegate been lost. Task-local, so
    /// tests running in parallel keep the real transport; it is read once, when a transport is made.
    @TaskLocal static var followsRedirectsDefect = false
}
