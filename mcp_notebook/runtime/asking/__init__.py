"""How a person is asked and shown progress outside a notebook: the Interaction
seam, the terminal, a login, progress as text."""
