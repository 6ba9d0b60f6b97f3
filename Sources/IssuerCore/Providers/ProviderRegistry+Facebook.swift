import Foundation

extension ProviderRegistry {
    /// An entry of kind `facebook` (docs/reference.md, "Facebook"): `app_id` and the app secret
    /// are required (access tokens, the hosted flow and Facebook's callbacks all need the secret);
    /// the other kinds' fields are refused, and `link_by_verified_email` by name, because Facebook
    /// marks no address verified.
    static func facebookProvider(_ entry: Entry, id: String, label owner: String, directory: URL) throws -> ProviderSettings {
        if entry.linkByVerifiedEmail != nil {
            throw Problem(description: "\(owner): link_by_verified_email cannot be used with kind \"facebook\": Facebook marks no e-mail address verified")
        }
        if let foreign = entry.writtenNames.subtracting(Entry.CodingKeys.facebookNames).sorted().first {
            throw Problem(description: "\(owner): \(foreign) is not a field of kind \"facebook\"")
        }
        guard let appID = entry.appId, !appID.isEmpty, appID.utf8.count <= 64,
              appID.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw Problem(description: "\(owner) needs an app_id: the Facebook App ID, digits only")
        }
        let secret = try secret(
            entry.appSecret, file: entry.appSecretFile, names: ("app_secret", "app_secret_file"), label: owner, directory: directory)
        guard let secret else {
            throw Problem(description: "\(owner) needs app_secret or app_secret_file: access tokens, the hosted flow and Facebook's callbacks are checked with it")
        }
        func url(_ text: String?, _ name: String) throws -> URL? {
            guard let text, !text.isEmpty else { return nil }
            guard let url = URL(string: text), url.isSecureOrLoopback else {
                throw Problem(description: "\(owner): \(name) must be an https URL (plain http only to a loopback address)")
            }
            return url
        }
        if let version = entry.graphVersion,
           !(version.first == "v" && version.count <= 8 && version.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }))
        {
            throw Problem(description: "\(owner): graph_version must look like v23.0")
        }
        return .facebook(
            id: id, appID: appID, appSecret: Secret(secret), jwksURI: try url(entry.jwksUri, "jwks_uri"),
            graphURL: try url(entry.graphUrl, "graph_url"), graphVersion: entry.graphVersion,
            authorizationEndpoint: try url(entry.authorizationEndpoint, "authorization_endpoint"),
            tokenEndpoint: try url(entry.tokenEndpoint, "token_endpoint"))
    }
}
