import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// docs/reference.md, "The pages people see": the sign-in page (the app's name and logo, each
/// provider's own button), the other pages in its look, in the reader's language, with a policy
/// that allows exactly the page's own style sheet and the issuer's own images.
@Suite("The pages people see (reference: The pages people see)")
struct PagesTests {
    /// The policy of a page with the built-in theme and no logo.
    static var builtInPolicy: String { "default-src 'none'; style-src \(PageStyle(theme: .builtIn).source)" }

    /// A PNG's signature and a few bytes: enough for the issuer's check of what a logo holds.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4]

    /// An issuer with Apple and Google in the hosted flow (so `/oauth2/authorize` answers the
    /// sign-in page), the clients `clients`, and `ISSUER_PAGES_DIR` holding `files`.
    static func withPages(
        clients: String = #"[{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://oauthredirect"], "scopes": ["openid", "email", "profile"]}]"#,
        files: [String: [UInt8]] = [:], environment: [String: String] = [:],
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await TestDirectories.withTemporary("pages") { pages in
            for (name, bytes) in files {
                let file = pages.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: file)
            }
            let clientsFile = pages.appendingPathComponent("clients.json")
            try clients.write(to: clientsFile, atomically: true, encoding: .utf8)
            let providers = try FakeGoogleServer.providersFile([[
                "id": "google", "kind": "google", "client_id": "web", "client_secret": "s",
            ]])
            defer { TestDirectories.remove(providers) }
            try await HostedFlow.withFixture(environment.merging([
                "ISSUER_CLIENTS_FILE": clientsFile.path, "ISSUER_PROVIDERS_FILE": providers.path, "ISSUER_PAGES_DIR": pages.path,
            ]) { $1 }) { fixture in
                try await fixture.test(body)
            }
        }
    }

    /// The text between the page's `<style>` and `</style>`.
    static func styleSheet(_ html: String) throws -> String {
        let start = try #require(html.range(of: "<style>"))
        let end = try #require(html.range(of: "</style>"))
        return String(html[start.upperBound..<end.lowerBound])
    }

    /// CSP Level 3's hash source for `text`: base64 of its SHA-256 (computed here as PKCE's S256
    /// does, then turned from base64url into base64).
    static func hashSource(_ text: String) -> String {
        var base64 = PKCE.challenge(forVerifier: text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return "'sha256-\(base64)'"
    }

    @Test("the sign-in page's policy is default-src 'none' and the hash of its own style sheet; img-src 'self' only with a logo")
    func contentSecurityPolicy() async throws {
        try await Self.withPages { client in
            let page = try await client.get(HostedFlow.authorizeQuery())
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            let policy = "default-src 'none'; style-src \(Self.hashSource(try Self.styleSheet(html)))"
            #expect(page.headers[.contentSecurityPolicy] == policy)
            #expect(policy == Self.builtInPolicy)
            #expect(!html.contains("<script") && !html.contains("style=\"") && !html.contains("<img"))
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(page.headers[.cacheControl] == "no-store")
        }
        let withLogo = #"[{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://oauthredirect"], "scopes": ["openid", "email", "profile"], "logo": "app.png"}]"#
        try await Self.withPages(clients: withLogo, files: ["app.png": Self.png]) { client in
            let page = try await client.get(HostedFlow.authorizeQuery())
            let html = String(buffer: page.body)
            #expect(page.headers[.contentSecurityPolicy] == "default-src 'none'; style-src \(Self.hashSource(try Self.styleSheet(html))); img-src 'self'")
            // A refusal shows no client's logo (the theme has none), so it allows no image.
            let refusal = try await client.get(HostedFlow.authorizeQuery(["client_id": "nobody"]))
            #expect(refusal.headers[.contentSecurityPolicy] == Self.builtInPolicy)
        }
    }

    @Test("a theme's colours change the style sheet, and the policy's hash follows it")
    func themedPolicy() async throws {
        try await Self.withPages(files: ["theme.json": Array(##"{"accent": "#7a1fa2"}"##.utf8)]) { client in
            let page = try await client.get(HostedFlow.authorizeQuery())
            let css = try Self.styleSheet(String(buffer: page.body))
            #expect(css.contains("--accent:#7a1fa2"))
            #expect(page.headers[.contentSecurityPolicy] == "default-src 'none'; style-src \(Self.hashSource(css))")
            #expect(page.headers[.contentSecurityPolicy] != Self.builtInPolicy)
        }
    }

    @Test("the app's client_name is shown escaped, in the page and its title; one button per provider in its own style")
    func clientNameEscaped() async throws {
        let name = #"<script>alert("x")</script> & 'Co'"#
        let clients = #"[{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://oauthredirect"], "scopes": ["openid", "email", "profile"], "client_name": "\#(name.replacingOccurrences(of: "\"", with: "\\\""))"}]"#
        try await Self.withPages(clients: clients) { client in
            let html = String(buffer: try await client.get(HostedFlow.authorizeQuery()).body)
            let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;"
            #expect(html.contains("<p class=\"app\">\(escaped)</p>"))
            #expect(html.contains("<title>Sign in – \(escaped)</title>"))
            #expect(html.contains("Choose how you want to sign in to \(escaped)."))
            #expect(!html.contains("<script"))
            #expect(html.contains("class=\"button apple\"") && html.contains("<span>Sign in with Apple</span>"))
            #expect(html.contains("class=\"button google\"") && html.contains("<span>Sign in with Google</span>"))
            #expect(html.contains("fill=\"#4285F4\""), "Google's G in its own colours")
        }
    }

    @Test("ISSUER_DISPLAY_NAME names a client without client_name, escaped, on the sign-in page and the refusals")
    func displayName() async throws {
        try await Self.withPages(environment: ["ISSUER_DISPLAY_NAME": "Example & Co"]) { client in
            let signIn = String(buffer: try await client.get(HostedFlow.authorizeQuery()).body)
            #expect(signIn.contains("<p class=\"app\">Example &amp; Co</p>"))
            let refusal = String(buffer: try await client.get(HostedFlow.authorizeQuery(["client_id": "nobody"])).body)
            #expect(refusal.contains("<p class=\"app\">Example &amp; Co</p>"))
        }
    }

    @Test("the language is Accept-Language's where the catalogue has it (q-values, then English), with lang and Content-Language", arguments: [
        (nil, "en", "Sign in with Apple"),
        ("fr-CH, fr;q=0.9, en;q=0.8", "fr", "Se connecter avec Apple"),
        ("es, de;q=0.5, fr;q=0.4", "de", "Mit Apple anmelden"),
        ("fr;q=0, ja", "en", "Sign in with Apple"),
    ] as [(String?, String, String)])
    func language(_ header: String?, _ language: String, _ apple: String) async throws {
        try await Self.withPages { client in
            let page = try await client.get(HostedFlow.authorizeQuery(), headers: header.map { [.acceptLanguage: $0] } ?? [:])
            let html = String(buffer: page.body)
            #expect(html.contains("<html lang=\"\(language)\">"))
            #expect(html.contains("<span>\(apple)</span>"))
            #expect(page.headers[.contentLanguage] == language)
            #expect(page.headers[.vary] == "Accept-Language")
        }
    }

    @Test("the refusals say what the reader can do and, below, why; in the reader's language")
    func refusals() async throws {
        try await Self.withPages { client in
            let signIn = String(buffer: try await client.get(HostedFlow.authorizeQuery(["client_id": "nobody"])).body)
            #expect(signIn.contains("<h1>This sign-in cannot continue</h1>"))
            #expect(signIn.contains("Go back to the app and start signing in again."))
            #expect(signIn.contains("Details: The client_id is not registered."))
            let signOut = try await client.get("/oauth2/logout?id_token_hint=x", headers: [.acceptLanguage: "de"])
            #expect(signOut.status == .badRequest)
            let german = String(buffer: signOut.body)
            #expect(german.contains("<html lang=\"de\">") && german.contains("Diese Abmeldung kann nicht fortgesetzt werden"))
            #expect(german.contains("Der id_token_hint ist kein ID-Token dieses Ausstellers."))
            let signedOut = String(buffer: try await client.get("/oauth2/logout", headers: [.acceptLanguage: "fr"]).body)
            #expect(signedOut.contains("<h1>Vous êtes déconnecté</h1>"))
        }
    }

    @Test("messages/<language>.json in ISSUER_PAGES_DIR rewords a page, and a new language is served")
    func catalogueOverride() async throws {
        let files: [String: [UInt8]] = [
            "messages/en.json": Array(#"{"sign_in.prompt": "Pick how to get in."}"#.utf8),
            "messages/es.json": Array(#"{"sign_in.apple": "Iniciar sesión con Apple", "sign_in.heading": "Iniciar sesión"}"#.utf8),
        ]
        try await Self.withPages(files: files) { client in
            let english = String(buffer: try await client.get(HostedFlow.authorizeQuery()).body)
            #expect(english.contains("<p class=\"lead\">Pick how to get in.</p>"))
            #expect(english.contains("<span>Sign in with Apple</span>"), "the keys not overridden stay")
            let spanish = String(buffer: try await client.get(HostedFlow.authorizeQuery(), headers: [.acceptLanguage: "es-MX"]).body)
            #expect(spanish.contains("<html lang=\"es\">"))
            #expect(spanish.contains("<h1>Iniciar sesión</h1>") && spanish.contains("<span>Iniciar sesión con Apple</span>"))
            #expect(spanish.contains("<span>Sign in with Google</span>"), "a key the language lacks is English")
        }
    }

    @Test("a client's logo is served by the issuer at /assets/<sha256>.<ext>, cached for good; any other name is 404")
    func assetRoute() async throws {
        let clients = #"[{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://oauthredirect"], "scopes": ["openid", "email", "profile"], "logo": "logos/app.png"}]"#
        try await Self.withPages(clients: clients, files: ["logos/app.png": Self.png]) { client in
            let html = String(buffer: try await client.get(HostedFlow.authorizeQuery()).body)
            let name = try Self.assetName(html)
            #expect(name.count == 36 && name.hasSuffix(".png"))
            #expect(html.contains("<img class=\"logo\" src=\"/assets/\(name)\" alt=\"\">"))
            let asset = try await client.get("/assets/\(name)")
            #expect(asset.status == .ok)
            #expect(Array(buffer: asset.body) == Self.png)
            #expect(asset.headers[.contentType] == "image/png")
            #expect(asset.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(asset.headers[.xContentTypeOptions] == "nosniff")
            #expect(asset.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            for other in ["app.png", "logos", String(name.dropLast(4)) + ".svg", "0" + name.dropFirst()] {
                #expect(try await client.get("/assets/\(other)").status == .notFound, "\(other)")
            }
        }
    }

    /// The name in the page's `<img src="/assets/…">`.
    static func assetName(_ html: String) throws -> String {
        let start = try #require(html.range(of: "src=\"/assets/"))
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }
}

extension Array where Element == UInt8 {
    init(buffer: ByteBuffer) {
        self = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
    }
}
