import Foundation
import IssuerCore
import Postgres

/// Records a provider sign-in: finds or creates the user by (provider, subject), refreshes its
/// profile, opens a session and stores the session's first refresh token (as a hash), all in
/// **one** statement, so one database round trip per sign-in (docs/design.md, "PostgreSQL through libpq").
///
/// Concurrency is decided by the database: the identity row is claimed first with
/// `INSERT … ON CONFLICT DO UPDATE`, so concurrent first sign-ins of one Apple `sub` serialize
/// on its primary key and all see the same user id; the user row follows (its foreign key is
/// deferred to allow that order).
///
/// An identity that Google disabled for hijacking (docs/reference.md, "Google's account-protection events") is refused by the
/// same statement: its claim updates no row, so nothing follows it and no row comes back.
public struct SignInStore: Sendable {
    private let pool: ConnectionPool
    private let clock: any WallClock
    private let refreshTokenTTL: TimeInterval
    private let sessionMaxAge: TimeInterval
    private let emailLinking: EmailLinking

    /// Lifetimes: `ISSUER_REFRESH_TOKEN_TTL` and `ISSUER_SESSION_MAX_AGE` (docs/reference.md,
    /// "Configuration"); `emailLinking`: which providers' verified addresses join a first sign-in
    /// to an existing user (docs/reference.md, "Linked identities").
    public init(
        pool: ConnectionPool, clock: any WallClock, refreshTokenTTL: Duration, sessionMaxAge: Duration,
        emailLinking: EmailLinking = .off
    ) {
        self.pool = pool
        self.clock = clock
        self.refreshTokenTTL = refreshTokenTTL.timeInterval
        self.sessionMaxAge = sessionMaxAge.timeInterval
        self.emailLinking = emailLinking
    }

    /// The identity, user and session, shared by both forms of sign-in; parameters $1 to $19
    /// ($19: the DPoP key thumbprint the session is bound to, or NULL; docs/reference.md, "DPoP")
    /// (`parameters(_:)`). With $18 false the name ($8, $9) is stored only when this sign-in
    /// creates the user (`SignInRecord.overwritesName`). An existing identity disabled for
    /// hijacking is not claimed, so the statement writes nothing and returns no row (`IdentityDisabled`).
    private static let signInSteps = """
        WITH identity AS (
            INSERT INTO identities AS i (provider, subject, user_id, audience, created_at, last_sign_in_at, email, email_verified)
            VALUES ($2, $3, $1, $4, $14, $14, $5, $6)
            ON CONFLICT (provider, subject) DO UPDATE
                SET last_sign_in_at = EXCLUDED.last_sign_in_at, audience = EXCLUDED.audience,
                    -- The e-mail and its verified flag are one fact: a token with an e-mail
                    -- replaces both, so one address never carries another's verification.
                    email = COALESCE(EXCLUDED.email, i.email),
                    email_verified = CASE WHEN EXCLUDED.email IS NULL THEN i.email_verified ELSE EXCLUDED.email_verified END
                WHERE i.disabled_reason IS DISTINCT FROM 'hijacking'
            RETURNING user_id
        ), account AS (
            INSERT INTO users AS u (id, email, email_verified, is_private_email, given_name, family_name, created_at, updated_at)
            SELECT user_id, $5, $6, $7, $8, $9, $14, $14 FROM identity
            ON CONFLICT (id) DO UPDATE SET
                email = COALESCE(EXCLUDED.email, u.email),
                email_verified = CASE WHEN EXCLUDED.email IS NULL THEN u.email_verified ELSE EXCLUDED.email_verified END,
                is_private_email = CASE WHEN EXCLUDED.email IS NULL THEN u.is_private_email ELSE EXCLUDED.is_private_email END,
                given_name = CASE WHEN $18::boolean THEN COALESCE(EXCLUDED.given_name, u.given_name) ELSE u.given_name END,
                family_name = CASE WHEN $18::boolean THEN COALESCE(EXCLUDED.family_name, u.family_name) ELSE u.family_name END,
                updated_at = EXCLUDED.updated_at
            RETURNING id, email, email_verified, given_name, family_name
        ), session AS (
            INSERT INTO sessions (id, user_id, client_id, scope, nonce, auth_time, created_at, last_used_at, expires_at, user_agent, client_ip, provider, dpop_jkt)
            SELECT $10, id, $11, $12, $13, $14, $14, $14, $15, $16, $17, $2, $19::text FROM account
            RETURNING id
        )
        """

