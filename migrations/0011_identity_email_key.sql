-- Linking by e-mail (docs/reference.md, "Linked identities") compares addresses in one form the
-- issuer defines, never through the database's collation (under a UTF-8 locale lower() folds
-- 'İ' to 'i'): printable ASCII with A-Z lowered, NULL for anything else. The issuer computes the
-- same form for the address it looks up (EmailLinking.comparisonForm); translate() and a
-- code-point range depend on no locale. Generated, so every statement that writes an e-mail
-- keeps it true without repeating the rule.
ALTER TABLE identities ADD COLUMN email_key text GENERATED ALWAYS AS (
    CASE WHEN email ~ '^[\x21-\x7e]+$'
         THEN translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') END
) STORED;
CREATE INDEX identities_email_key ON identities (email_key) WHERE email_verified;
