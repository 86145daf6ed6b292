"""The rule contract (`rule`), the profile contract (`profile`) and the rule bases built on them."""