    /// The native sign-in: the session's first refresh token ($20 hash, $21 expiry) in the same statement.
    private static let refreshTokenStatement = signInSteps + """
        , token AS (
            INSERT INTO refresh_tokens (token_hash, session_id, generation, created_at, expires_at)
            SELECT $20, id, 0, $14, $21 FROM session
            RETURNING session_id
        )
        SELECT account.id AS user_id, account.email, account.email_verified, account.given_name, account.family_name,
               token.session_id
        FROM account, token
        """

    /// The hosted flow's sign-in (docs/reference.md, "Hosted sign-in"): instead of a refresh token, a one-time code ($20
    /// hash, $21 expiry) bound to the client, its redirect URI ($22) and PKCE challenge ($23);
    /// the refresh token is issued when the code is redeemed. The sealed state is spent in the
    /// same statement ($24 its hash, $25 its expiry): a second use violates the key, nothing is written. $26: the
    /// DPoP key thumbprint the code is bound to, or NULL (docs/reference.md, "DPoP").
    private static let codeStatement = signInSteps + """
        , code AS (
            INSERT INTO authorization_codes (code_hash, session_id, client_id, redirect_uri, code_challenge, created_at, expires_at, dpop_jkt)
            SELECT $20, id, $11, $22, $23, $14, $21, $26::text FROM session
            RETURNING session_id
        ), spent AS (
            INSERT INTO spent_authorization_states (state_hash, expires_at) VALUES ($24, $25)
        )
        SELECT account.id AS user_id, account.email, account.email_verified, account.given_name, account.family_name,
               code.session_id
        FROM account, code
        """

    /// Signs the user in through the hosted flow and stores a one-time authorization code for
    /// `authorization` (hashed, valid `codeLifetime`); answers the code's value, which exists
    /// only in the redirect to the client.
    /// - Parameters:
    ///   - stateHash: SHA-256 of the sealed state the callback carried, spent by this sign-in.
    ///   - stateExpiresAt: when that state would have expired; its row may go then.
    /// - Throws: `StateAlreadySpent` when the state signed someone in before; `IdentityDisabled`
    ///   when the provider disabled the identity; `PostgresError` otherwise.
    public func signIn(
        _ request: SignInRequest, authorization: AuthorizationRequest, codeLifetime: Duration,
        stateHash: [UInt8], stateExpiresAt: Date
    ) async throws -> (signIn: SignIn, code: AuthorizationCode) {
        let code = AuthorizationCode.generate()
        do {
            let signIn = try await record(request) { now, _ in
                .authorizationCode(
                    hash: code.hash, expiresAt: now.addingTimeInterval(codeLifetime.timeInterval), redirectURI: authorization.redirectURI,
                    codeChallenge: authorization.codeChallenge, stateHash: stateHash, stateExpiresAt: stateExpiresAt,
                    dpopJKT: authorization.dpopJKT)
            }
            return (signIn, code)
        } catch let error as PostgresError where error.sqlState == .uniqueViolation && error.constraint == "spent_authorization_states_pkey" {
            throw StateAlreadySpent()
        }
    }

    /// Whether a hosted flow's state signed someone in already: asked before a callback spends
    /// a provider's code on a replay. The sign-in statement still decides, atomically.
    public func isSpent(stateHash: [UInt8]) async throws -> Bool {
        try await pool.query("SELECT EXISTS (SELECT 1 FROM spent_authorization_states WHERE state_hash = $1) AS spent", [stateHash])
            .single?.decode(Bool.self, column: "spent") ?? false
    }

    /// Signs the user in; throws `IdentityDisabled`, or `PostgresError` (the caller maps
    /// unavailability to 503).
    public func signIn(_ request: SignInRequest) async throws -> SignIn {
        let refreshToken = RefreshToken.generate()
        var signIn = try await record(request) { now, sessionExpiry in
            .refreshToken(hash: refreshToken.hash, expiresAt: min(now.addingTimeInterval(refreshTokenTTL), sessionExpiry))
        }
        signIn.refreshToken = refreshToken
        return signIn
    }

