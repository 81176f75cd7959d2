"""Names that look like secrets (apiKey, GITHUB_TOKEN, dbPassword), for config and connector rules.

A name is split into words (camelCase, snake_case, kebab-case, SCREAMING_CASE). It looks secret when
a word is secret on its own (password, secret, credential…), when two neighbours form a secret
(api key, private key…), or when its last word is ``token`` — so ``accessToken`` is a secret while
``maxTokens`` and ``tokenLimit`` are not.
"""

from __future__ import annotations

import itertools
import re

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "apikey",
        "apikeys",
        "privatekey",
        "pat",
        "bearer",
    }
)
SECRET_PAIRS = frozenset(
    {
        ("api", "key"),
        ("api", "keys"),
        ("private", "key"),
        ("access", "key"),
        ("signing", "key"),
        ("encryption", "key"),
        ("session", "key"),
        ("client", "secret"),
    }
)
SECRET_LAST_WORDS = frozenset({"token"})


def words(name: str) -> list[str]:
    """The lower-case words of an identifier: ``OPENAI_API_KEY`` → ``["openai", "api", "key"]``."""
    return [w.lower() for w in _WORD.findall(name)]


def secret_word(name: str) -> str | None:
    """The word (or pair of words) that makes ``name`` look like a secret, or None."""
    ws = words(name)
    for w in ws:
        if w in SECRET_WORDS:
            return w
    for pair in itertools.pairwise(ws):
        if pair in SECRET_PAIRS:
            return " ".join(pair)
    if ws and ws[-1] in SECRET_LAST_WORDS:
        return ws[-1]
    return None
