/// A provider's id, as specs name it (`"provider": "moltin"`).
///
/// A struct over a string, not a closed enum (as `OAuthError.Code` is in the SDK), so a newly
/// registered provider breaks no downstream driver's `switch`. Each provider declares its own
/// constant (`Provider.moltin`) beside its kit.
public struct Provider: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: Provider, rhs: Provider) -> Bool { lhs.rawValue < rhs.rawValue }
}
