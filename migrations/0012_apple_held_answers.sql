-- Apple token custody (docs/reference.md, "Apple token custody"): Apple's answer to a redeemed
-- code whose `id_token` could not be verified because Apple's keys could not be fetched. A fault
-- of ours is not a mismatch, so the answer is neither kept nor revoked: it is held here until the
-- keys are back, then verified as of when it was received and kept (its `sub` is the user's Apple
-- account) or revoked at Apple (it is not, or it does not verify). The refresh token and the
-- `id_token` are one AES-GCM box under a subkey of the server secret, bound to the user id.
-- No foreign key: an answer held for a user deleted meanwhile must still be revoked, and its box
-- opens only with the id it was sealed for. A claimed row's `next_attempt_at` is pushed past the
-- claim, so two processes never settle one answer at once.
CREATE TABLE apple_held_answers (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL,
    client_id       text NOT NULL,
    sealed_answer   bytea NOT NULL,
    received_at     timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text
);
CREATE INDEX apple_held_answers_due ON apple_held_answers (next_attempt_at);
