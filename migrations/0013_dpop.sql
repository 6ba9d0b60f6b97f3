-- DPoP (RFC 9449; docs/reference.md, "DPoP"). A session signed in with a proof is bound to the
-- RFC 7638 thumbprint of the proof's key: every refresh of it needs a proof from that key, which
-- the rotation statement checks before it touches the token.
ALTER TABLE sessions ADD COLUMN dpop_jkt text;

-- The jti replay memory every process shares: a proof's (key, jti) is kept for the proof's
-- lifetime (its iat window), with the hash of the proof itself so that an identical resend of a
-- refresh within the grace (the retry after a lost answer) is told apart from another proof
-- reusing the jti. The session janitor deletes expired rows.
CREATE TABLE dpop_proofs (
    jkt        text NOT NULL,
    jti        text NOT NULL,
    proof_hash bytea NOT NULL,
    seen_at    timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (jkt, jti)
);
CREATE INDEX dpop_proofs_expiry ON dpop_proofs (expires_at);
