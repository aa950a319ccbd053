"""Accounts: usernames with passwords (argon2id) or passkeys (WebAuthn), sessions, profiles, and the one
predicate that ranked play asks (``ranked.is_account``). Keys and rules: ``docs/accounts.md``.

The extension module is ``golfrace.accounts.routes`` (HTTP under ``/api/account/…``, startup); the websocket
``hello`` asks ``hello.identify`` which player a connection is.
"""
