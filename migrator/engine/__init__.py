"""The engine: settings, registry, selection, file and Python passes, cache, walk, sessions."""
