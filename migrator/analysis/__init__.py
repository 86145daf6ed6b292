"""Tree and name analysis helpers over LibCST and the stdlib `ast`; they know nothing of rules."""
