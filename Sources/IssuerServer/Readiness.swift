import IssuerStorage

/// What `/readyz` checks (docs/reference.md, "Operations"): each named check must pass for the process to take
/// traffic. Checks run concurrently, so a slow one does not delay the others.
public struct Readiness: Sendable {
    /// One named condition.
    public struct Check: Sendable {
        /// Listed under `failing` in the `/readyz` answer when the check fails.
        public let name: String
        /// Whether the condition holds now; it should answer promptly rather than hang.
        public let isReady: @Sendable () async -> Bool

        /// A check that passes while `isReady` answers true.
        public init(name: String, isReady: @escaping @Sendable () async -> Bool) {
            self.name = name
            self.isReady = isReady
        }
    }

    /// All must pass for `/readyz` to answer 200.
    public var checks: [Check]

    /// An empty list is always ready.
    public init(checks: [Check]) {
        self.checks = checks
    }

    /// How long `/readyz` waits for its checks: under a second, so a probe with a 1-second timeout
    /// always reads an answer (docs/reference.md, "Operations").
    public static let deadline: Duration = .milliseconds(800)

    /// The names of the checks that fail, or have not answered within `deadline`; empty when ready.
    ///
    /// The checks run as tasks of their own and are not awaited past the deadline: a query to a
    /// silent database returns only at the pool's deadline (5 s) and ignores cancellation, so a
    /// task group, which waits for every child, would make the probe as slow as the database.
    func failing(within deadline: Duration = Self.deadline) async -> [String] {
        guard !checks.isEmpty else { return [] }
        let (answers, continuation) = AsyncStream.makeStream(of: (name: String, ready: Bool)?.self)
        for check in checks {
            Task { continuation.yield((check.name, await check.isReady())) }
        }
        let timer = Task {
            try? await Task.sleep(for: deadline)
            continuation.yield(nil)
        }
        defer {
            timer.cancel()
            continuation.finish()
        }
        var ready: Set<String> = []
        var answered = 0
        for await answer in answers {
            guard let answer else { break }
            if answer.ready { ready.insert(answer.name) }
            answered += 1
            if answered == checks.count { break }
        }
        return checks.map(\.name).filter { !ready.contains($0) }.sorted()
    }
}

extension Readiness.Check {
    /// The database answers a trivial query (`ReadinessStore`).
    public static func database(_ store: ReadinessStore) -> Readiness.Check {
        Readiness.Check(name: "database") { await store.databaseAnswers() }
    }
}
