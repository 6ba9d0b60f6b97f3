/// The parameters of a request a browser makes (the authorization, callback and logout
/// endpoints): the query of a `GET`, the `application/x-www-form-urlencoded` body of a `POST`
/// (OIDC Core §3.1.2.1, RP-Initiated Logout §2, Apple's `form_post`). A name given twice is
/// reported rather than refused here, because where the error goes (a page or a redirect)
/// depends on which name it is (RFC 6749 §4.1.2.1). Empty values count as absent (RFC 6749 §3.1).
public struct BrowserParameters: Sendable, Equatable {
    /// Each name's first non-empty value.
    public private(set) var values: [String: String] = [:]
    /// The names given more than once with a value.
    public private(set) var repeated: Set<String> = []

    public subscript(_ name: String) -> String? { values[name] }

    /// A malformed encoding or a non-UTF-8 body is a `400` page, never a redirect: nothing in
    /// the request can be trusted yet.
    public struct Malformed: Error {
        public init() {}
    }

    /// Parses a query string or form body (`FormURLEncoding`).
    public static func parse(_ text: String) throws(Malformed) -> BrowserParameters {
        guard let pairs = FormURLEncoding.pairs(text) else { throw Malformed() }
        var parameters = BrowserParameters()
        for (name, value) in pairs where !value.isEmpty {
            if parameters.values[name] != nil {
                parameters.repeated.insert(name)
            } else {
                parameters.values[name] = value
            }
        }
        return parameters
    }
}
