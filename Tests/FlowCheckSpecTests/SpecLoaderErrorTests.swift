import FlowCheckTestLanes
import Testing
import FlowCheckProviders
@testable import FlowCheckSpec

/// Every kind of malformed spec, with the exact message an author sees.
@Suite(.fast, .timeLimit(.minutes(20)))
struct SpecLoaderErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var expected: [String]
        var testDescription: String { name }

        /// The loader refuses `json` with exactly the `expected` messages, in order.
        func expectExactMessages(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
            switch SpecLoader.standard.decode(Array(json.utf8), file: "t.json") {
            case .valid:
                Issue.record("expected diagnostics, the spec loaded", sourceLocation: sourceLocation)
            case .invalid(let diagnostics):
                #expect(diagnostics.map(\.description) == expected, sourceLocation: sourceLocation)
            }
        }
    }

    /// A valid spec with one hole, `%STEPS%`, for the step-level cases.
    static func spec(steps: String, fixture: String = #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}]}"#) -> String {
        """
        {
          "id": "MLT-AUTH",
          "title": "Auth",
          "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "Obtaining a new token"}, "requirements": ["SEED-003-auth"],
          "provider": "moltin",
          "fixture": \(fixture),
          "steps": \(steps)
        }
        """
    }

    static let cases: [Case] = [
        Case(name: "bad JSON: missing comma", json: "{\n  \"id\": \"MLT-AUTH\"\n  \"title\": \"x\"\n}", expected: [
            "t.json:3:3: error: invalid JSON: expected ',' or '}' after an object member at $\n  fix: add a comma between members, or close the object with '}'",
        ]),
        Case(name: "bad JSON: trailing comma in a nested array", json: "{\"steps\": [1, 2,]}", expected: [
            "t.json:1:17: error: invalid JSON: trailing comma before ']' at $.steps\n  fix: remove the comma after the last element",
        ]),
        Case(name: "bad JSON: unterminated string", json: "{\"id\": \"MLT", expected: [
            "t.json:1:12: error: invalid JSON: unterminated string (opened at 1:8) at $.id\n  fix: close the string with a double quote",
        ]),
        Case(name: "bad JSON: empty file", json: "", expected: [
            "t.json:1:1: error: invalid JSON: unexpected end of file, expected a value at $\n  fix: complete the document; a bracket or brace may be missing",
        ]),
        Case(name: "top level is not an object", json: "[]", expected: [
            "t.json:1:1: error: expected an object, found an array at $\n  fix: write it as {\"id\": \"MLT-AUTH\", \"title\": \"...\", ...}",
        ]),
        Case(name: "missing field", json: #"{"id": "MLT-AUTH", "title": "x", "source": {"seed": "003_d427daaf6ba0e8e7.txt", "passage": "p"}, "requirements": ["SEED-003-auth"], "provider": "moltin", "fixture": {"clients": []}}"#, expected: [
            "t.json:1:1: error: missing required key \"steps\" at $\n  fix: add \"steps\": [ ... ]",
        ]),
        Case(name: "wrong type", json: spec(steps: "[]").replacingOccurrences(of: "\"title\": \"Auth\"", with: "\"title\": 42"), expected: [
            "t.json:3:12: error: expected a string, found a number at $.title\n  fix: write it as \"Auth stores a token\"",
            "t.json:7:12: error: a flow needs at least one step at $.steps\n  fix: add a step, e.g. {\"app\": \"products\", \"expect\": {\"outcome\": \"ok\"}}",
        ]),
        Case(name: "unknown key, near miss", json: spec(steps: #"[{"app": "products", "expcet": {"outcome": "ok"}}]"#), expected: [
            "t.json:7:33: error: unknown key \"expcet\" at $.steps[0].expcet\n  fix: did you mean \"expect\"? allowed keys here: note, app, browser, with, async, advanceClock, fault, clearFaults, server, send, await, release, crashStore, expect, requirements, allow",
        ]),
        Case(name: "unknown step action", json: spec(steps: #"[{"app": "prodcts"}]"#), expected: [
            "t.json:7:21: error: unknown app action \"prodcts\" for provider \"moltin\" at $.steps[0].app\n  fix: did you mean \"products\"? actions for moltin: auth, refreshToken, deleteToken, products, relaunch",
        ]),
        Case(name: "missing argument", json: spec(steps: #"[{"app": "auth", "with": {"clientId": "store-1"}}]"#), expected: [
            "t.json:7:37: error: \"auth\" needs the argument \"clientSecret\" at $.steps[0].with\n  fix: add \"with\": {\"clientSecret\": \"...\"}",
        ]),
        Case(name: "two actions in one step", json: spec(steps: #"[{"app": "products", "advanceClock": "1m"}]"#), expected: [
            "t.json:7:33: error: a step takes one action, found \"app\" and \"advanceClock\" at $.steps[0].advanceClock\n  fix: split this into two steps",
        ]),
        Case(name: "unknown store crash point, near miss", json: spec(steps: #"[{"crashStore": "nextWrit"}]"#), expected: [
            "t.json:7:28: error: unknown store crash point \"nextWrit\" at $.steps[0].crashStore\n  fix: did you mean \"nextWrite\"? crash points: nextWrite",
        ]),
        Case(name: "store crash point not a string", json: spec(steps: #"[{"crashStore": true}]"#), expected: [
            "t.json:7:28: error: expected a string, found a boolean at $.steps[0].crashStore\n  fix: write it as \"nextWrite\"",
        ]),
        Case(name: "bad duration", json: spec(steps: #"[{"advanceClock": "an hour"}]"#), expected: [
            "t.json:7:30: error: expected a duration such as \"61m\", found \"an hour\" at $.steps[0].advanceClock\n  fix: write hours, minutes and seconds as \"1h\", \"61m\", \"90s\" or \"1h30m\"",
        ]),
        Case(name: "unknown error kind", json: spec(steps: #"[{"app": "products", "expect": {"error": {"kind": "transprot"}}}]"#), expected: [
            "t.json:7:62: error: unknown error kind \"transprot\" at $.steps[0].expect.error.kind\n  fix: did you mean \"transport\"? error kinds: transport, serverError, invalidResponse, tokenEndpoint, tokenRejected, httpStatus, notLoggedIn, storage, configuration, authorization, stateMismatch",
        ]),
        Case(name: "matcher with two checks", json: spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": {"present": true, "absent": true}}}}]"#), expected: [
            "t.json:7:69: error: a matcher takes one check, found absent and present at $.steps[0].expect.store.accessToken\n  fix: use one of equals, notEquals, present, absent, regex, contains, pkceS256",
        ]),
        Case(name: "invalid regex", json: spec(steps: #"[{"app": "products", "expect": {"result": {"productCount": {"regex": "(["}}}}]"#), expected: [
            "t.json:7:81: error: invalid regular expression /([/: '[' at character 2 is never closed at $.steps[0].expect.result.productCount.regex\n  fix: add the missing ']', or escape a literal bracket as \\[",
        ]),
        Case(name: "unsupported regex: a backreference", json: spec(steps: #"[{"app": "products", "expect": {"result": {"productCount": {"regex": "^(\\d)\\1$"}}}}]"#), expected: [
            "t.json:7:81: error: unsupported regular expression /^(\\d)\\1$/: backreference \\1 at character 6 at $.steps[0].expect.result.productCount.regex\n  fix: FlowCheck matches regexes in linear time and has no backreferences; repeat the group's pattern instead, or capture the value with \"capture\" and compare it with equals \"${name}\"",
        ]),
        Case(name: "unsupported regex: lookahead", json: spec(steps: #"[{"app": "products", "expect": {"result": {"productCount": {"regex": "^(?!0)"}}}}]"#), expected: [
            "t.json:7:81: error: unsupported regular expression /^(?!0)/: negative lookahead (?! at character 2 at $.steps[0].expect.result.productCount.regex\n  fix: FlowCheck matches regexes in linear time and has no lookaround; write what it looks for into the pattern itself, or check it with another matcher",
        ]),
        Case(name: "variable used before capture", json: spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": "${tokn}"}}}]"#), expected: [
            "t.json:7:69: error: variable \"${tokn}\" is not captured by an earlier step at $.steps[0].expect.store.accessToken\n  fix: capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"tokn\"}",
        ]),
        Case(name: "a captured variable misspelt", json: spec(steps: #"[{"app": "products", "expect": {"store": {"accessToken": {"present": true, "capture": "token"}}}}, {"app": "products", "expect": {"store": {"accessToken": "${tokn}"}}}]"#), expected: [
            "t.json:7:167: error: variable \"${tokn}\" is not captured by an earlier step at $.steps[1].expect.store.accessToken\n  fix: did you mean \"${token}\"? (captured earlier)",
        ]),
        Case(name: "outcome on a step with no call", json: spec(steps: #"[{"advanceClock": "1m", "expect": {"outcome": "ok"}}]"#), expected: [
            "t.json:7:47: error: \"outcome\" checks an app call, and this step makes none at $.steps[0].expect.outcome\n  fix: move it to the step with the \"app\" call it is about",
        ]),
        Case(name: "unknown provider", json: spec(steps: #"[{"advanceClock": "1m"}]"#).replacingOccurrences(of: "\"moltin\"", with: "\"moltn\""), expected: [
            "t.json:5:15: error: unknown provider \"moltn\" at $.provider\n  fix: did you mean \"moltin\"? providers: moltin, clover, clever, braintree; the rest of this spec was checked as a \"moltin\" spec",
        ]),
        Case(name: "bad id", json: spec(steps: #"[{"app": "products"}]"#).replacingOccurrences(of: "MLT-AUTH", with: "mlt auth"), expected: [
            "t.json:2:9: error: id \"mlt auth\" is not a catalogue id at $.id\n  fix: use an id of capitals, digits and dashes, a prefix then names, e.g. \"MLT-AUTH\"",
        ]),
        Case(name: "unknown fault", json: spec(steps: #"[{"fault": {"kind": "serverErorr"}}]"#), expected: [
            "t.json:7:32: error: unknown fault \"serverErorr\" at $.steps[0].fault.kind\n  fix: did you mean \"serverError\"? faults: unreachable, serverError, nonJSONBody, tokenNotValid, connectionReset, stall, htmlServerError, truncatedJSON, redirectLoop, rateLimited, invalidGrant, serviceUnavailable, hold, unknownMembers, withoutExpires, errorsMember, withoutChallenge, withoutExpiry, otherJSON, retryAfterDate",
        ]),
        Case(name: "misspelt rate-limit fault", json: spec(steps: #"[{"fault": {"kind": "rateLimit"}}]"#), expected: [
            "t.json:7:32: error: unknown fault \"rateLimit\" at $.steps[0].fault.kind\n  fix: did you mean \"rateLimited\"? faults: unreachable, serverError, nonJSONBody, tokenNotValid, connectionReset, stall, htmlServerError, truncatedJSON, redirectLoop, rateLimited, invalidGrant, serviceUnavailable, hold, unknownMembers, withoutExpires, errorsMember, withoutChallenge, withoutExpiry, otherJSON, retryAfterDate",
        ]),
        Case(name: "clockAdvance on an invalid_grant fault", json: spec(steps: #"[{"fault": {"kind": "invalidGrant", "clockAdvance": "31s"}}]"#), expected: [
            "t.json:7:48: error: \"clockAdvance\" belongs to a \"stall\" fault at $.steps[0].fault.clockAdvance\n  fix: remove it, or use \"kind\": \"stall\"",
        ]),
        Case(name: "unknown browser operation", json: spec(steps: #"[{"browser": "logn"}]"#), expected: [
            "t.json:7:25: error: unknown browser operation \"logn\" at $.steps[0].browser\n  fix: did you mean \"login\"? browser operations: login, deny, open, tamper",
        ]),
        Case(name: "tamper: unknown transform", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "flipcase"}}}]"#), expected: [
            "t.json:7:67: error: unknown transform \"flipcase\" at $.steps[0].with.state.transform\n  fix: did you mean \"flipCase\"? transforms: flipCase, dropLast, append, empty, prepend, repeatFirst, repeatLast, inject, percentEncode, doubleEncode",
        ]),
        Case(name: "tamper: transform without its name", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"value": "x"}}}]"#), expected: [
            "t.json:7:53: error: missing required key \"transform\" at $.steps[0].with.state\n  fix: add \"transform\": \"flipCase\"",
        ]),
        Case(name: "tamper: append without a suffix", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "append"}}}]"#), expected: [
            "t.json:7:53: error: an \"append\" transform needs a \"value\": the suffix at $.steps[0].with.state\n  fix: add \"value\": \"-x\"",
        ]),
        Case(name: "tamper: append of nothing", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "append", "value": ""}}}]"#), expected: [
            "t.json:7:86: error: \"append\" with \"\" leaves the value as it was at $.steps[0].with.state.value\n  fix: give at least one character, e.g. \"x\"",
        ]),
        Case(name: "tamper: a value on a transform that takes none", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "empty", "value": "x"}}}]"#), expected: [
            "t.json:7:76: error: \"value\" belongs to a transform that takes one (\"append\", \"prepend\", \"repeatFirst\", \"repeatLast\", \"inject\"); \"empty\" takes none at $.steps[0].with.state.value\n  fix: remove \"value\", or write \"transform\": \"append\"",
        ]),
        Case(name: "tamper: an unknown key in a transform", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "append", "suffix": "x"}}}]"#), expected: [
            "t.json:7:77: error: unknown key \"suffix\" at $.steps[0].with.state.suffix\n  fix: allowed keys here: transform, value",
            "t.json:7:53: error: an \"append\" transform needs a \"value\": the suffix at $.steps[0].with.state\n  fix: add \"value\": \"-x\"",
        ]),
        Case(name: "tamper: a parameter removed and transformed", json: spec(steps: #"[{"browser": "tamper", "with": {"remove": "code, state", "state": {"transform": "flipCase"}}}]"#), expected: [
            "t.json:7:78: error: \"state\" is both removed and transformed at $.steps[0].with.state\n  fix: keep it in \"remove\" or transform it, not both; use two tamper steps for both in turn",
        ]),
        Case(name: "tamper: remove takes no transform", json: spec(steps: #"[{"browser": "tamper", "with": {"remove": {"transform": "empty"}}}]"#), expected: [
            "t.json:7:54: error: \"remove\" of \"tamper\" takes no transform at $.steps[0].with.remove\n  fix: transform one of \"state\", \"code\", \"client_id\", \"merchant_id\", \"error\", \"access_token\", \"token\", \"scheme\", \"host\", \"port\", \"userinfo\", \"path\", \"fragment\", e.g. \"state\": {\"transform\": \"empty\"}",
        ]),
        Case(name: "a transform outside tamper", json: spec(steps: #"[{"browser": "login", "with": {"email": {"transform": "flipCase"}, "password": "pw-12345678"}}]"#), expected: [
            "t.json:7:52: error: \"email\" of \"login\" takes no transform at $.steps[0].with.email\n  fix: write the value itself; transforms rewrite the captured redirect in a \"browser\": \"tamper\" step",
        ]),
        Case(name: "tamper: a suffix naming an uncaptured variable", json: spec(steps: #"[{"browser": "tamper", "with": {"state": {"transform": "append", "value": "${stat}"}}}]"#), expected: [
            "t.json:7:86: error: variable \"${stat}\" is not captured by an earlier step at $.steps[0].with.state.value\n  fix: capture it in an earlier step, e.g. {\"present\": true, \"capture\": \"stat\"}",
        ]),
        Case(name: "send without a leading slash", json: spec(steps: #"[{"send": {"method": "POST", "path": "oauth"}}]"#), expected: [
            "t.json:7:49: error: a path starts with \"/\" at $.steps[0].send.path\n  fix: write it as \"/oauth\"",
        ]),
        Case(name: "clover fixture naming an unknown merchant", json: spec(steps: #"[{"app": "status"}]"#, fixture: #"{"apps": [], "merchants": [], "employees": [{"email": "a@b.c", "password": "pw-12345678", "merchant": "M9"}]}"#).replacingOccurrences(of: "\"moltin\"", with: "\"clover\""), expected: [
            "t.json:6:116: error: no merchant \"M9\" in the fixture at $.fixture.employees[0].merchant\n  fix: add a merchant with the id \"M9\" to \"merchants\"",
        ]),
        Case(name: "secret too short to mask", json: spec(steps: #"[{"app": "products"}]"#, fixture: #"{"clients": [{"id": "store-1", "secret": "q7Z"}]}"#), expected: [
            "t.json:6:55: error: a secret shorter than 8 characters cannot be masked in reports at $.fixture.clients[0].secret\n  fix: use at least 8 characters, as a real secret would have",
        ]),
        // Masking rewrites the spec's words, never the tool's: a short secret that is part of
        // "shorter", of a field name in the path or of the fix line stays as the tool wrote it.
        Case(name: "a short secret that is part of the tool's words", json: spec(steps: #"[{"app": "products"}]"#, fixture: #"{"clients": [{"id": "store-1", "secret": "short"}]}"#), expected: [
            "t.json:6:55: error: a secret shorter than 8 characters cannot be masked in reports at $.fixture.clients[0].secret\n  fix: use at least 8 characters, as a real secret would have",
        ]),
        Case(name: "a short secret named as a field", json: spec(steps: #"[{"app": "products"}]"#, fixture: #"{"clients": [{"id": "store-1", "secret": "secret"}]}"#), expected: [
            "t.json:6:55: error: a secret shorter than 8 characters cannot be masked in reports at $.fixture.clients[0].secret\n  fix: use at least 8 characters, as a real secret would have",
        ]),
        Case(name: "unknown store field", json: spec(steps: #"[{"app": "products", "expect": {"store": {"acessToken": {"absent": true}}}}]"#), expected: [
            "t.json:7:54: error: unknown field \"acessToken\" at $.steps[0].expect.store.acessToken\n  fix: did you mean \"accessToken\"? store fields: accessToken, refreshToken, tokenType, expiresAt, scope",
        ]),
        Case(name: "unknown result field", json: spec(steps: #"[{"app": "products", "expect": {"result": {"count": "2"}}}]"#), expected: [
            "t.json:7:55: error: unknown field \"count\" at $.steps[0].expect.result.count\n  fix: results of products: productCount, productIds, productTitles",
        ]),
        Case(name: "duplicate form field", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"form": {"a": "1", "a": "2"}}]}}]"#), expected: [
            "t.json:7:77: error: duplicate key \"a\" at $.steps[0].expect.requests[0].form.a\n  fix: keep one \"a\" and remove the other",
        ]),
        Case(name: "a result beside an expected error", json: spec(steps: #"[{"app": "products", "expect": {"outcome": "error", "result": {"productCount": "2"}}}]"#), expected: [
            "t.json:7:64: error: \"result\" checks a successful call, and this step expects an error at $.steps[0].expect.result\n  fix: remove \"result\", or expect \"outcome\": \"ok\"",
        ]),
        Case(name: "noRedirect false", json: spec(steps: #"[{"advanceClock": "1m", "expect": {"browser": {"noRedirect": false}}}]"#), expected: [
            "t.json:7:73: error: \"noRedirect\": false checks nothing at $.steps[0].expect.browser.noRedirect\n  fix: write \"redirect\": {} to demand a redirect, or remove the key",
        ]),
        // Checks that would load, pass and be narrated while checking nothing.
        Case(name: "an empty neverSent value", json: spec(steps: #"[{"app": "products", "expect": {"neverSent": [""]}}]"#), expected: [
            "t.json:7:58: error: an empty value checks nothing at $.steps[0].expect.neverSent[0]\n  fix: write the value no request may carry, e.g. \"${appSecret}\"",
        ]),
        Case(name: "an empty neverSent list", json: spec(steps: #"[{"app": "products", "expect": {"neverSent": []}}]"#), expected: [
            "t.json:7:57: error: an empty list checks nothing at $.steps[0].expect.neverSent\n  fix: list the values no request may carry, e.g. [\"${appSecret}\"], or remove the key",
        ]),
        Case(name: "an empty result object", json: spec(steps: #"[{"app": "products", "expect": {"result": {}}}]"#), expected: [
            "t.json:7:54: error: an empty object checks nothing at $.steps[0].expect.result\n  fix: name at least one field, e.g. {\"grant_type\": \"client_credentials\"}, or remove the key",
        ]),
        Case(name: "empty headers and optional false", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"headers": {}, "optional": false}]}}]"#), expected: [
            "t.json:7:69: error: an empty object checks nothing at $.steps[0].expect.requests[0].headers\n  fix: name at least one field, e.g. {\"grant_type\": \"client_credentials\"}, or remove the key",
            "t.json:7:85: error: \"optional\": false checks nothing at $.steps[0].expect.requests[0].optional\n  fix: remove the key: a request is required unless it says \"optional\": true",
        ]),
        Case(name: "strict is retired, with what to write instead", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"method": "GET", "strict": true}]}}]"#), expected: [
            "t.json:7:75: error: \"strict\" was retired: it refused every query, form or JSON field not listed, and servers ignore fields they do not know (RFC 6749 §3.1, §3.2), so it failed SDKs that send standard ones at $.steps[0].expect.requests[0].strict\n  fix: name the fields a requirement makes wrong, e.g. \"forbid\": [\"client_secret\"], and cite the requirement in the step's \"requirements\"",
        ]),
        Case(name: "strict is retired on a URL too", json: spec(steps: #"[{"app": "products", "expect": {"browser": {"opened": [{"strict": true}]}}}]"#), expected: [
            "t.json:7:68: error: \"strict\" was retired: it refused every query field not listed, and servers ignore fields they do not know (RFC 6749 §3.1, §3.2), so it failed SDKs that send standard ones at $.steps[0].expect.browser.opened[0].strict\n  fix: name the fields a requirement makes wrong, e.g. \"forbid\": [\"client_secret\"], and cite the requirement in the step's \"requirements\"",
        ]),
        Case(name: "forbid: empty, repeated, empty name, not a string, and also checked", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"forbid": []}, {"query": {"page": "2"}, "forbid": ["secret", "secret", "", 3, "page"]}]}}]"#), expected: [
            "t.json:7:68: error: an empty list forbids nothing at $.steps[0].expect.requests[0].forbid\n  fix: name the query, form or JSON fields a requirement makes wrong, e.g. [\"client_secret\"], or remove the key",
            "t.json:7:119: error: \"secret\" is forbidden twice at $.steps[0].expect.requests[1].forbid[1]\n  fix: keep one",
            "t.json:7:129: error: an empty name forbids nothing at $.steps[0].expect.requests[1].forbid[2]\n  fix: write the field's name, e.g. \"client_secret\"",
            "t.json:7:133: error: expected a field name, found a number at $.steps[0].expect.requests[1].forbid[3]\n  fix: write it as \"client_secret\"",
            "t.json:7:136: error: \"page\" is both checked and forbidden at $.steps[0].expect.requests[1].forbid[4]\n  fix: remove it from \"forbid\", or drop its matcher",
        ]),
        Case(name: "a misspelt forbid", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"forbit": ["client_secret"]}]}}]"#), expected: [
            "t.json:7:58: error: unknown key \"forbit\" at $.steps[0].expect.requests[0].forbit\n  fix: did you mean \"forbid\"? allowed keys here: method, path, origin, query, headers, form, json, body, forbid, status, responseJson, optional",
        ]),
        Case(name: "body beside form, and optional with no method or path", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"form": {"a": "1"}, "body": {"a": "1"}, "optional": true}]}}]"#), expected: [
            "t.json:7:78: error: \"body\" reads the body as a form or as JSON, whichever it is, and this request also demands one of them at $.steps[0].expect.requests[0].body\n  fix: keep \"body\" for an endpoint that takes either, or \"form\" / \"json\" for one that takes only that",
            "t.json:7:98: error: an optional request is recognised by its method and path, and this one names neither at $.steps[0].expect.requests[0].optional\n  fix: add the \"method\" and \"path\" of the request that may be missing",
        ]),
        Case(name: "an empty with", json: spec(steps: #"[{"app": "products", "with": {}}]"#), expected: [
            "t.json:7:41: error: an empty \"with\" passes nothing at $.steps[0].with\n  fix: remove it: \"products\" takes no arguments",
        ]),
        Case(name: "an empty browser expectation", json: spec(steps: #"[{"advanceClock": "1m", "expect": {"browser": {}}}]"#), expected: [
            "t.json:7:58: error: an empty object checks nothing at $.steps[0].expect.browser\n  fix: check at least one of opened, pageStatus, pageContains, redirect, noRedirect, dismissed, or remove the key",
        ]),
        // Arguments have types (a kit's ActionSignature.types): a literal is checked against its type.
        Case(name: "an argument that is not a URL", json: spec(steps: #"[{"browser": "open", "with": {"url": "pos.example.com/login"}}]"#), expected: [
            "t.json:7:49: error: \"pos.example.com/login\" is not an absolute URL at $.steps[0].with.url\n  fix: write it with a scheme, e.g. \"https://pos.example.com/oauth/callback\" or \"com.example.app:/callback\"",
        ]),
        Case(name: "arguments that are not a count or not one of the words", json: spec(steps: #"[{"app": "merchant", "with": {"concurrent": "lots"}}, {"app": "environment", "with": {"name": "sandbx"}}]"#, fixture: #"{"apps": [{"id": "APP1", "secret": "clv-app-secret-7Yq2", "siteURL": "https://pos.example.com/"}], "merchants": [], "employees": []}"#).replacingOccurrences(of: "\"provider\": \"moltin\"", with: "\"provider\": \"clover\""), expected: [
            "t.json:7:56: error: \"lots\" is not a whole number from 1 to 64 at $.steps[0].with.concurrent\n  fix: write a number such as \"1\"",
            "t.json:7:106: error: unknown value \"sandbx\" at $.steps[1].with.name\n  fix: did you mean \"sandbox\"? values: sandbox, production, custom",
        ]),
        // 3.6e3 and 3600.0 are whole numbers (JSON Schema's integer accepts them, so editors do); 1.5 is not.
        Case(name: "a fraction where a whole number belongs", json: spec(steps: #"[{"app": "products"}]"#, fixture: #"{"clients": [{"id": "store-1", "secret": "sk-abcdef"}], "tokenLifetime": 1.5}"#), expected: [
            "t.json:6:87: error: expected a whole number at $.fixture.tokenLifetime\n  fix: write it as 3600",
        ]),
        Case(name: "id with a trailing newline", json: spec(steps: #"[{"app": "products"}]"#).replacingOccurrences(of: "\"MLT-AUTH\"", with: "\"MLT-AUTH\\n\""), expected: [
            "t.json:2:9: error: id \"MLT-AUTH\\n\" is not a catalogue id at $.id\n  fix: use an id of capitals, digits and dashes, a prefix then names, e.g. \"MLT-AUTH\"",
        ]),
        Case(name: "braintree backendConnectURLs empty", json: braintree(#"[]"#), expected: [
            "t.json:6:149: error: an empty backendConnectURLs changes nothing at $.fixture.backendConnectURLs\n  fix: remove it to hand out the backend's own connect URL, or list the URLs to hand out first, e.g. [\"http://connect.example.com/braintree/oauth/connect\"]",
        ]),
        Case(name: "braintree backendConnectURLs not absolute", json: braintree(#"["connect.example.com/x", 7]"#), expected: [
            "t.json:6:150: error: \"connect.example.com/x\" is not an absolute URL at $.fixture.backendConnectURLs[0]\n  fix: write it with a scheme and no spaces, e.g. \"http://connect.example.com/braintree/oauth/connect\" or \"examplescheme://connect\"",
            "t.json:6:175: error: expected a string, found a number at $.fixture.backendConnectURLs[1]\n  fix: write it as \"http://connect.example.com/braintree/oauth/connect\"",
        ]),
        Case(name: "braintree backendConnectURLs not a list", json: braintree(#""http://connect.example.com/x""#), expected: [
            "t.json:6:149: error: expected an array, found a string at $.fixture.backendConnectURLs\n  fix: write it as [\"http://connect.example.com/braintree/oauth/connect\"]",
        ]),
        // Background calls (issue 11, concurrent app steps)
        Case(name: "await of an unknown label", json: spec(steps: #"[{"app": "products", "async": "first"}, {"await": "frist"}, {"await": "first"}]"#), expected: ["t.json:7:62: error: no background call \"frist\" was started before this step at $.steps[1].await\n  fix: did you mean \"first\"? start it on an earlier app step with \"async\": \"frist\""]),
        Case(name: "await of a label already awaited", json: spec(steps: #"[{"app": "products", "async": "first"}, {"await": "first"}, {"await": "first"}]"#), expected: ["t.json:7:82: error: the background call \"first\" was already awaited in step 2 at $.steps[2].await\n  fix: remove this step, or start the call again with \"async\": \"first\" before it"]),
        Case(name: "release of an unknown label", json: spec(steps: #"[{"app": "products", "async": "first"}, {"release": "frist"}, {"await": "first"}]"#), expected: ["t.json:7:64: error: no background call \"frist\" was started before this step at $.steps[1].release\n  fix: did you mean \"first\"? start it on an earlier app step with \"async\": \"frist\", with a hold fault armed"]),
        Case(name: "release after the call's await", json: spec(steps: #"[{"app": "products", "async": "first"}, {"await": "first"}, {"release": "first"}]"#), expected: ["t.json:7:84: error: the background call \"first\" already ended (awaited in step 2): it holds nothing now at $.steps[2].release\n  fix: release it before its await, or remove this step"]),
        Case(name: "release after a hold of more than one request", json: spec(steps: #"[{"fault": {"kind": "hold", "times": 2}}, {"app": "products", "async": "first"}, {"release": "first"}, {"await": "first"}]"#), expected: ["t.json:7:105: error: the hold fault of step 1 may hold more than one request, so which one is \"first\"'s is not known at $.steps[2].release\n  fix: give each hold fault \"times\": 1, armed before the call it holds, or end every hold with {\"clearFaults\": true}"]),
        Case(name: "release of a number", json: spec(steps: #"[{"app": "products", "async": "first"}, {"release": 1}, {"await": "first"}]"#), expected: ["t.json:7:64: error: expected the label of a background call, found a number at $.steps[1].release\n  fix: write it as \"refresh\""]),
        Case(name: "a label started twice while running", json: spec(steps: #"[{"app": "products", "async": "first"}, {"app": "products", "async": "first"}, {"await": "first"}]"#), expected: ["t.json:7:81: error: the background call \"first\" is already running (started in step 1) at $.steps[1].async\n  fix: await it with {\"await\": \"first\"} before this step, or use another label"]),
        Case(name: "a background call never awaited", json: spec(steps: #"[{"app": "products", "async": "first"}]"#), expected: ["t.json:7:42: error: the background call \"first\" (step 1) is never awaited at $.steps[0].async\n  fix: add a step {\"await\": \"first\"} after it, so its end is checked"]),
        Case(name: "await together with another action", json: spec(steps: #"[{"app": "products", "async": "first"}, {"await": "first", "clearFaults": true}]"#), expected: ["t.json:7:53: error: a step takes one action, found \"clearFaults\" and \"await\" at $.steps[1].await\n  fix: split this into two steps", "t.json:7:42: error: the background call \"first\" (step 1) is never awaited at $.steps[0].async\n  fix: add a step {\"await\": \"first\"} after it, so its end is checked"]),
        Case(name: "async without an app call", json: spec(steps: #"[{"clearFaults": true, "async": "first"}]"#), expected: ["t.json:7:35: error: \"async\" belongs to an \"app\" step at $.steps[0].async\n  fix: put it next to the \"app\" call to start in the background, or remove it"]),
        Case(name: "async step checking the call's end", json: spec(steps: #"[{"app": "products", "async": "first", "expect": {"outcome": "ok"}}, {"await": "first"}]"#), expected: ["t.json:7:62: error: \"outcome\" checks how a call ended, and this step leaves its call running in the background at $.steps[0].expect.outcome\n  fix: move it to the step {\"await\": \"first\"} that joins the call"]),
        Case(name: "async label that is not a label", json: spec(steps: #"[{"app": "products", "async": "1 st"}]"#), expected: ["t.json:7:42: error: \"1 st\" is not a label at $.steps[0].async\n  fix: start with a letter and use letters, digits, \"-\" and \"_\", e.g. \"refresh\""]),
        Case(name: "await result not of the awaited action", json: spec(steps: #"[{"app": "products", "async": "first"}, {"await": "first", "expect": {"result": {"isLoggedIn": "true"}}}]"#), expected: ["t.json:7:93: error: unknown field \"isLoggedIn\" at $.steps[1].expect.result.isLoggedIn\n  fix: results of products: productCount, productIds, productTitles"]),
        // i11f: store inspection
        Case(name: "storeFiles replacedByRename with no earlier check", json: spec(steps: #"[{"app": "products", "expect": {"storeFiles": {"replacedByRename": true}}}]"#), expected: ["t.json:7:79: error: \"replacedByRename\" compares the store's files with an earlier \"storeFiles\" check, and no earlier step has one at $.steps[0].expect.storeFiles.replacedByRename\n  fix: check \"storeFiles\" (e.g. {\"ownerOnly\": true}) in a step after the store is first written, then replace it"]),
        Case(name: "storeFiles false", json: spec(steps: #"[{"app": "products", "expect": {"storeFiles": {"ownerOnly": false}}}]"#), expected: ["t.json:7:72: error: \"ownerOnly\": false checks nothing at $.steps[0].expect.storeFiles.ownerOnly\n  fix: write \"ownerOnly\": true, or remove the key"]),
        Case(name: "storeFiles empty", json: spec(steps: #"[{"app": "products", "expect": {"storeFiles": {}}}]"#), expected: ["t.json:7:58: error: an empty object checks nothing at $.steps[0].expect.storeFiles\n  fix: check at least one of ownerOnly, noTemporaryFiles, replacedByRename, or remove the key"]),
        Case(name: "storeFiles unknown check", json: spec(steps: #"[{"app": "products", "expect": {"storeFiles": {"ownerOnyl": true}}}]"#), expected: ["t.json:7:59: error: unknown key \"ownerOnyl\" at $.steps[0].expect.storeFiles.ownerOnyl\n  fix: did you mean \"ownerOnly\"? allowed keys here: ownerOnly, noTemporaryFiles, replacedByRename"]),
        Case(name: "storeFiles not an object", json: spec(steps: #"[{"app": "products", "expect": {"storeFiles": true}}]"#), expected: ["t.json:7:58: error: expected an object, found a boolean at $.steps[0].expect.storeFiles\n  fix: write it as {\"ownerOnly\": true, \"noTemporaryFiles\": true}"]),
        Case(name: "storeFiles on a provider with no token store", json: braintree(#"["http://connect.example.com/x"]"#).replacingOccurrences(of: #"{"app": "status"}"#, with: #"{"app": "status", "expect": {"storeFiles": {"ownerOnly": true}}}"#), expected: ["t.json:7:42: error: braintree keeps no token on the device, so it has no store files at $.steps[0].expect.storeFiles\n  fix: remove \"storeFiles\""]),
        // Issue 11, part i11e: a request's origin
        Case(name: "request origin, near miss", json: spec(steps: #"[{"app": "status", "expect": {"requests": [{"path": "/oauth/v2/token", "origin": "apii"}]}}]"#, fixture: #"{"apps": [], "merchants": [], "employees": []}"#).replacingOccurrences(of: "\"moltin\"", with: "\"clover\""), expected: [
            "t.json:7:93: error: \"apii\" is not an origin of the clover fake at $.steps[0].expect.requests[0].origin\n  fix: did you mean \"api\"? origins of clover: api, web",
        ]),
        Case(name: "request origin on a one-origin provider", json: spec(steps: #"[{"app": "products", "expect": {"requests": [{"path": "/v2/products", "origin": "main"}]}}]"#), expected: [
            "t.json:7:92: error: the moltin fake serves everything on one origin, so \"origin\" checks nothing at $.steps[0].expect.requests[0].origin\n  fix: remove the key",
        ]),
        Case(name: "request origin not a string", json: spec(steps: #"[{"app": "status", "expect": {"requests": [{"origin": ["web"]}]}}]"#, fixture: #"{"apps": [], "merchants": [], "employees": []}"#).replacingOccurrences(of: "\"moltin\"", with: "\"clover\""), expected: [
            "t.json:7:66: error: expected a string, found an array at $.steps[0].expect.requests[0].origin\n  fix: write it as \"web\"",
        ]),
    ]

    /// A Braintree spec whose fixture's backendConnectURLs is `value`.
    static func braintree(_ value: String) -> String {
        spec(steps: #"[{"app": "status"}]"#, fixture: #"{"clientId": "bt-1", "clientSecret": "bt-secret-123", "merchants": [], "returnURL": "examplescheme://braintree", "backendConnectURLs": "# + value + "}")
            .replacingOccurrences(of: "\"moltin\"", with: "\"braintree\"")
    }

    @Test(arguments: cases)
    func reportsExactMessage(_ testCase: Case) {
        testCase.expectExactMessages()
    }

    /// A nested quantifier loads (it is linear here) with a warning, never an error.
    @Test func aNestedQuantifierIsAWarningNotAnError() throws {
        let json = Self.spec(steps: #"[{"app": "products", "expect": {"result": {"productCount": {"regex": "^(a+)+$"}}}}]"#)
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(json.utf8), file: "t.json") else {
            Issue.record("expected a valid spec")
            return
        }
        #expect(spec.warnings.map(\.description) == [
            "t.json:7:81: warning: nested quantifier in /^(a+)+$/ at character 6: linear in FlowCheck, exponential in a backtracking engine at $.steps[0].expect.result.productCount.regex\n  fix: repeat once, e.g. (a+)+ as a+, so the spec stays safe if its patterns are ported to NSRegularExpression, PCRE or JavaScript",
        ])
        #expect(spec.warnings.allSatisfy { $0.severity == .warning })
    }

    @Test func validSpecLoads() throws {
        guard case .valid(let spec) = SpecLoader.standard.decode(Array(Self.spec(steps: #"[{"app": "products", "expect": {"outcome": "ok"}}]"#).utf8), file: "t.json") else {
            Issue.record("expected a valid spec")
            return
        }
        #expect(spec.id == "MLT-AUTH")
        #expect(spec.steps.count == 1)
        #expect(spec.steps[0].location == SourceLocation(line: 7, column: 13))
    }

    @Test(arguments: [("1h", 3600), ("61m", 3660), ("90s", 90), ("1h30m", 5400), ("1h2m3s", 3723)])
    func parsesDurations(_ text: String, _ seconds: Int) {
        #expect(SpecDecoder.parseDuration(text) == seconds)
    }

    @Test(arguments: ["", "1", "m", "1x", "1m1h", "-1m"])
    func refusesBadDurations(_ text: String) {
        #expect(SpecDecoder.parseDuration(text) == nil)
    }
}
