-- Google's account-protection events (docs/reference.md, "Google's account-protection events").

-- One table of event ids applied once, for every sender: Apple's notifications (sender 'apple')
-- and Google's security event tokens (sender 'google'). A `jti` is unique to its sender only
-- (RFC 8417 §2.2), so the key is the pair.
ALTER TABLE apple_notifications RENAME TO received_events;
ALTER TABLE received_events ADD COLUMN sender text NOT NULL DEFAULT 'apple';
ALTER TABLE received_events ALTER COLUMN sender DROP DEFAULT;
ALTER TABLE received_events DROP CONSTRAINT apple_notifications_pkey;
ALTER TABLE received_events ADD PRIMARY KEY (sender, jti);
ALTER INDEX apple_notifications_received_at RENAME TO received_events_received_at;

-- What Google last said about an account, kept on the identity it concerns and gone with it.
-- `disabled_at`: Google's `account-disabled` (the token's `iat`), with its `reason` when it gave
-- one; both cleared by `account-enabled`. A `hijacking` reason refuses sign-in with the identity
-- in the sign-in statement itself. `status_changed_at`: the `iat` of the latest of those two
-- events applied, so an older one delivered late changes nothing.
ALTER TABLE identities ADD COLUMN disabled_at timestamptz;
ALTER TABLE identities ADD COLUMN disabled_reason text;
ALTER TABLE identities ADD COLUMN status_changed_at timestamptz;
-- Google's `account-credential-change-required`: recorded for operators, nothing refused.
ALTER TABLE identities ADD COLUMN credential_change_required_at timestamptz;
ALTER TABLE identities ADD CONSTRAINT identities_disabled_reason_needs_disabled_at
    CHECK (disabled_reason IS NULL OR disabled_at IS NOT NULL);
