-- A provider's data deletion requests (docs/reference.md, "Facebook's callbacks"): each recorded
-- under the confirmation code the provider was answered with, so that the status page it links to
-- can say when the request was received. Nothing personal: no user id, no provider's user id.
CREATE TABLE data_deletion_requests (
    code        text PRIMARY KEY,
    provider    text NOT NULL,
    received_at timestamptz NOT NULL
);
