-- SPEC §2 ISSUER_SECRET: when the operator sets none, one random secret is generated once and
-- kept here, so every issuer process derives the same subkeys. At most one row.
CREATE TABLE server_secret (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    secret     bytea NOT NULL CHECK (octet_length(secret) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
