"""Output: JSON/Markdown reports, SARIF, diffs and the rule docs."""
