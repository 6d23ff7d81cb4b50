-- The address the issuer said it verified when the identity was linked (apple, google, issuers trusted for
-- addresses), so an address proof can keep an identity whose issuer vouched for that very address.
ALTER TABLE identities ADD COLUMN verified_email TEXT;
