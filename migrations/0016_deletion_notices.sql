-- Providers told that an account with their identity was deleted (docs/reference.md, "Account
-- deletion" and "Facebook"): Facebook's permissions removed with DELETE /{user-id}/permissions.
-- Queued in the deletion's own transaction and sent in the background with backoff, as Apple's
-- revocations are. The provider's user id is kept only while the notice is pending. A notice whose
-- identity is back (the person signed in with it again before it was sent) is superseded, not sent.
CREATE TABLE deletion_notices (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL,
    provider        text NOT NULL,
    subject         text,
    created_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    finished_at     timestamptz,
    outcome         text CHECK (outcome IN ('done', 'already_gone', 'superseded')),
    CHECK ((finished_at IS NULL) = (subject IS NOT NULL))
);
CREATE INDEX deletion_notices_due ON deletion_notices (next_attempt_at) WHERE finished_at IS NULL;
