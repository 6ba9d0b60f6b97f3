import Foundation
import Logging

/// Moving an app's users to another Apple developer team (docs/reference.md, "Apple team
/// transfer"; Apple, "Transferring your apps and users to another team"). Apple gives every user
/// a new team-scoped `sub`; for 60 days `usermigrationinfo` translates. `export` runs on the
/// sending team's credentials and stores each Apple identity's `transfer_sub`; `importIdentities`
/// runs on the receiving team's and re-keys each identity to its new `sub`, so the user's internal
/// `sub` never changes. Both are safe to interrupt and run again (what is done is skipped), try
/// each call up to `attempts` times on Apple's `429`, `5xx` or silence with doubling waits, and
/// leave what failed for the next run.
public struct AppleTeamTransfer: Sendable {
    /// Identities at each stage.
    public struct Stages: Sendable, Equatable {
        public var notExported: Int
        public var exported: Int
        public var rekeyed: Int

        public init(notExported: Int, exported: Int, rekeyed: Int) {
            self.notExported = notExported
            self.exported = exported
            self.rekeyed = rekeyed
        }
    }

    /// A run's counts so far.
    public struct Progress: Sendable, Equatable {
        public var done = 0
        public var failed = 0
        public var left = 0

        public init(done: Int = 0, failed: Int = 0, left: Int = 0) {
            self.done = done
            self.failed = failed
            self.left = left
        }
    }

    private let store: any AppleTransferStoring
    private let api: AppleTokenAPI
    private let clock: any WallClock
    private let attempts: Int
    private let firstWait: Duration
    private let timeout: Duration

    /// - Parameters:
    ///   - store: the Apple identities (`AppleTransferStore`), whose `stages()` needs no credentials.
    ///   - api: the developer credentials of the side this runs on.
    ///   - firstWait: the wait before the second try of a call; it doubles after each.
    package init(
        store: any AppleTransferStoring, api: AppleTokenAPI, clock: any WallClock, attempts: Int = 5, firstWait: Duration = .seconds(1),
        timeout: Duration = .seconds(10)
    ) {
        self.store = store
        self.api = api
        self.clock = clock
        self.attempts = attempts
        self.firstWait = firstWait
        self.timeout = timeout
    }

    /// The sending side: a `transfer_sub` for `target` for every Apple identity not exported yet.
    public func export(target: String, logger: Logger, progress: (Progress) -> Void = { _ in }) async throws -> Progress {
        var counts = Progress(left: try await store.stages().notExported)
        var tokens = TokenCache()
        var cursor = ""
        while true {
            let batch = try await store.notExported(after: cursor, limit: 100)
            guard let last = batch.last else { break }
            cursor = last.subject
            for (subject, clientID) in batch {
                let answer = await call(clientID: clientID, tokens: &tokens) { token in
                    await api.migrationInfo([("sub", subject), ("target", target)], accessToken: token, clientID: clientID, timeout: timeout)
                }
                counts.left -= 1
                if case .answered(let members) = answer, let transferSub = members["transfer_sub"], !transferSub.isEmpty {
                    try await store.recordExport(subject: subject, transferSub: transferSub, target: target)
                    counts.done += 1
                } else {
                    counts.failed += 1
                    logger.warning("Apple gave no transfer identifier for an identity; the next run tries it again", metadata: [
                        "client_id": "\(clientID)", "error": "\(Self.reason(answer))",
                    ])
                }
                progress(counts)
            }
        }
        return counts
    }

    /// The receiving side: every exported identity re-keyed to the `sub` Apple now gives it.
    public func importIdentities(logger: Logger, progress: (Progress) -> Void = { _ in }) async throws -> Progress {
        var counts = Progress(left: try await store.stages().exported)
        var tokens = TokenCache()
        var cursor = ""
        while true {
            let batch = try await store.notRekeyed(after: cursor, limit: 100)
            guard let last = batch.last else { break }
            cursor = last.transferSub
            for (transferSub, clientID) in batch {
                let answer = await call(clientID: clientID, tokens: &tokens) { token in
                    await api.migrationInfo([("transfer_sub", transferSub)], accessToken: token, clientID: clientID, timeout: timeout)
                }
                counts.left -= 1
                if case .answered(let members) = answer, let subject = members["sub"], !subject.isEmpty,
                   try await store.rekey(transferSub: transferSub, to: subject, email: members["email"], now: clock.now) {
                    counts.done += 1
                } else {
                    counts.failed += 1
                    logger.warning("an identity could not be re-keyed; the next run tries it again", metadata: [
                        "client_id": "\(clientID)", "error": "\(Self.reason(answer))",
                    ])
                }
                progress(counts)
            }
        }
        return counts
    }

    /// One `usermigrationinfo` call with a token for `clientID`, both tried up to `attempts` times.
    private func call(
        clientID: String, tokens: inout TokenCache, _ body: (String) async -> AppleTokenAPI.MigrationAnswer
    ) async -> AppleTokenAPI.MigrationAnswer {
        let token: String
        if let cached = tokens.values[clientID] {
            token = cached
        } else {
            let answer = await retrying { await api.migrationToken(clientID: clientID, timeout: timeout) }
            guard case .answered(let members) = answer, let value = members["access_token"] else { return answer }
            tokens.values[clientID] = value
            token = value
        }
        return await retrying { await body(token) }
    }

    private func retrying(_ body: () async -> AppleTokenAPI.MigrationAnswer) async -> AppleTokenAPI.MigrationAnswer {
        var wait = firstWait
        var answer = await body()
        for _ in 1..<max(1, attempts) {
            guard case .retry = answer else { return answer }
            try? await Task.sleep(for: wait)
            wait *= 2
            answer = await body()
        }
        return answer
    }

    private static func reason(_ answer: AppleTokenAPI.MigrationAnswer) -> String {
        switch answer {
        case .answered: "the answer lacks the identifier"
        case .retry(let reason), .refused(let reason): reason
        }
    }

    /// Access tokens for `usermigrationinfo`, by client id, for one run.
    private struct TokenCache {
        var values: [String: String] = [:]
    }
}
