-- Identities from before 0008 carry no e-mail of their own. Until then each user had exactly one
-- identity, whose provider reported the user's e-mail: it is that identity's.
UPDATE identities i SET email = u.email, email_verified = u.email_verified
FROM users u
WHERE u.id = i.user_id AND i.email IS NULL
  AND (SELECT count(*) FROM identities o WHERE o.user_id = i.user_id) = 1;
