"""The protocol core: JSON-RPC, the MCP session, transports, config, naming, validation.

Nothing here imports IPython, ipywidgets or pandas.
"""