    /// Records the sign-in with what `yields` makes of its time and the session's end, in one statement.
    private func record(_ request: SignInRequest, yields: (_ now: Date, _ sessionExpiry: Date) -> SignInRecord.Yield) async throws -> SignIn {
        let now = clock.now
        let sessionExpiry = now.addingTimeInterval(sessionMaxAge)
        let identity = request.identity
        // docs/reference.md, "Apple team transfer": a `sub` the receiving team gave, whose
        // `transfer_sub` an export stored, re-keys that identity before it is looked up.
        if let transferSub = identity.transferSub {
            _ = try await AppleTransferStore(pool: pool, provider: identity.provider)
                .rekey(transferSub: transferSub, to: identity.subject, email: nil, now: now)
        }
        var joined: UUID?
        if let address = emailLinking.linkingAddress(of: identity) { joined = try await userWithVerifiedEmail(address, identity) }
        let record = SignInRecord(
            request: request, userID: joined ?? UUID(), sessionID: UUID(), now: now, sessionExpiresAt: sessionExpiry,
            yields: yields(now, sessionExpiry))
        // Every step inserts or updates one row, but for the claim of a disabled identity: no row
        // means that refusal, and no user, session or token was written.
        guard let row = try await pool.query(Self.statement(record.yields), Self.parameters(record)).single else { throw IdentityDisabled() }
        return SignIn(
            user: try UserProfile(row: row), sessionID: try row.decode(column: "session_id"), authTime: now,
            sessionExpiresAt: sessionExpiry, joinedByVerifiedEmail: joined != nil)
    }

    private static func statement(_ yields: SignInRecord.Yield) -> String {
        switch yields {
        case .refreshToken: refreshTokenStatement
        case .authorizationCode: codeStatement
        }
    }

    /// The statement's parameters, in the order of its `$n`: `signInSteps`' $1 to $19, then the yield's.
    static func parameters(_ record: SignInRecord) -> [any PostgresEncodable] {
        let request = record.request
        let identity = request.identity
        let steps: [any PostgresEncodable] = [
            record.userID, identity.provider, identity.subject, identity.audience,                       // $1 to $4
            identity.email, identity.emailVerified, identity.isPrivateEmail,                             // $5 to $7
            request.givenName, request.familyName,                                                       // $8, $9
            record.sessionID, request.clientID, request.scopes.joined(separator: " "), request.nonce,     // $10 to $13
            record.now, record.sessionExpiresAt, request.userAgent, request.clientIP,                    // $14 to $17
            record.overwritesName,                                                                       // $18
            request.dpopThumbprint,                                                                      // $19
        ]
        switch record.yields {
        case .refreshToken(let hash, let expiresAt):
            return steps + [hash, expiresAt]                                                             // $20, $21
        case .authorizationCode(let hash, let expiresAt, let redirectURI, let codeChallenge, let stateHash, let stateExpiresAt, let dpopJKT):
            return steps + [hash, expiresAt, redirectURI, codeChallenge, stateHash, stateExpiresAt, dpopJKT] // $20 to $26
        }
    }

    /// docs/reference.md, "Linked identities": the one existing user a first sign-in of
    /// `identity` joins by `address` (`EmailLinking.linkingAddress`), matched only among the
    /// verified addresses of providers trusted for e-mail. Nil when the identity exists already,
    /// no user or more than one has the address, or that user already has an identity of this
    /// provider.
    private func userWithVerifiedEmail(_ address: String, _ identity: ExternalIdentity) async throws -> UUID? {
        try await pool.query("""
            SELECT CASE WHEN EXISTS (SELECT 1 FROM identities WHERE provider = $2 AND subject = $3) THEN NULL ELSE (
                SELECT min(user_id::text)::uuid FROM identities
                WHERE email_key = $1 AND email_verified AND provider = ANY (string_to_array($4, ','))
                HAVING count(DISTINCT user_id) = 1
                   AND bool_and(user_id NOT IN (SELECT user_id FROM identities WHERE provider = $2))) END AS user_id
            """, [address, identity.provider, identity.subject, emailLinking.trustedProviders.sorted().joined(separator: ",")]
        ).single?.decodeIfPresent(UUID.self, column: "user_id")
    }
}

extension SignInStore: SignInStoring, HostedSignInStoring {}
