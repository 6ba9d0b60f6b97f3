/// Where a store contract runs (docs/design.md, "Modules"; dex's `storage/conformance` habit):
/// each `*Storing` protocol with a contract suite states its promises once, and the suite runs
/// them against the PostgreSQL store and against the in-memory fake the decision tests use, so a
/// fake cannot drift from the store it stands in for.
enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The `*Store` of IssuerStorage, on a freshly migrated database of the test cluster.
    case postgres
    /// The in-memory fake.
    case memory

    var description: String { rawValue }
}
