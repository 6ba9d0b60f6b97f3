import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "The pages people see", `GET /assets/{asset}`: the logos of
/// `ISSUER_PAGES_DIR`, read at start and named by their SHA-256, so the pages load their images
/// from the issuer itself and a name always means the same bytes: cached for a year, never
/// revalidated. Any other name is a `404`.
struct PageAssetEndpoint {
    /// The logos by the name they are served under.
    let assets: [String: PageImage]

    init(images: some Sequence<PageImage>) {
        assets = Dictionary(images.map { ($0.assetName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static let cacheControl = "public, max-age=31536000, immutable"

    func register(on routes: RouteRegistrar) {
        routes.add(.pageAsset) { _, context in
            guard let name = context.parameters.get("asset"), let image = assets[name] else {
                return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: "Not found\n")))
            }
            return Response(status: .ok, headers: Self.headers(image), body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
    }

    /// An SVG opened on its own is a document of the issuer's origin: its policy lets it run no
    /// script and load nothing (`sandbox`), only draw itself with its own styles. `nosniff` keeps
    /// browsers to the declared type, and `same-origin` keeps other sites from embedding it.
    static func headers(_ image: PageImage) -> HTTPFields {
        [
            .contentType: image.mediaType,
            .cacheControl: cacheControl,
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
        ]
    }
}
