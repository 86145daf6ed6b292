"""``migrate smoke``: train a migrated DiT4DiT checkout for a few steps on tiny inputs.

Everything here imports its heavy dependencies (torch, diffusers, transformers, DeepSpeed)
inside functions, so the migrator itself never needs them; they come with the ``smoke``
extra. Entry point: ``target_dit4dit.smoke.runner.run_smoke``.
"""
