"""Built-in rules, one small module per rule, grouped by family (see DESIGN.md rule codes)."""
