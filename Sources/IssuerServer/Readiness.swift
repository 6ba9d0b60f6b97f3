import Postgres

/// What `/readyz` checks (SPEC §3.9): each named check must pass for the process to take
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

    /// The names of the checks that fail; empty when ready.
    func failing() async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            for check in checks {
                group.addTask { await check.isReady() ? nil : check.name }
            }
            var failing: [String] = []
            for await name in group {
                if let name { failing.append(name) }
            }
            return failing.sorted()
        }
    }
}

extension Readiness.Check {
    /// The database answers a trivial query. The pool fails fast while the server is down, and
    /// gives up at its deadline when the server is silent (SPEC §7), so this never hangs.
    public static func database(_ pool: ConnectionPool) -> Readiness.Check {
        Readiness.Check(name: "database") {
            (try? await pool.query("SELECT 1")) != nil
        }
    }
}
