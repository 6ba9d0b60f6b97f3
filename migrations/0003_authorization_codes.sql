-- The hosted Authorization Code flow (SPEC §3.7): one-time codes, stored only as SHA-256 hashes,
-- bound to the client, its exact redirect URI and its PKCE challenge (RFC 7636 §4.4), and to the
-- session the sign-in opened. `redeemed_at` makes a code single-use; a second use revokes the
-- session (RFC 6749 §4.1.2, RFC 9700 §4.2.4).
CREATE TABLE authorization_codes (
    code_hash      bytea PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    session_id     uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    client_id      text NOT NULL,
    redirect_uri   text NOT NULL,
    code_challenge text NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    redeemed_at    timestamptz
);
CREATE INDEX authorization_codes_session_id ON authorization_codes (session_id);
CREATE INDEX authorization_codes_expires_at ON authorization_codes (expires_at);
