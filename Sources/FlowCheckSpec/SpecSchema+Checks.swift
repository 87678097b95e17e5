/// The schema of expectations and matchers: one exhaustive `switch` per kind set, so a check,
/// request, browser, URL or matcher kind with no schema does not compile.
extension SpecSchema {
    typealias M = SchemaNode.Member

    /// Definitions every provider's steps share.
    static func shared() -> [SchemaNode.Member] {
        [
            M("matcher", matcher),
            M("fields", .object([M("type", .string("object")), M("minProperties", .integer(1)), M("additionalProperties", .ref("matcher"))])),
            M("stringFields", .object([M("type", .string("object")), M("additionalProperties", scalar)])),
            M("forbid", forbid),
            M("error", error),
            M("request", request),
            M("url", url),
            M("browserExpectation", browser),
            M("tamperTransform", tamperTransform),
        ]
    }

    /// A `tamper` parameter's transform: one variant per ``TamperTransformKind``.
    static var tamperTransform: SchemaNode {
        .object([M("oneOf", .array(TamperTransformKind.allCases.map { kind -> SchemaNode in
            let name = ("transform", SchemaNode.object([M("const", .string(kind.rawValue)), M("description", .string("the captured value \(kind.summary)"))]))
            return kind.takesValue
                ? .closedObject([name, ("value", .nonEmptyString)], required: ["transform", "value"])
                : .closedObject([name], required: ["transform"])
        }))])
    }

    /// The checks that are about an app call's own answer: only an `app` step may have them.
    static var appCallChecks: [String] {
        CheckKind.allCases.filter(\.isAboutTheCall).map(\.rawValue)
    }

    /// A request expectation for a provider with these origins: `origin` names one of them,
    /// and is refused for a provider with one (it would check nothing).
    static func request(origins: [String]) -> SchemaNode {
        let origin: SchemaNode = origins.count > 1 ? .oneOf(origins) : .bool(false)
        return .object([M("allOf", .array([.ref("request"), .object([M("properties", .object([M("origin", origin)]))])]))])
    }

