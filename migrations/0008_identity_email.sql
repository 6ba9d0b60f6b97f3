-- Each identity's own e-mail, as its provider last reported it, for the user's list of linked
-- identities (GET /account); and at most one identity per provider per user, so that linking a
-- second account of one provider is refused by the database however requests race.
ALTER TABLE identities ADD COLUMN email text, ADD COLUMN email_verified boolean;
CREATE UNIQUE INDEX identities_one_per_provider ON identities (user_id, provider);
