// libFuzzer entry point for the fake server's HTTP/1.1 request parser.
//
// Compiled into the same module as Sources/FlowCheckFakeServer/*.swift (see scripts/fuzz.sh).
// The parser's contract is "bytes in, verdict out, never trap"; the decoded views a provider
// reads from a parsed request (path, query, form and JSON bodies) share that contract, because
// every byte of them comes from the client.

@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var buffer = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let parser = HTTPRequestParser()
    // The connection reads the head alone first, to answer `Expect: 100-continue` early.
    if case .head(let head) = parser.parseHead(buffer) {
        precondition(head.headLength <= buffer.count, "head of \(head.headLength) bytes in \(buffer.count)")
        _ = head.expectsContinue
    }
    // Drain the buffer the way a connection does, so pipelined requests are parsed too.
    var requests = 0
    while !buffer.isEmpty, requests < 64 {
        let result = parser.parse(buffer)
        if case .failure = result {
            // A refused request is still recorded: what can be read of it is salvaged.
            exercise(HTTPRequestParser.salvage(buffer))
            break
        }
        guard case .request(let request, let consumed) = result else { break }
        precondition(consumed > 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count) bytes")
        exercise(request)
        buffer.removeFirst(consumed)
        requests += 1
    }
    return 0
}

private func exercise(_ request: HTTPRequest) {
    _ = request.path
    for item in request.query { _ = item.name.utf8.count &+ item.value.utf8.count }
    if let fields = request.formFields {
        for field in fields { _ = field.name.utf8.count &+ field.value.utf8.count }
    }
    _ = request.formField("code")
    _ = request.queryItem("state")
    _ = request.jsonBody
    if let fields = request.jsonFields() {
        for (key, value) in fields { _ = key.utf8.count &+ value.utf8.count }
    }
    _ = request.headers["Content-Type"]
    _ = request.headers.values(for: "Authorization")
}
