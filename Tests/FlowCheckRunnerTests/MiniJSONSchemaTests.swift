import Foundation
import FlowCheckTestLanes
import Testing

/// The test-only JSON Schema validator can fail: every keyword it knows has an instance that
/// passes and one that does not, booleans are never numbers (and back), a keyword it does not
/// know stops the schema from loading, and the driver protocol schema holds what it should.
@Suite(.fast, .timeLimit(.minutes(20)))
struct MiniJSONSchemaTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let protocolSchemaURL = repositoryRoot.appendingPathComponent("Tests/Drivers/protocol.schema.json")

    static func schema(_ json: String) throws -> MiniJSONSchema {
        try MiniJSONSchema(json: json)
    }

    /// The error from loading `json` as a schema, or nil if it loads.
    static func loadProblem(_ json: String) -> String? {
        do {
            _ = try MiniJSONSchema(json: json)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Checks `schema` accepts every JSON text in `passing` and rejects every one in `failing`.
    static func expect(_ schema: String, passes passing: [String], fails failing: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let validator = try MiniJSONSchema(json: schema)
        for json in passing {
            let errors = validator.errors(json: json)
            #expect(errors.isEmpty, "\(json) should pass \(schema): \(errors)", sourceLocation: sourceLocation)
        }
        for json in failing {
            #expect(!validator.errors(json: json).isEmpty, "\(json) should fail \(schema)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Booleans and numbers

    @Test func aJSONBooleanIsNeitherOneNorAnIntegerNorANumber() throws {
        try Self.expect(#"{"const": 1}"#, passes: ["1", "1.0"], fails: ["true", "false", "\"1\"", "2"])
        try Self.expect(#"{"const": true}"#, passes: ["true"], fails: ["1", "1.0", "false", "\"true\""])
        try Self.expect(#"{"const": false}"#, passes: ["false"], fails: ["0", "null", "true"])
        try Self.expect(#"{"type": "integer"}"#, passes: ["1", "0", "-7", "1.0"], fails: ["true", "false", "1.5", "\"1\"", "null"])
        try Self.expect(#"{"type": "number"}"#, passes: ["1", "1.5", "-0.25"], fails: ["true", "false", "\"1\""])
        try Self.expect(#"{"type": "boolean"}"#, passes: ["true", "false"], fails: ["1", "0", "1.0", "\"true\"", "null"])
        try Self.expect(#"{"enum": [1, 2]}"#, passes: ["1", "2.0"], fails: ["true"])
        try Self.expect(#"{"enum": [true]}"#, passes: ["true"], fails: ["1"])
    }

    /// The same distinctions for values built in Swift rather than parsed: native `Bool`,
    /// `Int` and `Double`, and `NSNumber`s of each kind.
    @Test func swiftValuesAndNSNumbersAreToldApartToo() throws {
        let one = try Self.schema(#"{"const": 1}"#)
        let integer = try Self.schema(#"{"type": "integer"}"#)
        let boolean = try Self.schema(#"{"type": "boolean"}"#)
        let yes = try Self.schema(#"{"const": true}"#)
        for value: Any in [true, NSNumber(value: true), false, NSNumber(value: false)] {
            #expect(!one.errors(value).isEmpty, "\(value) as const 1")
            #expect(!integer.errors(value).isEmpty, "\(value) as integer")
            #expect(boolean.errors(value).isEmpty, "\(value) as boolean")
        }
        for value: Any in [1, NSNumber(value: 1), 1.0, NSNumber(value: 1.0), Int64(1), UInt8(1), Int8(1)] {
            #expect(one.errors(value).isEmpty, "\(value) (\(type(of: value))) as const 1")
            #expect(integer.errors(value).isEmpty, "\(value) (\(type(of: value))) as integer")
            #expect(!boolean.errors(value).isEmpty, "\(value) (\(type(of: value))) as boolean")
            #expect(!yes.errors(value).isEmpty, "\(value) (\(type(of: value))) as const true")
        }
        let object = try Self.schema(#"{"properties": {"armed": {"type": "boolean"}, "id": {"type": "integer"}}}"#)
        #expect(object.errors(["armed": true, "id": 3] as [String: Any]).isEmpty)
        #expect(object.errors(["armed": 1, "id": true] as [String: Any]) == [
            "/armed: expected type boolean, got integer 1 (#/properties/armed/type)",
            "/id: expected type integer, got boolean true (#/properties/id/type)",
        ])
    }

    @Test func aValueThatIsNotJSONIsAnErrorNotAPass() throws {
        let anything = try Self.schema("{}")
        #expect(anything.errors(["a": 1]).isEmpty)
        #expect(anything.errors(["when": Date()] as [String: Any]) == ["/when: a Date is not a JSON value"])
        #expect(anything.errors(json: "{").count == 1)
    }

    // MARK: - Each keyword passes and fails

    @Test func typeKeyword() throws {
        try Self.expect(#"{"type": "object"}"#, passes: ["{}", #"{"a":1}"#], fails: ["[]", "null", "\"{}\""])
        try Self.expect(#"{"type": "array"}"#, passes: ["[]", "[1,true]"], fails: ["{}", "\"[]\""])
        try Self.expect(#"{"type": "string"}"#, passes: ["\"\"", "\"x\""], fails: ["1", "null", "[]"])
        try Self.expect(#"{"type": "null"}"#, passes: ["null"], fails: ["0", "false", "\"null\"", "{}"])
        try Self.expect(#"{"type": ["string", "null"]}"#, passes: ["null", "\"x\""], fails: ["1", "false"])
    }

    @Test func constCompares() throws {
        try Self.expect(#"{"const": "hello"}"#, passes: ["\"hello\""], fails: ["\"Hello\"", "\"hello \"", "1"])
        try Self.expect(#"{"const": {"a": [1, {"b": null}], "c": "d"}}"#,
                        passes: [#"{"c":"d","a":[1.0,{"b":null}]}"#],
                        fails: [#"{"a":[1,{"b":null}]}"#, #"{"a":[1,{"b":false}],"c":"d"}"#, #"{"a":[{"b":null},1],"c":"d"}"#, #"{"a":[1,{"b":null}],"c":"d","e":1}"#])
        // Strings are equal by code point: a precomposed é is not e + combining acute.
        try Self.expect(#"{"const": "\u00e9"}"#, passes: [#""\u00e9""#], fails: [#""e\u0301""#])
    }

    @Test func enumMembership() throws {
        try Self.expect(#"{"enum": ["virtualClock", "fileStore", null]}"#, passes: ["\"fileStore\"", "null"], fails: ["\"virtualclock\"", "\"\"", "0"])
    }

    @Test func required() throws {
        try Self.expect(#"{"required": ["a", "b"]}"#, passes: [#"{"a":1,"b":null}"#, "[]", "\"not an object\""], fails: [#"{"a":1}"#, "{}"])
        let schema = try Self.schema(#"{"required": ["a", "b"]}"#)
        #expect(schema.errors(json: #"{"b":1}"#) == [#"(root): missing required property "a" (#/required)"#])
    }

    @Test func properties() throws {
        try Self.expect(#"{"properties": {"n": {"type": "string"}}}"#, passes: ["{}", #"{"n":"x"}"#, #"{"m":1}"#], fails: [#"{"n":1}"#])
        let nested = try Self.schema(#"{"properties": {"driver": {"properties": {"name": {"type": "string"}}}}}"#)
        #expect(nested.errors(json: #"{"driver":{"name":7}}"#) == ["/driver/name: expected type string, got integer 7 (#/properties/driver/properties/name/type)"])
        // A property name that looks like a keyword is just a name.
        try Self.expect(#"{"properties": {"maxLength": {"type": "string"}, "a/b~c": {"const": 1}}}"#, passes: [#"{"maxLength":"x"}"#], fails: [#"{"maxLength":1}"#, #"{"a/b~c":2}"#])
        #expect(try Self.schema(#"{"properties": {"a/b~c": {"const": 1}}}"#).errors(json: #"{"a/b~c":2}"#) == ["/a~1b~0c: expected the constant 1, got integer 2 (#/properties/a~1b~0c/const)"])
    }

    @Test func additionalPropertiesFalseOrASchema() throws {
        try Self.expect(#"{"properties": {"a": {}}, "additionalProperties": false}"#, passes: ["{}", #"{"a":[1]}"#], fails: [#"{"b":1}"#, #"{"a":1,"b":1}"#])
        try Self.expect(#"{"properties": {"a": {}}, "additionalProperties": {"type": "string"}}"#, passes: [#"{"a":1,"b":"x"}"#], fails: [#"{"a":1,"b":2}"#])
        try Self.expect(#"{"additionalProperties": {"type": "string"}}"#, passes: ["{}", #"{"x":"y"}"#], fails: [#"{"x":"y","z":false}"#])
        let closed = try Self.schema(#"{"properties": {"a": {}}, "additionalProperties": false}"#)
        #expect(closed.errors(json: #"{"a":1,"extra":2}"#) == [#"(root): property "extra" is not allowed (#/additionalProperties is false)"#])
    }

    @Test func minProperties() throws {
        try Self.expect(#"{"minProperties": 1}"#, passes: [#"{"a":1}"#, #"{"a":1,"b":2}"#, "[]"], fails: ["{}"])
        try Self.expect(#"{"minProperties": 2}"#, passes: [#"{"a":1,"b":2}"#], fails: [#"{"a":1}"#])
    }

    @Test func items() throws {
        try Self.expect(#"{"items": {"type": "string", "minLength": 1}}"#, passes: ["[]", #"["a","b"]"#, "{}"], fails: [#"["a",1]"#, #"["a",""]"#])
        let schema = try Self.schema(#"{"items": {"type": "string"}}"#)
        #expect(schema.errors(json: #"["a",2]"#) == ["/1: expected type string, got integer 2 (#/items/type)"])
    }

    @Test func uniqueItems() throws {
        try Self.expect(#"{"uniqueItems": true}"#,
                        passes: ["[]", "[1,2]", "[1,true]", "[0,false]", #"[{"a":1},{"a":2}]"#, "[[1],[1,1]]"],
                        fails: ["[1,1]", "[1,1.0]", #"["a","b","a"]"#, #"[{"a":1,"b":2},{"b":2,"a":1}]"#, "[null,null]"])
        try Self.expect(#"{"uniqueItems": false}"#, passes: ["[1,1]"], fails: [])
    }

    /// minLength counts Unicode scalars (code points), as the specification does.
    @Test func minLengthInUnicodeScalars() throws {
        try Self.expect(#"{"minLength": 1}"#, passes: ["\"x\"", "1", #""\u00e9""#], fails: ["\"\""])
        try Self.expect(#"{"minLength": 2}"#, passes: ["\"ab\"", #""e\u0301""#], fails: ["\"a\"", #""\ud83d\udc4d""#, #""\u00e9""#])
        try Self.expect(#"{"minLength": 0}"#, passes: ["\"\""], fails: [])
    }

    @Test func minimum() throws {
        try Self.expect(#"{"minimum": 1}"#, passes: ["1", "1.0", "2", "1.5", "\"0\""], fails: ["0", "0.999", "-1"])
        try Self.expect(#"{"minimum": 0.5}"#, passes: ["0.5", "1"], fails: ["0", "0.49"])
        let id = try Self.schema(#"{"type": "integer", "minimum": 1}"#)
        #expect(id.errors(json: "0") == ["(root): expected at least 1, got 0 (#/minimum)"])
    }

    @Test func patternSearchesUnanchored() throws {
        try Self.expect(#"{"pattern": "^https?://"}"#, passes: ["\"http://a\"", "\"https://a/b\"", "3"], fails: ["\"ftp://a\"", "\" http://a\"", "\"\""])
        try Self.expect(#"{"pattern": "b+"}"#, passes: ["\"abbc\""], fails: ["\"ac\""])
        try Self.expect(#"{"pattern": "^.$"}"#, passes: [#""\ud83d\udc4d""#, "\"é\""], fails: ["\"ab\""])
    }

    @Test func ifThen() throws {
        let schema = #"{"if": {"properties": {"armed": {"const": false}}}, "then": {"required": ["reason"]}}"#
        try Self.expect(schema,
                        passes: [#"{"armed":true}"#, #"{"armed":false,"reason":"r"}"#, #"{"armed":1}"#],
                        fails: [#"{"armed":false}"#, "{}"])
        // Without then, if decides nothing.
        try Self.expect(#"{"if": {"const": 1}}"#, passes: ["1", "2"], fails: [])
    }

    @Test func oneOfNeedsExactlyOne() throws {
        let schema = #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#
        try Self.expect(schema, passes: ["1", "2.5", "\"s\""], fails: ["3", "1.5"])
        let validator = try Self.schema(schema)
        #expect(validator.errors(json: "3") == ["(root): matches 2 alternatives of #/oneOf (#/oneOf/0, #/oneOf/1) but exactly one must match"])
        let none = validator.errors(json: "1.5")
        #expect(none.first == "(root): matches none of the 2 alternatives of #/oneOf; the closest:")
        #expect(none.count == 3)
    }

    @Test func refFollowsLocalPointers() throws {
        let schema = ##"{"$defs": {"id": {"type": "integer", "minimum": 1}, "a~b": {"const": "x"}}, "properties": {"id": {"$ref": "#/$defs/id"}, "t": {"$ref": "#/$defs/a~0b"}}}"##
        try Self.expect(schema, passes: [#"{"id":1,"t":"x"}"#], fails: [#"{"id":0}"#, #"{"id":"1"}"#, #"{"t":"y"}"#])
        let validator = try Self.schema(schema)
        #expect(validator.errors(json: #"{"id":0}"#) == ["/id: expected at least 1, got 0 (#/$defs/id/minimum)"])
        #expect(validator.errors(json: "0", against: "#/$defs/id") == ["(root): expected at least 1, got 0 (#/$defs/id/minimum)"])
        #expect(validator.errors(json: "1", against: "#/$defs/nope") == ["schema pointer #/$defs/nope does not resolve in this schema"])
    }

    @Test func booleanSchemas() throws {
        try Self.expect("true", passes: ["1", "null", "{}"], fails: [])
        try Self.expect("false", passes: [], fails: ["1", "null", "{}"])
    }

    @Test func annotationsAreIgnored() throws {
        try Self.expect(#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "title": "t", "description": "d", "$defs": {}}"#,
                        passes: ["1", "{}"], fails: [])
        // `format` annotates only (2020-12's default): the report schema's date-time.
        try Self.expect(#"{"type": "string", "format": "date-time"}"#, passes: [#""not a date""#], fails: ["1"])
    }

    // MARK: - Unknown keywords and broken schemas fail loudly

    @Test func anUnknownKeywordStopsTheSchemaLoadingAndIsNamed() {
        for keyword in ["maxLength", "else", "patternProperties", "prefixItems", "anyOf", "exclusiveMinimum", "$anchor", "unevaluatedProperties"] {
            let problem = Self.loadProblem(#"{"\#(keyword)": 1}"#)
            #expect(problem?.contains("unsupported keyword \"\(keyword)\"") == true, "\(keyword): \(problem ?? "loaded")")
        }
        // Wherever it hides: under $defs, properties, items, additionalProperties, oneOf, if, then.
        let hidden = [
            #"{"$defs": {"a": {"maxLength": 1}}}"#: #"#/$defs/a: unsupported keyword "maxLength""#,
            #"{"properties": {"p": {"type": "string", "maxLength": 3}}}"#: #"#/properties/p: unsupported keyword "maxLength""#,
            #"{"items": {"maximum": 3}}"#: #"#/items: unsupported keyword "maximum""#,
            #"{"additionalProperties": {"anyOf": [{}]}}"#: #"#/additionalProperties: unsupported keyword "anyOf""#,
            #"{"oneOf": [{}, {"not": {}}]}"#: #"#/oneOf/1: unsupported keyword "not""#,
            #"{"if": {"dependentRequired": {}}, "then": {}}"#: #"#/if: unsupported keyword "dependentRequired""#,
            #"{"if": {}, "then": {"maxItems": 1}}"#: #"#/then: unsupported keyword "maxItems""#,
            #"{"if": {}, "then": {}, "else": {}}"#: #"#: unsupported keyword "else""#,
        ]
        for (schema, expected) in hidden {
            let problem = Self.loadProblem(schema)
            #expect(problem?.hasPrefix(expected) == true, "\(schema): \(problem ?? "loaded")")
        }
    }

    @Test func malformedKeywordValuesAndReferencesStopTheSchemaLoading() {
        let broken = [
            ##"{"$ref": "#/$defs/missing"}"##: "does not resolve",
            #"{"$ref": "other.json#/x"}"#: "$ref must be a local reference",
            #"{"type": "int"}"#: "type must be one of",
            #"{"required": "a"}"#: "required must be an array of strings",
            #"{"minLength": -1}"#: "minLength must be a non-negative integer",
            #"{"minProperties": 1.5}"#: "minProperties must be a non-negative integer",
            #"{"uniqueItems": 1}"#: "uniqueItems must be a boolean",
            #"{"minimum": "1"}"#: "minimum must be a number",
            #"{"pattern": "("}"#: "does not compile",
            #"{"enum": []}"#: "enum must be a non-empty array",
            #"{"oneOf": {}}"#: "oneOf must be a non-empty array of schemas",
            #"{"items": [{}]}"#: "a schema must be an object or a boolean",
            #"{"properties": {"a": 1}}"#: "a schema must be an object or a boolean",
            "[1]": "a schema must be an object or a boolean",
            "{": "not JSON",
        ]
        for (schema, expected) in broken {
            let problem = Self.loadProblem(schema)
            #expect(problem?.contains(expected) == true, "\(schema): \(problem ?? "loaded")")
        }
    }

    // MARK: - The driver protocol schema

    static func protocolSchema() throws -> MiniJSONSchema {
        try MiniJSONSchema(contentsOf: protocolSchemaURL)
    }

    @Test func theProtocolSchemaLoads() throws {
        let schema = try Self.protocolSchema()
        #expect(schema.resolve("#/$defs/fromDriver") != nil)
        #expect(schema.resolve("#/$defs/toDriver") != nil)
    }

    @Test func driverMessagesThatFollowTheProtocolPass() throws {
        let schema = try Self.protocolSchema()
        let valid = [
            #"{"type":"hello","protocol":1,"driver":{"name":"x","version":"1"},"providers":{"moltin":["auth"]},"capabilities":["virtualClock"]}"#,
            #"{"type":"ok","id":3,"result":{"a":"b"}}"#,
            #"{"type":"crashStore","id":2,"armed":false,"reason":"r"}"#,
        ]
        for message in valid {
            #expect(schema.errors(json: message, against: "#/$defs/fromDriver") == [], "\(message)")
            #expect(schema.errors(json: message) == [], "\(message) against the whole schema")
        }
    }

    @Test func driverMessagesThatBreakTheProtocolFail() throws {
        let schema = try Self.protocolSchema()
        // Each with a fragment its errors must contain, so it fails for the stated reason.
        let invalid: [(String, String)] = [
            (#"{"type":"hello","protocol":2,"driver":{"name":"x","version":"1"},"providers":{"moltin":["auth"]},"capabilities":["virtualClock"]}"#,
             "under #/$defs/hello: /protocol: expected the constant 1, got integer 2"),
            (#"{"type":"ok","id":0,"result":{}}"#, "under #/$defs/ok: /id: expected at least 1, got 0"),
            (#"{"type":"ok","id":1,"result":{"a":1}}"#, "under #/$defs/ok: /result/a: expected type string, got integer 1"),
            (#"{"type":"goodbye","id":1}"#, "under #/$defs/ready: /type: expected the constant \"ready\", got string \"goodbye\""),
            (#"{"type":"crashStore","id":2,"armed":false}"#, "under #/$defs/crashStoreAnswer: (root): missing required property \"reason\" (#/$defs/crashStoreAnswer/then/required)"),
            (#"{"type":"ok","id":1,"result":{},"extra":true}"#, "under #/$defs/ok: (root): property \"extra\" is not allowed"),
            (#"{"type":"ok","id":true,"result":{}}"#, "under #/$defs/ok: /id: expected type integer, got boolean true"),
        ]
        for (message, reason) in invalid {
            let errors = schema.errors(json: message, against: "#/$defs/fromDriver")
            #expect(!errors.isEmpty, "\(message) passed")
            #expect(errors.first?.hasPrefix("(root): matches none of the 13 alternatives of #/$defs/fromDriver/oneOf") == true, "\(message): \(errors)")
            #expect(errors.contains { $0.contains(reason) }, "\(message): \(errors) lacks \(reason)")
        }
    }

    @Test func runnerQuestionsAreToDriverAndDriverAnswersAreNot() throws {
        let schema = try Self.protocolSchema()
        #expect(schema.errors(json: #"{"type":"call","id":1,"action":"auth","arguments":{}}"#, against: "#/$defs/toDriver") == [])
        #expect(!schema.errors(json: #"{"type":"call","id":1,"action":"auth","arguments":{}}"#, against: "#/$defs/fromDriver").isEmpty)
        // The store answer's shape, not the runner's question: fromDriver, not toDriver.
        let answer = #"{"type":"store","id":1,"fields":{}}"#
        let errors = schema.errors(json: answer, against: "#/$defs/toDriver")
        #expect(errors.contains { $0.contains("under #/$defs/storeQuestion: (root): property \"fields\" is not allowed") }, "\(errors)")
        #expect(schema.errors(json: answer, against: "#/$defs/fromDriver") == [])
        #expect(schema.errors(json: #"{"type":"store","id":1}"#, against: "#/$defs/toDriver") == [])
    }
}
