import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// Builds the pages people see (docs/reference.md, "The pages people see") from the settings
/// read at start: the sign-in page with one button per provider, and the pages that refuse a
/// sign-in or a sign-out, say a service is unavailable, or say the reader is signed out. Each
/// in the language `Accept-Language` asks for where the catalogue has it, with the app's name
/// and logo (the client's, else `ISSUER_DISPLAY_NAME` and the theme's), and every value it
/// echoes escaped.
struct PageRenderer: Sendable {
    /// Which flow a page ends, for its title and what it tells the reader to do.
    enum Flow: Sendable {
        case signIn
        case signOut
    }

    let catalogue: MessageCatalogue
    let style: PageStyle
    let displayName: String?
    /// The logos by the file name that named them.
    let images: [String: PageImage]
    let themeLogo: PageImage?
    /// Where `PageAssetEndpoint` serves the logos: the path of `ISSUER_URL` + `/assets/`.
    let assetPath: String

    init(pages: PageSettings, displayName: String?, pathPrefix: String) {
        catalogue = pages.catalogue
        style = PageStyle(theme: pages.theme)
        self.displayName = displayName
        images = pages.images
        themeLogo = pages.logo
        assetPath = pathPrefix + "/assets/"
    }

    /// The language of the catalogue that answers the request's `Accept-Language` best.
    func language(of request: Request) -> String {
        LanguagePreference(acceptLanguage: request.headers[.acceptLanguage]).language(among: catalogue.languageTags)
    }

    /// The sign-in page of `client`: its name and logo, and one button per provider in the order
    /// given, each wearing its provider's published style.
    func signIn(_ choices: [HostedSignIn.Choice], client: OAuthClient, for request: Request) -> Response {
        let language = language(of: request)
        let name = client.clientName ?? displayName
        let logo = client.logo.flatMap { images[$0] } ?? themeLogo
        let heading = text(.signInHeading, language)
        let prompt = name.map { text(PageMessage(.signInPromptForApp, ["app": $0]), language) } ?? text(.signInPrompt, language)
        let buttons = choices.map { choice in
            let label = switch choice.brand {
            case .apple: text(.signInWithApple, language)
            case .google: text(.signInWithGoogle, language)
            case .facebook: text(.signInWithFacebook, language)
            case .neutral: text(PageMessage(.signInWithProvider, ["provider": choice.label]), language)
            }
            return """
                <li><a class="button \(choice.brand.rawValue)" href="\(HTMLEscaping.escape(choice.url))">\
                \(ProviderMark.svg(for: choice.brand))<span>\(HTMLEscaping.escape(label))</span></a></li>
                """
        }
        let main = """
            \(brand(name: name, logo: logo))
            <h1>\(HTMLEscaping.escape(heading))</h1>
            <p class="lead">\(HTMLEscaping.escape(prompt))</p>
            <ul class="providers">
            \(buttons.joined(separator: "\n"))
            </ul>
            """
        return HTMLPage(
            status: .ok, language: language, title: name.map { "\(heading) – \($0)" } ?? heading, main: main, style: style,
            showsImage: logo != nil
        ).response
    }

    /// A page that ends `flow`: signed out (200), temporarily unavailable (503), or refused
    /// (any other status), saying what the reader can do and, below, what went wrong.
    func page(_ flow: Flow, status: Int, message: PageMessage, for request: Request) -> Response {
        let language = language(of: request)
        let title: String
        let lead: String
        let details: String?
        switch (status, flow) {
        case (200, _):
            title = text(.signedOutTitle, language)
            lead = text(message, language)
            details = nil
        case (503, _):
            title = text(.unavailableTitle, language)
            lead = text(.unavailableAdvice, language)
            details = text(message, language)
        case (_, .signIn):
            title = text(.signInRefusedTitle, language)
            lead = text(.signInRefusedAdvice, language)
            details = text(message, language)
        case (_, .signOut):
            title = text(.signOutRefusedTitle, language)
            lead = text(.signOutRefusedAdvice, language)
            details = text(message, language)
        }
        let detailsMarkup = details.map {
            "\n<p class=\"details\">\(HTMLEscaping.escape(text(PageMessage(.details, ["details": $0]), language)))</p>"
        } ?? ""
        let main = """
            \(brand(name: displayName, logo: themeLogo))
            \(status == 200 ? ProviderMark.done : ProviderMark.refused)
            <h1>\(HTMLEscaping.escape(title))</h1>
            <p class="lead">\(HTMLEscaping.escape(lead))</p>\(detailsMarkup)
            """
        return HTMLPage(
            status: HTTPResponse.Status(code: status), language: language,
            title: displayName.map { "\(title) – \($0)" } ?? title, main: main, style: style, showsImage: themeLogo != nil
        ).response
    }

    /// The status page of a provider's data deletion request (docs/reference.md, "Facebook's
    /// callbacks"): when it was received and that the data is deleted, or `404` for a code never
    /// answered. Nothing personal: the code alone finds it.
    func dataDeletionStatus(receivedAt: Date?, provider: String, for request: Request) -> Response {
        let language = language(of: request)
        let title = text(.dataDeletionTitle, language)
        let body: String
        if let receivedAt {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate, .withSpaceBetweenDateAndTime]
            let time = formatter.string(from: receivedAt) + " UTC"
            body = """
                <p class="lead">\(HTMLEscaping.escape(text(PageMessage(.dataDeletionReceived, ["time": time]), language)))</p>
                <p>\(HTMLEscaping.escape(text(PageMessage(.dataDeletionDone, ["provider": provider]), language)))</p>
                """
        } else {
            body = "<p class=\"lead\">\(HTMLEscaping.escape(text(.dataDeletionUnknown, language)))</p>"
        }
        let main = """
            \(brand(name: displayName, logo: themeLogo))
            \(receivedAt != nil ? ProviderMark.done : ProviderMark.refused)
            <h1>\(HTMLEscaping.escape(title))</h1>
            \(body)
            """
        return HTMLPage(
            status: receivedAt != nil ? .ok : .notFound, language: language,
            title: displayName.map { "\(title) – \($0)" } ?? title, main: main, style: style, showsImage: themeLogo != nil
        ).response
    }

    /// The logo and the name above a page's heading; nothing when there is neither. The logo is
    /// decorative (`alt=""`): the name beside it says the same.
    private func brand(name: String?, logo: PageImage?) -> String {
        guard name != nil || logo != nil else { return "" }
        let image = logo.map { "<img class=\"logo\" src=\"\(HTMLEscaping.escape(assetPath + $0.assetName))\" alt=\"\">" } ?? ""
        let app = name.map { "<p class=\"app\">\(HTMLEscaping.escape($0))</p>" } ?? ""
        return "<div class=\"brand\">\(image)\(app)</div>"
    }

    private func text(_ key: PageMessage.Key, _ language: String) -> String {
        catalogue.sentence(PageMessage(key), in: language)
    }

    private func text(_ message: PageMessage, _ language: String) -> String {
        catalogue.sentence(message, in: language)
    }
}
