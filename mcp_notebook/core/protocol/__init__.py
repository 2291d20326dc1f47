"""The protocol's rules, sans-IO: versions and error codes, the era and its `_meta`, message
checks, JSON lines, headers, input rounds, tasks, subscriptions, caching hints.
"""
