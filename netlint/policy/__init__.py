"""Policy-as-code: organisation rules in YAML. A JSONPath (RFC 9535) selects nodes of the workspace
view, a CEL expression (or a template with parameters) must hold for each. Nothing here is imported
by a plain ``netlint check``: the engine loads it only when the config names policies."""
