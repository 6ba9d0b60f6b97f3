-- Which provider a session signed in with, for the user's list of signed-in devices
-- (GET /account/sessions). Sessions from before this migration have none.
ALTER TABLE sessions ADD COLUMN provider text;
