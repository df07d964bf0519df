"""Authenticity of human turns (docs/authenticity.md): the per-turn record the chat page gathers
and the server checks (record.py), the campaign's paste and copy policy (policy.py), and the
signals computed off the chat path for review (signals.py)."""
