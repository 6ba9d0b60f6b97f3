-- Account deletion, Apple token custody and Apple's server-to-server notifications
-- (SPEC §3.8, §3.10).

-- SPEC §3.10 email-disabled / email-enabled: whether Apple's private relay still forwards to the
-- user. NULL: Apple never said. The time is Apple's `event_time`, so an older event delivered
-- late never overwrites a newer one.
ALTER TABLE users ADD COLUMN email_forwarding text CHECK (email_forwarding IN ('enabled', 'disabled'));
ALTER TABLE users ADD COLUMN email_forwarding_changed_at timestamptz;

-- Apple refresh tokens held for a user, one per Apple client_id (bundle ID or Services ID), only
-- as AES-GCM ciphertext under an HKDF subkey of the server secret, the user id authenticated with
-- it, so a row copied to another user does not decrypt. Gone with the user.
CREATE TABLE apple_tokens (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id  text NOT NULL,
    sealed     bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, client_id)
);

-- Apple authorization codes whose redemption failed at sign-in, retried by any process's worker
-- while the code lives (5 minutes). Sealed like the tokens; gone with the user.
CREATE TABLE apple_code_redemptions (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id       text NOT NULL,
    redirect_uri    text,
    sealed_code     bytea NOT NULL,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text
);
CREATE INDEX apple_code_redemptions_due ON apple_code_redemptions (next_attempt_at);

-- Apple refresh tokens to revoke at Apple after the account was deleted. `user_id` is the deleted
-- user's internal id (no foreign key: the user is gone), kept because the ciphertext is bound to
-- it. A claimed row's `next_attempt_at` is pushed past the send's deadline, so two processes never
-- send one revocation at once. Once finished the ciphertext is dropped and the outcome kept.
CREATE TABLE apple_revocations (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL,
    client_id       text NOT NULL,
    sealed          bytea,
    created_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    finished_at     timestamptz,
    outcome         text CHECK (outcome IN ('revoked', 'already_invalid')),
    CHECK ((finished_at IS NULL) = (sealed IS NOT NULL))
);
CREATE INDEX apple_revocations_due ON apple_revocations (next_attempt_at) WHERE finished_at IS NULL;

-- SPEC §3.8: what is kept of a deleted account: its internal id, when, and why. Nothing personal.
CREATE TABLE account_deletions (
    user_id    uuid PRIMARY KEY,
    deleted_at timestamptz NOT NULL,
    reason     text NOT NULL
);

-- SPEC §3.10: Apple may deliver an event twice; each `jti` is applied once.
CREATE TABLE apple_notifications (
    jti         text PRIMARY KEY,
    event_type  text NOT NULL,
    received_at timestamptz NOT NULL
);
CREATE INDEX apple_notifications_received_at ON apple_notifications (received_at);
