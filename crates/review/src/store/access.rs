//! Who may use a team's review page: one-time invitations, sessions, revocation.
//!
//! An invitation token and a session id are random 256-bit values; the database
//! keeps only their BLAKE3 hashes, so a copy of it lets nobody in. An invitation is
//! used once, within [`INVITATION_LIFETIME`]; a session lasts
//! [`SESSION_LIFETIME`]; revoking a name ends its sessions and invitations.

use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension};

use super::database::ReviewStore;
use super::lease::now_ms;

/// How long an invitation may wait to be opened.
pub const INVITATION_LIFETIME_MS: i64 = 7 * 24 * 3600 * 1000;
/// How long a session lasts after sign-in.
pub const SESSION_LIFETIME_MS: i64 = 12 * 3600 * 1000;

/// What a person may do: label pairs, or also settle the pairs two reviewers
/// labelled apart.
pub const ROLES: [&str; 2] = ["reviewer", "adjudicator"];

/// A signed-in person, as a session says.
#[derive(Debug, Clone, PartialEq)]
pub struct SignedIn {
    pub name: String,
    pub role: String,
    /// The token every state-changing request of this session must carry.
    pub csrf: String,
}

fn secret() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hashed(secret: &str) -> String {
    blake3::hash(secret.as_bytes()).to_hex().to_string()
}

impl ReviewStore {
    /// A one-time invitation for `name` in `role`: the token to put in its URL.
    pub fn invite(&mut self, name: &str, role: &str) -> Result<String> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            bail!("give a name of 1 to 64 printable characters");
        }
        if !ROLES.contains(&role) {
            bail!("role `{role}`: one of {}", ROLES.join(", "));
        }
        let token = secret();
        self.conn.execute(
            "INSERT INTO invitations (token_hash, name, role, expires) VALUES (?1, ?2, ?3, ?4)",
            params![
                hashed(&token),
                name,
                role,
                now_ms() + INVITATION_LIFETIME_MS
            ],
        )?;
        Ok(token)
    }

    /// Uses an invitation: a new session's id and who it is, or None for a token
    /// that is unknown, used or expired.
    pub fn sign_in(&mut self, token: &str) -> Result<Option<(String, SignedIn)>> {
        let tx = self.conn.transaction()?;
        let invited: Option<(String, String)> = tx
            .query_row(
                "DELETE FROM invitations WHERE token_hash = ?1 AND expires > ?2 RETURNING name, role",
                params![hashed(token), now_ms()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((name, role)) = invited else {
            return Ok(None);
        };
        let (id, csrf) = (secret(), secret());
        tx.execute(
            "INSERT INTO sessions (id_hash, name, role, csrf, expires) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                hashed(&id),
                name,
                role,
                csrf,
                now_ms() + SESSION_LIFETIME_MS
            ],
        )?;
        tx.commit()?;
        Ok(Some((id, SignedIn { name, role, csrf })))
    }

    /// Who the session `id` is, while it lasts.
    pub fn signed_in(&self, id: &str) -> Result<Option<SignedIn>> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, role, csrf FROM sessions WHERE id_hash = ?1 AND expires > ?2",
                params![hashed(id), now_ms()],
                |r| {
                    Ok(SignedIn {
                        name: r.get(0)?,
                        role: r.get(1)?,
                        csrf: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Ends every session and invitation of `name`: how many there were.
    pub fn revoke(&mut self, name: &str) -> Result<usize> {
        let tx = self.conn.transaction()?;
        let ended = tx.execute("DELETE FROM sessions WHERE name = ?1", [name])?
            + tx.execute("DELETE FROM invitations WHERE name = ?1", [name])?;
        tx.commit()?;
        Ok(ended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitation_signs_in_once_and_revoking_ends_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReviewStore::open(&dir.path().join("q.db")).unwrap();
        let token = store.invite("ada", "adjudicator").unwrap();
        assert!(store.sign_in("not-the-token").unwrap().is_none());
        let (id, who) = store.sign_in(&token).unwrap().unwrap();
        assert_eq!(
            (who.name.as_str(), who.role.as_str()),
            ("ada", "adjudicator")
        );
        assert!(store.sign_in(&token).unwrap().is_none(), "used once");
        assert_eq!(store.signed_in(&id).unwrap(), Some(who));
        // Only hashes are stored.
        let stored: String = store
            .conn
            .query_row("SELECT id_hash FROM sessions", [], |r| r.get(0))
            .unwrap();
        assert_ne!(stored, id);
        assert_eq!(store.revoke("ada").unwrap(), 1);
        assert!(store.signed_in(&id).unwrap().is_none());
        assert!(store.invite("bob", "boss").is_err());
    }
}
