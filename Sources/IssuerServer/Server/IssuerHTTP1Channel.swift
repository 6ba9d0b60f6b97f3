import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// An HTTP/1.1 connection as Hummingbird's `HTTP1Channel` sets it up, with the issuer's own
/// handlers where they belong: between NIO's HTTP/1 decoder and the conversion to HTTPTypes.
///
/// The order, from the socket in: `ReadyAnswerHandler`, when the listener has static routes, which
/// answers a connection's static GETs from ready bytes until it asks for anything else, and then
/// passes the connection on; NIO's encoder and decoder; `RequestReadTimeoutHandler`
/// (docs/reference.md, "Faults and bad input"), which must see every request and answer, the
/// static ones included (it is told of those answered before the decoder); `HTTP1RequestRulesHandler`,
/// for the rules of RFC 9112 that HTTPTypes cannot express (`Host`, HTTP/1.0 persistence);
/// `StaticRouteHandler`, when
/// the listener has static routes; the conversion to HTTPTypes; Hummingbird's connection state and
/// the router. Hummingbird's `additionalChannelHandlers` can only go after the conversion, where
/// the static answers cost a conversion of each request and answer.
struct IssuerHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let readTimeout: TimeAmount
    let staticRoutes: StaticRoutes
    let metrics: ServerMetrics

    /// The builder `Application` takes: one channel per accepted connection.
    static func server(readTimeout: TimeAmount, staticRoutes: StaticRoutes, metrics: ServerMetrics) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            IssuerHTTP1Channel(responder: responder, readTimeout: readTimeout, staticRoutes: staticRoutes, metrics: metrics)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird's limits and settings: pipelining is handled by the async channel,
            // errors by the application, and HTTPTypes has validated outbound fields already.
            let defaults = HTTP1Channel.Configuration.DecoderConfiguration()
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = defaults.maxHeaderFieldSize
            limits.maxHeaderListSize = defaults.maxHeaderListSize
            limits.maxHeaderFieldCount = defaults.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            let deadline = RequestReadTimeoutHandler(limit: readTimeout)
            // Added before NIO's handlers, so after whatever the connection already has nearest the socket.
            if !staticRoutes.entries.isEmpty {
                try pipeline.addHandler(ReadyAnswerHandler(routes: staticRoutes, metrics: metrics, deadline: deadline))
            }
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,
                withErrorHandling: false,
                withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(deadline)
            try pipeline.addHandler(HTTP1RequestRulesHandler(metrics: metrics))
            if !staticRoutes.entries.isEmpty {
                try pipeline.addHandler(StaticRouteHandler(routes: staticRoutes, metrics: metrics))
            }
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
