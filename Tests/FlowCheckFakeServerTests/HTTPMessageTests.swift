import Foundation
import FlowCheckTestLanes
import Testing
import FlowCheckFakeServer

/// Headers, decoded request views and JSON rendering: the vocabulary providers are written in.
@Suite(.fast, .timeLimit(.minutes(20)))
struct HTTPMessageTests {
    @Test func headersLookUpCaseInsensitivelyAndKeepOrder() {
        var headers = HTTPHeaders([("Content-Type", "a"), ("X-Dup", "1"), ("x-dup", "2")])
        #expect(headers["content-type"] == "a")
        #expect(headers["X-DUP"] == "1")
        #expect(headers.values(for: "x-dup") == ["1", "2"])
        headers.add("Accept", "b")
        headers.set("X-DUP", "3")
        #expect(headers.pairs.map(\.name) == ["Content-Type", "X-DUP", "Accept"])
        #expect(headers.values(for: "x-dup") == ["3"])
        headers.set("New", "n")
        #expect(headers["new"] == "n")
        headers.remove("content-type")
        #expect(headers["Content-Type"] == nil)
        #expect(Array(headers).count == 3)
        let literal: HTTPHeaders = ["A": "1"]
        #expect(literal == HTTPHeaders([("A", "1")]))
        #expect(literal != HTTPHeaders([("a", "1")]))
    }

    @Test(arguments: [
        ("/v1/products", "/v1/products", [String]()),
        ("/a%20b/c?x=1&y=two+words&z=%2B&flag", "/a b/c", ["x=1", "y=two words", "z=+", "flag="]),
        ("/p+q?e=%E2%82%AC&&bad=%zz", "/p+q", ["e=€", "bad=%zz"]),
        ("/%zz?", "/%zz", []),
    ])
    func decodesPathAndQuery(target: String, path: String, query: [String]) {
        let request = HTTPRequest(method: "GET", target: target)
        #expect(request.path == path)
        #expect(request.query.map { "\($0.name)=\($0.value)" } == query)
    }

    @Test(arguments: [
        ("grant_type=client_credentials&client_id=a%26b&client_secret=s+p", ["grant_type=client_credentials", "client_id=a&b", "client_secret=s p"]),
        ("", []),
        ("a", ["a="]),
        ("a=%C3%A9", ["a=é"]),
    ])
    func decodesFormFields(body: String, expected: [String]) throws {
        let request = HTTPRequest(method: "POST", target: "/", body: Data(body.utf8))
        let fields = try #require(request.formFields)
        #expect(fields.map { "\($0.name)=\($0.value)" } == expected)
    }

    @Test(arguments: ["a=%zz", "a=%4", "a=%FF", "%C3=1"])
    func undecodableFormIsNil(body: String) {
        #expect(HTTPRequest(method: "POST", target: "/", body: Data(body.utf8)).formFields == nil)
    }

    @Test func formEncodingRoundTrips() {
        let pairs = [("client id", "a&b=c"), ("é", "+/~")]
        let encoded = FormBody.encode(pairs)
        #expect(encoded == "client+id=a%26b%3Dc&%C3%A9=%2B%2F~")
        let decoded = HTTPRequest(method: "POST", target: "/", body: Data(encoded.utf8)).formFields
        #expect(decoded?.map(\.name) == pairs.map(\.0))
        #expect(decoded?.map(\.value) == pairs.map(\.1))
    }

    @Test func jsonFieldsRenderScalarsAndNesting() throws {
        let body = #"{"s":"text","i":3600,"f":1.5e3,"t":true,"n":null,"o":{"b":2,"a":[1,"x"]}}"#
        let request = HTTPRequest(method: "POST", target: "/", body: Data(body.utf8))
        let fields = try #require(request.jsonFields())
        #expect(fields == [
            "s": "text", "i": "3600", "f": "1.5e3", "t": "true", "n": "null",
            "o": #"{"a":[1,"x"],"b":2}"#,
        ])
    }

    @Test(arguments: ["", "[1]", "{", #"{"a":}"#, #"{"a":1,}"#, "01", #""\ud800""#, "{\"a\":\"\u{01}\"}", "nul", "1 2"])
    func nonObjectOrInvalidJSONHasNoFields(body: String) {
        #expect(HTTPRequest(method: "POST", target: "/", body: Data(body.utf8)).jsonFields() == nil)
    }

    @Test func jsonParserHandlesEscapesAndDepth() {
        #expect(FakeJSON.parse(Array(#""a\"\\\/\n\u00e9\ud83d\ude00""#.utf8)) == .string("a\"\\/\né😀"))
        #expect(FakeJSON.parse(Array(" -0.5E+2 ".utf8)) == .number("-0.5E+2"))
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(FakeJSON.parse(Array(deep.utf8)) == nil)
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(FakeJSON.parse(Array(fine.utf8)) != nil)
    }

    @Test func jsonResponseHasSortedKeysAndRealBooleans() {
        let response = HTTPResponse.json(401, [
            "status": false, "error": "Access token is not valid", "n": 3600, "d": 2.5,
            "list": [1, "two"], "nested": ["z": NSNull(), "a": true],
        ])
        #expect(response.status == 401)
        #expect(response.reason == "Unauthorized")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText == #"{"d":2.5,"error":"Access token is not valid","list":[1,"two"],"n":3600,"nested":{"a":true,"z":null},"status":false}"#)
    }

    @Test func jsonStringsAreEscaped() {
        let response = HTTPResponse.json(200, ["k": "quote\" slash\\ nl\n ctl\u{01} /"])
        #expect(response.bodyText == #"{"k":"quote\" slash\\ nl\n ctl\u0001 /"}"#)
        #expect(response.jsonBody == .object(["k": .string("quote\" slash\\ nl\n ctl\u{01} /")]))
    }

    @Test func textResponse() {
        let response = HTTPResponse.text(503, "down", contentType: "text/html")
        #expect(response.reason == "Service Unavailable")
        #expect(response.headers["Content-Type"] == "text/html")
        #expect(response.bodyText == "down")
    }
}
