/// What a statement answered: its rows (possibly none) and the number of rows it affected.
public struct PostgresResult: Sendable {
    /// In the order the server sent them.
    public let rows: [PostgresRow]
    /// `PQcmdTuples`: rows inserted, updated or deleted; 0 when not applicable.
    public let affectedRows: Int

    /// The only row, or nil when there is none (more than one is a programming error).
    public var single: PostgresRow? { rows.first }
}
