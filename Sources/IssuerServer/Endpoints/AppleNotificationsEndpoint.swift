import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "Apple notifications", `POST /auth/apple/notifications`: Apple's server-to-server notifications,
/// `{"payload": "<JWS>"}`. `200` once applied (or when there is nothing to apply), `400` for a
/// payload that fails verification, `503` when Apple's keys cannot be had, so that Apple retries.
/// Not rate limited: Apple is the caller.
struct AppleNotificationsEndpoint {
    let notifications: AppleNotifications

    func register(on routes: RouteRegistrar) {
        routes.add(.appleNotifications) { request, context in
            let parameters = try await OAuthParameters.parse(request)
            try await notifications.receive(payload: try parameters.required("payload"), logger: context.logger)
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
    }
}