    /// A provider's `expect` object: its store fields and origins are its own.
    static func expect(_ provider: any ProviderDescription) -> SchemaNode {
        .closedObject(CheckKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .outcome: return (kind.rawValue, .oneOf(Expectation.Outcome.allCases.map(\.rawValue)))
            case .error: return (kind.rawValue, .ref("error"))
            case .result: return (kind.rawValue, .ref("fields"))
            case .requests: return (kind.rawValue, .array(of: request(origins: provider.origins)))
            case .browser: return (kind.rawValue, .ref("browserExpectation"))
            case .neverSent: return (kind.rawValue, .array(of: .pattern("\\S"), minItems: 1))
            case .storeEmpty: return (kind.rawValue, boolean)
            case .storeUnchanged: return (kind.rawValue, .object([M("const", .bool(true))]))
            case .storeFiles:
                // A provider whose device keeps no token has no store files to judge.
                guard !provider.storeFields.isEmpty else { return (kind.rawValue, .bool(false)) }
                return (kind.rawValue, storeFiles)
            case .store:
                return (kind.rawValue, .object([
                    M("type", .string("object")),
                    M("minProperties", .integer(1)),
                    M("propertyNames", provider.storeFields.isEmpty ? .bool(false) : fieldNames(provider.storeFields)),
                    M("additionalProperties", .ref("matcher")),
                ]))
            }
        })
    }

    /// An `expect.storeFiles` object: one `true` per ``StoreFilesCheckKind``, at least one.
    static var storeFiles: SchemaNode {
        .closedObject(StoreFilesCheckKind.allCases.map { kind -> (String, SchemaNode) in
            // No default: a new file check must be published here.
            switch kind {
            case .ownerOnly, .noTemporaryFiles, .replacedByRename:
                return (kind.rawValue, .object([M("const", .bool(true)), M("description", .string(kind.summary))]))
            }
        }, minProperties: 1)
    }

    /// `"forbid": ["client_secret"]`: the names of fields that must not be there.
    static let forbid = SchemaNode.object([
        M("type", .string("array")), M("items", .nonEmptyString), M("minItems", .integer(1)), M("uniqueItems", .bool(true)),
        M("description", .string("Fields that must not be there, whatever their value: the ones a requirement makes wrong.")),
    ])

    static let boolean = SchemaNode.object([M("type", .string("boolean"))])
    static let status = SchemaNode.integer(in: 100...599)
    static let justTrue = SchemaNode.object([M("const", .bool(true))])

    static var error: SchemaNode {
        .closedObject(ErrorCheckKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .kind: return (kind.rawValue, .oneOf(Vocabulary.errorKinds))
            case .message: return (kind.rawValue, .ref("matcher"))
            }
        })
    }

    static var request: SchemaNode {
        .closedObject(RequestCheckKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .method: return (kind.rawValue, .pattern("^[A-Z]+$"))
            case .path: return (kind.rawValue, .ref("matcher"))
            // Which names a provider has is its `expect` object's business (see `expect(_:)`).
            case .origin: return (kind.rawValue, .nonEmptyString)
            case .query, .headers, .form, .json, .body, .responseJson: return (kind.rawValue, .ref("fields"))
            case .forbid: return (kind.rawValue, .ref("forbid"))
            case .status: return (kind.rawValue, status)
            // `false` would check nothing; the loader refuses it.
            case .optional: return (kind.rawValue, justTrue)
            }
        })
    }

    static var url: SchemaNode {
        .closedObject(URLCheckKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .url, .scheme, .host, .path: return (kind.rawValue, .ref("matcher"))
            case .query: return (kind.rawValue, .ref("fields"))
            case .forbid: return (kind.rawValue, .ref("forbid"))
            }
        })
    }

    static var browser: SchemaNode {
        .closedObject(BrowserCheckKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .opened: return (kind.rawValue, .array(of: .ref("url")))
            case .pageStatus: return (kind.rawValue, status)
            case .pageContains: return (kind.rawValue, .nonEmptyString)
            case .redirect: return (kind.rawValue, .ref("url"))
            // `false` would check nothing; the loader refuses it.
            case .noRedirect: return (kind.rawValue, justTrue)
            case .dismissed: return (kind.rawValue, boolean)
            }
        }, minProperties: 1)
    }

    /// A scalar (equals), or an object with exactly one check and an optional capture.
    static var matcher: SchemaNode {
        var properties: [(String, SchemaNode)] = MatcherKind.allCases.map { kind -> (String, SchemaNode) in
            switch kind {
            case .equals, .notEquals, .contains: return (kind.rawValue, scalar)
            case .present, .absent: return (kind.rawValue, justTrue)
            case .regex: return (kind.rawValue, .anyString)
            case .pkceS256: return (kind.rawValue, .object([M("type", scalarTypes), M("description", .string("The value is a PKCE verifier whose S256 challenge is this."))]))
            }
        }
        properties.append((Matcher.captureKey, .pattern("^[A-Za-z_][A-Za-z0-9_]*$")))
        let object = SchemaNode.object([
            M("type", .string("object")),
            M("properties", .object(properties.map { M($0.0, $0.1) })),
            M("additionalProperties", .bool(false)),
            M("oneOf", .array(MatcherKind.allCases.map { .object([M("required", .array([.string($0.rawValue)]))]) })),
        ])
        return .object([
            M("description", .string("A string (equals), or one check, optionally capturing the actual value as ${name}.")),
            M("oneOf", .array([scalar, object])),
        ])
    }
}

extension CheckKind {
    /// Whether the check is about an app call's answer (so only a step with an `app` call may
    /// have it). No default: a new kind must say.
    public var isAboutTheCall: Bool {
        switch self {
        case .outcome, .error, .result: return true
        case .requests, .browser, .neverSent, .storeEmpty, .storeUnchanged, .store, .storeFiles: return false
        }
    }
}
