/// One row of a result, copied out of libpq's `PGresult` so it can outlive the connection.
public struct PostgresRow: Sendable {
    /// The column names, shared by every row of one result.
    public let columns: PostgresColumns
    /// Each column's text value, nil for SQL NULL.
    public let values: [String?]

    /// Decodes column `index`; a NULL is an error unless `T` is optional (use `decodeIfPresent`).
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        guard index < values.count else { throw PostgresError.decoding("no column \(index)") }
        guard let text = values[index] else {
            throw PostgresError.decoding("column '\(columns.names[index])' is NULL")
        }
        return try T(postgresText: text)
    }

    /// Decodes the column called `name`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws -> T {
        try decode(type, at: columns.index(of: name))
    }

    /// Decodes column `index`, answering nil for SQL NULL.
    public func decodeIfPresent<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T? {
        guard index < values.count else { throw PostgresError.decoding("no column \(index)") }
        return try values[index].map { try T(postgresText: $0) }
    }

    /// Decodes the column called `name`, answering nil for SQL NULL.
    public func decodeIfPresent<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws -> T? {
        try decodeIfPresent(type, at: columns.index(of: name))
    }
}

/// The column names of a result.
public struct PostgresColumns: Sendable {
    /// In column order, as the server named them (`AS` aliases included).
    public let names: [String]

    func index(of name: String) throws -> Int {
        guard let index = names.firstIndex(of: name) else {
            throw PostgresError.decoding("no column named '\(name)'")
        }
        return index
    }
}
