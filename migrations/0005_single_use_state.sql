-- The hosted flow's sealed state is single-use (docs/reference.md, "Hosted sign-in"): the
-- callback that signs in records the state's hash in the same statement, so a second callback
-- with the same state fails on this key and signs nobody in. Rows live as long as the state.
CREATE TABLE spent_authorization_states (
    state_hash bytea PRIMARY KEY CHECK (octet_length(state_hash) = 32),
    expires_at timestamptz NOT NULL
);
CREATE INDEX spent_authorization_states_expires_at ON spent_authorization_states (expires_at);
