"""``netlint server``: a language server (LSP over stdio) with netlint's diagnostics, fixes,
suppressions, hover docs and completion. Needs the ``lsp`` extra (pygls): ``pip install 'netlint[lsp]'``.

Modules: :mod:`.protocol` (pygls wiring), :mod:`.store` (buffers, warm cache, dependencies),
:mod:`.diagnostics`, :mod:`.actions`, :mod:`.hover`, :mod:`.completion`, :mod:`.knowledge` (registries).
"""
