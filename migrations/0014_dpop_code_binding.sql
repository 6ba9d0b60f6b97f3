-- DPoP for the hosted flow (RFC 9449 §10; docs/reference.md, "DPoP"): `dpop_jkt` on the
-- authorization request binds the code to that key's thumbprint; its redemption needs a proof
-- from that key. NULL: the code is not bound (a proof at redemption still binds the session).
ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text;
