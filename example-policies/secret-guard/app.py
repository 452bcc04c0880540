"""The secret-guard example policy, written in Python: it stops a call whose
arguments hold what looks like a credential (an API key, a token, a private key),
and withholds a result that holds one, so that no secret passes between the model
and a tool in either direction. It names the kind of secret and where it was, never
the secret itself.

Built into a component by componentize-py (see scripts/build-guests.sh);
`wit_world` is the module componentize-py generates from wit/world.wit.
"""

import re

from wit_world import exports
from wit_world.exports.policy import Scalar_Text, Verdict_Allow, Verdict_Deny

# What a secret looks like: (what it is, its pattern). Prefixes the issuers document.
_SECRETS = [
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("a GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b")),
    ("an OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    ("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("a Stripe secret key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{20,}")),
    ("a private key", re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----")),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
]


def _found(fields):
    """(what, where) of the first secret among the text fields, or None."""
    for field in fields:
        if not isinstance(field.value, Scalar_Text):
            continue
        for what, pattern in _SECRETS:
            if pattern.search(field.value.value):
                return what, field.path or "the value"
    return None


class Policy(exports.Policy):
    def before(self, call):
        found = _found(call.arguments)
        if found is None:
            return Verdict_Allow()
        what, where = found
        return Verdict_Deny(
            f"The call of '{call.tool}' was not run: its argument at {where} holds what looks like "
            f"{what}. Never pass credentials to tools; call again without it."
        )

    def after(self, call, returned):
        found = _found(returned)
        if found is None:
            return Verdict_Allow()
        what, where = found
        return Verdict_Deny(
            f"The result of '{call.tool}' was withheld: it held what looks like {what} (at {where})."
        )
