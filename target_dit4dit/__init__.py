"""The DiT4DiT profile: rules, generated files and checks that only make sense for DiT4DiT."""
