/// A closed set of JSON keys: the keys an object of the spec format accepts are exactly the
/// cases, so the loader, the checker, the narrative and a generated schema cannot disagree.
public protocol SpecKeySet: CaseIterable, RawRepresentable, Sendable where RawValue == String {}

extension SpecKeySet {
    /// The accepted keys, in declaration order (the order "did you mean" lists them in).
    public static var keys: [String] { allCases.map(\.rawValue) }
}

/// The keys of a step's `expect` object: one kind of check each.
///
/// Declaration order is the order the checks run and are narrated (outcome first, the store
/// last), so a report reads the same whatever order the spec wrote its keys in.
public enum CheckKind: String, SpecKeySet {
    /// Whether the SDK call succeeded or failed.
    case outcome
    /// The error a failed call must end in (kind, message).
    case error
    /// Fields of a successful call's result.
    case result
    /// The exact, ordered list of requests the server saw.
    case requests
    /// What the browser saw.
    case browser
    /// Values no request may carry.
    case neverSent
    /// Whether the token store holds nothing.
    case storeEmpty
    /// The token store holds after the step exactly what it held before it: nothing written,
    /// nothing deleted (a refused redirect, a refused answer).
    case storeUnchanged
    /// Fields of the token store.
    case store
    /// The token store's files on disk: modes, leftovers, replacement by rename.
    case storeFiles
}

/// One decoded check of a step's `expect` object, with what it needs to run.
///
/// Each case is one ``CheckKind``; the decoder, the checker and the narrative each switch over
/// these cases with no `default`, so a new kind that is not handled in all three does not build.
public enum Check: Sendable, Equatable {
    /// The call ended in this outcome.
    case outcome(Expectation.Outcome)
    /// The call ended in an error with these properties (none: any error).
    case error([ErrorCheck])
    /// Fields of the successful call's result.
    case result([FieldMatcher])
    /// The exact, ordered list (empty: no request at all).
    case requests([RequestExpectation])
    /// What the browser saw since the previous step.
    case browser([BrowserCheck])
    /// Values no request and no opened URL may carry, in any encoding.
    case neverSent([Template])
    /// True: the store holds nothing; false: it holds something.
    case storeEmpty(Bool)
    /// The store after the step equals the store before it (`true` only).
    case storeUnchanged
    /// Fields of the SDK's token store.
    case store([FieldMatcher])
    /// Properties of the token store's files, measured by the harness (each at most once, in
    /// ``StoreFilesCheckKind`` order); skipped, with the reason, for a store with no files.
    case storeFiles([StoreFilesCheckKind])

    /// The key this check was written under.
    public var kind: CheckKind {
        switch self {
        case .outcome: return .outcome
        case .error: return .error
        case .result: return .result
        case .requests: return .requests
        case .browser: return .browser
        case .neverSent: return .neverSent
        case .storeEmpty: return .storeEmpty
        case .storeUnchanged: return .storeUnchanged
        case .store: return .store
        case .storeFiles: return .storeFiles
        }
    }
}

/// The keys of an `expect.storeFiles` object: each one a property of the token store's files
/// after the step, written `true` (`false` would check nothing and is refused).
public enum StoreFilesCheckKind: String, SpecKeySet {
    /// The store's directory and every file in it are the user's and closed to the group and
    /// others (0700 and 0600, or stricter).
    case ownerOnly
    /// Nothing in the directory but the stored items' files holds a token or secret: no
    /// temporary copy or backup left behind (a lock file or an empty folder is layout).
    case noTemporaryFiles
    /// Each store file is a new file (a new inode) since the previous `storeFiles` check of the
    /// flow: replaced by a rename, not rewritten in place, where a crash would tear the token.
    case replacedByRename

    /// What the check demands, in words (narrative and schema).
    public var summary: String {
        switch self {
        case .ownerOnly: return "the store's directory and each of its files are the user's and closed to the group and others (0700 and 0600, or stricter)"
        case .noTemporaryFiles: return "nothing in the store's directory but the stored items' files holds a token or secret: no temporary copy or backup is left behind"
        case .replacedByRename: return "each store file is a new file (a new inode) since the previous storeFiles check: replaced by a rename, not rewritten in place"
        }
    }
}

/// The keys of an `expect.error` object.
public enum ErrorCheckKind: String, SpecKeySet {
    /// The error kind, one of ``Vocabulary/errorKinds``.
    case kind
    /// A matcher on the error's message.
    case message
}

/// One check on the error a call ended in.
public enum ErrorCheck: Sendable, Equatable {
    /// The error is of this kind.
    case kind(String)
    /// The error's message matches.
    case message(Matcher)

    /// The key this check was written under.
    public var key: ErrorCheckKind {
        switch self {
        case .kind: return .kind
        case .message: return .message
        }
    }
}
