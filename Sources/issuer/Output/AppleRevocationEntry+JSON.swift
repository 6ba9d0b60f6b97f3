import IssuerCore

extension AppleRevocationQueue.Entry {
    /// One row of `apple revocations --output json` (docs/cli.md): `state` is `pending` until the
    /// revocation finished, then its outcome. Never the token.
    var json: JSONValue {
        .object([
            "id": .string(id.uuidString.lowercased()), "sub": .string(userID.uuidString.lowercased()), "client_id": .string(clientID),
            "queued_at": .date(createdAt), "attempts": .number(attempts),
            "state": .string(finishedAt == nil ? "pending" : (outcome ?? "done")),
            "next_attempt_at": .date(finishedAt == nil ? nextAttemptAt : nil), "finished_at": .date(finishedAt),
            "outcome": .string(outcome), "last_error": .string(lastError),
        ])
    }
}
