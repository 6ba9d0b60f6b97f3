-- Apple team transfer (`issuer apple transfer`): the transfer identifier Apple gave an Apple
-- identity for the receiving team, that team, and when the identity was re-keyed to its new
-- team-scoped `sub`. A transfer identifier names one identity.
ALTER TABLE identities ADD COLUMN transfer_sub text, ADD COLUMN transfer_target text, ADD COLUMN rekeyed_at timestamptz;
CREATE UNIQUE INDEX identities_transfer_sub ON identities (provider, transfer_sub) WHERE transfer_sub IS NOT NULL;
