-- Users, their provider identities, sign-in sessions and refresh tokens (SPEC §3.1, §4.3).

-- The internal user: its id is the `sub` of our tokens, never a provider's subject.
CREATE TABLE users (
    id               uuid PRIMARY KEY,
    email            text,
    email_verified   boolean,
    is_private_email boolean,
    given_name       text,
    family_name      text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- One row per (provider, provider subject): the same Apple `sub` always maps to the same user.
-- The foreign key is deferred so that the sign-in statement can claim the identity first and
-- create the user after, which is what makes concurrent first sign-ins create one user.
CREATE TABLE identities (
    provider        text NOT NULL,
    subject         text NOT NULL,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    audience        text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, subject)
);
CREATE INDEX identities_user_id ON identities (user_id);

-- One sign-in. Its refresh tokens rotate; revoking it stops all of them and its access tokens.
CREATE TABLE sessions (
    id             uuid PRIMARY KEY,
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id      text NOT NULL,
    scope          text NOT NULL,
    nonce          text,
    auth_time      timestamptz NOT NULL,
    created_at     timestamptz NOT NULL,
    last_used_at   timestamptz NOT NULL,
    -- auth_time + ISSUER_SESSION_MAX_AGE: no refresh extends a session past this.
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text,
    user_agent     text,
    client_ip      text
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Refresh tokens, stored only as SHA-256 hashes. `parent_hash` and `generation` record the
-- lineage; `spent_at` marks a token that has been rotated, `successor_hash` what it became.
CREATE TABLE refresh_tokens (
    token_hash     bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    session_id     uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_hash    bytea,
    generation     integer NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    spent_at       timestamptz,
    successor_hash bytea
);
CREATE INDEX refresh_tokens_session_id ON refresh_tokens (session_id);
CREATE INDEX refresh_tokens_expires_at ON refresh_tokens (expires_at);
