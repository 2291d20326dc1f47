"""What the tests share, one job a module:

- ``peers``: where the real servers are (server-everything, tests/servers) and how to start them.
- ``waiting``: waiting on a condition with a deadline.
- ``processes``: servers in subprocesses, each on a port the OS gave.
- ``kernels``: real Jupyter kernels driven as a frontend drives them.
- ``frontends``: JupyterLab and Notebook 7 in a headless Chromium.
- ``shells``: this process's IPython with the extension loaded.
- ``terminal``: IPython in a pseudo-terminal.
- ``checkout``: a copy of the checkout as a fresh clone has it.
- ``tiers``: the markers that group the slow or tool-bound tests, and what each needs.
"""
