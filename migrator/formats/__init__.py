"""File formats: sources, notebooks, shell, text lines, requirements, JSON, suppressions."""
